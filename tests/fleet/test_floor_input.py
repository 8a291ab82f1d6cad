"""What the floor takes from the broker is validated at the boundary (issue 21, finding 1).

A retained state, a ledger row or a status that does not validate is an incident on its table: never a 500
from any floor route, never a change to another table's tile, never stored (so neither a restart nor the
retained message's removal is needed to recover), and never a message that stops the floor's consumer.
The in-process tests run on both engines of the store (`floor_db`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from tests.support.deadlines import scaled
from tests.support.floor import NOW, api_client, floor_service, ledger, state, status
from tests.support.fleet import FloorProcess, make_rows, until_true, write_floor_config
from tests.support.harness import SUPERVISOR_KEY, VIEWER_KEY, free_port

from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings
from tablectl.fleet.wire import LedgerRow, ledger_payload

KEY = bytes.fromhex("33" * 32)


def good_state(table: str, **over: Any) -> dict[str, Any]:
    """A state as a table's publisher sends it (the fields the floor reads, and a few it passes on)."""
    data: dict[str, Any] = {
        "table": table, "name": f"Table {table}", "game": "blackjack", "profile": "ru-standard",
        "view": {"phase": "players", "round": 3, "rounds_played": 2, "dealer": {"cards": ["AS", "XX"]},
                 "alerts": [{"id": 1, "kind": "call_pit", "message": "pit!", "raised_at": "2026-01-01T00:00:00+00:00",
                             "active": True, "acknowledged": False, "acknowledged_by": None}],
                 "shoe": {"id": "S1", "penetration": 0.5, "remaining_by_rank": {"A": 20}}},
        "figures": {"rounds_per_hour": 60.0, "hands_per_hour": 150.5, "house_result": "125.50"},
        "head": {"seq": 3, "mac": None}, "dashboard_url": "http://127.0.0.1:8101/",
        "published_at": "2026-01-01T00:01:00+00:00"}
    data.update(over)
    return data


# The finding's payloads, each on a table the floor accepts, with the table's id so only the named part is wrong;
# then other shapes a hostile or broken publisher may send.
POISON: list[tuple[str, bytes]] = [
    ("alerts of strings", json.dumps({"table": "zz1", "view": {"alerts": ["boom"]}}).encode()),
    ("head not an object", json.dumps({"table": "zz1", "head": "x"}).encode()),
    ("shoe a list", json.dumps({"table": "zz1", "view": {"shoe": [1]}}).encode()),
    ("figures a list", json.dumps({"table": "zz1", "figures": [1]}).encode()),
    ("alerts a number", json.dumps({"table": "zz1", "view": {"alerts": 7}}).encode()),
    ("the finding's own, no table", json.dumps({"view": {"alerts": ["boom"]}}).encode()),
    ("name an object", json.dumps(good_state("zz1", name={"a": 1})).encode()),
    ("an alert's raised_at not a time", json.dumps(good_state("zz1", view={"alerts": [
        {"id": 1, "kind": "call_pit", "message": "m", "raised_at": "yesterday", "active": True,
         "acknowledged": False}]})).encode()),
    ("penetration a string", json.dumps(good_state("zz1", view={"shoe": {"penetration": "half"}})).encode()),
    ("NaN among the figures", json.dumps(good_state("zz1", figures={"rounds_per_hour": float("nan")})).encode()),
    ("Infinity deep in what is passed on", b'{"table":"zz1","view":{"boxes":[{"x":[1,Infinity]}]}}'),
    ("another table's state", json.dumps(good_state("t1")).encode()),
    ("nested too deep", b'{"table":"zz1","view":{"boxes":' + b"[" * 5000 + b"]" * 5000 + b"}}"),
    ("only nesting", b"[" * 100_000),
    ("not JSON", b"\xff\xfe{"),
]


def _seed(floor) -> None:  # noqa: ANN001 - FloorService
    rows = make_rows(KEY, 3)
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows]
                 + [state("t1", json.dumps(good_state("t1")).encode()), status("t1", b"online"),
                    state("zz1", json.dumps(good_state("zz1")).encode())], now=NOW)


@pytest.mark.parametrize("why, payload", POISON, ids=[p[0] for p in POISON])
def test_a_state_that_does_not_validate_is_an_incident_on_its_table_and_nothing_else(tmp_path, floor_db, why,
                                                                                    payload):
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db, known_tables=["zz1"])
    _seed(floor)
    before = {tid: floor.tile(tid, NOW) for tid in ("t1", "zz1")}
    floor.handle([state("zz1", payload)], now=NOW + 1)
    assert floor.tile("t1", NOW) == before["t1"]
    assert floor.tile("zz1", NOW) == before["zz1"]  # the last state that validated stays
    incident = floor.store.incidents(1)[0]
    assert (incident["kind"], incident["table"]) == ("bad_message", "zz1"), incident
    api = api_client(floor)
    for path in ("/api/floor", "/api/tables/t1", "/api/tables/zz1", "/api/incidents", "/healthz"):
        assert api.get(path).status_code == 200, path
    assert sorted(t["id"] for t in api.get("/api/floor").json()["tables"]) == ["t1", "zz1"]


