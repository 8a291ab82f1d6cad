"""The floor dashboard in headless Chromium (Playwright) against a real broker, floor and table:
a tile per table, alerts first with their age, a click opens the table's own dashboard, offline shown;
the floor's totals in the header, the tiles grouped by pit, an offline table an alarm (issue 23).

Screenshots go to test-output/screenshots/floor-*.png (CI keeps them as artefacts).
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import re
from datetime import datetime, timezone

import httpx
import pytest
from tests.support.browser import launch
from tests.support.deadlines import scaled, scaled_ms
from tests.support.fleet import FleetSimProcess, FloorProcess, until_true, write_floor_config
from tests.support.harness import VIEWER_KEY, free_port

from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings

OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"


@pytest.fixture(scope="module")
def browser():
    yield from launch()  # Debian's chromium, every page's waits scaled (tests.support.deadlines)


def _announce_alerting_table(url: str) -> None:
    """A second table, as its publisher would describe it: a call for the pit, raised a minute ago."""
    from datetime import datetime, timedelta, timezone

    raised = (datetime.now(timezone.utc) - timedelta(seconds=75)).isoformat()
    state = {"table": "table-900", "name": "Table 900", "game": "blackjack", "profile": "ru-surrender",
             "view": {"phase": "attention", "round": 12, "rounds_played": 11, "shoe": {"penetration": 0.61},
                      "alerts": [{"id": 4, "kind": "call_pit", "message": "the dealer calls the pit",
                                  "raised_at": raised, "active": True, "acknowledged": False}]},
             "figures": {"rounds_per_hour": 58.0, "hands_per_hour": 170.0, "house_result": "125"},
             "head": {"seq": 0, "mac": None}, "dashboard_url": ""}

    async def go() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "test-table-900") as conn:
            await conn.publish("tablectl/table-900/state", json.dumps(state).encode(), retain=True)
            await conn.publish("tablectl/table-900/status", b"online", retain=True)

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's event loop
        pool.submit(asyncio.run, go()).result(timeout=scaled(20))


def _shot(page, name: str) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"floor-{name}.png"), full_page=True)


def test_tiles_alerts_first_a_click_opens_the_table_and_offline_shows(browser, tmp_path, broker):
    # table-900 has no key: the floor shows it because it is in known_tables. A tile links the dashboard the
    # floor's config names for its table (never one a message names).
    table_port = free_port()
    floor = FloorProcess(write_floor_config(tmp_path, broker.url, free_port(), tmp_path / "sim" / "keys",
                                            extra='known_tables = ["table-900"]\n[[floor.tables]]\nid = "table-001"\n'
                                                  f'dashboard_url = "http://127.0.0.1:{table_port}/"\n'),
                         tmp_path / "floor.log").start()
    sim = FleetSimProcess(tmp_path, broker.url, 1, 10_000, "--step-seconds", "0.2",
                          "--api-port", str(table_port)).start()
    try:
        _announce_alerting_table(broker.url)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(floor.api + "/")
        page.wait_for_selector("#msg:text('viewer key')")  # no key: the page says what it needs
        page.fill("#key", VIEWER_KEY)
        page.press("#key", "Enter")
        page.wait_for_function("document.querySelectorAll('#tiles .tile').length === 2")
        page.wait_for_selector("#tiles .tile[data-table=table-001] .online")
        order = page.eval_on_selector_all("#tiles .tile", "ts => ts.map(t => t.dataset.table)")
        assert order == ["table-900", "table-001"]  # the table with an open alert first
        alert = page.text_content("#tiles .tile[data-table=table-900] .alerts li")
        assert alert.startswith("call pit · 1 min")
        assert "alerting" in page.get_attribute("#tiles .tile[data-table=table-900]", "class")
        live = "#tiles .tile[data-table=table-001]"
        # The tile is there from the table's status; its name and game come with its first state, which may
        # arrive later (the tile says table-001 until then): waited for, not read at once.
        page.wait_for_function(f"document.querySelector('{live} .name').textContent === 'Table 1'")
        page.wait_for_function(f"document.querySelector('{live} .game').textContent === 'blackjack · ru-standard'")
        page.wait_for_function(f"document.querySelector('{live} [data-testid=round]').textContent !== ''")
        _shot(page, "01-tiles")

        # A click opens the table's own dashboard, served by that table.
        with page.expect_popup() as popup_info:
            page.click(f"{live} a")
        table_page = popup_info.value
        table_page.wait_for_load_state()
        assert table_page.url == f"http://127.0.0.1:{table_port}/"
        table_page.wait_for_selector("#live.on", timeout=scaled_ms(15))
        table_page.wait_for_function("document.querySelector('#table-name').textContent === 'Table 1'")
        _shot(table_page, "02-table-dashboard")
        table_page.close()

        # The table goes away: its tile says offline.
        sim.stop()
        page.wait_for_selector(f"{live}.offline .offline-label", timeout=scaled_ms(15))
        _shot(page, "03-table-offline")
        assert not errors, errors
        page.close()
    finally:
        sim.stop()
        floor.stop()


def test_the_floor_page_is_light(browser, tmp_path, broker):
    floor = FloorProcess(write_floor_config(tmp_path, broker.url, free_port(), tmp_path / "keys",
                                            extra='known_tables = ["table-900"]\n'), tmp_path / "floor.log").start()
    try:
        _announce_alerting_table(broker.url)
        page = browser.new_page()
        page.goto(floor.api + "/", wait_until="load")
        nav = page.evaluate("""() => { const n = performance.getEntriesByType('navigation')[0];
            const res = performance.getEntriesByType('resource');
            return {load_ms: n.loadEventEnd, bytes: n.transferSize + res.reduce((a, r) => a + r.transferSize, 0)}; }""")
        assert nav["load_ms"] < 3000 and nav["bytes"] < 100_000, nav
        page.close()
    finally:
        floor.stop()


def _announce(url: str, *tables: tuple[dict, bytes]) -> None:
    """Tables as their publishers would describe them: each state retained, then its status."""
    async def go() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "test-tables") as conn:
            for state, status in tables:
                await conn.publish(f"tablectl/{state['table']}/state", json.dumps(state).encode(), retain=True)
                await conn.publish(f"tablectl/{state['table']}/status", status, retain=True)

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's event loop
        pool.submit(asyncio.run, go()).result(timeout=scaled(20))


def _table(table: str, pit: str | None, alerts: list[str], rph: float, result: str, seq: int = 0) -> dict:
    raised = datetime.now(timezone.utc).isoformat()
    return {"table": table, "name": f"Table {table[-3:]}", "game": "blackjack", "profile": "ru-standard",
            **({"pit": pit} if pit else {}),
            "view": {"phase": "betting", "round": 3, "rounds_played": 2, "shoe": {"penetration": 0.4},
                     "alerts": [{"id": i + 1, "kind": k, "message": k, "raised_at": raised}
                                for i, k in enumerate(alerts)]},
            "figures": {"rounds_per_hour": rph, "hands_per_hour": 2 * rph, "house_result": result},
            "head": {"seq": seq, "mac": None}, "dashboard_url": ""}


def test_the_header_gives_the_floors_totals_and_the_tiles_are_grouped_by_pit(browser, tmp_path, broker):
    """A table of pit A (a real one, from fleet-sim --pit A), two of pit B (one waiting, one at alarm), and one
    without a pit gone offline, as a persistent broker hands a fresh floor a table of an earlier run: without a
    key, and 276 rows the floor never saw."""
    floor = FloorProcess(write_floor_config(
        tmp_path, broker.url, free_port(), tmp_path / "sim" / "keys",
        extra='known_tables = ["table-900", "table-901", "table-902"]\n'), tmp_path / "floor.log").start()
    sim = FleetSimProcess(tmp_path, broker.url, 1, 0, "--step-seconds", "0.2", "--pit", "A").start()
    try:
        _announce(broker.url,
                  (_table("table-900", "B", ["call_pit"], 58.0, "125"), b"online"),
                  (_table("table-901", "B", ["integrity"], 293.9, "-150"), b"online"),
                  (_table("table-902", None, [], 60.0, "610", seq=276), b"offline"))
        headers = {"Authorization": f"Bearer {VIEWER_KEY}"}
        until_true(lambda: len(httpx.get(f"{floor.api}/api/floor", headers=headers, timeout=scaled(10)).json()["tables"]) == 4,
                   what="four tables on the floor")
        ghost = httpx.get(f"{floor.api}/api/tables/table-902", headers=headers, timeout=scaled(10)).json()
        heard = datetime.fromtimestamp(ghost["heard_at"], timezone.utc).strftime("%H:%M")

        context = browser.new_context(viewport={"width": 1600, "height": 1000}, timezone_id="UTC")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(floor.api + "/")
        page.fill("#key", VIEWER_KEY)
        page.press("#key", "Enter")
        page.wait_for_function("document.querySelectorAll('#tiles .tile').length === 4")
        page.wait_for_selector("#tiles .tile[data-table=table-001] .online")
        # (its pit comes with its state, which may follow its "online": wait for the tile in pit A)
        page.wait_for_selector("#tiles section.pit[data-pit=A] .tile[data-table=table-001]")

        # The header: the floor's totals, the offline table counted as an alarm, in the alarm's colour.
        summary = "#summary [data-testid={}]"
        assert page.text_content(summary.format("open")) == "3 of 4 tables open"
        assert page.text_content(summary.format("alarms")) == "2 alarms"  # table-901's integrity, table-902 offline
        assert page.text_content(summary.format("offline")) == " (1 offline)"
        assert page.text_content(summary.format("waiting")) == "1 waiting"  # table-900 (table-001 has its key)
        assert re.fullmatch(r"\d[\d,]* rounds/h", page.text_content(summary.format("rph")))
        assert re.fullmatch(r"House [+−]?[\d,.]+", page.text_content(summary.format("house")))
        red = "rgb(255, 93, 93)"
        assert page.eval_on_selector(summary.format("offline"), "e => getComputedStyle(e).color") == red

        # Grouped by pit, pits by name and "No pit" last; in a pit, alarms first, then the tables waiting.
        pits = page.eval_on_selector_all("#tiles section.pit", """ss => ss.map(s => [s.querySelector('h2').textContent,
            [...s.querySelectorAll('.tile')].map(t => t.dataset.table)])""")
        assert pits == [["Pit A · 1 table", ["table-001"]],
                        ["Pit B · 2 tables · 1 alarm · 1 waiting", ["table-901", "table-900"]],
                        ["No pit · 1 table · 1 alarm", ["table-902"]]]

        # The offline table: alarm-red, since when, and its figures greyed as last known.
        gone = "#tiles .tile[data-table=table-902]"
        assert "level-alarm" in page.get_attribute(gone, "class")
        assert page.eval_on_selector(gone, "e => getComputedStyle(e).borderTopColor") == red
        assert re.fullmatch(rf"offline since {heard} \((\d+ s|\d+ min)\)",
                            page.text_content(f"{gone} [data-testid=offline-since]"))
        assert page.text_content(f"{gone} .last-known .caption") == f"last known at {heard}"
        assert page.text_content(f"{gone} .last-known [data-testid=result]") == "House +610"
        assert page.text_content(f"{gone} [data-testid=evidence]") == (
            "Evidence: rows missing: 276 of 276 (0 received); no key for this table: cannot verify")
        assert page.text_content(f"{gone} .alerts li[data-kind=no_key]") == (
            "no key for this table: its evidence cannot be verified")

        # Figures in the pit's words: a signed house result, coloured but never red behind; whole rounds an hour.
        behind = "#tiles .tile[data-table=table-901] [data-testid=result] .house"
        assert page.text_content(behind) == "House −150" and "behind" in page.get_attribute(behind, "class")
        assert page.eval_on_selector(behind, "e => getComputedStyle(e).color") != red
        assert page.text_content("#tiles .tile[data-table=table-901] [data-testid=rph]") == "294"
        live = "#tiles .tile[data-table=table-001] [data-testid=evidence]"
        page.wait_for_function(f"/^Evidence: all \\d+ rows received, (verified|verifying…)$/"
                               f".test(document.querySelector('{live}').textContent)")
        _shot(page, "04-pits-and-totals")
        page.set_viewport_size({"width": 390, "height": 844})  # a phone: the header wraps, nothing runs off
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        _shot(page, "05-pits-and-totals-phone")

        # Not grouped: one list, in the same order (alarms, waiting, then by name).
        page.uncheck("#group")
        order = page.eval_on_selector_all("#tiles .tile", "ts => ts.map(t => t.dataset.table)")
        assert order == ["table-901", "table-902", "table-900", "table-001"]
        assert page.query_selector("#tiles section.pit") is None
        assert not errors, errors
        context.close()
    finally:
        sim.stop()
        floor.stop()
