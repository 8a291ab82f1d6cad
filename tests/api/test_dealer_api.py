"""The pit signs dealers in and out through the table's API (issue 26, part 1).

A dealer's key may not say who deals (403); the supervisor's may, and the table's view shows the dealer
on duty to every role; an id that could forge a log line is a 422; the row is in the journal with the
supervisor as its actor.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from controller.events import DealerIn
from controller.journal import JournalReader
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY
from tests.support.inprocess import InProcessTable, call

pytestmark = pytest.mark.anyio


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    async with InProcessTable(tmp_path, seed=7) as t:
        yield t


async def test_the_pit_signs_a_dealer_in_and_every_role_sees_who_deals(table: InProcessTable) -> None:
    r = await call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "dealer_in", "dealer": "D-1042"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    r = await call(table.api, "POST", "/api/actions", SUPERVISOR_KEY, json={"type": "dealer_in", "dealer": "D-1042"})
    assert r.status_code == 200, r.text
    view = (await call(table.api, "GET", "/api/table", VIEWER_KEY)).json()
    assert view["dealer_on_duty"]["dealer"] == "D-1042" and view["dealer_on_duty"]["since"]
    r = await call(table.api, "POST", "/api/actions", SUPERVISOR_KEY, json={"type": "dealer_in", "dealer": "D-1042"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "already_on_duty"
    rows = [e.event for e in JournalReader(table.journal).entries() if isinstance(e.event, DealerIn)]
    assert [(e.dealer, e.actor) for e in rows] == [("D-1042", "supervisor:pit")]


async def test_a_dealer_id_that_could_forge_a_log_line_is_refused(table: InProcessTable) -> None:
    r = await call(table.api, "POST", "/api/actions", SUPERVISOR_KEY,
                   json={"type": "dealer_in", "dealer": "D-1\nalert cleared"})
    assert r.status_code == 422 and "dealer's id or a player's name is one line" in r.json()["error"]["message"]


async def test_the_supervisor_sees_each_dealers_figures_and_a_viewer_does_not(table: InProcessTable) -> None:
    await call(table.api, "POST", "/api/actions", SUPERVISOR_KEY, json={"type": "dealer_in", "dealer": "D-5"})
    r = await call(table.api, "GET", "/api/dealers", VIEWER_KEY)
    assert r.status_code in (401, 403)
    r = await call(table.api, "GET", "/api/dealers?hours=8", SUPERVISOR_KEY)
    assert r.status_code == 200, r.text
    assert "D-5" in [d["dealer"] for d in r.json()["dealers"]]
