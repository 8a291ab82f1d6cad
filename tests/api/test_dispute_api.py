"""The record of a disputed round through the table's API (issue 26, part 3): `GET /api/rounds/{n}/dispute`.

A supervisor's key gets the pit's copy (no count) in each format, made from the live table's journal and
verified as it is made, named as its exporter; a viewer's or a dealer's key gets 403; a round not yet
played is a 404, and one in play a 409.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from controller.journal import JournalReader
from tests.support.deadlines import scaled
from tests.support.client import authorized
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, TABLE_NAME, VIEWER_KEY
from tests.support.inprocess import InProcessTable, call, deal, play_rounds

pytestmark = pytest.mark.anyio


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    async with InProcessTable(tmp_path, seed=5) as t:
        await call(t.api, "POST", "/api/actions", SUPERVISOR_KEY, json={"type": "dealer_in", "dealer": "D-77"})
        await play_rounds(t, 2, seed=5, max_boxes=2)
        yield t


async def test_a_supervisor_gets_the_pit_copy_of_a_settled_round(table: InProcessTable) -> None:
    r = await call(table.api, "GET", "/api/rounds/2/dispute", SUPERVISOR_KEY, params={"format": "json"})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert 'filename="e2e-round-2-dispute.json"' in r.headers["content-disposition"]
    record = r.json()
    assert (record["table"], record["round"], record["dealer"]["dealer"]) == (TABLE_NAME, 2, "D-77")
    assert record["exported"]["by"] == "supervisor:pit" and record["exported"]["copy"] == "pit"
    assert all(s["running_count"] is None for b in record["boxes"] for s in b["stakes"])  # the pit's: no count
    assert record["settlement"]["agrees"] is True and [p["number"] for p in record["recall"]] == [1]
    kept = (await call(table.api, "GET", "/api/rounds/2", VIEWER_KEY)).json()
    assert record["settlement"]["recorded"]["hands"] == kept["hands"]
    # The head it names is a row of the table's journal, with that very MAC.
    head = record["verification"]
    with JournalReader(table.journal) as reader:
        assert [(row.seq, row.mac) for row in reader.ledger_rows(head["head_seq"] - 1, 1)] == [
            (head["head_seq"], head["head_mac"])]


async def test_the_html_page_and_the_pdf(table: InProcessTable) -> None:
    r = await call(table.api, "GET", "/api/rounds/1/dispute", SUPERVISOR_KEY)  # html by default
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert "Record of a disputed round" in r.text and "PIT COPY" in r.text.upper()
    async with asyncio.timeout(scaled(120)):  # (laying out a PDF takes seconds on a busy machine: more than `call` waits)
        r = await table.api.get("/api/rounds/1/dispute", params={"format": "pdf"}, headers=authorized(SUPERVISOR_KEY))
    assert r.status_code == 200 and r.headers["content-type"] == "application/pdf"
    assert r.content.startswith(b"%PDF-") and "attachment" in r.headers["content-disposition"]


async def test_a_viewer_or_a_dealer_key_is_refused(table: InProcessTable) -> None:
    for key in (VIEWER_KEY, DEALER_KEY):
        r = await call(table.api, "GET", "/api/rounds/1/dispute", key, params={"format": "json"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    assert (await call(table.api, "GET", "/api/rounds/1/dispute", None)).status_code == 401


async def test_a_round_not_played_is_404_and_one_in_play_is_409(table: InProcessTable) -> None:
    r = await call(table.api, "GET", "/api/rounds/99/dispute", SUPERVISOR_KEY, params={"format": "json"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_such_round"
    assert "rounds 1 to 2" in r.json()["error"]["message"]
    bet = {"type": "bet", "box": 1, "amount": 10}
    assert (await call(table.api, "POST", "/api/actions", DEALER_KEY, json=bet)).status_code == 200
    await deal(table.api, table.shoe, VIEWER_KEY, 1)
    r = await call(table.api, "GET", "/api/rounds/3/dispute", SUPERVISOR_KEY, params={"format": "json"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_settled"
    r = await call(table.api, "GET", "/api/rounds/1/dispute", SUPERVISOR_KEY, params={"format": "xml"})
    assert r.status_code == 422
    assert json.loads(r.text)["error"]["field"] == "query.format"
