"""The dealer on duty: `dealer_in` and `dealer_out` (issue 26, part 1).

Only between rounds, so that every round has exactly one dealer; a dealer signing in relieves the one
on duty; the table's view and its snapshot carry who deals and since when; only a supervisor's key may
say who deals.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal

import pytest

from controller import events as ev
from controller.event_codec import parse_event
from controller.cards import parse_card
from controller.effects import DealerChanged
from controller.engine import IllegalAction, Table
from controller.registry import supervisor_actions
from controller.view import table_view

T = datetime(2026, 12, 3, 9, 0, tzinfo=timezone.utc)


def _in(table: Table, dealer: str, minute: int = 0) -> list[object]:
    return list(table.apply(ev.DealerIn(dealer=dealer, at=T.replace(minute=minute))))


def test_a_dealer_signs_in_relieves_the_one_on_duty_and_signs_out() -> None:
    table = Table()
    assert table_view(table)["dealer_on_duty"] is None
    assert DealerChanged("D-1042", None) in _in(table, "D-1042")
    assert table_view(table)["dealer_on_duty"] == {"dealer": "D-1042", "since": "2026-12-03T09:00:00+00:00"}
    assert DealerChanged("D-7", "D-1042") in _in(table, "D-7", 20)  # the relief taps in: one event
    assert table_view(table)["dealer_on_duty"]["dealer"] == "D-7"
    assert DealerChanged(None, "D-7") in table.apply(ev.DealerOut(dealer="D-7"))
    assert table_view(table)["dealer_on_duty"] is None


@pytest.mark.parametrize(("event", "code"), [
    (ev.DealerIn(dealer="D-1"), "already_on_duty"),
    (ev.DealerOut(dealer="D-2"), "not_on_duty"),
])
def test_what_cannot_be_said_of_the_dealer_on_duty_is_refused(event: ev.Event, code: str) -> None:
    table = Table()
    _in(table, "D-1")
    with pytest.raises(IllegalAction) as refused:
        table.apply(event)
    assert refused.value.code == code
    assert table.dealer_on_duty == "D-1"


def test_signing_out_with_nobody_on_duty_is_refused() -> None:
    with pytest.raises(IllegalAction) as refused:
        Table().apply(ev.DealerOut())
    assert refused.value.code == "no_dealer_on_duty"


def test_the_dealer_changes_only_between_rounds() -> None:
    table = Table()
    _in(table, "D-1")
    table.apply(ev.Shuffle(shoe_id="S1"))
    table.apply(ev.PlaceBet(box=1, amount=Decimal(10)))
    table.apply(ev.CardDrawn(card=parse_card("TS")))  # the round is in play
    for event in (ev.DealerIn(dealer="D-2"), ev.DealerOut()):
        with pytest.raises(IllegalAction) as refused:
            table.apply(event)
        assert refused.value.code == "round_in_play"
    assert table.dealer_on_duty == "D-1"


def test_the_dealer_on_duty_survives_a_snapshot() -> None:
    table = Table()
    _in(table, "D-1042", 5)
    again = Table.from_snapshot(table.snapshot())
    assert (again.dealer_on_duty, again.dealer_since) == ("D-1042", T.replace(minute=5))
    older = table.snapshot()
    del older["on_duty"]  # a snapshot written before dealers signed in
    assert Table.from_snapshot(older).dealer_on_duty is None


def test_only_a_supervisor_says_who_deals() -> None:
    assert {"dealer_in", "dealer_out"} <= supervisor_actions()


def test_a_dealer_id_is_bounded_text() -> None:
    with pytest.raises(ev.BadEvent):
        parse_event({"type": "dealer_in", "dealer": ""})
    with pytest.raises(ev.BadEvent):
        parse_event({"type": "dealer_in", "dealer": "x" * 65})
    assert parse_event({"type": "dealer_in", "dealer": "D-1042"}) == ev.DealerIn(dealer="D-1042")
