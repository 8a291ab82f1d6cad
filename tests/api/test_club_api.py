"""A club-21 table, in-process (tests.support.inprocess: the service, a virtual shoe on an in-memory wire,
the SQLite journal): the club decisions and their refusals, a whole round journalled and replayed, a box
withdrawn. The closed cards, which no viewer or dealer key receives by any GET route or the live stream
until they are turned, are scanned through the real processes in test_server_process.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.club import assert_journal_replays
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY
from tests.support.inprocess import AsyncClubCroupier, InProcessTable, call

pytestmark = pytest.mark.anyio


@pytest.fixture
async def club_table(tmp_path: Path) -> AsyncIterator[InProcessTable]:
    async with InProcessTable(tmp_path, seed=7, profile="club-21", decks=2) as t:
        yield t


async def _post(t: InProcessTable, body: dict[str, Any], key: str = DEALER_KEY) -> httpx.Response:
    return await call(t.api, "POST", "/api/actions", key, json=body)


@pytest.mark.parametrize("body, code", [
    ({"type": "banker_stand"}, "not_banker_turn"),
    ({"type": "fold", "box": 1}, "pack_not_spent"),
    ({"type": "double", "box": 1}, "double_not_allowed"),  # pairs are off, and the pack is not spent
    ({"type": "contra"}, "contra_not_allowed"),
    ({"type": "recontra", "box": 1}, "contra_not_allowed"),
])
async def test_a_club_decision_out_of_its_time_is_a_409_with_the_engine_reason(club_table, body, code):
    await AsyncClubCroupier(club_table).ready()  # between rounds
    r = await _post(club_table, body)
    assert r.status_code == 409, r.text
    error = r.json()["error"]
    assert error["code"] == code and error["message"]


async def test_withdraw_needs_a_supervisor_key_and_the_engine_says_why_not(club_table):
    await AsyncClubCroupier(club_table).ready()
    r = await _post(club_table, {"type": "withdraw", "box": 1})
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    r = await _post(club_table, {"type": "withdraw", "box": 1}, SUPERVISOR_KEY)
    assert r.status_code == 409 and r.json()["error"]["code"] == "no_round"


async def test_a_decision_of_another_game_is_refused_in_words(club_table):
    r = await _post(club_table, {"type": "insurance", "box": 1, "amount": 5})
    assert r.status_code == 409
    r = await _post(club_table, {"type": "close_bank"}, SUPERVISOR_KEY)  # club-21-36's, not club-21's
    assert r.status_code == 409
    assert r.json()["error"] == {"code": "unknown_event", "field": None,
                                 "message": "'close_bank' is not a decision of club-21 (this table plays club-21)"}
    # Whether or not this process had loaded club-21-36 when the table's app was made (issue 36's lazy registry: when
    # it had not, its decision failed the body's union as no event at all, a 422 naming nothing).
    r = await _post(club_table, {"type": "open_bank", "amount": "10"}, SUPERVISOR_KEY)
    assert r.status_code == 409, r.text
    assert r.json()["error"]["message"] == "'open_bank' is not a decision of club-21 (this table plays club-21)"


@pytest.mark.parametrize("body, field", [
    ({"type": "shuffle", "card_count": 36}, "shuffle.card_count"),  # the shoe's to count, as shoe_id is its to give
    ({"type": "fold"}, "fold.box"),
    ({"type": "fold", "box": 10}, "fold.box"),
    ({"type": "recontra", "box": 0}, "recontra.box"),
    ({"type": "withdraw", "box": "one"}, "withdraw.box"),
    ({"type": "banker_stand", "box": 1}, "banker_stand.box"),
])
async def test_a_malformed_club_action_is_a_422_naming_the_field(club_table, body, field):
    r = await _post(club_table, body, SUPERVISOR_KEY)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"] == field


async def test_a_whole_club21_round_through_the_service_is_journalled_and_replays(club_table):
    t = club_table
    croupier = AsyncClubCroupier(t)
    before = (await croupier.ready())["rounds_played"]
    await croupier.deal_round({1: 10, 3: 30})
    final = await croupier.finish_round()
    assert final["rounds_played"] == before + 1 and final["round"] is None
    record = final["last_round"]
    assert record["game"] == "club-21" and record["bottom_card"] == final["bottom_card"]
    assert {h["box"] for h in record["hands"]} == {1, 3}
    assert all(h["outcome"] in {"natural", "win", "lose", "bust", "push", "banker_bust"} for h in record["hands"])
    assert sum(int(h["net"]) for h in record["hands"]) == int(record["net"])
    rounds = (await call(t.api, "GET", "/api/rounds", VIEWER_KEY, params={"size": 200})).json()["rounds"]
    assert rounds[0]["number"] == record["number"] and rounds[0]["game"] == "club-21"
    # The journal replays to the same rounds (club records and all).
    assert_journal_replays(t, rounds)
    assert {a["kind"] for a in final["alerts"]} <= {"shuffle_due"}  # the shoe's count matched the pack


async def test_the_supervisor_withdraws_a_box_in_play_and_it_plays_no_more(club_table):
    t = club_table
    croupier = AsyncClubCroupier(t)
    for _ in range(10):
        await croupier.ready()
        v = await croupier.deal_round({1: 10, 2: 20})
        if v["phase"] == "players" and v["turn"]["box"] == 1:
            break
        await croupier.finish_round()
    assert v["phase"] == "players" and v["turn"]["box"] == 1
    r = await _post(t, {"type": "withdraw", "box": 2}, SUPERVISOR_KEY)
    assert r.status_code == 200, r.text
    final = await croupier.finish_round()  # box 1 plays, box 2 is passed over, the banker draws
    outcomes = {h["box"]: (h["outcome"], h["net"]) for h in final["last_round"]["hands"]}
    assert outcomes[2] == ("withdrawn", "0") and outcomes[1][0] != "withdrawn"
    journal = (await call(t.api, "GET", f"/api/export?round={final['last_round']['number']}", SUPERVISOR_KEY)).text
    assert '"actor":"supervisor:pit"' in journal and '"type":"withdraw"' in journal
