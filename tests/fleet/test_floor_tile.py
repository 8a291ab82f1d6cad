"""What a tile says of its table (issue 21, finding 4; issue 37): the game the table plays, and a link to the
table's dashboard only where the floor's config names one (`[[floor.tables]] dashboard_url`), never an address a
message names."""

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
    floor = floor_service(tmp_path, {}, known_tables=["t1"], tables=[_configured("t1")])
    floor.handle([state("t1", _state("https://table-1.floor.example/"))], now=NOW)
    floor.handle([state("t1", _state(url))], now=NOW + 1)
    assert floor.tile("t1", NOW)["dashboard_url"] == CONFIGURED
    incident = floor.store.incidents(1)[0]
    assert (incident["kind"], incident["table"]) == ("bad_message", "t1") and "dashboard_url" in incident["detail"]
    tiles = api_client(floor).get("/api/floor").json()["tables"]
    assert [t["dashboard_url"] for t in tiles] == [CONFIGURED]


CONFIGURED = "https://table-1.pit.casino.example:8080/"


def _configured(table: str) -> dict:
    return {"id": table, "dashboard_url": CONFIGURED}


@pytest.mark.parametrize("url", ["http://127.0.0.1:8101/", "https://table-1.floor.example/pit",
                                 "https://phishing.example/login", ""])
def test_a_tile_links_only_the_dashboard_the_floor_s_config_names_never_one_a_message_names(tmp_path, url):
    """Issue 37 (low): a tile linked any http(s) address the table's state named, so anyone who could publish a
    state sent the pit's browsers where they liked. The link is now the one `[[floor.tables]] dashboard_url`
    gives for that table, or none."""
    floor = floor_service(tmp_path, {}, known_tables=["t1", "t2"], tables=[_configured("t1")])
    floor.handle([state("t1", _state(url)), state("t2", _state(url).replace(b'"t1"', b'"t2"'))], now=NOW)
    assert floor.tile("t1", NOW)["dashboard_url"] == CONFIGURED
    assert floor.tile("t2", NOW)["dashboard_url"] is None
    assert [t["dashboard_url"] for t in api_client(floor).get("/api/floor").json()["tables"]] == [CONFIGURED, None]


@pytest.mark.parametrize("entry, says", [
    ({"id": "t1", "dashboard_url": "javascript:alert(1)"}, "only http:// and https://"),
    ({"id": "t1", "dashboard_url": "https://user:pw@table-1.example/"}, "no user name or password"),
    ({"id": "t1", "api_url": "http://127.0.0.1:1"}, "api_url and api_key_file go together"),
])
def test_a_configured_dashboard_is_a_plain_http_link(entry, says):
    from tablectl.floor import FloorConfigError
    from tablectl.floor.settings import floor_settings

    with pytest.raises(FloorConfigError, match=says):
        floor_settings({"floor": {"tables": [entry]}})


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
