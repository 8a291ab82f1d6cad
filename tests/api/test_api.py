"""The local API through a real uvicorn server: auth, errors, the hole card, SSE resume, rounds."""

from __future__ import annotations

import json
import threading

import pytest
from tests.support.client import call, deal
from tests.support.client import sse_events as _sse_events
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY, tablectl

from controller.replay import replay_lines
from simulators.virtual_dealer import VirtualDealer


def test_every_write_needs_the_right_role(table):
    bet = {"type": "bet", "box": 1, "amount": 10}
    assert call(table.api, "POST", "/api/actions", json=bet).status_code == 401
    assert call(table.api, "POST", "/api/actions", "not-a-key", json=bet).status_code == 401
    r = call(table.api, "POST", "/api/actions", VIEWER_KEY, json=bet)
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    for supervisor_only in ({"type": "void_round"}, {"type": "discard_card"}, {"type": "ack_alert", "alert_id": 1}):
        assert call(table.api, "POST", "/api/actions", DEALER_KEY, json=supervisor_only).status_code == 403
    assert call(table.api, "POST", "/api/shoe/lock", DEALER_KEY, json={"locked": True}).status_code == 403
    assert call(table.api, "GET", "/api/table").status_code == 401  # reads need a key unless configured open
    assert call(table.api, "GET", "/api/table", VIEWER_KEY).status_code == 200


def test_errors_name_the_field_and_give_the_engine_reason(table):
    r = call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "bet", "box": "x", "amount": 10})
    assert r.status_code == 422 and r.json()["error"]["field"] == "bet.box"
    r = call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "hit"})
    assert r.status_code == 422
    r = call(table.api, "POST", "/api/actions", DEALER_KEY, content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422
    r = call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "card", "card": "AS"})
    assert r.status_code == 422  # cards come from the shoe only
    r = call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "double"})
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "not_players_turn" and "cannot double" in r.json()["error"]["message"]
    r = call(table.api, "GET", "/api/rounds", VIEWER_KEY, params={"size": 0})
    assert r.status_code == 422 and r.json()["error"]["field"] == "query.size"
    assert call(table.api, "GET", "/api/rounds/999999", VIEWER_KEY).status_code == 404


def test_refused_action_is_journalled_with_the_caller(table):
    call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "split"})
    import sqlite3
    db = sqlite3.connect(table.journal)
    row = db.execute("SELECT body, code FROM ledger WHERE kind = 'refusal' ORDER BY seq DESC LIMIT 1").fetchone()
    db.close()
    assert json.loads(row[0])["actor"] == "dealer:dealer" and row[1] == "not_players_turn"


def test_healthz(table):
    r = call(table.api, "GET", "/healthz")
    assert r.status_code == 200
    body = r.json()
    assert body["shoe_link"] is True and body["journal"] is True and body["engine"] is True


def test_a_few_hundred_rounds_match_the_replay_of_the_exported_journal(table):
    """End to end: the virtual dealer plays; the API's rounds equal `tablectl replay` of the journal."""
    stream: list[dict] = []
    first_seq = call(table.api, "GET", "/api/table", VIEWER_KEY).json()["last_seq"]

    def listen() -> None:
        stream.extend(_sse_events(table.api, VIEWER_KEY, first_seq, want=40))

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    dealer = VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=2, max_boxes=4)
    final = dealer.run(200, timeout=400)
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
    export = tablectl("journal", "export", "--db", str(table.journal))
    assert export.returncode == 0, export.stderr
    replayed = replay_lines(export.stdout.splitlines())
    assert replayed.error is None
    assert replayed.rounds == api_rounds
    one = call(table.api, "GET", f"/api/rounds/{api_rounds[5]['number']}", VIEWER_KEY).json()
    assert one.pop("settled_at") and one == api_rounds[5]
    listener.join(10)
    ids = [e["id"] for e in stream]
    assert ids == list(range(first_seq + 1, first_seq + 1 + len(ids)))  # the live stream has no gaps


def test_sse_resumes_from_last_event_id_without_gaps(table):
    if call(table.api, "GET", "/api/table", VIEWER_KEY).json()["last_seq"] < 40:
        # Alone (or first on its worker) the table is fresh: play until the stream has 30 events to resume in,
        # else the reads below would wait for events that never come.
        VirtualDealer(table.api, DEALER_KEY, table.shoe.control_path, seed=5, max_boxes=2).run(4, timeout=120)
    last = call(table.api, "GET", "/api/table", VIEWER_KEY).json()["last_seq"]
    assert last >= 40
    first = _sse_events(table.api, VIEWER_KEY, last - 30, want=10)
    assert [e["id"] for e in first] == list(range(last - 29, last - 19))
    resumed = _sse_events(table.api, VIEWER_KEY, first[-1]["id"], want=20)
    assert [e["id"] for e in resumed] == list(range(last - 19, last + 1))


def test_hole_card_is_secret_from_viewer_and_dealer_keys(holecard_table):
    t = holecard_table
    call(t.api, "POST", "/api/actions", DEALER_KEY, json={"type": "bet", "box": 1, "amount": 10})
    start = call(t.api, "GET", "/api/table", VIEWER_KEY).json()["last_seq"]
    hole = deal(t.api, t.shoe, VIEWER_KEY, 4)[-1]  # box, dealer up, box, the hole card
    table = call(t.api, "GET", "/api/table", DEALER_KEY).json()
    if table["phase"] in ("players", "insurance"):
        assert table["dealer"]["cards"][1] == "XX" and table["dealer"]["hole_hidden"]
        for key in (VIEWER_KEY, DEALER_KEY):
            body = call(t.api, "GET", "/api/table", key).text
            assert hole not in json.loads(body)["dealer"]["cards"]
            events = _sse_events(t.api, key, start, want=4)
            assert events[-1]["data"]["event"]["card"] == "XX"
            assert hole not in json.dumps(events[-1])
        sup = call(t.api, "GET", "/api/table", SUPERVISOR_KEY).json()
        assert sup["dealer"]["cards"][1] == hole
        assert _sse_events(t.api, SUPERVISOR_KEY, start, want=4)[-1]["data"]["event"]["card"] == hole
    else:
        pytest.fail(f"seed 4 should leave the round in play after the peek, got {table['phase']}")


def test_a_supervisor_lock_and_unlock_are_journalled_with_the_actor(table):
    """Issue 12: every change to the shoe's gate is an event, shown in the table's state."""
    assert call(table.api, "POST", "/api/shoe/lock", SUPERVISOR_KEY, json={"locked": True}).status_code == 200
    locked = call(table.api, "GET", "/api/table", VIEWER_KEY).json()
    assert locked["locked"]
    assert call(table.api, "POST", "/api/shoe/lock", SUPERVISOR_KEY, json={"locked": False}).status_code == 200
    lines = tablectl("journal", "export", "--db", str(table.journal)).stdout.splitlines()
    gates = [json.loads(line) for line in lines if '"shoe_gate"' in line]
    assert [g["locked"] for g in gates[-2:]] == [True, False]
    assert all(g["actor"].startswith("supervisor") for g in gates[-2:]), gates[-2:]
