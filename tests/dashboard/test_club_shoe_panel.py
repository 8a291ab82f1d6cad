"""The dashboard's shoe panel and round list at a club table, in headless Chromium (issue 23, "The club
tables look like club tables").

The shoe panel shows the figures the game has (``shoe_figures``): at club-21-36 what is dealt and left of
the pack and its bottom card shown, never a cut card, a penetration bar, a right to cut or a Hi-Lo count;
at blackjack all of those, as before. The round list shows each duel with the banker's own cards and their
total, and a void round says why.
"""

from __future__ import annotations

import httpx
import pytest
from tests.support.deadlines import scaled
from tests.support.browser import launch, shot, watch
from tests.support.club import ClubCroupier
from tests.support.harness import SUPERVISOR_KEY, Table

from tests.dashboard.conftest import open_reads

BLACKJACK_ONLY = ["#shoe-count", "#shoe-cut", "#shoe-rtc", "#shoe-pen", ".shoe .pen"]
CLUB_ONLY = ["#shoe-left", "#shoe-bottom"]


@pytest.fixture(scope="module")
def club36_table(tmp_path_factory):
    with open_reads(Table(tmp_path_factory.mktemp("club36-shoe"), seed=3, profile="club-21-36", decks=1,
                          shoe_args=("--pack", "36"))) as t:
        yield t


@pytest.fixture(scope="module")
def browser():
    yield from launch()


def _page(browser, api: str):
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    problems = watch(page)
    page.goto(api + "/")
    page.wait_for_selector("#live.on")
    return page, problems


def test_a_club_table_s_shoe_panel_shows_the_pack_and_its_bottom_card_and_no_cut_card_or_count(club36_table, browser):
    croupier = ClubCroupier(club36_table)
    croupier.deal_until_players({1: 10, 2: 20})
    v = croupier.view()
    assert v["phase"] == "players" and v["bottom_card"]
    page, problems = _page(browser, club36_table.api)
    page.wait_for_selector(f"#shoe-bottom [data-card='{v['bottom_card']}']")
    for selector in BLACKJACK_ONLY:
        assert page.is_hidden(selector), selector
    for selector in CLUB_ONLY:
        assert page.is_visible(selector), selector
    assert page.text_content("#shoe-dealt") == f"{v['shoe']['dealt']} / 36"  # the bottom card is not "burned"
    assert page.text_content("#shoe-left") == str(36 - v["shoe"]["dealt"])
    assert page.text_content("#shoe-bottom").endswith(" shown")
    assert page.is_visible("#ranks") and len(page.query_selector_all("#ranks .rank")) == 9
    shot(page, "club21-36-shoe-panel")
    assert problems == []
    page.close()


def test_the_round_list_shows_each_duel_with_its_banker_cards_and_a_void_round_s_reason(club36_table, browser):
    croupier = ClubCroupier(club36_table)
    if croupier.view()["round"] is None:
        croupier.deal_until_players({1: 10, 2: 20})
    final = croupier.finish_round()
    played = final["last_round"]
    croupier.deal_until_players({1: 10, 2: 20})
    croupier.act({"type": "void_round"}, SUPERVISOR_KEY)
    void = croupier.view()["last_round"]
    assert void["void_reason"] == "supervisor"
    page, problems = _page(browser, club36_table.api)
    summary = f"#history details[data-round='{played['number']}'] summary"
    page.wait_for_selector(summary)
    # The summary never runs the banker's cards of every duel together under one total.
    assert page.query_selector(summary + " .cards") is None
    assert f"{len(played['hands'])} duel(s)" in page.text_content(summary)
    page.click(summary)
    shown = page.eval_on_selector_all(
        f"#history details[data-round='{played['number']}'] tbody tr",
        """rows => rows.map(r => { const d = r.querySelector('[data-testid=duel-banker]');
             return d ? [[...d.querySelectorAll('[data-card]')].map(c => c.dataset.card), d.textContent.split(' ').pop()]
                      : null; })""")
    # a banker over 21 is "bust", as the terminal says it
    assert shown == [[h["banker"], f"({'bust' if h['banker_total'] > 21 else h['banker_total']})"] if h["banker"]
                     else None for h in played["hands"]]
    assert page.text_content(f"#history details[data-round='{void['number']}'] [data-testid=void]") == \
        "VOID: the supervisor voided it"
    shot(page, "club21-36-round-list")
    assert problems == []
    page.close()


def test_a_blackjack_table_s_shoe_panel_keeps_its_cut_card_and_count(table, browser):
    shoe = httpx.get(table.api + "/api/shoe", timeout=scaled(10)).json()
    assert shoe["shoe_figures"] == ["dealt", "burned", "penetration", "cut_card", "right_to_cut", "count",
                                    "ranks_left"]
    page, problems = _page(browser, table.api)
    page.wait_for_function("document.getElementById('shoe-due').textContent !== '–'")
    for selector in BLACKJACK_ONLY:
        assert page.is_visible(selector), selector
    for selector in CLUB_ONLY:
        assert page.is_hidden(selector), selector
    assert problems == []
    page.close()
