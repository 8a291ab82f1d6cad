"""High card on the box displays: each box's card (its order as the total), the dealer's, the payouts."""

from __future__ import annotations

from controller.engine import Table
from controller.hand import Hand, Outcome
from controller.money import from_cents
from display.model import BoxView, DealerView, HandOutcome, HandView

from .game import order

_OUTCOMES = {Outcome.WIN: HandOutcome.WIN, Outcome.LOSE: HandOutcome.LOSE, Outcome.PUSH: HandOutcome.PUSH,
             Outcome.VOID: HandOutcome.PUSH}


def _hand(h: Hand) -> HandView:
    total = sum(order(c) + 2 for c in h.cards)
    return HandView(card_count=len(h.cards), hard_total=total, done=h.outcome is not None,
                    outcome=_OUTCOMES.get(h.outcome) if h.outcome is not None else None)  # type: ignore[arg-type]


class HighCardDisplay:
    """`tablectl.parts.DisplayPart` for high card."""

    def felt(self, table: Table, *, show_settled: bool = True) -> tuple[tuple[BoxView, ...], DealerView]:
        r = table.round if table.round is not None else (table.previous if show_settled else None)
        by_number = {b.number: b for b in r.boxes} if r is not None else {}
        boxes = tuple(BoxView(n, active=True, hands=tuple(_hand(h) for h in by_number[n].hands),
                              payout=(from_cents(by_number[n].net()) if r is not table.round else None))
                      if n in by_number else BoxView(n) for n in range(1, table.rules.boxes + 1))
        cards = r.dealer.cards if r is not None else []
        dealer = DealerView(up_card=min(order(cards[0]) + 2, 10) if cards else None, card_count=len(cards),
                            hard_total=sum(order(c) + 2 for c in cards))
        return boxes, dealer


DISPLAY = HighCardDisplay()
