"""Baccarat through the API, in process: bets on spots, the coups dealt by the shoe, the table's view validated by
its model, the public scoreboard (no key) and its table-side page."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY
from tests.support.inprocess import InProcessTable, call, deal

pytestmark = pytest.mark.anyio


async def _coup(t: InProcessTable) -> None:
    for spot, box, amount in (("banker", 1, 25), ("player", 2, 50), ("tie", 3, 5)):
        r = await call(t.api, "POST", "/api/actions", DEALER_KEY,
                       json={"type": "bet", "box": box, "amount": amount, "spot": spot})
        assert r.status_code == 200, r.text
    played = (await call(t.api, "GET", "/api/table", VIEWER_KEY)).json()["rounds_played"]
    while True:
        view = (await call(t.api, "GET", "/api/table", VIEWER_KEY)).json()
        if view["rounds_played"] > played and view["round"] is None:
            return
        assert view["next_card"], view["phase"]
        await deal(t.api, t.shoe, VIEWER_KEY, 1)


async def test_coups_through_the_api_and_the_public_scoreboard(tmp_path: Path) -> None:
    async with InProcessTable(tmp_path, seed=5, profile="punto-banco", decks=8) as t:
        for _ in range(3):
            await _coup(t)
        view = (await call(t.api, "GET", "/api/table", VIEWER_KEY)).json()
        assert view["game"] == "baccarat" and view["view_kind"] == "baccarat" and view["scoreboard_coups"] == 3
        settled = view["settled"]
        assert settled["result"] in ("player", "banker", "tie") and len(settled["boxes"]) == 3
        board = await call(t.api, "GET", "/api/scoreboard")  # no key: public
        assert board.status_code == 200
        data = board.json()
        assert data["counts"]["coups"] == 3 and len(data["bead_plate"]) == 3
        assert data["counts"]["banker"] + data["counts"]["player"] + data["counts"]["tie"] == 3
        rounds = (await call(t.api, "GET", "/api/rounds", VIEWER_KEY)).json()["rounds"]
        assert [r["result"] for r in reversed(rounds)] == data["last"]
        page = await call(t.api, "GET", "/scoreboard")
        assert page.status_code == 200 and "Big road" in page.text
        # Everything the table does for blackjack: the dispute record of a coup, the shift's figures.
        dispute = await call(t.api, "GET", "/api/rounds/2/dispute?format=html", SUPERVISOR_KEY)
        assert dispute.status_code == 200, dispute.text
        figures = (await call(t.api, "GET", "/api/figures", VIEWER_KEY)).json()
        assert figures["rounds"] == 3


async def test_a_blackjack_table_has_no_scoreboard(tmp_path: Path) -> None:
    async with InProcessTable(tmp_path, seed=5) as t:
        r = await call(t.api, "GET", "/api/scoreboard")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_this_game"
