"""The API through the real processes (the virtual shoe on a pty, `tablectl run` with uvicorn): what an
in-process table cannot show. The live stream (SSE: resumed without gaps, the hole card and the club's
closed cards on it only for the supervisor), the service's own log, and a few hundred rounds played by
the virtual dealer over HTTP and the shoe's control socket, replayed from the exported journal.

The routes themselves are tested in-process (test_api.py and its neighbours, tests.support.inprocess).
"""

from __future__ import annotations

import json
import threading

import pytest

from controller.replay import replay_lines
from simulators.virtual_dealer import VirtualDealer
from tests.support.deadlines import scaled
from tests.support.client import call, deal
from tests.support.client import sse_events as _sse_events
from tests.support.club import ClubCroupier, assert_no_closed_card_leaks, card_strings, holds, sse_until
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY, Table, tablectl


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("table"), seed=3) as t:
        yield t


@pytest.fixture(scope="module")
def hole_down(tmp_path_factory):
    """A table whose first round stands with the hole card face down; yields (table, hole, first seq)."""
    with Table(tmp_path_factory.mktemp("holecard"), seed=4, profile="us-holecard", decks=1) as t:
        start = call(t.api, "GET", "/api/table", VIEWER_KEY).json()["last_seq"]
        assert call(t.api, "POST", "/api/actions", DEALER_KEY, json={"type": "bet", "box": 1, "amount": 10}).status_code == 200
        hole = deal(t.api, t.shoe, VIEWER_KEY, 4)[-1]  # box, dealer up, box, the hole card
        table = call(t.api, "GET", "/api/table", SUPERVISOR_KEY).json()
        assert table["phase"] in ("players", "insurance"), f"seed 4 should leave the hole card down: {table['phase']}"
        yield t, hole, start


@pytest.fixture(scope="module")
def club_table(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("club21"), seed=7, profile="club-21", decks=2) as t:
        yield t


@pytest.fixture(scope="module")
def club36(tmp_path_factory):
    with Table(tmp_path_factory.mktemp("club36"), seed=3, profile="club-21-36", decks=1,
               shoe_args=("--pack", "36")) as t:
        yield t


# ---------------------------------------------------------------------------- the stream and the dealer
@pytest.mark.long
def test_a_few_hundred_rounds_match_the_replay_of_the_exported_journal(table):
    """End to end: the virtual dealer plays; the API's rounds equal `tablectl replay` of the journal."""
    stream: list[dict] = []
    first_seq = call(table.api, "GET", "/api/table", VIEWER_KEY).json()["last_seq"]

    def listen() -> None:
        stream.extend(_sse_events(table.api, VIEWER_KEY, first_seq, want=40))

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    dealer = VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=2, max_boxes=4)
    final = dealer.run(200, timeout=scaled(400))
    assert final["rounds_played"] >= 200
    alerts = {a["kind"] for a in final["alerts"]}
    assert alerts <= {"shuffle_due"}, final["alerts"]  # nothing but the cut card's shuffles
    api_rounds = []
    page = 1
    while True:
        body = call(table.api, "GET", "/api/rounds", VIEWER_KEY, params={"page": page, "size": 200}).json()
        assert "rounds" in body, body
        api_rounds += body["rounds"]
        if len(api_rounds) >= body["total"]:
            break
        page += 1
    api_rounds.reverse()
    assert all(r.pop("settled_at") for r in api_rounds)  # the API adds when each was settled; the replay has no clock
    assert all(r.pop("dealer_title") == "Dealer" for r in api_rounds)  # and who dealt it, as the game names him
    export = tablectl("journal", "export", "--db", str(table.journal))
    assert export.returncode == 0, export.stderr
    replayed = replay_lines(export.stdout.splitlines())
    assert replayed.error is None
    assert replayed.rounds == api_rounds
    one = call(table.api, "GET", f"/api/rounds/{api_rounds[5]['number']}", VIEWER_KEY).json()
    assert one.pop("settled_at") and one.pop("dealer_title") and one == api_rounds[5]
    listener.join(scaled(10))
    ids = [e["id"] for e in stream]
    assert ids == list(range(first_seq + 1, first_seq + 1 + len(ids)))  # the live stream has no gaps


def test_sse_resumes_from_last_event_id_without_gaps(table):
    if call(table.api, "GET", "/api/table", VIEWER_KEY).json()["last_seq"] < 40:
        # Alone (or first on its worker) the table is fresh: play until the stream has 30 events to resume in,
        # else the reads below would wait for events that never come.
        VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=5, max_boxes=2).run(4, timeout=scaled(120))
    last = call(table.api, "GET", "/api/table", VIEWER_KEY).json()["last_seq"]
    assert last >= 40
    first = _sse_events(table.api, VIEWER_KEY, last - 30, want=10)
    assert [e["id"] for e in first] == list(range(last - 29, last - 19))
    resumed = _sse_events(table.api, VIEWER_KEY, first[-1]["id"], want=20)
    assert [e["id"] for e in resumed] == list(range(last - 19, last + 1))


# ---------------------------------------------------------------------------- the hole card (issue 12)
def _hole_card_event(api: str, key: str, start: int, last: int) -> dict:
    """The hole card's event on the stream as ``key`` gets it: the last of the four cards dealt after ``start``
    (the link's own events may come after ``start`` too, so the cards are counted, not the events)."""
    cards = [e for e in _sse_events(api, key, start, want=last - start) if e["data"]["event"]["type"] == "card"]
    assert len(cards) == 4, cards
    return cards[-1]


def test_hole_card_is_secret_from_viewer_and_dealer_keys(hole_down):
    t, hole, start = hole_down
    table = call(t.api, "GET", "/api/table", DEALER_KEY).json()
    last = table["last_seq"]
    if table["phase"] in ("players", "insurance"):
        assert table["dealer"]["cards"][1] == "XX" and table["dealer"]["hole_hidden"]
        for key in (VIEWER_KEY, DEALER_KEY):
            body = call(t.api, "GET", "/api/table", key).text
            assert hole not in json.loads(body)["dealer"]["cards"]
            event = _hole_card_event(t.api, key, start, last)
            assert event["data"]["event"]["card"] == "XX"
            assert hole not in json.dumps(event)
        sup = call(t.api, "GET", "/api/table", SUPERVISOR_KEY).json()
        assert sup["dealer"]["cards"][1] == hole
        assert _hole_card_event(t.api, SUPERVISOR_KEY, start, last)["data"]["event"]["card"] == hole
    else:
        pytest.fail(f"seed 4 should leave the round in play after the peek, got {table['phase']}")


def test_the_event_stream_shows_the_hole_card_only_to_the_supervisor(hole_down):
    t, hole, start = hole_down
    last = call(t.api, "GET", "/api/table", SUPERVISOR_KEY).json()["last_seq"]
    for key in (VIEWER_KEY, DEALER_KEY):
        events = _sse_events(t.api, key, start, want=last - start)
        assert [e["id"] for e in events] == list(range(start + 1, last + 1))
        assert not any(holds(str(e["data"]), hole) for e in events)
    supervisor = _sse_events(t.api, SUPERVISOR_KEY, start, want=last - start)
    assert any(holds(str(e["data"]), hole) for e in supervisor)


def test_the_service_log_never_names_the_hole_card(hole_down):
    t, hole, _ = hole_down
    log = (t.directory / "service.log").read_text()
    assert "journal head" in log  # the log is the one the service writes
    assert not holds(log, hole)


# ---------------------------------------------------------------------------- the club games' closed cards
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
