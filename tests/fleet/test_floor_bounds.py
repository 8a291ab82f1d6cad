"""What an anonymous client on an open broker may cost the floor (issue 21, finding 5, the floor's side).

A table must be known (its key in keys_dir, or its id in `known_tables`): an unknown one is one incident, not a
tile, and costs no memory per table; a row too far beyond a table's highest is an incident, not a row (so the
table's export is not refused for good); malformed input is reported at most once a window per table and kind,
in the log and the incidents, and a batch of messages costs one transaction however many of them are bad.
"""

from __future__ import annotations

import asyncio
import json
import logging

import httpx
from tests.support.deadlines import scaled
from tests.support.floor import NOW, api_client, floor_service, ledger, state, status
from tests.support.fleet import FloorProcess, make_rows, until_true, write_floor_config
from tests.support.harness import SUPERVISOR_KEY, VIEWER_KEY, free_port

from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings
from tablectl.fleet.wire import LedgerRow, ledger_payload

KEY = bytes.fromhex("44" * 32)


def _ghost_state(table: str) -> bytes:
    return json.dumps({"table": table, "name": f"ghost {table}", "view": {"alerts": [
        {"id": 1, "kind": "call_pit", "message": "look at me", "raised_at": "2000-01-01T00:00:00+00:00",
         "active": True, "acknowledged": False}]}}).encode()


def _ghost_messages(count: int) -> list:
    ghost_rows = make_rows(bytes(32), 1)
    out = []
    for i in range(count):
        g = f"g{i:03d}"
        out += [state(g, _ghost_state(g)), status(g, b"online"), ledger(g, ledger_payload(g, ghost_rows[0]))]
    return out


def test_an_unknown_table_is_one_incident_not_a_tile(tmp_path):
    floor = floor_service(tmp_path, {"t1": KEY})
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in make_rows(KEY, 3)] + _ghost_messages(100), now=NOW)
    assert [t["id"] for t in floor.tiles(NOW)] == ["t1"]
    assert set(floor.store.tracks) == {"t1"}  # nothing kept per unknown table
    unknown = [i for i in floor.store.incidents() if i["kind"] == "unknown_table"]
    assert len(unknown) == 1 and "g000" in unknown[0]["detail"] and unknown[0]["table"] is None
    floor.store.report_held(NOW + 61)  # the window over: what was held back is summed up once
    unknown = [i for i in floor.store.incidents() if i["kind"] == "unknown_table"]
    assert len(unknown) == 2 and unknown[0]["detail"].startswith("299 more")
    assert floor.dropped == 300
    api = api_client(floor)
    assert api.get("/api/tables/g001").json()["error"]["code"] == "unknown_table"
    assert api.get("/healthz").json()["tables"] == 1


def test_a_table_is_known_by_its_key_or_by_known_tables_and_a_key_copied_in_later_counts(tmp_path):
    floor = floor_service(tmp_path, {"t1": KEY}, known_tables=["t2"])
    rows = make_rows(KEY, 2)
    floor.handle([ledger(t, ledger_payload(t, r)) for t in ("t1", "t2", "t3") for r in rows], now=NOW)
    assert sorted(floor.store.tracks) == ["t1", "t2"]
    assert {t["id"]: t["mac"] for t in floor.tiles(NOW)} == {"t1": "ok", "t2": "no_key"}
    (tmp_path / "keys" / "t3.key").write_text(KEY.hex() + "\n")
    floor.handle([ledger("t3", ledger_payload("t3", r)) for r in rows], now=NOW + 1)
    assert {t["id"]: t["mac"] for t in floor.tiles(NOW)} == {"t1": "ok", "t2": "no_key", "t3": "ok"}


def test_a_row_too_far_beyond_the_tables_highest_is_an_incident_not_a_row(tmp_path, floor_db):
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db, max_seq_jump=10)
    rows = make_rows(KEY, 5)
    far = LedgerRow(2**62, "event", "2026-11-30T20:00:00+00:00", '{"type":"card","card":"AS","position":1}', "S1", 1,
                    None, None, "0" * 64)
    edge = LedgerRow(15, "event", "2026-11-30T20:00:00+00:00", '{"type":"card","card":"AS","position":1}', "S1", 1,
                     None, None, "0" * 64)
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows] + [ledger("t1", ledger_payload("t1", far))],
                 now=NOW)
    t = floor.store.tracks["t1"]
    assert (t.max_seq, t.contiguous, floor.store.open_gaps("t1")) == (5, 5, [])
    jump = floor.store.incidents(1)[0]
    assert (jump["kind"], jump["table"]) == ("seq_jump", "t1") and str(2**62) in jump["detail"]
    assert api_client(floor).get("/api/tables/t1/export").status_code == 200
    floor.handle([ledger("t1", ledger_payload("t1", edge))], now=NOW + 1)  # exactly the bound: a row (and a gap)
    assert floor.store.tracks["t1"].max_seq == 15


