"""What baccarat's box displays show (the registry's ``display`` part).

The dealer's display shows the Banker's hand: its cards and points (a hand face down under the squeeze shows
that it has cards, never its points); each box with a bet is lit, and once the coup is settled it shows the box's
payout (what the dealer pays, or takes), all its spots together, commission taken. The Player's points and the
result are on the scoreboard screen (``/scoreboard``) and the dashboard.
"""

from __future__ import annotations

from controller.engine import Table
from controller.money import from_cents
from display.model import BoxView, DealerView

from .coup import Coup
from .tableau import points


class BaccaratDisplay:
    """Baccarat on the box displays."""

    def felt(self, table: Table, *, show_settled: bool = True) -> tuple[tuple[BoxView, ...], DealerView]:
        """Every box's display and the dealer's (the Banker's hand), now."""
        r = table.round
        settled = table.previous if r is None and show_settled else None
        by_number: dict[int, BoxView] = {}
        if r is not None:
            for box in r.boxes:
                by_number[box.number] = BoxView(box.number, active=True)
        elif settled is not None:
            for box in settled.boxes:
                by_number[box.number] = BoxView(box.number, active=True, payout=from_cents(box.net()))
        for number in table.pending:
            by_number.setdefault(number, BoxView(number, active=True))
        boxes = tuple(by_number.get(n, BoxView(n)) for n in range(1, table.rules.boxes + 1))
        shown = r if r is not None else settled
        dealer = DealerView()
        if isinstance(shown, Coup) and shown.banco.cards:
            cards = shown.banco.cards
            closed = r is not None and bool(shown.hidden())
            dealer = DealerView(up_card=None if closed else cards[0].value, card_count=len(cards),
                                hard_total=0 if closed else points([c.value for c in cards]),
                                closed=closed, done=r is None,
                                payout=from_cents(-shown.net()) if r is None and settled is not None else None)
        return boxes, dealer


DISPLAY = BaccaratDisplay()
