"""`GET /api/players`: each player's advantage-play evidence is the supervisor's (issue 26, part 2).

A named player plays a round through the API; the supervisor's key reads their evidence (each signal with
its n and p, and the note that it is not a verdict); the dealer's and a viewer's keys are refused: it speaks
of the count and names players.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY
from tests.support.inprocess import InProcessTable, call, deal

pytestmark = pytest.mark.anyio


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    async with InProcessTable(tmp_path, seed=11) as t:
        yield t


async def test_the_supervisor_reads_each_players_evidence_and_nobody_else_does(table: InProcessTable) -> None:
    r = await call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "bet", "box": 2, "amount": "20",
                                                                         "player": "P-7"})
    assert r.status_code == 200, r.text
    while (view := (await call(table.api, "GET", "/api/table", DEALER_KEY)).json())["rounds_played"] < 1 or \
            view["round"] is not None:
        if view["phase"] == "players":
            assert (await call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "stand"})).status_code == 200
        elif view["phase"] == "insurance":
            await call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "close_insurance"})
        else:
            await deal(table.api, table.shoe, DEALER_KEY, 1)
    for key in (VIEWER_KEY, DEALER_KEY):
        r = await call(table.api, "GET", "/api/players", key)
        assert r.status_code == 403, (key, r.status_code)
    r = await call(table.api, "GET", "/api/players?hours=8", SUPERVISOR_KEY)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["note"] == "advantage-play evidence, not a verdict" and body["flag_alpha"] == 0.001
    by_name = {p["subject"]: p for p in body["players"]}
    player = by_name["P-7"]
    assert player["kind"] == "player" and player["rounds"] == 1 and not player["flagged"]
    assert by_name["box 2"]["kind"] == "box"
    signals = {s["name"]: s for s in player["signals"]}
    assert {"bet_vs_true_count", "index_plays", "wonging", "first_card"} <= set(signals)
    assert signals["bet_vs_true_count"]["n"] == 1 and signals["bet_vs_true_count"]["p"] is None  # one round: no test
