"""What baccarat's box displays show (the registry's ``display`` part).

The dealer's display shows both hands' points as the cards come, the Player's then the Banker's (``P7 b6``), and
once the coup is settled its result after them (``P7 b6 P``: the Player wins; ``b`` the Banker, ``t`` a tie), in
place of the house's total (`display.model.Duel`). Under the squeeze the hands face down show that the Banker has
cards, never a point nor the result, until the dealer marks them turned. Each box with a bet is lit, and once the
coup is settled it shows the box's payout (what the dealer pays, or takes), all its spots together, commission
taken.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.cards import Card
from controller.engine import Table
from controller.money import from_cents
from display.model import BoxView, DealerView, Duel

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
        if isinstance(shown, Coup) and (shown.banco.cards or shown.punto.cards):
            cards = shown.banco.cards
            closed = r is not None and bool(shown.hidden())
            duel = None
            if not closed:  # (under the squeeze: no point, no result, until the cards are turned)
                result = shown.record.get("result") if r is None else None
                duel = Duel(PLAYER_MARK, _points(shown.punto.cards), BANKER_MARK, _points(cards),
                            result=RESULT_MARKS.get(str(result)) if result else None)
            dealer = DealerView(up_card=None if closed or not cards else cards[0].value, card_count=len(cards),
                                hard_total=0 if closed or not cards else points([c.value for c in cards]),
                                closed=closed and bool(cards), done=r is None,
                                payout=from_cents(-shown.net()) if r is None and settled is not None else None,
                                duel=duel)
        return boxes, dealer


PLAYER_MARK, BANKER_MARK, TIE_MARK = "P", "b", "t"
"""The hands' marks on the digits (a 7-segment digit draws no capital B: ``b``, as the scoreboard's letters)."""
RESULT_MARKS = {"player": PLAYER_MARK, "banker": BANKER_MARK, "tie": TIE_MARK}


def _points(cards: Sequence[Card]) -> int | None:
    """A hand's points, or None with no card yet."""
    return points([c.value for c in cards]) if cards else None


DISPLAY = BaccaratDisplay()
