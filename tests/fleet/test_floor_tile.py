"""What a tile says of its table (issue 21, finding 4): the game the table plays, and a link to the table's
dashboard only if it is an http(s) address."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from tests.support.deadlines import scaled
from tests.support.floor import NOW, api_client, floor_service, state
from tests.support.fleet import FloorProcess, until_true, write_floor_config
from tests.support.harness import VIEWER_KEY, free_port

from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings

LINKS_REFUSED = ["javascript:alert(document.cookie)", "JavaScript:alert(1)", "data:text/html,<script>1</script>",
                 "file:///etc/passwd", "ftp://example.com/", "//evil.example/", "http:///no-host", "vbscript:x"]


def _state(url: str) -> bytes:
    return json.dumps({"table": "t1", "name": "Table One", "game": "blackjack", "dashboard_url": url}).encode()


@pytest.mark.parametrize("url", LINKS_REFUSED)
def test_a_dashboard_url_that_is_not_http_or_https_is_refused_and_never_linked(tmp_path, url):
    floor = floor_service(tmp_path, {}, known_tables=["t1"])
    floor.handle([state("t1", _state("https://table-1.floor.example/"))], now=NOW)
    floor.handle([state("t1", _state(url))], now=NOW + 1)
    assert floor.tile("t1", NOW)["dashboard_url"] == "https://table-1.floor.example/"
    incident = floor.store.incidents(1)[0]
    assert (incident["kind"], incident["table"]) == ("bad_message", "t1") and "dashboard_url" in incident["detail"]
    tiles = api_client(floor).get("/api/floor").json()["tables"]
    assert [t["dashboard_url"] for t in tiles] == ["https://table-1.floor.example/"]


@pytest.mark.parametrize("url", ["http://127.0.0.1:8101/", "https://table-1.floor.example/pit", ""])
def test_an_http_or_https_dashboard_url_is_linked(tmp_path, url):
    floor = floor_service(tmp_path, {}, known_tables=["t1"])
    floor.handle([state("t1", _state(url))], now=NOW)
    assert floor.tile("t1", NOW)["dashboard_url"] == (url or None)


@pytest.mark.parametrize("profile", ["club-21", "club-21-36", "ru-standard"])
def test_a_table_publishes_the_game_it_plays_and_its_tile_says_so(tmp_path, broker, profile):
    from simulators.memory_table import MemoryShoe
    from tablectl.fleet.source import ServiceSource, state_json
    from tablectl.fleet_sim import SimTable, SimTableConfig
    from tablectl.service import TableService

    sim = SimTable(SimTableConfig(1, tmp_path / "sim", broker.url, "tablectl", 1, profile, None))
    rules = sim.settings.table.rules()
    service = TableService(sim.settings, link=MemoryShoe(sim.id, 1, rules.decks, pack=rules.pack))
    source = ServiceSource(service)
    published = source.state(sim.id, "", service.head())
    source.close()
    assert published["game"] == rules.game and published["profile"] == profile

    floor = FloorProcess(write_floor_config(tmp_path, broker.url, free_port(), tmp_path / "sim" / "keys"),
                         tmp_path / "floor.log").start()
    try:
        asyncio.run(_retain(broker.url, f"tablectl/{sim.id}/state", state_json(published)))
        headers = {"Authorization": f"Bearer {VIEWER_KEY}"}

        def tile() -> dict:
            return httpx.get(f"{floor.api}/api/tables/{sim.id}", headers=headers, timeout=scaled(10)).json()

        until_true(lambda: tile().get("profile") == profile, what="the table's state on the floor")
        assert tile()["game"] == rules.game and tile()["state"]["game"] == rules.game
    finally:
        floor.stop()


async def _retain(url: str, topic: str, payload: bytes) -> None:
    async with mqtt.connect(BrokerSettings(url=url), "test-table") as conn:
        await conn.publish(topic, payload, retain=True)
