"""`GET /api/ledger` (issue 21): the floor fills a gap from the table's API, never a face-down card's row in final form.

The floor's key reads the table's rows exactly as the publisher puts them on the broker: byte for byte the
ledger messages, the row holding a face-down card with its card `XX` and no MAC, and every row after it
without its MAC, until the card is turned. The expected lines are built here from the journal's own rows,
so the route is checked against the rule, not against itself. Any other role below supervisor is refused,
and the floor's key reads nothing else. In-process (tests.support.inprocess), as the other route tests.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from controller.journal import JournalKey, JournalReader, LedgerRow
from tablectl.fleet.wire import ledger_payload
from tests.support.club import holds
from tests.support.harness import DEALER_KEY, FLOOR_KEY, SUPERVISOR_KEY, VIEWER_KEY
from tests.support.inprocess import InProcessTable, call, deal, hole_card_down

pytestmark = pytest.mark.anyio

TABLE_ID = "table-1"  # the table's [fleet] table_id (its default): the rows name it as the publisher's do


def _journal(t: InProcessTable) -> list[LedgerRow]:
    with JournalReader(t.journal, JournalKey.load(Path(str(t.journal) + ".key"))) as reader:
        return reader.ledger_rows(0, 100_000)


async def _ledger(t: InProcessTable, key: str | None = FLOOR_KEY, **params: int) -> httpx.Response:
    return await call(t.api, "GET", "/api/ledger", key, params=params)


@pytest.fixture
async def hole_down(tmp_path: Path) -> AsyncIterator[tuple[InProcessTable, str, int]]:
    """A table whose first round stands with the hole card face down; yields (table, hole, first seq)."""
    async with hole_card_down(tmp_path) as down:
        yield down


async def test_the_floor_key_gets_the_rows_as_published_the_hole_card_masked_and_no_mac_over_it(hole_down):
    t, hole, start = hole_down
    rows = _journal(t)
    first = next(r.seq for r in rows if r.seq > start and json.loads(r.body).get("card") == hole)
    want = [ledger_payload(TABLE_ID, r, mask_card=r.seq == first, withhold_mac=r.seq >= first) for r in rows]
    for key in (FLOOR_KEY, SUPERVISOR_KEY):  # the supervisor reads the ledger as the floor does, masked too
        answer = await _ledger(t, key, after=0, limit=500)
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/x-ndjson")
        assert answer.content.split(b"\n") == [*want, b""]
        assert not holds(answer.text, hole)  # one deck: the card is nowhere else
        assert not [r.seq for r in rows if r.seq >= first and r.mac in answer.text]  # no MAC chained over the card
    masked = [json.loads(line) for line in want if json.loads(line)["seq"] >= first]
    assert masked and all(m["masked"] and m["mac"] is None for m in masked)
    assert json.loads(masked[0]["body"])["card"] == "XX"
    # A page: the rows after `after`, at most `limit`, the same lines.
    assert (await _ledger(t, after=first - 2, limit=3)).content.split(b"\n") == [*want[first - 2:first + 1], b""]
    assert (await _ledger(t, after=rows[-1].seq, limit=10)).content == b""  # nothing after the head

    # Once the card is turned (every box stands: the dealer turns it and plays out), the rows come final.
    for _ in range(40):
        view = (await call(t.api, "GET", "/api/table", SUPERVISOR_KEY)).json()
        if view["round"] is None:
            break
        if "stand" in view["legal_actions"]:
            assert (await call(t.api, "POST", "/api/actions", DEALER_KEY, json={"type": "stand"})).status_code == 200
        elif view["phase"] == "insurance":
            close = {"type": "close_insurance"}
            assert (await call(t.api, "POST", "/api/actions", DEALER_KEY, json=close)).status_code == 200
        else:
            await deal(t.api, t.shoe, VIEWER_KEY, 1)
    rows = _journal(t)
    assert rows[-1].seq > len(want)  # the round went on to its end
    answer = await _ledger(t, after=0, limit=500)
    assert answer.content.split(b"\n") == [*(ledger_payload(TABLE_ID, r) for r in rows), b""]


async def test_keys_below_supervisor_other_than_the_floor_s_are_refused_and_the_floor_key_reads_nothing_else(tmp_path):
    async with InProcessTable(tmp_path, seed=3) as t:
        assert (await _ledger(t, None)).status_code == 401
        wrong = await _ledger(t, "not-a-key")
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "bad_key"
        for key in (VIEWER_KEY, DEALER_KEY):
            refused = await _ledger(t, key)
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
        for path in ("/api/table", "/api/rounds", "/api/export?round=1", "/metrics"):
            assert (await call(t.api, "GET", path, FLOOR_KEY)).status_code == 403, path
        assert (await call(t.api, "POST", "/api/actions", FLOOR_KEY, json={"type": "stand"})).status_code == 403
        for params in ({"limit": 501}, {"limit": 0}, {"after": -1}, {"after": 2**63}):  # the page is bounded
            answer = await _ledger(t, **params)
            assert answer.status_code == 422 and answer.json()["error"]["code"] == "invalid_request", params
