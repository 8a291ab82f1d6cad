"""What the floor keeps and exports when two versions of one row arrive (issue 21, finding 2).

With the table's key, a row whose MAC does not verify is never kept over the table's row nor exported as it,
whichever arrived first (before or after the rows it chains on, over a masked row or a final one). Without
the key the floor cannot tell them apart: the first is kept, and the export refuses the sequence. On both
engines of the store (`floor_db`), but for the migration from schema 1, which only SQLite stores had.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import replace
from typing import Any

import httpx
import pytest
from tests.support.deadlines import scaled
from tests.support.floor import NOW, api_client, floor_service, ledger
from tests.support.fleet import FloorProcess, until_true, wire, write_floor_config
from tests.support.harness import SUPERVISOR_KEY, free_port, tablectl

from controller.event_codec import dump_event, parse_event
from tablectl.floor import ExportError
from tablectl.floor.export import export_table
from tablectl.floor.store import BAD, OK, FloorStore
from tablectl.fleet import broker as mqtt
from tablectl.fleet.settings import BrokerSettings
from tablectl.fleet.wire import LedgerRow, body_json, ledger_payload, row_mac

KEY = bytes.fromhex("55" * 32)
FORGED_SEQ = 14


def session() -> list[dict[str, Any]]:
    """Twenty events of a session: the rules, a shuffle, then cards and bets (the 14th a bet of 10)."""
    events: list[dict[str, Any]] = [{"type": "rules", "profile": "ru-standard"},
                                    {"type": "shuffle", "shoe_id": "S1", "at": "2026-11-30T20:00:00Z"}]
    while len(events) < 20:
        events += [{"type": "card", "card": "TS"}, {"type": "bet", "box": 1, "amount": 10, "player": "Anna"}]
    return events[:20]


def chain(key: bytes, events: list[dict[str, Any]], prev: str = "", first: int = 1) -> list[LedgerRow]:
    """The ledger rows of `events`, from seq `first`, each MAC chained on the one before (`prev`)."""
    rows = []
    for seq, event in enumerate(events, first):
        bare = LedgerRow(seq, "event", f"2026-11-30T20:00:{seq:02d}+00:00", body_json(event), "S1", seq, None, None,
                         "")
        prev = row_mac(key, prev, bare)
        rows.append(replace(bare, mac=prev))
    return rows


REAL = chain(KEY, session())
assert REAL[FORGED_SEQ - 1].body == body_json({"type": "bet", "box": 1, "amount": 10, "player": "Anna"})
# The forgery of the finding: the bet of row 14 made 1000, with an all-zero MAC.
FORGED = replace(REAL[FORGED_SEQ - 1], body=body_json({"type": "bet", "box": 1, "amount": 1000, "player": "Anna"}),
                 mac="0" * 64)


def exported(event: dict[str, Any]) -> str:
    """An event as `tablectl journal export` writes it."""
    return json.dumps(dump_event(parse_event(event)), separators=(",", ":"))


WHOLE = [exported(e) for e in session()]


def _msg(row: LedgerRow, table: str = "t1", **mask: bool):  # noqa: ANN202 - a test Message
    return ledger(table, ledger_payload(table, row, **mask))


def _exported(floor) -> list[str]:  # noqa: ANN001 - FloorService
    return [json.dumps(e, separators=(",", ":")) for e in export_table(floor.store, "t1")]


ORDERS = {
    # forged 14 after the 13 rows it chains on, the real 14 after it
    "forged after its chain": [*REAL[:13], FORGED, *REAL[13:]],
    # forged 14 and the real one before anything it chains on: decided when the chain reaches 14
    "forged before its chain": [FORGED, REAL[13], *REAL[:13], *REAL[14:]],
    # forged 14 first, the rest later in another order
    "forged first, the rest reversed": [FORGED, *reversed(REAL)],
}


@pytest.mark.parametrize("order", ORDERS.values(), ids=ORDERS.keys())
def test_with_the_key_a_forged_row_is_never_kept_over_the_tables_row_nor_exported(tmp_path, floor_db, order):
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db)
    for i, row in enumerate(order):  # one message a batch: each decision taken with what was there then
        floor.handle([_msg(row)], now=NOW + i)
    stored = floor.store.rows("t1")
    assert [r.mac for r in stored] == [r.mac for r in REAL] and {r.verified for r in stored} == {OK}
    assert _exported(floor) == WHOLE
    bad = [i for i in floor.store.incidents() if i["kind"] == "bad_mac"]
    assert bad and all(i["table"] == "t1" and f"row {FORGED_SEQ}" in i["detail"] for i in bad)


def test_with_the_key_a_forged_final_row_does_not_replace_a_masked_one_for_good(tmp_path, floor_db):
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db)
    floor.handle([_msg(r) for r in REAL[:13]] + [_msg(REAL[13], mask_card=True, withhold_mac=True)], now=NOW)
    floor.handle([_msg(FORGED)], now=NOW + 1)
    floor.handle([_msg(r) for r in REAL[13:]], now=NOW + 2)
    assert [r.mac for r in floor.store.rows("t1")] == [r.mac for r in REAL]
    assert _exported(floor) == WHOLE


def test_with_the_key_a_row_that_does_not_verify_is_not_exported_until_the_tables_own_arrives(tmp_path, floor_db):
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db)
    floor.handle([_msg(r) for r in REAL[:13]] + [_msg(FORGED)] + [_msg(r) for r in REAL[14:]], now=NOW)
    assert [r.verified for r in floor.store.rows("t1")][12:14] == [OK, BAD]
    with pytest.raises(ExportError, match=f"row {FORGED_SEQ} does not verify"):
        _exported(floor)
    answer = api_client(floor).get("/api/tables/t1/export")
    assert answer.status_code == 409 and "1000" not in answer.text
    floor.handle([_msg(REAL[13])], now=NOW + 1)
    assert _exported(floor) == WHOLE
    answer = api_client(floor).get("/api/tables/t1/export")
    assert answer.text.splitlines() == WHOLE and answer.headers["X-Tablectl-Verified"] == "yes"


def test_the_export_command_reads_the_keys_and_refuses_a_row_that_does_not_verify(tmp_path, floor_db):
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db)
    floor.handle([_msg(r) for r in REAL[:13]] + [_msg(FORGED)] + [_msg(r) for r in REAL[14:]], now=NOW)
    floor.store.close()
    cfg = tmp_path / "floor.toml"
    cfg.write_text(f'[floor]\n{floor_db.toml()}keys_dir = "{tmp_path / "keys"}"\n')
    refused = tablectl("floor", "--config", str(cfg), "export", "--table", "t1")
    assert refused.returncode == 2 and f"row {FORGED_SEQ} does not verify" in refused.stderr and not refused.stdout


def test_with_the_key_two_versions_that_both_verify_are_a_conflict_the_export_refuses(tmp_path, floor_db):
    # A table restored from an older backup and played on: two different row 14s, both signed by its key.
    fork = chain(KEY, [{"type": "bet", "box": 1, "amount": 20, "player": "Anna"}], REAL[12].mac, FORGED_SEQ)[0]
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db)
    floor.handle([_msg(r) for r in REAL], now=NOW)
    floor.handle([_msg(fork)], now=NOW + 1)
    assert floor.store.rows("t1")[FORGED_SEQ - 1].mac == REAL[FORGED_SEQ - 1].mac  # the first is kept
    assert floor.store.incidents(1)[0]["kind"] == "conflict"
    with pytest.raises(ExportError, match=f"row {FORGED_SEQ}"):
        _exported(floor)


@pytest.mark.parametrize("masked_first", [False, True], ids=["forged first", "forged over a masked row"])
def test_without_the_key_the_first_is_kept_and_the_export_refuses_the_conflict(tmp_path, floor_db, masked_first):
    floor = floor_service(tmp_path, {}, store=floor_db, known_tables=["t1"])
    if masked_first:
        floor.handle([_msg(r) for r in REAL[:13]] + [_msg(REAL[13], mask_card=True, withhold_mac=True)], now=NOW)
        floor.handle([_msg(FORGED)], now=NOW + 1)
    else:
        floor.handle([_msg(r) for r in REAL[:13]] + [_msg(FORGED)], now=NOW)
    assert _exported(floor)[-1] == exported({"type": "bet", "box": 1, "amount": 1000, "player": "Anna"})
    floor.handle([_msg(r) for r in REAL[13:]], now=NOW + 2)
    incident = [i for i in floor.store.incidents() if i["kind"] == "conflict"][0]
    assert incident["table"] == "t1" and f"row {FORGED_SEQ}" in incident["detail"]
    with pytest.raises(ExportError, match=f"row {FORGED_SEQ}.*conflict"):
        _exported(floor)
    answer = api_client(floor).get("/api/tables/t1/export")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "incomplete"
    floor.store.close()
    if floor_db.kind != "sqlite":
        return  # the command on PostgreSQL: test_the_export_command_reads_the_keys_and_refuses_a_row_that_does_not...
    cfg = tmp_path / "floor.toml"
    cfg.write_text(f'[floor]\n{floor_db.toml()}keys_dir = "{tmp_path / "keys"}"\n')
    refused = tablectl("floor", "--config", str(cfg), "export", "--table", "t1")
    assert refused.returncode == 2 and "conflict" in refused.stderr and not refused.stdout


def test_a_store_of_schema_1_is_migrated_its_conflicts_and_bad_rows_kept_as_evidence(tmp_path):
    store = FloorStore(tmp_path / "floor.sqlite", {"t1": KEY})
    after_bad = chain(KEY, session()[14:], FORGED.mac, FORGED_SEQ + 1)  # rows chained on the forged one
    rows = [*REAL[:13], FORGED, *after_bad]
    store.ingest([wire("t1", r) for r in rows], now=NOW)
    store.close()
    # As schema 1 left it: the chain verified past the bad row, a conflict known only from its incident.
    db = sqlite3.connect(tmp_path / "floor.sqlite")
    db.executescript("DROP TABLE alternates; DROP TABLE conflicts; UPDATE meta SET value = '1' WHERE key = 'schema';"
                     "UPDATE rows SET verified = 'ok' WHERE seq > 14; UPDATE tables SET verified_upto = 20, "
                     f"verified_mac = '{after_bad[-1].mac}';")
    db.execute("INSERT INTO incidents (at, table_id, kind, detail) VALUES (1, 't1', 'conflict', 'row 3 arrived with "
               "different content than the one stored (stored MAC a, new b); the first is kept')")
    db.commit()
    db.close()
    store = FloorStore(tmp_path / "floor.sqlite", {"t1": KEY})
    t = store.tracks["t1"]
    assert (t.verified_upto, t.verified_mac) == (13, REAL[12].mac)  # the chain stops at the row that does not verify
    assert store.conflict_seqs("t1") == [3]
    with pytest.raises(ExportError, match="row 3"):
        list(export_table(store, "t1"))


def _publish(url: str, messages: list[tuple[str, bytes]]) -> None:
    async def go() -> None:
        async with mqtt.connect(BrokerSettings(url=url), "forger") as conn:
            for topic, payload in messages:
                await conn.publish(topic, payload)

    asyncio.run(go())


def test_through_the_broker_the_export_gives_the_tables_rows_not_the_forged_ones(tmp_path, broker):
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "t1.key").write_text(KEY.hex() + "\n")
    floor = FloorProcess(write_floor_config(tmp_path, broker.url, free_port(), keys, extra='known_tables = ["t2"]\n'),
                         tmp_path / "floor.log").start()
    try:
        for table in ("t1", "t2"):  # t1 with its key on the floor, t2 without
            forged_final = replace(REAL[16], body=body_json({"type": "card", "card": "AS"}), mac="0" * 64)
            _publish(broker.url, [(f"tablectl/{table}/ledger", ledger_payload(table, r)) for r in REAL[:13]]
                     + [(f"tablectl/{table}/ledger", ledger_payload(table, FORGED))]
                     + [(f"tablectl/{table}/ledger", ledger_payload(table, r)) for r in REAL[13:16]]
                     + [(f"tablectl/{table}/ledger", ledger_payload(table, REAL[16], mask_card=True,
                                                                    withhold_mac=True))]
                     + [(f"tablectl/{table}/ledger", ledger_payload(table, forged_final))]
                     + [(f"tablectl/{table}/ledger", ledger_payload(table, r)) for r in REAL[16:]])
        headers = {"Authorization": f"Bearer {SUPERVISOR_KEY}"}

        def tile(table: str) -> dict[str, Any]:
            return httpx.get(f"{floor.api}/api/tables/{table}", headers=headers, timeout=scaled(10)).json()

        until_true(lambda: tile("t1").get("contiguous") == 20 and tile("t2").get("contiguous") == 20
                   and tile("t1").get("masked") == 0 and tile("t2").get("masked") == 0, what="every row on the floor")
        export = httpx.get(floor.api + "/api/tables/t1/export", headers=headers, timeout=scaled(10))
        assert export.status_code == 200 and export.text.splitlines() == WHOLE
        assert tile("t1")["verified_upto"] == 20
        refused = httpx.get(floor.api + "/api/tables/t2/export", headers=headers, timeout=scaled(10))
        assert refused.status_code == 409 and "conflict" in refused.json()["error"]["message"]
    finally:
        floor.stop()
