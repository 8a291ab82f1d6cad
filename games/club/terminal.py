"""A club game's settled round in one line, for the demo's terminal (the registry's ``terminal`` part).

Amounts are the house's: ``pays 15`` / ``takes 20`` for a box, ``house +5`` for a round. In a round
of duels (club-21-36) each box shows the banker's cards of its own duel and their total.
"""

from __future__ import annotations

from controller.hand import GameOutcome, Hand
from controller.money import dealer_words, house_text
from controller.round import VOID_REASON_TEXT, Round

from .outcomes import ClubOutcome

# The club games' outcomes in their own words (the amount follows: pays / takes).
_MARKS: dict[GameOutcome, str] = {ClubOutcome.NATURAL: "natural", ClubOutcome.BANKER_BUST: "banker bust", ClubOutcome.FOLD: "fold",
          ClubOutcome.WITHDRAWN: "withdrawn", ClubOutcome.RETURNED: "returned", ClubOutcome.BUST: "bust",
          ClubOutcome.SURRENDER: "surrender"}


def _marks(hand: Hand) -> list[str]:
    return ["double"] * hand.doubled + ([_MARKS[hand.outcome]] if hand.outcome in _MARKS else [])


def _total(hand: Hand) -> str:
    """A club hand's total by its pack's values, or ``bust`` over 21."""
    return "bust" if hand.hard > 21 else str(hand.total)


def _duels(r: Round) -> bool:
    """A round of duels (club-21-36): each box keeps the banker's hand of its own duel."""
    return any(getattr(box, "banker", None) is not None for box in r.boxes)


class ClubTerminal:
    """A club game's round lines."""

    def round_line(self, r: Round, dealer_title: str = "Banker") -> str:
        """One line for a settled round: the banker, every hand with its marks, and the house's result.

        In a round of duels each box shows the banker's cards of its own duel and their total
        (``box 1 9S TS vs banker KS 9H (19) takes 10``), never his cards of every duel run together;
        a void round says why (``round 8 (VOID: the pack ran out): ...``).
        """
        d = r.dealer
        duels = _duels(r)
        title = dealer_title.lower()
        void = ""
        if r.voided:
            reason = r.void_reason
            void = f" (VOID: {VOID_REASON_TEXT[reason]})" if reason is not None else " (VOID)"
        # A round of duels has no one hand of the banker's to head it: each duel shows its own below.
        parts = [f"round {r.number}{void}"] if duels else \
            [f"round {r.number}{void}: {title} {' '.join(c.code for c in d.cards)} ({_total(d)})"]
        for box in r.boxes:
            hands = []
            for hand in box.hands:
                net = hand.net if hand.net is not None else 0
                words = [" ".join(c.code for c in hand.cards), *_marks(hand), dealer_words(net)]
                duel = getattr(box, "banker", None)  # club-21-36: the banker's hand in this box's duel
                if duel is not None and duel.cards:
                    words.insert(1, f"vs {title} {' '.join(c.code for c in duel.cards)} ({_total(duel)})")
                hands.append(" ".join(w for w in words if w))
            text = f"box {box.number} " + (("split: " + " | ".join(hands)) if len(box.hands) > 1 else hands[0])
            if r.voided:
                text += " (void)"
            parts.append(text)
        parts.append(f"house {house_text(-r.net())}")
        if duels:
            return parts[0] + ": " + "; ".join(parts[1:])
        return "; ".join(parts)


TERMINAL = ClubTerminal()
