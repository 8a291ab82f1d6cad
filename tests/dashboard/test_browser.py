"""The pit dashboard in headless Chromium (Playwright) against a live table: a round card by card,
an unexpected card's alert acknowledged and resolved with a supervisor key, totals equal to the API's,
and the page following the stream through a service restart without a reload.

Screenshots go to test-output/screenshots/ (CI keeps them as artefacts); load time and weight
to test-output/dashboard-load.json.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest
from tests.support.browser import launch
from tests.support.deadlines import scaled, scaled_ms, wait_until
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY

from simulators.virtual_dealer import VirtualDealer

OUTPUT = Path(__file__).resolve().parents[2] / "test-output"  # gitignored; CI keeps it as an artefact
SCREENSHOTS = OUTPUT / "screenshots"


@pytest.fixture(scope="module")
def browser():
    # No skip: scripts/test installs Debian's chromium (scripts/system-packages.txt) before any test runs.
    yield from launch()  # every page's waits scaled (tests.support.deadlines)


def _shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def _view(table) -> dict:
    return httpx.get(table.api + "/api/table", timeout=scaled(10)).json()


def _cards_in(view: dict) -> int:
    return len(view["dealer"]["cards"]) + sum(len(h["cards"]) for b in view["boxes"] for h in b["hands"])


def _page_cards(page) -> int:
    return page.evaluate("document.querySelectorAll('#dealer .card, #boxes .card').length")


def _wait(cond, timeout: float = 30.0, what: str = "condition") -> None:
    wait_until(cond, timeout, what)


def _deal(table) -> None:
    """Release one card from the shoe and wait until the service has journalled it."""
    _wait(lambda: not _view(table)["locked"], what="the shoe to unlock")
    seq = _view(table)["last_seq"]
    assert table.shoe.request("deal")["ok"]
    _wait(lambda: _view(table)["last_seq"] > seq, what="the card to reach the table")


def _assert_same_totals(page, view: dict) -> None:
    shown = page.evaluate("""() => ({
        dealer: document.querySelector('[data-testid=dealer-total]').textContent,
        hands: [...document.querySelectorAll('#boxes .box:not(.next) [data-testid=hand-total]')].map(e => e.textContent),
        cards: [...document.querySelectorAll('#boxes .box:not(.next) .hand')].map(h =>
            [...h.querySelectorAll('.card')].map(c => c.dataset.card || 'XX')),
    })""")
    assert shown["dealer"] == " / ".join(str(t) for t in view["dealer"]["totals"])
    hands = [h for b in view["boxes"] if not b.get("next_round") for h in b["hands"]]
    # both totals while the player may choose, the best one once the hand is done
    assert shown["hands"] == [str(h["totals"][-1]) if h["done"] and h["totals"] else " / ".join(str(t) for t in h["totals"])
                              for h in hands]
    assert shown["cards"] == [h["cards"] for h in hands]


def test_load_time_and_weight(browser, table):
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    sizes: list[int] = []
    page.on("response", lambda r: sizes.append(len(r.body())) if r.url.startswith(table.api) and "/api/events" not in r.url else None)
    started = time.monotonic()
    page.goto(table.api + "/", wait_until="load")
    page.wait_for_function("window.tablectl && window.tablectl.firstDraw !== undefined")
    wall = time.monotonic() - started
    nav = page.evaluate("""() => { const n = performance.getEntriesByType('navigation')[0];
        const res = performance.getEntriesByType('resource').filter(r => !r.name.includes('/api/events'));
        return {dom_content_loaded_ms: n.domContentLoadedEventEnd, load_ms: n.loadEventEnd,
                first_draw_ms: window.tablectl.firstDraw,
                transfer_bytes: n.transferSize + res.reduce((a, r) => a + r.transferSize, 0),
                requests: 1 + res.length}; }""")
    nav["bodies_bytes"] = sum(sizes)
    nav["wall_s"] = round(wall, 3)
    OUTPUT.mkdir(exist_ok=True)
    (OUTPUT / "dashboard-load.json").write_text(json.dumps(nav, indent=1))
    print("dashboard load:", nav)
    assert nav["load_ms"] < 3000 and nav["transfer_bytes"] < 200_000
    page.close()


def test_a_round_card_by_card_then_an_alert_acknowledged_and_resolved(browser, table):
    # Past the first shuffle and burn: two rounds by the virtual dealer.
    VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=2, max_boxes=3).run(2, timeout=scaled(120))
    _wait(lambda: _view(table)["phase"] == "betting", what="betting")
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(table.api + "/")
    page.wait_for_selector("#live.on")

    # A round, card by card: one bet on box 2 and one on box 5; the page follows every card.
    for box in (2, 5):
        r = httpx.post(table.api + "/api/actions", json={"type": "bet", "box": box, "amount": "10"},
                       headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10))
        assert r.status_code == 200, r.text
    seen = []
    for step in range(40):
        view = _view(table)
        if view["round"] is None and view["rounds_played"] > 2 and view["last_round"]:
            break
        if view["phase"] in ("players", "surrender") and view["legal_actions"] and not view["next_card"]:
            r = httpx.post(table.api + "/api/actions", json={"type": "stand"},
                           headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10))
            assert r.status_code == 200, r.text
            continue
        if view["phase"] in ("players", "surrender") and view["legal_actions"]:
            r = httpx.post(table.api + "/api/actions", json={"type": "stand"},
                           headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10))
            assert r.status_code == 200, r.text
            continue
        if view["phase"] == "insurance":
            httpx.post(table.api + "/api/actions", json={"type": "close_insurance"},
                       headers={"Authorization": f"Bearer {DEALER_KEY}"}, timeout=scaled(10))
            continue
        assert view["next_card"], view
        _deal(table)
        view = _view(table)
        if view["round"] is not None:
            want = _cards_in(view)
            page.wait_for_function(f"document.querySelectorAll('#dealer .card, #boxes .card').length === {want}")
            seen.append(want)
            _assert_same_totals(page, view)
            if want == 4:
                _shot(page, "01-round-in-play")
    assert seen[:4] == [1, 2, 3, 4], seen  # each card appeared on its own
    page.wait_for_selector("#history details")
    view = _view(table)
    assert view["round"] is None and view["last_round"]
    last = view["last_round"]["number"]
    page.wait_for_selector(f"#history details[data-round='{last}']")
    _assert_same_totals(page, _view(table)) if _view(table)["boxes"] else None
    page.click(f"#history details[data-round='{last}'] summary")
    _shot(page, "02-round-settled-history-open")
    api_round = httpx.get(table.api + f"/api/rounds/{last}", timeout=scaled(10)).json()
    shown = page.eval_on_selector_all(f"#history details[data-round='{last}'] tbody tr td:nth-child(2)",
                                      "tds => tds.map(td => [...td.querySelectorAll('.card')].map(c => c.dataset.card))")
    assert shown[:len(api_round["hands"])] == [h["cards"] for h in api_round["hands"]]

    # An unexpected card: nobody has bet, yet a card leaves the shoe.
    _wait(lambda: _view(table)["phase"] == "betting" and not _view(table)["boxes"], what="an empty table")
    assert table.shoe.request("deal")["ok"]
    alert = page.wait_for_selector("#alert-list [data-kind=unexpected_card]", timeout=scaled_ms(30))
    assert "unexpected card" in alert.text_content().lower()
    assert page.text_content("#phase").startswith("attention")
    _shot(page, "03-unexpected-card-alert")

    # Without a key the buttons ask for one; with a supervisor key they act.
    page.click("#alert-list [data-kind=unexpected_card] button[data-act=ack]")
    assert "supervisor key" in page.text_content("#action-msg")
    page.fill("#key", SUPERVISOR_KEY)
    page.press("#key", "Enter")  # keyboard: the form submits
    page.wait_for_selector("#key-state:text('key set')")
    page.click("#alert-list [data-kind=unexpected_card] button[data-act=ack]")
    page.wait_for_selector("#alert-list [data-kind=unexpected_card].acked")
    page.once("dialog", lambda d: d.accept())  # discarding asks first, as voiding does (issue 23)
    page.click("#alert-list [data-kind=unexpected_card] button[data-act=discard]")
    page.wait_for_selector("#alert-list li.none:text('No alerts')")
    assert _view(table)["alerts"] == [] and _view(table)["phase"] == "betting"
    _shot(page, "04-alert-cleared")
    assert not errors, errors
    page.close()


def test_follows_the_stream_through_a_service_restart_without_a_reload(browser, table):
    page = browser.new_page(viewport={"width": 820, "height": 1180})  # a tablet, portrait
    page.goto(table.api + "/")
    page.wait_for_selector("#live.on")
    page.evaluate("window.__marker = 'same page'")
    start_seq = page.evaluate("window.tablectl.sseSeq")
    table.service.stop()
    page.wait_for_selector("#live.off", timeout=scaled_ms(30))
    table.service.start()
    page.wait_for_selector("#live.on", timeout=scaled_ms(60))
    VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=3, max_boxes=4).run(
        _view(table)["rounds_played"] + 2, timeout=scaled(120))
    final = _view(table)["last_seq"]
    page.wait_for_function(f"window.tablectl.sseSeq === {final}", timeout=scaled_ms(30))
    st = page.evaluate("({marker: window.__marker, events: window.tablectl.events, gaps: window.tablectl.gaps,"
                       " reconnects: window.tablectl.reconnects})")
    assert st["marker"] == "same page"  # no reload
    assert st["gaps"] == 0 and st["events"] == final - start_seq  # every event, none twice
    assert st["reconnects"] >= 1
    page.wait_for_function(f"document.querySelector('#history details') && "
                           f"document.querySelector('#history details').dataset.round == '{_view(table)['rounds_played']}'")
    _shot(page, "05-tablet-after-restart")
    page.close()
