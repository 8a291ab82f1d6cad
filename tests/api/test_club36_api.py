"""A club-21-36 table, in-process (tests.support.inprocess: a 36-card virtual shoe on an in-memory wire, the
service, the SQLite journal): the bank (the supervisor's to open and close), a whole round of duels journalled
and replayed. No closed card reaching a viewer or dealer key is scanned, live stream included, through the real
processes in test_server_process.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.club import assert_journal_replays
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY
from tests.support.inprocess import AsyncClubCroupier, InProcessTable, call

pytestmark = pytest.mark.anyio


@pytest.fixture
async def club36(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    async with InProcessTable(tmp_path, seed=3, profile="club-21-36", decks=1, pack=36) as t:
        yield t


async def _post(t: InProcessTable, body: dict[str, Any], key: str = DEALER_KEY) -> httpx.Response:
    return await call(t.api, "POST", "/api/actions", key, json=body)


async def test_the_bank_is_the_supervisors_and_bounded(club36):
    croupier = AsyncClubCroupier(club36)
    v = await croupier.ready()
    assert v["game"] == "club-21-36" and v["shoe"]["size"] == 36
    assert {a["kind"] for a in v["alerts"]} <= {"shuffle_due"}  # the shoe's count (36) is the pack's
    assert (await _post(club36, {"type": "open_bank", "amount": 500})).status_code == 403  # a dealer key may not
    assert (await _post(club36, {"type": "close_bank"})).status_code == 403
    r = await _post(club36, {"type": "open_bank", "amount": "1e20"}, SUPERVISOR_KEY)
    assert r.status_code == 422 and r.json()["error"]["field"] == "open_bank.amount"
    if not v["bank"]["open"]:
        r = await _post(club36, {"type": "bet", "box": 1, "amount": 10})
        assert r.status_code == 409 and r.json()["error"]["code"] == "no_bank"
        r = await _post(club36, {"type": "open_bank", "amount": 50}, SUPERVISOR_KEY)
        assert r.status_code == 409 and r.json()["error"]["code"] == "bank_under_min"
    r = await _post(club36, {"type": "split"})  # club-21's, not this game's
    assert r.status_code == 409 and r.json()["error"]["code"] == "unknown_event"
    assert "not a decision of club-21-36" in r.json()["error"]["message"]
    r = await _post(club36, {"type": "dark"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_players_turn"


async def test_a_whole_round_of_duels_through_the_service_is_journalled_and_replays(club36):
    t = club36
    croupier = AsyncClubCroupier(t)
    await croupier.ready()
    await croupier.open_bank(500)
    before = (await croupier.view(VIEWER_KEY))["bank"]["balance"]
    await croupier.deal_round({1: 10, 2: 20})
    final = await croupier.finish_round()
    assert final["round"] is None
    record = final["last_round"]
    assert record["game"] == "club-21-36" and {h["box"] for h in record["hands"]} == {1, 2}
    assert record["bank"]["before"] == before and record["bank"]["after"] == final["bank"]["balance"]
    # The bank pays what the boxes win and takes what they lose.
    assert Decimal(record["bank"]["after"]) == Decimal(before) - Decimal(record["net"])
    assert all(h["banker"] or h["outcome"] in ("win", "bust") for h in record["hands"])
    settled = (await croupier.view(VIEWER_KEY))["settled"]
    assert [b["bank_after"] for b in settled["boxes"]] == [h["bank_after"] for h in record["hands"]]
    rounds = (await call(t.api, "GET", "/api/rounds", VIEWER_KEY, params={"size": 200})).json()["rounds"]
    assert rounds[0]["bank"] == record["bank"] and rounds[0]["hands"][0]["banker"] == record["hands"][0]["banker"]
    assert_journal_replays(t, rounds)
