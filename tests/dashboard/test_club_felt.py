"""The pit's dashboard at a club-21 table, in headless Chromium: below supervisor every box's hand
is closed (face-down cards, "closed · N cards", no total) and the banker's too; with the
supervisor's key the pit sees every card and total; once settled, everyone sees the round.
"""

from __future__ import annotations

import json

import pytest
from tests.support.browser import launch, shot, watch
from tests.support.club import ClubCroupier, card_strings
from tests.support.harness import SUPERVISOR_KEY, VIEWER_KEY, Table

from tests.dashboard.conftest import open_reads


@pytest.fixture(scope="module")
def club_table(tmp_path_factory):
    with open_reads(Table(tmp_path_factory.mktemp("club-felt"), seed=7, profile="club-21", decks=2)) as t:
        yield t


@pytest.fixture(scope="module")
def browser():
    yield from launch()


def _texts(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "els => els.map(e => e.textContent)")


def _faces(page, selector: str) -> set[str]:
    return set(page.eval_on_selector_all(selector + " [data-card]", "els => els.map(e => e.dataset.card)"))


def test_the_felt_keeps_closed_hands_closed_below_supervisor_and_shows_the_pit_everything(club_table, browser):
    croupier = ClubCroupier(club_table)
    croupier.deal_until_players({1: 10, 2: 20})
    sup = croupier.view(SUPERVISOR_KEY)
    assert sup["phase"] == "players"
    secret = card_strings(json.dumps(sup["boxes"])) | set(sup["dealer"]["cards"])
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    problems = watch(page)
    page.goto(club_table.api + "/")
    page.wait_for_selector("#live.on")
    page.wait_for_selector("[data-testid=hand-closed]")
    # The anonymous reader (a viewer): closed hands, their card counts, no total, no face of a closed card.
    closed = _texts(page, "#boxes [data-testid=hand-closed]")
    assert closed == [f"closed · {len(b['hands'][0]['cards'])} cards" for b in sup["boxes"]]
    assert _texts(page, "#boxes [data-testid=hand-total]") == ["", ""]
    assert _faces(page, "#boxes") == set() and _faces(page, "#dealer") == {sup["bottom_card"]}
    assert page.text_content("#dealer .label") == "Banker"
    assert page.text_content("[data-testid=dealer-closed]") == "closed · 2 cards"
    shot(page, "club21-viewer")
    # The pit's key: every card and every total.
    page.fill("#key", SUPERVISOR_KEY)
    page.press("#key", "Enter")
    page.wait_for_selector("#key-state:text('key set')")
    page.wait_for_function("document.querySelectorAll('#boxes [data-card]').length > 0")
    assert _faces(page, "#boxes") | _faces(page, "#dealer") >= secret
    totals = _texts(page, "#boxes [data-testid=hand-total]")
    assert all(totals) and len(totals) == 2
    shot(page, "club21-pit")
    final = croupier.finish_round()
    page.wait_for_selector("[data-testid=settled]")
    assert final["round"] is None and page.query_selector("[data-testid=hand-closed]") is None
    assert problems == []
    page.close()
    assert croupier.view(VIEWER_KEY)["settled"]["number"] == final["last_round"]["number"]


@pytest.fixture(scope="module")
def club36_table(tmp_path_factory):
    with open_reads(Table(tmp_path_factory.mktemp("club36-felt"), seed=3, profile="club-21-36", decks=1,
                          shoe_args=("--pack", "36"))) as t:
        yield t


def test_the_felt_of_a_club_21_36_table_shows_the_bank_and_each_duel(club36_table, browser):
    croupier = ClubCroupier(club36_table)
    croupier.deal_until_players({1: 10, 2: 20})
    sup = croupier.view(SUPERVISOR_KEY)
    assert sup["phase"] == "players"
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    problems = watch(page)
    page.goto(club36_table.api + "/")
    page.wait_for_selector("#live.on")
    page.wait_for_selector("[data-testid=bank]")
    bank = sup["bank"]
    assert page.text_content("[data-testid=bank]") == (
        f"Bank {bank['balance']} (put up {bank['opened_with']}) · round {bank['rounds_played']}"
        f" · duel: box {bank['duel']['box']}, stake {bank['duel']['stake']}")
    assert _faces(page, "#boxes") == set()  # every box's card is closed below supervisor
    assert page.text_content(f"#boxes [data-box='{sup['turn']['box']}'] [data-testid=duel]").startswith("duel")
    final = croupier.finish_round()
    page.wait_for_selector("[data-testid=settled]")
    page.wait_for_function("document.querySelectorAll('[data-testid=duel]').length === 2")
    duels = _texts(page, "#boxes [data-testid=duel]")
    assert [d.endswith(f"bank after {b['bank_after']}") for d, b in zip(duels, final["settled"]["boxes"])] == [True, True]
    shot(page, "club21-36-settled")
    assert problems == []
    page.close()
