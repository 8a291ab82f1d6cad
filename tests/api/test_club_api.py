"""A club-21 table through the real service (virtual shoe on a pty, uvicorn, the SQLite journal):
the club decisions and their refusals, and the closed cards, which no viewer or dealer key
receives by any GET route or the live stream until they are turned.
"""

from __future__ import annotations

import json

import pytest
from tests.support.client import call
from tests.support.club import (ClubCroupier, assert_journal_replays, assert_no_closed_card_leaks, card_strings,
                                sse_until)
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY, Table


@pytest.fixture(scope="module")
def club_table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("club21"), seed=7, profile="club-21", decks=2) as t:
        yield t


def _post(t: Table, body: dict, key: str = DEALER_KEY):
    return call(t.api, "POST", "/api/actions", key, json=body)


@pytest.mark.parametrize("body, code", [
    ({"type": "banker_stand"}, "not_banker_turn"),
    ({"type": "fold", "box": 1}, "pack_not_spent"),
    ({"type": "double", "box": 1}, "double_not_allowed"),  # pairs are off, and the pack is not spent
    ({"type": "contra"}, "contra_not_allowed"),
    ({"type": "recontra", "box": 1}, "contra_not_allowed"),
])
def test_a_club_decision_out_of_its_time_is_a_409_with_the_engine_reason(club_table, body, code):
    ClubCroupier(club_table).ready()  # between rounds
    r = _post(club_table, body)
    assert r.status_code == 409, r.text
    error = r.json()["error"]
    assert error["code"] == code and error["message"]


def test_withdraw_needs_a_supervisor_key_and_the_engine_says_why_not(club_table):
    ClubCroupier(club_table).ready()
    r = _post(club_table, {"type": "withdraw", "box": 1})
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    r = _post(club_table, {"type": "withdraw", "box": 1}, SUPERVISOR_KEY)
    assert r.status_code == 409 and r.json()["error"]["code"] == "no_round"


def test_a_decision_of_another_game_is_refused_in_words(club_table):
    r = _post(club_table, {"type": "insurance", "box": 1, "amount": 5})
    assert r.status_code == 409
    r = _post(club_table, {"type": "close_bank"}, SUPERVISOR_KEY)  # club-21-36's, not club-21's
    assert r.status_code == 409
    assert r.json()["error"] == {"code": "unknown_event", "field": None,
                                 "message": "'close_bank' is not a decision of club-21 (this table plays club-21)"}


@pytest.mark.parametrize("body, field", [
    ({"type": "shuffle", "card_count": 36}, "shuffle.card_count"),  # the shoe's to count, as shoe_id is its to give
    ({"type": "fold"}, "fold.box"),
    ({"type": "fold", "box": 10}, "fold.box"),
    ({"type": "recontra", "box": 0}, "recontra.box"),
    ({"type": "withdraw", "box": "one"}, "withdraw.box"),
    ({"type": "open_bank", "amount": "1e20"}, "open_bank.amount"),
    ({"type": "banker_stand", "box": 1}, "banker_stand.box"),
])
def test_a_malformed_club_action_is_a_422_naming_the_field(club_table, body, field):
    r = _post(club_table, body, SUPERVISOR_KEY)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"] == field


def test_no_closed_card_reaches_a_viewer_or_dealer_by_any_get_route_or_the_stream(club_table):
    t = club_table
    croupier = ClubCroupier(t)
    # A round whose boxes play on closed cards (one settled by a natural in the deal shows all).
    start, v = croupier.deal_until_players({1: 10, 2: 20})
    assert v["phase"] == "players", v
    secret = assert_no_closed_card_leaks(t, start, (VIEWER_KEY, DEALER_KEY))
    assert len(secret) >= 4  # two boxes' and the banker's: the scan had something to find
    sup = croupier.view(SUPERVISOR_KEY)
    for key in (VIEWER_KEY, DEALER_KEY):
        table = croupier.view(key)
        for box in table["boxes"]:  # club-21: every box's card is closed in the deal and the boxes' turns
            assert all(h["closed"] and set(h["cards"]) == {"XX"} for h in box["hands"]), box
        assert table["dealer"]["closed"] and set(table["dealer"]["cards"]) == {"XX"}
        cards = [e for e in sse_until(t.api, key, start, sup["last_seq"]) if e["data"]["event"]["type"] == "card"]
        closed = sum(len(h["cards"]) for b in sup["boxes"] for h in b["hands"]) + len(sup["dealer"]["cards"])
        assert sum(e["data"]["event"]["card"] == "XX" for e in cards) == closed
    final = croupier.finish_round()  # settled: every card is turned, for everyone
    assert final["round"] is None
    assert secret <= card_strings(json.dumps(croupier.view(VIEWER_KEY)["settled"]))


def test_a_whole_club21_round_through_the_service_is_journalled_and_replays(club_table):
    t = club_table
    croupier = ClubCroupier(t)
    before = croupier.ready()["rounds_played"]
    croupier.deal_round({1: 10, 3: 30})
    final = croupier.finish_round()
    assert final["rounds_played"] == before + 1 and final["round"] is None
    record = final["last_round"]
    assert record["game"] == "club-21" and record["bottom_card"] == final["bottom_card"]
    assert {h["box"] for h in record["hands"]} == {1, 3}
    assert all(h["outcome"] in {"natural", "win", "lose", "bust", "push", "banker_bust"} for h in record["hands"])
    assert sum(int(h["net"]) for h in record["hands"]) == int(record["net"])
    rounds = call(t.api, "GET", "/api/rounds", VIEWER_KEY, params={"size": 200}).json()["rounds"]
    assert rounds[0]["number"] == record["number"] and rounds[0]["game"] == "club-21"
    # The journal replays to the same rounds (club records and all).
    assert_journal_replays(t, rounds)
    assert {a["kind"] for a in final["alerts"]} <= {"shuffle_due"}  # the shoe's count matched the pack


def test_the_supervisor_withdraws_a_box_in_play_and_it_plays_no_more(club_table):
    t = club_table
    croupier = ClubCroupier(t)
    for _ in range(10):
        croupier.ready()
        v = croupier.deal_round({1: 10, 2: 20})
        if v["phase"] == "players" and v["turn"]["box"] == 1:
            break
        croupier.finish_round()
    assert v["phase"] == "players" and v["turn"]["box"] == 1
    r = _post(t, {"type": "withdraw", "box": 2}, SUPERVISOR_KEY)
    assert r.status_code == 200, r.text
    final = croupier.finish_round()  # box 1 plays, box 2 is passed over, the banker draws
    outcomes = {h["box"]: (h["outcome"], h["net"]) for h in final["last_round"]["hands"]}
    assert outcomes[2] == ("withdrawn", "0") and outcomes[1][0] != "withdrawn"
    journal = call(t.api, "GET", f"/api/export?round={final['last_round']['number']}", SUPERVISOR_KEY).text
    assert '"actor":"supervisor:pit"' in journal and '"type":"withdraw"' in journal
