"""The floor dashboard in headless Chromium (Playwright) against a real broker, floor and table:
a tile per table, alerts first with their age, a click opens the table's own dashboard, offline shown.

Screenshots go to test-output/screenshots/floor-*.png (CI keeps them as artefacts).
"""

from __future__ import annotations

import asyncio
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from tests.support.fleet import FleetSimProcess, FloorProcess, write_floor_config
from tests.support.harness import VIEWER_KEY, free_port

from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings

OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Debian's chromium is not installed ({CHROMIUM}): apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


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
        pool.submit(asyncio.run, go()).result(timeout=20)


def _shot(page, name: str) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"floor-{name}.png"), full_page=True)


def test_tiles_alerts_first_a_click_opens_the_table_and_offline_shows(browser, tmp_path, broker):
    # table-900 has no key: the floor shows it because it is in known_tables.
    floor = FloorProcess(write_floor_config(tmp_path, broker.url, free_port(), tmp_path / "sim" / "keys",
                                            extra='known_tables = ["table-900"]\n'), tmp_path / "floor.log").start()
    table_port = free_port()
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
        assert page.text_content(f"{live} .name") == "Table 1"
        assert page.text_content(f"{live} .game") == "blackjack · ru-standard"
        page.wait_for_function(f"document.querySelector('{live} [data-testid=round]').textContent !== ''")
        _shot(page, "01-tiles")

        # A click opens the table's own dashboard, served by that table.
        with page.expect_popup() as popup_info:
            page.click(f"{live} a")
        table_page = popup_info.value
        table_page.wait_for_load_state()
        assert table_page.url == f"http://127.0.0.1:{table_port}/"
        table_page.wait_for_selector("#live.on", timeout=15_000)
        assert table_page.text_content("#table-name") == "Table 1"
        _shot(table_page, "02-table-dashboard")
        table_page.close()

        # The table goes away: its tile says offline.
        sim.stop()
        page.wait_for_selector(f"{live}.offline .offline-label", timeout=15_000)
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
