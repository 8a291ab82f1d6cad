"""A baccarat table on the floor (issue 40, item 4): `tablectl fleet-sim --rules punto-banco` deals it, and its
tile shows the game, the shoe's last results and its counts (Banker, Player, Tie, pairs), from the game's own
``tile`` part (`tablectl.parts.TilePart`): the floor names no game.

Screenshot: test-output/screenshots/floor-baccarat.png.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.support.browser import launch
from tests.support.deadlines import scaled_ms
from tests.support.fleet import FleetSimProcess, FloorProcess, write_floor_config
from tests.support.floor import NOW, floor_service, state
from tests.support.harness import VIEWER_KEY, free_port

from tablectl.cli import main

OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"


def _played(tmp_path: Path, rounds: int) -> dict:
    """A punto-banco table of fleet-sim's, dealt ``rounds`` coups by its in-process dealer; its published state."""
    from tablectl.fleet.source import ServiceSource
    from tablectl.fleet_sim import SimTable, SimTableConfig

    sim = SimTable(SimTableConfig(1, tmp_path / "sim", "mqtt://127.0.0.1:9", "tablectl", 3, "punto-banco", None,
                                  fleet=False))

    async def go() -> dict:
        await sim.start()
        try:
            await sim.play(rounds, 0.0)
            source = ServiceSource(sim.service)
            try:
                return source.state(sim.id, "", sim.service.head())
            finally:
                source.close()
        finally:
            await sim.close()

    return asyncio.run(go())


def test_fleet_sim_deals_baccarat_and_the_tile_shows_its_last_results_and_counts(tmp_path):
    published = _played(tmp_path, 6)
    assert published["game"] == "baccarat" and published["view"]["rounds_played"] >= 6
    facts = {f["label"]: f["text"] for f in published["tile"]}
    assert list(facts) == ["Last", "Banker", "Player", "Tie", "Banker pair", "Player pair"]
    last = facts["Last"].split()
    assert len(last) == published["view"]["rounds_played"] and set(last) <= {"B", "P", "T"}
    assert [int(facts[k]) for k in ("Banker", "Player", "Tie")] == [last.count(x) for x in "BPT"]

    import json

    floor = floor_service(tmp_path / "floor", {}, known_tables=["table-001"])
    floor.handle([state("table-001", json.dumps(published).encode())], now=NOW)
    tile = floor.tile("table-001", NOW)
    assert (tile["game"], tile["profile"]) == ("baccarat", "punto-banco")
    assert tile["game_facts"] == published["tile"]


def test_a_blackjack_table_publishes_no_game_facts(tmp_path):
    from simulators.memory_table import MemoryShoe
    from tablectl.fleet.source import ServiceSource
    from tablectl.fleet_sim import SimTable, SimTableConfig
    from tablectl.service import TableService

    sim = SimTable(SimTableConfig(1, tmp_path / "sim", "mqtt://127.0.0.1:9", "tablectl", 1, "ru-standard", None))
    rules = sim.settings.table.rules()
    source = ServiceSource(TableService(sim.settings, link=MemoryShoe(sim.id, 1, rules.decks, pack=rules.pack)))
    try:
        assert "tile" not in source.state(sim.id, "", (0, None))
    finally:
        source.close()


def test_fleet_sim_offers_the_baccarat_profiles(tmp_path, capsys: pytest.CaptureFixture[str]):
    code = main(["fleet-sim", "--tables", "1", "--rules", "club-21", "--broker", "mqtt://127.0.0.1:9",
                 "--dir", str(tmp_path)])
    assert code == 2 and "punto-banco" in capsys.readouterr().err


@pytest.fixture(scope="module")
def browser():
    yield from launch()


def test_the_floor_page_draws_a_baccarat_tile(browser, tmp_path, broker):
    floor = FloorProcess(write_floor_config(tmp_path, broker.url, free_port(), tmp_path / "sim" / "keys"),
                         tmp_path / "floor.log").start()
    sim = FleetSimProcess(tmp_path, broker.url, 1, 10_000, "--step-seconds", "0.05", "--rules", "punto-banco").start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(floor.api + "/")
        page.fill("#key", VIEWER_KEY)
        page.press("#key", "Enter")
        live = "#tiles .tile[data-table=table-001]"
        page.wait_for_function(f"(document.querySelector('{live} .game') || {{}}).textContent === "
                               "'baccarat · punto-banco'", timeout=scaled_ms(30))
        # Three coups settled: the last results and the counts on the tile, as the table's game says them.
        page.wait_for_function(f"""(() => {{ const d = document.querySelector('{live} [data-testid=game-facts]');
            return d && d.querySelectorAll('dd')[0].textContent.split(' ').length >= 3; }})()""",
                               timeout=scaled_ms(60))
        labels = page.eval_on_selector_all(f"{live} [data-testid=game-facts] dt", "ds => ds.map(d => d.textContent)")
        assert labels == ["Last", "Banker", "Player", "Tie", "Banker pair", "Player pair"]
        texts = page.eval_on_selector_all(f"{live} [data-testid=game-facts] dd", "ds => ds.map(d => d.textContent)")
        assert set(texts[0].split()) <= {"B", "P", "T"} and all(t.isdigit() for t in texts[1:])
        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.locator(live).screenshot(path=str(OUTPUT / "floor-baccarat.png"))
        print("TILE:", page.text_content(live))
        assert not errors, errors
        page.close()
    finally:
        sim.stop()
        floor.stop()
