"""The side-bet watch's odds come off the card path and back through the one writer: a real service (in process)
with the edge worker as `tablectl run` wires it (`tablectl.edge.wire_edge`: a real child process), coups dealt by
the shoe through the API; the odds the worker computed reach the journal as ``spot_odds`` rows, sent by the
worker's actor, and are the exact expectations of the cards left before the coup they are for."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from controller.rules import build_rules
from games.baccarat.exact import expectations
from tablectl.edge import ACTOR, wire_edge
from tests.support.harness import DEALER_KEY, VIEWER_KEY, until
from tests.support.inprocess import InProcessTable, call, deal

pytestmark = pytest.mark.anyio


async def _coup(t: InProcessTable) -> None:
    r = await call(t.api, "POST", "/api/actions", DEALER_KEY, json={"type": "bet", "box": 1, "amount": 25,
                                                                     "spot": "banker"})
    assert r.status_code == 200, r.text
    played = t.service.table.rounds_played
    while not (t.service.table.rounds_played > played and t.service.table.round is None):
        await deal(t.api, t.shoe, VIEWER_KEY, 1)


async def test_the_workers_odds_are_journalled_for_the_coup_they_precede(tmp_path: Path) -> None:
    async with InProcessTable(tmp_path, seed=9, profile="ez-baccarat", decks=8) as t:
        edge = wire_edge(t.service, asyncio.get_running_loop())
        try:
            for _ in range(2):
                await _coup(t)
            shoe = t.service.table.shoe
            assert shoe is not None
            left, out = shoe.remaining_by_rank(), shoe.dealt
            # (the worker answers in its own time, at nice 10: a bound on a hung test, never a measure)
            await until(lambda: (t.service.table.game_state.odds or ("", -1))[1] == out, timeout=120)
        finally:
            edge.close()
        shoe_id, cards_out, got = t.service.table.game_state.odds
        assert shoe_id == shoe.shoe_id and cards_out == out
        want = expectations(left, build_rules("ez-baccarat", {"decks": 8}))
        assert got == pytest.approx(want, abs=1e-6) and set(got) >= {"dragon7", "panda8", "banker"}
        with t.service.reader() as journal:
            rows = [e for e in journal.entries() if e.event.type == "spot_odds"]
        assert rows and rows[-1].event.actor == ACTOR and rows[-1].event.cards_out == out


def test_below_supervisor_the_stream_carries_that_the_odds_came_not_what_they_say() -> None:
    """The odds are surveillance's figure: a viewer's or dealer's event stream (`GET /api/events`) shows the row's
    type and time; the supervisor's the expectations."""
    import json

    from controller.event_codec import dump_event
    from games.baccarat.events import SpotOdds
    from tablectl.api.stream import _sse
    from tablectl.service import StreamItem

    odds = SpotOdds(shoe_id="s1", cards_out=8, expectations={"dragon7": 0.3648, "banker": -0.0229}, actor=ACTOR)
    item = StreamItem(7, dump_event(odds), "betting", [])

    def data(reveal: bool) -> dict:
        return json.loads(_sse(item, reveal).decode().split("data: ", 1)[1])["event"]

    assert data(True)["expectations"] == {"dragon7": 0.3648, "banker": -0.0229}
    below = data(False)
    assert below["type"] == "spot_odds" and "expectations" not in below and "0.3648" not in json.dumps(below)