def test_a_bad_state_stored_by_an_earlier_build_is_dropped_at_start_not_served(tmp_path, floor_db):
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db, known_tables=["zz1"])
    _seed(floor)
    floor.store.close()
    # What the floor before this fix stored, as it stored it.
    floor_db.sql("UPDATE tables SET state = ? WHERE table_id = 'zz1'", (json.dumps({"view": {"alerts": ["boom"]}}),))
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db, known_tables=["zz1"])
    api = api_client(floor)
    tiles = api.get("/api/floor")
    assert tiles.status_code == 200
    assert {t["id"]: t["name"] for t in tiles.json()["tables"]} == {"t1": "Table t1", "zz1": "zz1"}
    assert api.get("/api/tables/zz1").json()["state"] is None
    dropped = [i for i in floor.store.incidents() if i["table"] == "zz1"]
    assert dropped and dropped[0]["kind"] == "bad_state" and "alerts" in dropped[0]["detail"]


def test_a_ledger_message_nested_too_deep_is_dropped_and_the_rows_after_it_are_stored(tmp_path, floor_db):
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db)
    rows = make_rows(KEY, 4)
    deep = LedgerRow(3, "event", "2026-11-30T20:00:03+00:00", "[" * 5000, None, None, None, None, "0" * 64)
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows[:2]] + [ledger("t1", ledger_payload("t1", deep))]
                 + [ledger("t1", ledger_payload("t1", r)) for r in rows[2:]], now=NOW)
    assert floor.store.tracks["t1"].contiguous == 4
    assert floor.store.incidents(1)[0]["table"] == "t1"


def _publish(url: str, messages: list[tuple[str, bytes, bool]]) -> None:
    async def go() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "test-intruder") as conn:
            for topic, payload, retain in messages:
                await conn.publish(topic, payload, retain=retain)

    asyncio.run(go())


def _get(api: str, path: str, key: str = VIEWER_KEY) -> httpx.Response:
    return httpx.get(api + path, headers={"Authorization": f"Bearer {key}"}, timeout=scaled(10))


def test_through_the_broker_poison_neither_blinds_the_floor_nor_stops_it_and_a_restart_finds_it_clean(tmp_path,
                                                                                                      broker):
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "t1.key").write_text(KEY.hex() + "\n")
    zz = [f"zz{i}" for i in range(1, 6)]
    cfg = write_floor_config(tmp_path, broker.url, free_port(), keys, extra=f"known_tables = {json.dumps(zz)}\n")
    floor = FloorProcess(cfg, tmp_path / "floor.log").start()
    try:
        rows = make_rows(KEY, 6)
        deep = LedgerRow(4, "event", "2026-11-30T20:00:04+00:00", "[" * 5000, None, None, None, None, "0" * 64)
        poison = [f'{{"table":"{t}",{part}}}'.encode() for t, part in zip(zz, (
            '"view":{"alerts":["boom"]}', '"head":"x"', '"view":{"shoe":[1]}', '"figures":[1]', '"view":{"alerts":7}'))]
        _publish(broker.url,
                 [("tablectl/t1/ledger", ledger_payload("t1", r), False) for r in rows[:3]]
                 + [("tablectl/t1/state", json.dumps(good_state("t1")).encode(), True)]
                 + [(f"tablectl/{t}/state", p, True) for t, p in zip(zz, poison)]
                 + [("tablectl/t1/ledger", ledger_payload("t1", deep), False)]  # QoS 1: the broker sends it again
                 + [("tablectl/t1/ledger", ledger_payload("t1", r), False) for r in rows[3:]])
        until_true(lambda: _get(floor.api, "/api/tables/t1").json().get("contiguous") == 6, what="every row of t1")
        until_true(lambda: len([i for i in _get(floor.api, "/api/incidents").json()["incidents"]
                                if i["table"] in zz]) == 5, what="one incident for each poisoned table")
        answer = _get(floor.api, "/api/floor")
        assert answer.status_code == 200 and [t["id"] for t in answer.json()["tables"]] == ["t1"]
        assert answer.json()["tables"][0]["name"] == "Table t1"

        floor.stop()  # the retained messages are still on the broker, and delivered again on start
        floor.start()
        until_true(lambda: _get(floor.api, "/healthz").json().get("broker") is True, what="the floor reconnected")
        answer = _get(floor.api, "/api/floor")
        assert answer.status_code == 200 and [t["id"] for t in answer.json()["tables"]] == ["t1"]
        export = _get(floor.api, "/api/tables/t1/export", SUPERVISOR_KEY)
        assert export.status_code == 200 and len(export.text.splitlines()) == 6
    finally:
        floor.stop()


def test_a_message_the_floor_fails_on_unexpectedly_is_dropped_and_reported_not_redelivered_forever(tmp_path,
                                                                                                  floor_db,
                                                                                                  monkeypatch):
    # A bug met by one message must not fail its whole batch: the broker would send it again, and again,
    # and no table's rows would get through meanwhile.
    import tablectl.floor.service as service

    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db, known_tables=["zz1"])
    real_parse = service.parse_state

    def parse(payload: bytes, table: str):  # noqa: ANN202 - the patched parser
        if table == "zz1":
            raise RuntimeError("a bug")
        return real_parse(payload, table)

    monkeypatch.setattr(service, "parse_state", parse)
    rows = make_rows(KEY, 2)
    floor.handle([ledger("t1", ledger_payload("t1", rows[0])), state("zz1", json.dumps(good_state("zz1")).encode()),
                  ledger("t1", ledger_payload("t1", rows[1])), state("t1", json.dumps(good_state("t1")).encode())],
                 now=NOW)
    assert floor.store.tracks["t1"].contiguous == 2 and floor.tile("t1", NOW)["name"] == "Table t1"
    incident = floor.store.incidents(1)[0]
    assert (incident["kind"], incident["table"]) == ("bad_message", "zz1") and "a bug" in incident["detail"]
    assert floor.dropped == 1
