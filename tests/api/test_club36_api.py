"""A club-21-36 table through the real service: a 36-card virtual shoe (`--pack 36`) on a pty,
uvicorn, the SQLite journal. The bank (the supervisor's to open and close), a whole round of
duels journalled and replayed, and no closed card reaching a viewer or dealer key.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from tests.support.client import call
from tests.support.club import ClubCroupier, assert_journal_replays, assert_no_closed_card_leaks, card_strings
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY, Table


@pytest.fixture(scope="module")
def club36(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("club36"), seed=3, profile="club-21-36", decks=1,
               shoe_args=("--pack", "36")) as t:
        yield t


def _post(t: Table, body: dict, key: str = DEALER_KEY):
    return call(t.api, "POST", "/api/actions", key, json=body)


def test_the_bank_is_the_supervisors_and_bounded(club36):
    croupier = ClubCroupier(club36)
    v = croupier.ready()
    assert v["game"] == "club-21-36" and v["shoe"]["size"] == 36
    assert {a["kind"] for a in v["alerts"]} <= {"shuffle_due"}  # the shoe's count (36) is the pack's
    assert _post(club36, {"type": "open_bank", "amount": 500}).status_code == 403  # a dealer key may not
    assert _post(club36, {"type": "close_bank"}).status_code == 403
    r = _post(club36, {"type": "open_bank", "amount": "1e20"}, SUPERVISOR_KEY)
    assert r.status_code == 422 and r.json()["error"]["field"] == "open_bank.amount"
    if not v["bank"]["open"]:
        r = _post(club36, {"type": "bet", "box": 1, "amount": 10})
        assert r.status_code == 409 and r.json()["error"]["code"] == "no_bank"
        r = _post(club36, {"type": "open_bank", "amount": 50}, SUPERVISOR_KEY)
        assert r.status_code == 409 and r.json()["error"]["code"] == "bank_under_min"
    r = _post(club36, {"type": "split"})  # club-21's, not this game's
    assert r.status_code == 409 and r.json()["error"]["code"] == "unknown_event"
    assert "not a decision of club-21-36" in r.json()["error"]["message"]
    r = _post(club36, {"type": "dark"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_players_turn"


def test_a_whole_round_of_duels_through_the_service_is_journalled_and_replays(club36):
    t = club36
    croupier = ClubCroupier(t)
    croupier.ready()
    croupier.open_bank(500)
    before = croupier.view(VIEWER_KEY)["bank"]["balance"]
    croupier.deal_round({1: 10, 2: 20})
    final = croupier.finish_round()
    assert final["round"] is None
    record = final["last_round"]
    assert record["game"] == "club-21-36" and {h["box"] for h in record["hands"]} == {1, 2}
    assert record["bank"]["before"] == before and record["bank"]["after"] == final["bank"]["balance"]
    # The bank pays what the boxes win and takes what they lose.
    assert Decimal(record["bank"]["after"]) == Decimal(before) - Decimal(record["net"])
    assert all(h["banker"] or h["outcome"] in ("win", "bust") for h in record["hands"])
    settled = croupier.view(VIEWER_KEY)["settled"]
    assert [b["bank_after"] for b in settled["boxes"]] == [h["bank_after"] for h in record["hands"]]
    rounds = call(t.api, "GET", "/api/rounds", VIEWER_KEY, params={"size": 200}).json()["rounds"]
    assert rounds[0]["bank"] == record["bank"] and rounds[0]["hands"][0]["banker"] == record["hands"][0]["banker"]
    assert_journal_replays(t, rounds)


def test_no_closed_card_of_a_duel_reaches_a_viewer_or_dealer(club36):
    t = club36
    croupier = ClubCroupier(t)
    start, v = croupier.deal_until_players({1: 10, 2: 20, 3: 10})
    assert v["phase"] == "players", v
    viewer = croupier.view(VIEWER_KEY)
    assert viewer["dealer"]["cards"] == ["XX"] and viewer["bank"]["duel"]["box"] == viewer["turn"]["box"]
    secret = assert_no_closed_card_leaks(t, start, (VIEWER_KEY, DEALER_KEY))
    assert len(secret) >= 3
    final = croupier.finish_round()
    assert final["round"] is None
    assert secret <= card_strings(json.dumps(croupier.view(VIEWER_KEY)["settled"]))
