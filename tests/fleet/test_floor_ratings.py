"""The rating slips pushed over the floor (issue 41): a table publishes each player's session once it has ended,
the floor validates it into its typed model at the boundary, keeps it once on each engine, and serves it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from tests.support.deadlines import scaled
from tests.support.fleet import FloorProcess, until_true, write_floor_config
from tests.support.harness import SUPERVISOR_KEY, VIEWER_KEY, free_port

from controller import events as ev
from controller.journal import JournalReader
from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings
from tablectl.fleet.wire import MAX_RATING_BYTES, parse_rating, rating_payload
from tablectl.fleet_sim import SimTable, SimTableConfig
from tablectl.ratings import rows


def _slip(table: str, player: str, box: int = 2, start: str = "2026-01-01T10:00:00Z", **more: Any) -> dict[str, Any]:
    slip = {"format": 1, "table": table, "player": player, "named": True, "box": box, "card": None, "start": start,
            "end": "2026-01-01T11:00:00Z", "open": False, "minutes": 60.0, "paused_minutes": 0.0, "rounds": 40,
            "hands": 41, "decisions": 50, "mistakes": 2, "decisions_per_hour": 41.0, "average_bet": "25.00",
            "largest_bet": "50.00", "wagered": "1000.00", "actual": "12.50", "edge_pct": 0.4,
            "measured_edge_pct": 0.9, "theo": "9.00", "thumb_theo": "6.00", "mistake_cost": "5.00"}
    slip.update(more)
    return slip


def _publish(url: str, messages: list[tuple[str, bytes]]) -> None:
    async def go() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "test-table") as conn:
            for topic, payload in messages:
                await conn.publish(topic, payload)

    asyncio.run(go())


def _get(api: str, path: str, key: str = SUPERVISOR_KEY) -> httpx.Response:
    return httpx.get(api + path, headers={"Authorization": f"Bearer {key}"}, timeout=scaled(10))


@pytest.fixture
def floor_on_each(tmp_path, broker, floor_db):
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "t1.key").write_text("22" * 32 + "\n")
    cfg = write_floor_config(tmp_path, broker.url, free_port(), keys, extra='known_tables = ["t2"]\n', store=floor_db)
    proc = FloorProcess(cfg, tmp_path / "floor.log").start()
    yield proc
    proc.stop()


def test_a_table_s_slips_are_kept_once_each_served_by_table_and_a_bad_or_foreign_one_is_dropped(floor_on_each,
                                                                                                broker):
    api = floor_on_each.api
    ivan, olga = _slip("t1", "Ivan"), _slip("t1", "Olga", box=3)
    _publish(broker.url, [
        ("tablectl/t1/rating", rating_payload(ivan)),
        ("tablectl/t1/rating", rating_payload(ivan)),  # sent again after the table's restart: kept once
        ("tablectl/t2/rating", rating_payload(_slip("t1", "Forged"))),  # t2 speaking for t1: dropped
        ("tablectl/t1/rating", rating_payload(_slip("t1", "Open", open=True))),  # only ended sessions
        ("tablectl/t1/rating", rating_payload(_slip("t1", "Money", wagered="lots"))),
        ("tablectl/t1/rating", rating_payload(_slip("t1", "Extra", secret="x"))),  # a column format 1 has not
        ("tablectl/t1/rating", b"{" * (MAX_RATING_BYTES + 1)),
        ("tablectl/t1/rating", rating_payload(olga)),
        ("tablectl/t2/rating", rating_payload(_slip("t2", "Ivan"))),  # the same player at another table
    ])
    until_true(lambda: len(_get(api, "/api/ratings").json().get("sessions", [])) == 3, what="three slips")
    every = _get(api, "/api/ratings").json()["sessions"]
    assert sorted((s["table"], s["player"]) for s in every) == [("t1", "Ivan"), ("t1", "Olga"), ("t2", "Ivan")]
    assert _get(api, "/api/ratings?table=t1").json()["sessions"] == [ivan, olga]  # the export's line, whole
    assert [s["player"] for s in _get(api, "/api/ratings?table=t2").json()["sessions"]] == ["Ivan"]
    assert _get(api, "/api/ratings?since=2026-01-01T11:00:01Z").json()["sessions"] == []
    until_true(lambda: _get(api, "/healthz", None).json()["dropped"] == 5, what="five dropped")  # type: ignore[arg-type]
    kinds = [i["kind"] for i in _get(api, "/api/incidents").json()["incidents"]]
    assert "bad_message" in kinds
    # It names players and their money: a supervisor's, not a viewer's.
    assert _get(api, "/api/ratings", VIEWER_KEY).status_code == 403


def test_a_player_s_session_ended_at_the_table_is_published_once_as_the_export_line(tmp_path, broker):
    asyncio.run(_table_publishes(tmp_path, broker.url))


async def _table_publishes(tmp_path, url: str) -> None:  # noqa: ANN001
    sim = SimTable(SimTableConfig(1, tmp_path, url, "tablectl", 5, "ru-standard", None))
    heard: list[bytes] = []
    subscribed = asyncio.Event()

    async def listen() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "test-listener") as conn:
            await conn.subscribe(["tablectl/table-001/rating"])
            subscribed.set()
            async for m in conn.messages():
                heard.append(m.payload)

    listener = asyncio.create_task(listen())
    await asyncio.wait_for(subscribed.wait(), scaled(10))
    await sim.start()
    try:
        service = sim.service
        await service.act(ev.Seat(box=1, player="Ivan"), "supervisor")
        await sim.play(service.table.rounds_played + 3, 0)
        await sim.drain(scaled(10))
        assert heard == []  # still seated: nothing pushed
        await service.act(ev.Unseat(box=1), "supervisor")
        loop = asyncio.get_running_loop()
        end = loop.time() + scaled(15)
        while not heard and loop.time() < end:
            await asyncio.sleep(0.05)
        await sim.play(service.table.rounds_played + 2, 0)  # more play, more states: the slip is not sent again
        await sim.drain(scaled(10))
        await asyncio.sleep(0.5)
    finally:
        await sim.close()
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)
    assert len(heard) == 1, heard
    slip = parse_rating(heard[0], "table-001")  # as the floor's boundary reads it
    assert slip.player == "Ivan" and slip.box == 1 and slip.rounds >= 1 and not slip.open
    with JournalReader(sim.settings.journal.path) as reader:
        exported = [r for r in rows(reader, "table-001") if r["player"] == "Ivan"]
    assert [json.loads(heard[0])] == exported  # the same line as `tablectl ratings export`
