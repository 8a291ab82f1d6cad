"""`GET /api/shift/report` (issue 41, parts 4 and 5): the shift report a supervisor signs, over the API.

A round is played and the pit called and acknowledged through the API; the supervisor's key reads the report as
`tablectl shift report` makes it (JSON with its digest, HTML in both languages), with the acknowledged alert (who,
how long it waited); the dealer's and a viewer's keys are refused; the window is bounded; the report is made one
at a time on the table (429 busy while another runs).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tablectl.shift import digest
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY
from tests.support.inprocess import InProcessTable, call, deal

pytestmark = pytest.mark.anyio


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    async with InProcessTable(tmp_path, seed=11) as t:
        yield t


async def _round_and_a_call(table: InProcessTable) -> None:
    act = lambda key, body: call(table.api, "POST", "/api/actions", key, json=body)  # noqa: E731
    assert (await act(DEALER_KEY, {"type": "bet", "box": 2, "amount": "20"})).status_code == 200
    while (view := (await call(table.api, "GET", "/api/table", DEALER_KEY)).json())["rounds_played"] < 1 or \
            view["round"] is not None:
        if view["phase"] == "players":
            assert (await act(DEALER_KEY, {"type": "stand"})).status_code == 200
        elif view["phase"] == "insurance":
            await act(DEALER_KEY, {"type": "close_insurance"})
        else:
            await deal(table.api, table.shoe, DEALER_KEY, 1)
    assert (await act(DEALER_KEY, {"type": "call_pit"})).status_code == 200
    view = (await call(table.api, "GET", "/api/table", SUPERVISOR_KEY)).json()
    [alert] = [a for a in view["alerts"] if a["kind"] == "call_pit"]
    assert (await act(SUPERVISOR_KEY, {"type": "ack_alert", "alert_id": alert["id"]})).status_code == 200


async def test_the_shift_report_is_the_supervisors_in_each_format(table: InProcessTable) -> None:
    await _round_and_a_call(table)
    for key in (VIEWER_KEY, DEALER_KEY):
        r = await call(table.api, "GET", "/api/shift/report?format=json", key)
        assert r.status_code == 403, (key, r.status_code)
    r = await call(table.api, "GET", "/api/shift/report?format=json&hours=8", SUPERVISOR_KEY)
    assert r.status_code == 200, r.text
    body = r.json()
    report = body["report"]
    assert body["digest"] == digest(report) and body["signatures"] == []
    assert report["rounds"] == 1 and report["table"] == table.settings.table.name
    [called] = [a for a in report["alerts"] if a["kind"] == "call_pit"]
    assert called["acknowledged_by"] == "supervisor:pit"
    assert called["waited_seconds"] is not None
    # the same window asked by its bounds gives the same report: the digest a supervisor signs
    again = await call(table.api, "GET", "/api/shift/report", SUPERVISOR_KEY,
                       params={"format": "json", "from": report["start"], "to": report["end"]})
    assert again.status_code == 200 and again.json()["digest"] == body["digest"], again.text
    for lang, word in (("en", "Shift report"), ("ru", "Отчёт")):
        r = await call(table.api, "GET", f"/api/shift/report?format=html&lang={lang}", SUPERVISOR_KEY)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), r.text
        assert word.lower() in r.text.lower() and "default-src 'none'" in r.headers["content-security-policy"]
    r = await call(table.api, "GET", "/api/shift/report?format=pdf&lang=ru", SUPERVISOR_KEY)
    assert r.status_code == 200 and r.headers["content-type"] == "application/pdf", r.text[:300]
    assert r.content.startswith(b"%PDF") and r.headers["content-disposition"].startswith("attachment;")


async def test_the_shift_reports_window_is_bounded(table: InProcessTable) -> None:
    for query in ("from=2026-01-01T00:00:00Z", "from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:01Z",
                  "from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "hours=25", "hours=0", "format=docx",
                  "lang=de"):
        r = await call(table.api, "GET", f"/api/shift/report?{query}", SUPERVISOR_KEY)
        assert r.status_code == 422, (query, r.text)


async def test_the_shift_report_is_made_one_report_at_a_time(table: InProcessTable) -> None:
    lock = table.app.state.report_lock
    assert lock.acquire(blocking=False)  # another report under way
    try:
        r = await call(table.api, "GET", "/api/shift/report?format=json", SUPERVISOR_KEY)
        assert r.status_code == 429 and r.json()["error"]["code"] == "busy", r.text
    finally:
        lock.release()


async def test_the_shift_log_is_the_alerts_of_the_report_read_once(table: InProcessTable) -> None:
    await _round_and_a_call(table)
    for key in (VIEWER_KEY, DEALER_KEY):
        assert (await call(table.api, "GET", "/api/shift/alerts", key)).status_code == 403
    r = await call(table.api, "GET", "/api/shift/alerts?hours=8", SUPERVISOR_KEY)
    assert r.status_code == 200, r.text
    logged = r.json()["alerts"]
    report = (await call(table.api, "GET", "/api/shift/report?format=json&hours=8", SUPERVISOR_KEY)).json()["report"]
    assert logged == report["alerts"]  # (the same window: nothing was raised between the two)
    assert any(a["kind"] == "call_pit" and a["acknowledged_by"] == "supervisor:pit" for a in logged)
    assert (await call(table.api, "GET", "/api/shift/alerts?hours=25", SUPERVISOR_KEY)).status_code == 422
    lock = table.app.state.report_lock
    assert lock.acquire(blocking=False)
    try:
        assert (await call(table.api, "GET", "/api/shift/alerts", SUPERVISOR_KEY)).status_code == 429
    finally:
        lock.release()


async def test_the_table_says_when_the_dealer_is_due_for_a_break_and_a_demos_pace(table: InProcessTable) -> None:
    view = (await call(table.api, "GET", "/api/table", VIEWER_KEY)).json()
    assert view["demo_pace"] is None  # a real table
    r = await call(table.api, "POST", "/api/actions", SUPERVISOR_KEY, json={"type": "dealer_in", "dealer": "D-9"})
    assert r.status_code == 200, r.text
    duty = (await call(table.api, "GET", "/api/table", VIEWER_KEY)).json()["dealer_on_duty"]
    since = datetime.fromisoformat(duty["since"])
    assert datetime.fromisoformat(duty["break_due_at"]) - since == timedelta(minutes=60)  # the documented default
    table.settings.table.dealer_break_minutes = 20
    table.settings.table.demo_pace = "live"  # as `tablectl demo` configures its table
    view = (await call(table.api, "GET", "/api/table", VIEWER_KEY)).json()
    assert datetime.fromisoformat(view["dealer_on_duty"]["break_due_at"]) - since == timedelta(minutes=20)
    assert view["demo_pace"] == "live"
    table.settings.table.dealer_break_minutes = 0  # no rotation configured
    assert (await call(table.api, "GET", "/api/table", VIEWER_KEY)).json()["dealer_on_duty"]["break_due_at"] is None
