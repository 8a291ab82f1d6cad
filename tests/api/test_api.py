"""The local API's routes, in-process (tests.support.inprocess): auth, errors, health, what is journalled.

The SSE stream, the hole card on it and a few hundred rounds against the real uvicorn server are in
test_server_process.py.
"""

from __future__ import annotations

import json

import pytest

from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, VIEWER_KEY, tablectl_in_process
from tests.support.inprocess import call

pytestmark = pytest.mark.anyio


async def test_every_write_needs_the_right_role(table):
    bet = {"type": "bet", "box": 1, "amount": 10}
    assert (await call(table.api, "POST", "/api/actions", json=bet)).status_code == 401
    assert (await call(table.api, "POST", "/api/actions", "not-a-key", json=bet)).status_code == 401
    r = await call(table.api, "POST", "/api/actions", VIEWER_KEY, json=bet)
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    for supervisor_only in ({"type": "void_round"}, {"type": "discard_card"}, {"type": "ack_alert", "alert_id": 1}):
        assert (await call(table.api, "POST", "/api/actions", DEALER_KEY, json=supervisor_only)).status_code == 403
    assert (await call(table.api, "POST", "/api/shoe/lock", DEALER_KEY, json={"locked": True})).status_code == 403
    assert (await call(table.api, "GET", "/api/table")).status_code == 401  # reads need a key unless configured open
    assert (await call(table.api, "GET", "/api/table", VIEWER_KEY)).status_code == 200


async def test_errors_name_the_field_and_give_the_engine_reason(table):
    r = await call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "bet", "box": "x", "amount": 10})
    assert r.status_code == 422 and r.json()["error"]["field"] == "bet.box"
    r = await call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "hit"})
    assert r.status_code == 422
    r = await call(table.api, "POST", "/api/actions", DEALER_KEY, content=b"{not json",
                   headers={"content-type": "application/json"})
    assert r.status_code == 422
    r = await call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "card", "card": "AS"})
    assert r.status_code == 422  # cards come from the shoe only
    r = await call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "double"})
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "not_players_turn" and "cannot double" in r.json()["error"]["message"]
    r = await call(table.api, "GET", "/api/rounds", VIEWER_KEY, params={"size": 0})
    assert r.status_code == 422 and r.json()["error"]["field"] == "query.size"
    assert (await call(table.api, "GET", "/api/rounds/999999", VIEWER_KEY)).status_code == 404


async def test_refused_action_is_journalled_with_the_caller(table):
    await call(table.api, "POST", "/api/actions", DEALER_KEY, json={"type": "split"})
    import sqlite3
    db = sqlite3.connect(table.journal)
    row = db.execute("SELECT body, code FROM ledger WHERE kind = 'refusal' ORDER BY seq DESC LIMIT 1").fetchone()
    db.close()
    assert json.loads(row[0])["actor"] == "dealer:dealer" and row[1] == "not_players_turn"


async def test_healthz(table):
    r = await call(table.api, "GET", "/healthz")
    assert r.status_code == 200
    body = r.json()
    assert body["shoe_link"] is True and body["journal"] is True and body["engine"] is True


async def test_a_supervisor_lock_and_unlock_are_journalled_with_the_actor(table):
    """Issue 12: every change to the shoe's gate is an event, shown in the table's state."""
    assert (await call(table.api, "POST", "/api/shoe/lock", SUPERVISOR_KEY, json={"locked": True})).status_code == 200
    locked = (await call(table.api, "GET", "/api/table", VIEWER_KEY)).json()
    assert locked["locked"]
    assert (await call(table.api, "POST", "/api/shoe/lock", SUPERVISOR_KEY, json={"locked": False})).status_code == 200
    lines = tablectl_in_process("journal", "export", "--db", str(table.journal)).stdout.splitlines()
    gates = [json.loads(line) for line in lines if '"shoe_gate"' in line]
    assert [g["locked"] for g in gates[-2:]] == [True, False]
    assert all(g["actor"].startswith("supervisor") for g in gates[-2:]), gates[-2:]