def test_a_batch_of_malformed_messages_costs_one_transaction_and_a_bounded_log(tmp_path, floor_db, caplog):
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db)
    rows = make_rows(KEY, 2)
    statements: list[tuple[str, bool]] = []
    db = floor.store.db  # what the store asks of its database, on either engine
    begin, commit, execute = db.begin, db.commit, db.execute

    def traced(name, call):  # noqa: ANN001, ANN202
        def run(*args):  # noqa: ANN002, ANN202
            statements.append((name or args[0].split()[0].upper(), db.in_transaction))
            return call(*args)
        return run

    db.begin, db.commit, db.execute = traced("BEGIN", begin), traced("COMMIT", commit), traced("", execute)
    junk = [ledger("t1", b'{"seq": %d}' % i) for i in range(3000)]
    with caplog.at_level(logging.WARNING):
        floor.handle([ledger("t1", ledger_payload("t1", rows[0]))] + junk + [ledger("t1", ledger_payload("t1", rows[1]))],
                     now=NOW)
    del db.begin, db.commit, db.execute
    assert floor.dropped == 3000 and floor.store.tracks["t1"].contiguous == 2
    assert [k for k, _ in statements].count("BEGIN") == 1 and [k for k, _ in statements].count("COMMIT") == 1
    assert all(inside for k, inside in statements if k in ("INSERT", "UPDATE", "DELETE")), "a write outside the batch"
    assert len([i for i in floor.store.incidents() if i["kind"] == "bad_message"]) == 1
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) <= 2


def _publish(url: str, messages: list[tuple[str, bytes, bool]]) -> None:
    async def go() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "anonymous") as conn:
            for topic, payload, retain in messages:
                await conn.publish(topic, payload, retain=retain)

    asyncio.run(go())


def _get(api: str, path: str, key: str = VIEWER_KEY) -> httpx.Response:
    return httpx.get(api + path, headers={"Authorization": f"Bearer {key}"}, timeout=scaled(10))


def test_an_anonymous_client_on_an_open_broker_neither_adds_tables_nor_blocks_an_export(tmp_path, broker):
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "t1.key").write_text(KEY.hex() + "\n")
    floor = FloorProcess(write_floor_config(tmp_path, broker.url, free_port(), keys), tmp_path / "floor.log").start()
    try:
        rows = make_rows(KEY, 8)
        far = LedgerRow(2**62, "event", "2026-11-30T20:00:00+00:00", '{"type":"card","card":"AS","position":1}',
                        "S1", 1, None, None, "0" * 64)
        intruder = [(f"tablectl/{m.topic.split('/')[1]}/{m.topic.split('/')[2]}", m.payload, True)
                    for m in _ghost_messages(100)]
        intruder += [("tablectl/t1/ledger", ledger_payload("t1", far), False)]
        intruder += [("tablectl/t1/ledger", b"not a row %d" % i, False) for i in range(3000)]
        _publish(broker.url, [("tablectl/t1/ledger", ledger_payload("t1", r), False) for r in rows[:4]] + intruder
                 + [("tablectl/t1/ledger", ledger_payload("t1", r), False) for r in rows[4:]])
        until_true(lambda: _get(floor.api, "/api/tables/t1").json().get("contiguous") == 8, what="t1's rows")
        sent = 8 + len(intruder)
        until_true(lambda: _get(floor.api, "/healthz").json()["messages"] >= sent, what="every message handled")
        assert [t["id"] for t in _get(floor.api, "/api/floor").json()["tables"]] == ["t1"]
        incidents = _get(floor.api, "/api/incidents?limit=1000").json()["incidents"]
        kinds = [i["kind"] for i in incidents]
        assert kinds.count("unknown_table") == 1 and kinds.count("bad_message") == 1 and kinds.count("seq_jump") == 1
        assert _get(floor.api, "/api/tables/t1").json()["max_seq"] == 8
        export = _get(floor.api, "/api/tables/t1/export", SUPERVISOR_KEY)
        assert export.status_code == 200 and len(export.text.splitlines()) == 8
        logged = floor.log.read_text()
        assert logged.count("bad_message") <= 2 and logged.count("unknown_table") <= 2
    finally:
        floor.stop()
