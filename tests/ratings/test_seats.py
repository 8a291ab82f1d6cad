"""Who sits on each box (issue 41): seat, unseat, pause and resume through the engine, kept in its snapshot.

A named player's bet on an empty box seats them (the table never refuses play for want of a rating); a seat on
a box someone else holds, an unseat or pause of nobody, a second pause, a resume of nobody paused are refused
with a reason; the seats survive a snapshot; a person's id is judged by the one id rule; seating is a dealer's
action (no supervisor key needed).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest

from controller import events as ev
from controller.engine import IllegalAction, Table
from controller.event_codec import BadEvent, dump_event, parse_event
from controller.registry import supervisor_actions

T = datetime(2026, 12, 7, 21, 0, tzinfo=timezone.utc)


def _refused(table: Table, event: ev.Event) -> str:
    with pytest.raises(IllegalAction) as caught:
        table.apply(event)
    return caught.value.code


def test_seat_pause_resume_unseat_and_their_refusals() -> None:
    table = Table()
    table.apply(ev.Seat(box=3, player="Ivan Petrov", card="C-1001", at=T))
    assert table.seated[3].player == "Ivan Petrov" and table.seated[3].card == "C-1001"
    assert table.seated[3].since == T
    assert _refused(table, ev.Seat(box=3, player="Olga")) == "box_occupied"
    assert _refused(table, ev.Seat(box=3, player="Ivan Petrov")) == "already_seated"
    assert _refused(table, ev.Seat(box=9)) == "no_such_box"  # ru-standard has 7 boxes
    assert _refused(table, ev.Unseat(box=2)) == "not_seated"
    assert _refused(table, ev.Unseat(box=3, player="Olga")) == "not_seated"
    assert _refused(table, ev.Resume(box=3)) == "not_paused"
    table.apply(ev.Pause(box=3, at=T + timedelta(minutes=5)))
    assert table.seated[3].paused_at == T + timedelta(minutes=5)
    assert _refused(table, ev.Pause(box=3)) == "already_paused"
    table.apply(ev.Resume(box=3, at=T + timedelta(minutes=9)))
    assert table.seated[3].paused_at is None
    table.apply(ev.Unseat(box=3, player="Ivan Petrov"))
    assert 3 not in table.seated
    table.apply(ev.Seat(box=3, at=T))  # anonymous: "Player on box 3"
    assert table.seated[3].player is None
    assert _refused(table, ev.Seat(box=3)) == "already_seated"


def test_a_named_players_bet_on_an_empty_box_seats_them_and_an_anonymous_one_does_not() -> None:
    table = Table()
    table.apply(ev.Shuffle(at=T))
    table.apply(ev.PlaceBet(box=2, amount=Decimal(10), player="Olga", at=T + timedelta(seconds=5)))
    assert table.seated[2].player == "Olga" and table.seated[2].since == T + timedelta(seconds=5)
    table.apply(ev.PlaceBet(box=4, amount=Decimal(10)))
    assert 4 not in table.seated
    table.apply(ev.PlaceBet(box=2, amount=Decimal(10), player="Back Bettor"))  # someone else sits there: unchanged
    assert table.seated[2].player == "Olga"


def test_seats_survive_a_snapshot() -> None:
    table = Table()
    table.apply(ev.Seat(box=1, player="Ivan", card="C-7", at=T))
    table.apply(ev.Seat(box=5, at=T + timedelta(minutes=1)))
    table.apply(ev.Pause(box=5, at=T + timedelta(minutes=2)))
    again = Table.from_snapshot(table.snapshot())
    assert again.seated == table.seated
    assert _refused(again, ev.Pause(box=5)) == "already_paused"
    older = table.snapshot()
    del older["seated"]  # a snapshot from before issue 41: nobody seated
    assert Table.from_snapshot(older).seated == {}


def test_the_events_on_the_wire_judge_ids_and_need_no_supervisor() -> None:
    event = parse_event({"type": "seat", "box": 3, "player": "ＩＶＡＮ", "card": "C-1"})
    assert isinstance(event, ev.Seat) and event.player == "IVAN"  # NFKC, as every id entering the table
    assert dump_event(event) == {"type": "seat", "box": 3, "player": "IVAN", "card": "C-1"}
    with pytest.raises(BadEvent):
        parse_event({"type": "seat", "box": 3, "player": "Ivаn"})  # a Cyrillic а among Latin letters
    with pytest.raises(BadEvent):
        parse_event({"type": "pause", "box": 0})
    assert not {"seat", "unseat", "pause", "resume"} & set(supervisor_actions())
