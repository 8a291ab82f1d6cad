"""The table-side scoreboard page in headless Chromium (Debian's, driven by Playwright), on a whole table (the
virtual shoe and `tablectl run` as processes, real uvicorn): the roads and counts of the coups played, legible
at 5 m (large type), and no error in the page; the pit's dashboard draws the baccarat felt without an error."""

from __future__ import annotations

import pytest

from tests.support.browser import DESKTOP, launch, shot, watch
from tests.support.client import call, deal
from tests.support.harness import DEALER_KEY, VIEWER_KEY, Table

COUPS = 9


@pytest.fixture(scope="module")
def baccarat_table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("baccarat"), seed=11, profile="punto-banco", decks=8) as t:
        for n in range(COUPS):
            for spot, box, amount in (("banker", 1, 25), ("player", 2, 50), ("tie", 3, 5), ("player_pair", 3, 5)):
                r = call(t.api, "POST", "/api/actions", DEALER_KEY,
                         json={"type": "bet", "box": box, "amount": amount, "spot": spot})
                assert r.status_code == 200, r.text
            while True:
                view = call(t.api, "GET", "/api/table", VIEWER_KEY).json()
                if view["rounds_played"] > n and view["round"] is None:
                    break
                assert view["next_card"], view["phase"]
                deal(t.api, t.shoe, VIEWER_KEY, 1)
        yield t


@pytest.fixture(scope="module")
def browser():
    yield from launch()


def test_the_scoreboard_page_shows_the_shoes_roads_large(baccarat_table, browser) -> None:
    board = call(baccarat_table.api, "GET", "/api/scoreboard").json()
    assert board["counts"]["coups"] == COUPS
    page = browser.new_page(viewport=DESKTOP)
    problems = watch(page)
    page.goto(baccarat_table.api + "/scoreboard")
    page.wait_for_selector("body[data-loaded='1']")
    assert page.eval_on_selector_all("#bead_plate .cell", "els => els.length") == COUPS
    assert page.eval_on_selector_all("#big_road .cell", "els => els.length") == len(board["big_road"])
    marks = page.eval_on_selector_all("#bead_plate .cell", "els => els.map(e => e.dataset.mark)")
    assert marks == [c["mark"] for c in board["bead_plate"]]
    counts = page.inner_text("#counts")
    assert f"B {board['counts']['banker']}" in counts and f"P {board['counts']['player']}" in counts
    # Legible at 5 m: the counts in type at least 48 px high on a 1080-line screen (about 5 cm on a 24" screen).
    size = page.eval_on_selector("#counts", "e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 48, size
    # One screen: nothing under its edge or beside it (a table-side screen has no one to scroll it).
    drawn = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert drawn[0] <= DESKTOP["width"] and drawn[1] <= DESKTOP["height"], drawn
    shot(page, "scoreboard-punto-banco")
    assert problems == []
    page.close()


def test_the_scoreboard_speaks_the_tables_language(baccarat_table, browser) -> None:
    """`[table] language = "ru"` (GET /api/language, answered here as such a table answers): the roads' names, the
    counts and the marks in Russian, from the scoreboard's Russian catalogue (issue 41, the pit's languages)."""
    board = call(baccarat_table.api, "GET", "/api/scoreboard").json()
    assert call(baccarat_table.api, "GET", "/api/language").json() == {"language": "en"}  # no key: the default
    page = browser.new_page(viewport=DESKTOP)
    problems = watch(page)
    page.route("**/api/language", lambda route: route.fulfill(status=200, content_type="application/json",
                                                              body='{"language": "ru"}'))
    page.goto(baccarat_table.api + "/scoreboard")
    page.wait_for_selector("body[data-loaded='1']")
    assert page.get_attribute("html", "lang") == "ru"
    assert page.inner_text("section h2").lower() == "бусины"
    counts = page.inner_text("#counts")
    assert f"Б {board['counts']['banker']}" in counts and f"И {board['counts']['player']}" in counts, counts
    beads = page.eval_on_selector_all("#bead_plate .cell", "els => els.map(e => e.firstChild.textContent)")
    assert beads == [{"B": "Б", "P": "И", "T": "Н"}[c["mark"]] for c in board["bead_plate"]]
    assert "Big road" not in page.inner_text("body")
    shot(page, "71-scoreboard-ru")
    assert problems == []
    page.close()


def test_the_dashboard_draws_the_baccarat_felt(baccarat_table, browser) -> None:
    page = browser.new_page(viewport=DESKTOP)
    problems = watch(page)
    page.goto(baccarat_table.api + f"/#key={VIEWER_KEY}")
    page.wait_for_selector("[data-testid='player-hand']")
    assert page.inner_text("[data-testid='result']") in ("PLAYER", "BANKER", "TIE")
    shot(page, "dashboard-baccarat")
    assert [p for p in problems if "403" not in p] == []  # (a viewer is refused the pit's own reads)
    page.close()
