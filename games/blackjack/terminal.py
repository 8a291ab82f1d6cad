"""Blackjack's settled round in one line, for the demo's terminal (the registry's ``terminal`` part).

Amounts are the house's: ``pays 15`` / ``takes 20`` for a box, ``house +5`` for a round.
"""

from __future__ import annotations

from controller.hand import Hand
from controller.money import dealer_words, house_text, money
from controller.round import VOID_REASON_TEXT, Round

from .outcomes import BlackjackOutcome


def _marks(hand: Hand) -> list[str]:
    marks = []
    if hand.is_blackjack:
        marks.append("BJ")
    if hand.doubled:
        marks.append("double")
    if hand.outcome is BlackjackOutcome.SURRENDER:
        marks.append("surrender")
    elif hand.outcome is BlackjackOutcome.EVEN_MONEY:
        marks.append("even money")
    elif hand.outcome is BlackjackOutcome.BUST:
        marks.append("bust")
    elif hand.outcome is BlackjackOutcome.THREE_SEVENS:
        marks.append("three sevens")
    return marks


class BlackjackTerminal:
    """Blackjack's round lines."""

    def round_line(self, r: Round, dealer_title: str = "Dealer") -> str:
        """One line for a settled round: the dealer, every hand with its marks, the insurance, the house's result.

        ``round 7: dealer AS KD (BJ); box 2 9H 9D split: 9H 2C double takes 20 | 9D TS pays 10;
        box 3 insured 5 pays 10; house +10``; a void round says why (``round 8 (VOID: ...)``).
        """
        d = r.dealer
        title = dealer_title.lower()
        if d.is_blackjack:
            dealer_total = "BJ"
        elif d.is_bust:
            dealer_total = "bust"
        else:
            dealer_total = str(d.total)
        void = ""
        if r.voided:
            reason = r.void_reason
            void = f" (VOID: {VOID_REASON_TEXT[reason]})" if reason is not None else " (VOID)"
        parts = [f"round {r.number}{void}: {title} {' '.join(c.code for c in d.cards)} ({dealer_total})"]
        for box in r.boxes:
            hands = []
            for hand in box.hands:
                net = hand.net if hand.net is not None else 0
                words = [" ".join(c.code for c in hand.cards), *_marks(hand), dealer_words(net)]
                hands.append(" ".join(w for w in words if w))
            text = f"box {box.number} " + (("split: " + " | ".join(hands)) if len(box.hands) > 1 else hands[0])
            if box.insurance is not None:
                text += f"; insured {money(box.insurance)} {dealer_words(box.insurance_net or 0)}"
            if r.voided:
                text += " (void)"
            parts.append(text)
        parts.append(f"house {house_text(-r.net())}")
        return "; ".join(parts)


TERMINAL = BlackjackTerminal()
