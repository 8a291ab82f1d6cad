"""The felt in headless Chromium against a live table, dealt from a stacked shoe: every mark
(blackjack, stood, doubled, surrendered, insured, busted, the dealer's blackjack), the best total
once a hand is done, the settled round kept on the felt with each box's result from the house's
side until the next round's first card; the table-stopped banner on a jam, a lock, attention and
a lost link; history paged through with times; no console errors, no 404s; keyboard reach.

Screenshots at 1920x1080 and 1024x768 go to test-output/screenshots/.
"""

from __future__ import annotations

import httpx
import pytest
from tests.support.deadlines import scaled, scaled_ms
from tests.support.browser import DESKTOP, TABLET, act, deal, launch, shot, view, wait, watch
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, Table

from simulators.virtual_dealer import VirtualDealer


# box 1 A K (blackjack) · box 2 5 6, doubles, 9 · box 3 A 8 (soft 19), insured, stands ·
# box 4 T 6 surrenders · box 5 T 5, hits K, busts · dealer A, then K: blackjack.
STACK = ["AS", "5H", "AH", "TC", "TH", "AD", "KS", "6H", "8D", "6C", "5D", "9C", "KH", "KD"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    t = Table(tmp_path_factory.mktemp("felt"), seed=8, profile="ru-surrender")
    with open_reads(t) as t:
        yield t


def open_reads(t: Table) -> Table:
    """Reads need no key from 127.0.0.1 (the demo's setting)."""
    text = t.config.read_text()
    head = f"[api]\nport = {t.port}\n"
    t.config.write_text(text.replace(head, head + "open_reads_on_loopback = true\n", 1))
    return t


@pytest.fixture(scope="module")
def browser():
    yield from launch()


def _page(browser, table, viewport=DESKTOP):
    page = browser.new_page(viewport=viewport)
    problems = watch(page)
    page.goto(table.api + "/")
    page.wait_for_selector("#live.on")
    return page, problems


def _marks(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector + " [data-mark]", "els => els.map(e => e.dataset.mark)")


def _play_marked_round(table, page) -> None:
    wait(lambda: view(table)["phase"] == "betting" and not view(table)["boxes"], what="betting")
    for box in range(1, 6):
        act(table, {"type": "bet", "box": box, "amount": 10})
    assert table.shoe.request("stack", cards=STACK)["ok"]
    deal(table, 11)
    assert view(table)["phase"] == "insurance"
    act(table, {"type": "insurance", "box": 3, "amount": 5})
    act(table, {"type": "close_insurance"})
    page.wait_for_function("document.querySelector('[data-box=\"3\"] [data-testid=hand-total]').textContent === '9 / 19'")
    assert "blackjack" in _marks(page, "[data-box='1']")  # marked at once, before the dealer's turn
    act(table, {"type": "surrender", "box": 4})
    act(table, {"type": "double"})
    deal(table)
    act(table, {"type": "stand"})  # box 3 stands on soft 19: the best total only, now
    page.wait_for_function("document.querySelector('[data-box=\"3\"] [data-testid=hand-total]').textContent === '19'")
    assert "stood" in _marks(page, "[data-box='3'] .hand")
    deal(table)  # box 5 hits: K, bust
    deal(table)  # the dealer's K: blackjack
    wait(lambda: view(table)["round"] is None, what="the round to settle")


def test_every_mark_and_the_settled_round_stay_on_the_felt(browser, table):
    page, problems = _page(browser, table)
    _play_marked_round(table, page)
    page.wait_for_selector("[data-testid=settled]")
    assert _marks(page, "[data-box='1']") == ["blackjack"]
    assert _marks(page, "[data-box='2']") == ["doubled"]
    assert sorted(_marks(page, "[data-box='3']")) == ["insured", "stood"]
    assert _marks(page, "[data-box='4']") == ["surrendered"]
    assert _marks(page, "[data-box='5']") == ["busted"]
    assert _marks(page, "#dealer") == ["blackjack"]
    assert page.text_content("#dealer [data-testid=dealer-total]") == "21"
    # each box's result, from the house's side, labelled
    results = page.eval_on_selector_all("[data-testid=box-result] > .house:last-child",
                                        "els => els.map(e => e.dataset.house)")
    assert results == ["0", "20", "0", "5", "10"]  # push, a lost double, insurance pays the loss, half, a bust
    assert "House +35" in page.text_content("[data-testid=settled]")
    phase_box = page.eval_on_selector("#phase", "e => e.getBoundingClientRect().height")
    assert phase_box < 40  # the badge is a badge, not the felt's dealer block
    shot(page, "10-settled-felt-1920x1080")
    page.set_viewport_size(TABLET)
    shot(page, "11-settled-felt-1024x768")
    # new bets do not clear the felt; the next round's first card does
    act(table, {"type": "bet", "box": 2, "amount": 10})
    page.wait_for_selector("#next-boxes .box.next")  # apart from the settled round (issue 23)
    assert page.query_selector("[data-testid=settled]") is not None
    deal(table)
    page.wait_for_function("!document.querySelector('[data-testid=settled]')")
    assert page.eval_on_selector_all("#boxes .box", "els => els.map(e => e.dataset.box)") == ["2"]
    while view(table)["round"] is not None:  # finish the round for the next tests
        v = view(table)
        if v["legal_actions"] and "stand" in v["legal_actions"]:
            act(table, {"type": "stand"})
        elif v["phase"] == "insurance":
            act(table, {"type": "close_insurance"})
        else:
            deal(table)
    assert not problems, problems
    page.close()


def _banner(page, *words: str) -> str:
    page.wait_for_selector("#stopped:not([hidden])")
    for word in words:  # the shoe's own state arrives with its next heartbeat
        page.wait_for_function(f"document.querySelector('#stopped').textContent.includes({word!r})")
    return page.text_content("#stopped")


def _no_banner(page) -> None:
    page.wait_for_selector("#stopped[hidden]", state="attached", timeout=scaled_ms(20))


def test_the_banner_on_a_jam_a_lock_attention_and_a_lost_link(browser, table):
    page, problems = _page(browser, table, TABLET)
    wait(lambda: view(table)["phase"] == "betting" and view(table)["round"] is None, what="betting")
    _no_banner(page)
    sup = {"Authorization": f"Bearer {SUPERVISOR_KEY}"}

    assert table.shoe.request("fault", kind="jam")["ok"]  # a jam: an alert, and the shoe says so
    assert "jammed" in _banner(page, "jammed")
    page.wait_for_selector("#alert-list [data-kind=shoe_fault]")
    assert "jammed in the shoe's gate" in page.text_content("#alert-list [data-kind=shoe_fault] .text")
    shot(page, "20-banner-jam-1024x768")
    alert = next(a for a in view(table)["alerts"] if a["kind"] == "shoe_fault")
    act(table, {"type": "ack_alert", "alert_id": alert["id"]}, SUPERVISOR_KEY)
    page.wait_for_function("!document.querySelector('#alert-list [data-kind=shoe_fault]')")
    assert "jammed" in _banner(page, "jammed")  # acknowledged, but the shoe is still jammed
    assert table.shoe.request("clear")["ok"]
    _no_banner(page)

    assert httpx.post(table.api + "/api/shoe/lock", json={"locked": True}, headers=sup, timeout=scaled(10)).status_code == 200
    assert "gate is locked" in _banner(page, "gate is locked")
    assert httpx.post(table.api + "/api/shoe/lock", json={"locked": False}, headers=sup, timeout=scaled(10)).status_code == 200
    _no_banner(page)

    card = table.shoe.request("deal")["card"]  # no bets: the card is held, the table needs attention
    text = _banner(page, "held", "discard")
    assert page.text_content("#phase").startswith("attention")
    page.set_viewport_size(DESKTOP)
    shot(page, "21-banner-attention-1920x1080")
    assert card[0] in text
    act(table, {"type": "discard_card"}, SUPERVISOR_KEY)
    _no_banner(page)

    assert table.shoe.request("unplug", seconds=3)["ok"]
    text = _banner(page, "link is down")
    assert "/dev/" not in text
    page.wait_for_selector("#alert-list [data-kind=link_down]")
    assert "/dev/" not in page.text_content("#alert-list")  # a human reason, never a device path
    shot(page, "22-banner-link-down-1920x1080")
    _no_banner(page)
    act(table, {"type": "call_pit"})
    page.wait_for_selector("#alert-list [data-kind=call_pit]")
    assert page.text_content("#alert-list [data-kind=call_pit] .text") == "The dealer (dealer) calls the pit"
    assert not problems, problems
    page.close()


def test_history_pages_through_the_shift_with_times_and_the_keyboard(browser, table):
    played = view(table)["rounds_played"]
    if played < 23:
        VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=4, max_boxes=3).run(23, timeout=scaled(240))
    total = httpx.get(table.api + "/api/rounds?size=1", timeout=scaled(10)).json()["total"]
    page, problems = _page(browser, table)
    page.wait_for_selector("#history details time")
    assert len(page.query_selector_all("#history details")) == 20
    assert page.text_content("#hist-page").startswith("page 1 of ")
    assert page.get_attribute("#history details time", "datetime")  # each round has its time
    reached = []
    for _ in range(60):  # every control is reachable with Tab alone
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.id || document.activeElement.tagName"))
        if reached[-1] == "hist-older":
            break
    assert "key" in reached and reached[-1] == "hist-older", reached
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#hist-page').textContent.startsWith('page 2 ')")
    shown = page.eval_on_selector_all("#history details", "els => els.map(e => Number(e.dataset.round))")
    assert shown == list(range(total - 20, max(total - 40, 0), -1))
    page.click(f"#history details[data-round='{shown[0]}'] summary")
    assert page.query_selector(f"#history details[data-round='{shown[0]}'] tbody .house")
    # the shift: per box and per player, from the house's side
    page.wait_for_selector("#fig-boxes tr")
    assert page.query_selector("#fig-players tr") is not None
    assert "(house)" in page.text_content(".figures")
    shot(page, "23-history-page-2-1920x1080")
    assert not problems, problems
    page.close()
