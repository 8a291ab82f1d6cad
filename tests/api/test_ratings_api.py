"""`GET /api/ratings` and the seat actions through the API (issue 41, part 1).

A dealer seats a player by the card read at the console and the player plays a round through the API; the
supervisor's key reads the slip (the export's columns); the dealer's and a viewer's keys are refused (it names
players and what they won); a refused seat is a 409 with its reason, a bad id a 422.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tablectl.ratings import COLUMNS
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY
from tests.support.inprocess import InProcessTable, call, deal

pytestmark = pytest.mark.anyio


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    async with InProcessTable(tmp_path, seed=11) as t:
        yield t


async def test_a_seated_players_slip_is_the_supervisors(table: InProcessTable) -> None:
    act = lambda body: call(table.api, "POST", "/api/actions", DEALER_KEY, json=body)  # noqa: E731
    r = await act({"type": "seat", "box": 2, "player": "P-7", "card": "C-0007"})
    assert r.status_code == 200, r.text
    r = await act({"type": "seat", "box": 2, "player": "P-8"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "box_occupied", r.text
    r = await act({"type": "seat", "box": 3, "player": "\u0420-7 P"})  # a Cyrillic Р among Latin letters
    assert r.status_code == 422, r.text
    assert (await act({"type": "bet", "box": 2, "amount": "20"})).status_code == 200
    while (view := (await call(table.api, "GET", "/api/table", DEALER_KEY)).json())["rounds_played"] < 1 or \
            view["round"] is not None:
        if view["phase"] == "players":
            assert (await act({"type": "stand"})).status_code == 200
        elif view["phase"] == "insurance":
            await act({"type": "close_insurance"})
        else:
            await deal(table.api, table.shoe, DEALER_KEY, 1)
    for key in (VIEWER_KEY, DEALER_KEY):
        r = await call(table.api, "GET", "/api/ratings", key)
        assert r.status_code == 403, (key, r.status_code)
    r = await call(table.api, "GET", "/api/ratings?hours=8", SUPERVISOR_KEY)
    assert r.status_code == 200, r.text
    [slip] = r.json()["sessions"]
    assert tuple(slip) == COLUMNS
    assert (slip["player"], slip["card"], slip["box"], slip["open"], slip["rounds"]) == ("P-7", "C-0007", 2, True, 1)
    assert slip["wagered"] == "20.00" and slip["theo"] is not None


async def test_buy_ins_a_marker_is_the_supervisors_and_the_table_stamps_the_gaming_day(table: InProcessTable) -> None:
    from controller.events import BuyIn
    from controller.journal import JournalReader
    from tests.support.journals import key_for

    act = lambda key, body: call(table.api, "POST", "/api/actions", key, json=body)  # noqa: E731
    r = await act(DEALER_KEY, {"type": "buy_in", "box": 2, "player": "P-7", "amount": "5000", "method": "marker"})
    assert r.status_code == 403 and "supervisor" in r.json()["error"]["message"], r.text
    r = await act(DEALER_KEY, {"type": "buy_in", "player": "P-7", "amount": "500", "gaming_day": "2020-01-01"})
    assert r.status_code == 422, r.text
    r = await act(DEALER_KEY, {"type": "buy_in", "player": "P-7", "amount": "500", "mtl_notice": "1"})
    assert r.status_code == 422, r.text
    assert (await act(DEALER_KEY, {"type": "buy_in", "box": 2, "player": "P-7", "amount": "3000"})).status_code == 200
    r = await act(SUPERVISOR_KEY, {"type": "buy_in", "player": "P-7", "amount": "5000", "method": "marker"})
    assert r.status_code == 200, r.text
    view = (await call(table.api, "GET", "/api/table", SUPERVISOR_KEY)).json()
    assert [a["kind"] for a in view["alerts"] if a["kind"].startswith("mtl")] == ["mtl_notice"]
    reader = JournalReader(table.journal, key_for(table.journal))
    try:
        rows = [e for e in reader.entries() if isinstance(e.event, BuyIn)]
    finally:
        reader.close()
    assert len(rows) == 2
    for row in rows:  # the service's values, from its config's defaults: 06:00 UTC, 3,000 and 10,000
        assert row.event.gaming_day == table.settings.table.gaming_day(row.received_at)
        assert (row.event.mtl_notice, row.event.mtl_action) == (3000, 10000)


async def test_the_table_stamps_its_inventory_tolerance_and_a_count_short_is_an_alert_on_the_board(
        table: InProcessTable) -> None:
    from controller.events import Closer, Drop
    from controller.journal import JournalReader
    from tests.support.journals import key_for

    act = lambda body: call(table.api, "POST", "/api/actions", SUPERVISOR_KEY, json=body)  # noqa: E731
    assert (await act({"type": "opener", "chips": {"100": 100}})).status_code == 200
    r = await act({"type": "closer", "chips": {"100": 99}, "tolerance": "1000"})  # a person's: refused
    assert r.status_code == 422 and r.json()["error"]["field"] == "closer.tolerance", r.text
    assert (await act({"type": "closer", "chips": {"100": 99}})).status_code == 200
    view = (await call(table.api, "GET", "/api/table", SUPERVISOR_KEY)).json()
    assert not [a for a in view["alerts"] if a["kind"] == "inventory_difference"]  # the drop is still to come
    assert (await act({"type": "drop", "amount": "0"})).status_code == 200
    view = (await call(table.api, "GET", "/api/table", SUPERVISOR_KEY)).json()
    [alert] = [a for a in view["alerts"] if a["kind"] == "inventory_difference"]
    assert alert["level"] == "action" and "100 short" in alert["message"], alert
    r = await act({"type": "ack_alert", "alert_id": alert["id"]})
    assert r.status_code == 200, r.text
    view = (await call(table.api, "GET", "/api/table", SUPERVISOR_KEY)).json()
    assert not [a for a in view["alerts"] if a["kind"] == "inventory_difference"]
    reader = JournalReader(table.journal, key_for(table.journal))
    try:
        counts = [e.event for e in reader.entries() if isinstance(e.event, (Closer, Drop))]
    finally:
        reader.close()
    assert [c.tolerance for c in counts] == [0, 0]  # `[inventory] tolerance`'s default, journalled with each
