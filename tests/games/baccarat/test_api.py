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
        assert page.status_code == 200 and 'id="big_road"' in page.text
        words = await call(t.api, "GET", "/games/baccarat/scoreboard.en.json")  # (its words: the page's language's)
        assert words.status_code == 200 and words.json()["road.big_road"] == "Big road"
        # Everything the table does for blackjack: the dispute record of a coup, the shift's figures.
        dispute = await call(t.api, "GET", "/api/rounds/2/dispute?format=html", SUPERVISOR_KEY)
        assert dispute.status_code == 200, dispute.text
        figures = (await call(t.api, "GET", "/api/figures", VIEWER_KEY)).json()
        assert figures["rounds"] == 3


async def test_a_blackjack_table_has_no_scoreboard(tmp_path: Path) -> None:
    async with InProcessTable(tmp_path, seed=5) as t:
        r = await call(t.api, "GET", "/api/scoreboard")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_this_game"


async def test_the_supervisor_reads_every_spot_s_exact_odds_at_a_baccarat_table(tmp_path: Path) -> None:
    """Issue 40, item 4: ``GET /api/edge`` at a baccarat table answered "not yet" for ever (it served blackjack's one
    figure only); it serves the edge worker's newest exact odds of every spot, to the supervisor alone."""
    import asyncio
    import time

    from controller.rules import build_rules
    from games.baccarat.odds import SPOT_ODDS
    from tablectl.edge import wire_edge
    from tests.support.deadlines import scaled

    async with InProcessTable(tmp_path, seed=5, profile="punto-banco", decks=8) as t:
        edge = t.app.state.edge = wire_edge(t.service, asyncio.get_running_loop())
        try:
            await _coup(t)
            shoe = t.service.table.shoe
            assert shoe is not None
            end = time.monotonic() + scaled(120)  # (the worker runs at nice 10: a long bound, never a measure)
            while (edge.latest_spots or {}).get("cards_out") != shoe.dealt:
                assert time.monotonic() < end, edge.latest_spots
                await asyncio.sleep(0.05)
            got = (await call(t.api, "GET", "/api/edge", SUPERVISOR_KEY)).json()
            want = SPOT_ODDS.expectations(build_rules("punto-banco"), shoe.remaining_by_rank())
            assert got["available"] and got["shoe"] == shoe.shoe_id and got["cards_out"] == shoe.dealt
            assert set(got["spots"]) == set(want) >= {"banker", "player", "tie"}
            for spot, e in want.items():
                assert got["spots"][spot]["player_edge_pct"] == pytest.approx(100 * e, abs=1e-4)
                assert got["spots"][spot]["house_edge_pct"] == pytest.approx(-100 * e, abs=1e-4)
            for key in (VIEWER_KEY, DEALER_KEY):
                assert (await call(t.api, "GET", "/api/edge", key)).status_code == 403
        finally:
            edge.close()
