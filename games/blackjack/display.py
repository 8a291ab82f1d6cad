"""What blackjack's box displays show (the registry's ``display`` part): each box's hands, the dealer's hand.

display/ never imports the engine; `tablectl.display_views` asks this part for the felt and adds what
every game's displays say alike (the table's messages).
"""

from __future__ import annotations

from controller.engine import Table
from controller.hand import GameOutcome, Hand, Outcome
from controller.money import from_cents
from controller.phase import PLAY, Phase
from display.model import BoxView, DealerView, HandOutcome, HandView

from .outcomes import BlackjackOutcome

_OUTCOMES: dict[GameOutcome, HandOutcome] = {
    Outcome.WIN: HandOutcome.WIN, BlackjackOutcome.BLACKJACK: HandOutcome.WIN, BlackjackOutcome.EVEN_MONEY: HandOutcome.WIN,
    BlackjackOutcome.THREE_SEVENS: HandOutcome.WIN, Outcome.LOSE: HandOutcome.LOSE, BlackjackOutcome.BUST: HandOutcome.LOSE,
    Outcome.PUSH: HandOutcome.PUSH, Outcome.VOID: HandOutcome.PUSH,
}


def _hand(hand: Hand, in_play: bool) -> HandView:
    n = len(hand.cards)
    soft = hand.soft if n else None
    surrendered = hand.outcome is BlackjackOutcome.SURRENDER
    return HandView(
        card_count=n,
        hard_total=hand.hard,
        soft_total=soft,
        is_blackjack=hand.is_blackjack,
        is_bust=hand.is_bust,
        doubled=hand.doubled,
        surrendered=surrendered,
        in_play=in_play,
        done=hand.done,
        outcome=_OUTCOMES.get(hand.outcome) if hand.outcome is not None and not surrendered else None,
    )


class BlackjackDisplay:
    """Blackjack on the box displays: each box's hands and totals, the dealer's up card, total and hole card."""

    def felt(self, table: Table, *, show_settled: bool = True) -> tuple[tuple[BoxView, ...], DealerView]:
        """Every box's display and the dealer's, now.

        Between rounds the settled round stays (each box's payout, the dealer's round total)
        until the next round's first card, unless ``show_settled`` is False (its time is up).
        """
        r = table.round
        phase = table.phase
        settled = table.previous if r is None and show_settled else None
        in_players = phase in PLAY
        by_number: dict[int, BoxView] = {}
        if r is not None:
            for bi, box in enumerate(r.boxes):
                hands = tuple(_hand(h, in_players and bi == r.box_i and hi == r.hand_i)
                              for hi, h in enumerate(box.hands))
                by_number[box.number] = BoxView(box.number, active=True, hands=hands)
        elif settled is not None:
            for box in settled.boxes:
                hands = tuple(_hand(h, False) for h in box.hands)
                by_number[box.number] = BoxView(box.number, active=True, hands=hands, payout=from_cents(box.net()))
        for number in table.pending:
            by_number.setdefault(number, BoxView(number, active=True))
        boxes = tuple(by_number.get(n, BoxView(n)) for n in range(1, table.rules.boxes + 1))
        dealer = DealerView()
        shown = r if r is not None else settled
        if shown is not None and shown.dealer.cards:
            d = shown.dealer
            dealer = DealerView(
                up_card=d.cards[0].value,
                card_count=len(d.cards),
                hard_total=d.hard,
                soft_total=d.soft,
                is_blackjack=d.is_blackjack,
                is_bust=d.is_bust,
                hole_card_hidden=table.dealer_card_closed,
                done=r is None or (phase is not Phase.DEALER and len(d.cards) >= 2 and not table.dealer_card_closed),
                payout=from_cents(shown.net()) if r is None else None,
            )
        elif settled is not None:
            # every box busted or surrendered: the dealer has no card
            dealer = DealerView(payout=from_cents(settled.net()))
        return boxes, dealer


DISPLAY = BlackjackDisplay()
