"""Issue 23, second bullet: a cleared jam stayed an alarm. After the shoe's `clear` it reported
`jammed:false`, yet the table stayed locked and the alert said "cause active" until a supervisor
acknowledged it. The shoe's word that the cause is gone (`shoe_fault_cleared`, from its heartbeat)
now ends the cause at once: the gate opens by itself, and the alert stays on the board, its cause
gone, until it is acknowledged (and in the journal for good)."""

from __future__ import annotations

from datetime import datetime, timezone

from controller import events as ev
from controller.event_codec import dump_event, parse_event
from controller.alerts import AlertKind
from controller.effects import ShoeLock
from controller.engine import Phase, Table
from controller.rules import build_rules
from controller.view import table_view

T0 = datetime(2027, 1, 15, 8, 0, tzinfo=timezone.utc)


def _table() -> Table:
    t = Table(build_rules("ru-standard"))
    t.apply(ev.Shuffle(shoe_id="S1", at=T0))
    assert t.phase is Phase.BETTING and not t.locked
    return t


def test_a_cleared_jam_unlocks_the_table_and_its_alert_says_the_cause_is_gone():
    t = _table()
    t.apply(ev.ShoeFault(kind="jam", detail="card jammed in the gate", at=T0))
    assert t.locked and t.lock_reasons()
    effects = t.apply(ev.ShoeFaultCleared(kind="jam", at=T0))
    assert ShoeLock(False) in effects  # play resumes by itself: nobody had to acknowledge
    assert not t.locked and t.lock_reasons() == []
    [alert] = table_view(t)["alerts"]  # still shown: the pit sees there was a jam
    assert (alert["kind"], alert["active"], alert["acknowledged"]) == ("shoe_fault", False, False)
    t.apply(ev.AcknowledgeAlert(alert_id=alert["id"], actor="sv", at=T0))
    assert table_view(t)["alerts"] == []


def test_clearing_one_fault_leaves_another_kind_of_fault_standing():
    """A closed lid does not clear a jam; an unreadable card has no cause the shoe can report gone."""
    t = _table()
    t.apply(ev.ShoeFault(kind="jam", at=T0))
    t.apply(ev.ShoeFault(kind="unreadable", detail="card 3", at=T0))
    t.apply(ev.ShoeFaultCleared(kind="lid_open", at=T0))
    assert t.shoe_fault_active("jam") and t.locked
    t.apply(ev.ShoeFaultCleared(kind="jam", at=T0))
    assert not t.shoe_fault_active("jam") and t.shoe_fault_active("unreadable") and t.locked


def test_a_jam_again_after_it_cleared_is_active_again():
    t = _table()
    t.apply(ev.ShoeFault(kind="jam", at=T0))
    t.apply(ev.ShoeFaultCleared(kind="jam", at=T0))
    t.apply(ev.ShoeFault(kind="jam", at=T0))
    assert t.locked and [a.count for a in t.alerts if a.kind is AlertKind.SHOE_FAULT] == [2]


def test_the_cleared_jam_replays_from_the_journal_line():
    line = dump_event(ev.ShoeFaultCleared(kind="jam", at=T0))
    assert parse_event(line) == ev.ShoeFaultCleared(kind="jam", at=T0)
