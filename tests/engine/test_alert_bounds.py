"""The alerts on the board are bounded (issue 21): a repeat is counted on the alert it repeats, and each kind
holds a bounded number of alerts, the rest counted on one.

A dealer's 1,800 `call_pit` actions grew the retained state the table publishes past the broker's
message size limit. Now `call_pit` while one is on the board is that alert with a count, an alert
whose cause repeats is counted on it, and however many distinct alerts of a kind are raised, the
board holds at most `MAX_ALERTS_PER_KIND` of it, the last of which counts the rest.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from controller import events as ev
from controller.alerts import MAX_ALERTS_PER_KIND, AlertKind
from controller.engine import Table
from controller.rules import build_rules
from controller.view import table_view

T0 = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)
STATE_LIMIT = 256 * 1024  # the broker's message_size_limit for the retained state (deploy/mosquitto)


def _apply(t: Table, *events: ev.Event) -> list[object]:
    effects: list[object] = []
    for e in events:
        e.at = T0
        effects += t.apply(e)
    return effects


def test_call_pit_repeated_while_one_is_open_is_one_alert_with_a_count():
    t = Table(build_rules("ru-standard"))
    effects = []
    for _ in range(1800):
        effects = _apply(t, ev.CallPit(actor="dealer:ann"))
    (alert,) = t.open_alerts()
    d = alert.as_dict()
    assert d["kind"] == "call_pit" and d["count"] == 1800 and d["message"] == "dealer:ann calls the pit"
    assert any(type(e).__name__ == "AlertRaised" for e in effects)  # each call still rings the bell
    _apply(t, ev.AcknowledgeAlert(alert_id=alert.id, actor="supervisor:pit"))
    assert t.open_alerts() == []
    _apply(t, ev.CallPit(actor="dealer:ann"))  # a call after the pit has answered is a new alert
    (again,) = t.open_alerts()
    assert again.id != alert.id and again.as_dict()["count"] == 1


def test_a_repeated_cause_counts_on_its_alert_and_asks_for_a_new_look():
    t = Table(build_rules("ru-standard"))
    _apply(t, ev.LinkDown(reason="cable"))
    (down,) = t.open_alerts()
    _apply(t, ev.AcknowledgeAlert(alert_id=down.id, actor="supervisor:pit"), ev.LinkUp())
    assert t.open_alerts() == []  # acknowledged and resolved: gone
    _apply(t, ev.LinkDown(reason="cable"), ev.LinkUp(), ev.LinkDown(reason="cable"))
    (again,) = t.open_alerts()
    assert again.as_dict()["count"] == 2 and again.active and not again.acknowledged


def test_each_kind_holds_a_bounded_number_of_alerts_the_last_counting_the_rest():
    t = Table(build_rules("ru-standard"))
    for i in range(500):
        _apply(t, ev.ShoeFault(kind="other", detail=f"fault number {i} " + "x" * 400))
    faults = [a.as_dict() for a in t.open_alerts() if a.kind is AlertKind.SHOE_FAULT]
    assert len(faults) == MAX_ALERTS_PER_KIND
    assert [f["count"] for f in faults[:-1]] == [1] * (MAX_ALERTS_PER_KIND - 1)
    assert faults[-1]["count"] == 500 - (MAX_ALERTS_PER_KIND - 1)
    assert "more" in str(faults[-1]["message"]) and "journal" in str(faults[-1]["message"])
    assert sum(int(str(f["count"])) for f in faults) == 500  # nothing is lost from the count


def test_the_table_view_stays_under_the_brokers_limit_whatever_is_raised():
    """Every kind flooded with distinct alerts, each at its longest: the view the floor gets stays small."""
    t = Table(build_rules("ru-standard"))
    _apply(t, ev.Shuffle(shoe_id="S" * 64))
    for i in range(300):
        _apply(t, ev.ShoeFault(kind="k" * 64, detail=f"{i} " + "x" * 490), ev.CallPit(actor="d" * 120),
               ev.LinkDown(reason=f"{i} " + "y" * 490), ev.LinkUp(),
               ev.ShoeCount(shoe_id=f"other-{i}", position=100 + i))
    kinds = {a.kind for a in t.open_alerts()}
    assert AlertKind.SHOE_FAULT in kinds and AlertKind.INTEGRITY in kinds
    assert all(sum(a.kind is k for a in t.open_alerts()) <= MAX_ALERTS_PER_KIND for k in AlertKind)
    size = len(json.dumps(table_view(t)))
    assert size < STATE_LIMIT // 4, size


def test_counts_survive_a_snapshot():
    t = Table(build_rules("ru-standard"))
    for _ in range(5):
        _apply(t, ev.CallPit(actor="dealer:ann"))
    back = Table.from_snapshot(json.loads(json.dumps(t.snapshot())))
    assert [a.as_dict() for a in back.open_alerts()] == [a.as_dict() for a in t.open_alerts()]
    assert back.open_alerts()[0].as_dict()["count"] == 5
    single = Table(build_rules("ru-standard"))
    _apply(single, ev.CallPit())
    assert "count" not in single.snapshot()["alerts"][0]  # a snapshot without repeats reads as before
