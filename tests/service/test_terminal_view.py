"""The demo's terminal view shows each open alert with its level, its message and its age, counted on the
service's clock (issue 23): a jam that has waited four minutes says so."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from controller import events as ev
from controller.engine import Table
from controller.rules import build_rules
from controller.view import table_view
from tablectl.demo import _Printer
from controller.alerts import age_text as age
from tablectl.terminal_view import alert_line, draw

T0 = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)


def _table_with(*events: tuple[ev.Event, datetime]) -> Table:
    t = Table(build_rules("ru-standard"))
    for event, at in events:
        event.at = at
        t.apply(event)
    return t


def test_each_open_alert_shows_its_level_message_and_age():
    t = _table_with((ev.ShoeFault(kind="jam", detail="card stuck at the gate"), T0),
                    (ev.CallPit(actor="dealer:ann"), T0 + timedelta(seconds=200)))
    text = draw(table_view(t), t, T0 + timedelta(minutes=4, seconds=5))
    lines = text.splitlines()
    assert "  open alerts:" in lines
    jam = next(line for line in lines if "jam" in line)
    call = next(line for line in lines if "calls the pit" in line)
    assert jam.split()[0] == "action" and jam.endswith("(open 4 min 05 s)"), jam
    assert call.split()[0] == "action" and call.endswith("(open 45 s)"), call
    assert "ALERT" not in text  # the level is said, not one word for every alert


def test_the_level_follows_alert_level_and_an_alarm_stands_out():
    alarm = {"kind": "integrity", "level": "alarm", "message": "card out of order", "raised_at": T0.isoformat()}
    notice = {"kind": "shuffle_due", "level": "notice", "message": "shuffle due", "raised_at": T0.isoformat()}
    assert alert_line(alarm, T0 + timedelta(hours=1, minutes=2)) == "ALARM   card out of order (open 1 h 02 min)"
    assert alert_line(notice, T0) == "notice  shuffle due (open 0 s)"
    assert alert_line({**notice, "raised_at": None}, T0) == "notice  shuffle due"  # no time, no age


def test_an_age_is_in_whole_units_and_never_negative():
    assert [age(s) for s in (0, 59.9, 60, 3599, 3600, -5)] == ["0 s", "59 s", "1 min 00 s", "59 min 59 s",
                                                                "1 h 00 min", "0 s"]


def test_no_open_alert_no_alert_lines():
    t = Table(build_rules("ru-standard"))
    assert "open alerts" not in draw(table_view(t), t, T0)


class _Screen:
    def __init__(self, live: bool) -> None:
        self.live = live
        self.table = ""
        self.lines: list[str] = []

    def show_table(self, text: str) -> None:
        self.table = text

    def line(self, text: str) -> None:
        self.lines.append(text)


def test_the_demo_counts_ages_on_the_service_clock():
    t = _table_with((ev.CallPit(actor="dealer:ann"), T0))
    live = _Screen(live=True)
    _Printer(live, lambda: T0 + timedelta(minutes=2)).handle([], t)  # type: ignore[arg-type]
    assert "(open 2 min 00 s)" in live.table


def test_piped_the_demo_logs_each_alert_as_it_is_raised():
    t = Table(build_rules("ru-standard"))
    call = ev.CallPit(actor="dealer:ann")
    call.at = T0
    effects = t.apply(call)
    piped = _Screen(live=False)
    _Printer(piped, lambda: T0 + timedelta(seconds=3)).handle(effects, t)  # type: ignore[arg-type]
    assert piped.lines == ["alert: action  dealer:ann calls the pit (open 3 s)"]
