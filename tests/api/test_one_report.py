"""A report at a time (issue 37): the dispute record, the players' and dealers' figures and an export replay rows of
the journal in a worker thread; a second asked while one runs is answered at once, 429 `busy` with Retry-After,
never queued behind it on the event loop where the card path runs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.harness import SUPERVISOR_KEY
from tests.support.inprocess import InProcessTable, call

pytestmark = pytest.mark.anyio


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    async with InProcessTable(tmp_path, seed=7) as t:
        yield t


async def test_a_report_asked_while_another_runs_is_busy_with_retry_after(table: InProcessTable) -> None:
    lock = table.app.state.report_lock
    assert lock.acquire(blocking=False)  # a report under way
    try:
        for url in ("/api/players", "/api/dealers", "/api/rounds/1/dispute?format=json", "/api/export?shoe=S1"):
            r = await call(table.api, "GET", url, SUPERVISOR_KEY)
            assert r.status_code == 429, (url, r.text)
            assert r.json()["error"]["code"] == "busy" and r.headers["Retry-After"] == "5"
        assert (await call(table.api, "GET", "/api/table", SUPERVISOR_KEY)).status_code == 200  # reads go on
    finally:
        lock.release()
    r = await call(table.api, "GET", "/api/players", SUPERVISOR_KEY)
    assert r.status_code == 200, r.text
    assert lock.acquire(blocking=False)  # the report that ran gave the gate back
    lock.release()
