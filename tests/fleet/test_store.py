"""The floor's store: at-least-once delivery upserted, gaps noticed and reported, MACs checked in chain order.

Every test runs on both engines (`floor_db`: SQLite's file, a real PostgreSQL)."""

from __future__ import annotations

import json

import pytest
from tests.support.fleet import make_rows, wire

from tablectl.floor import ExportError
from tablectl.floor.export import export_table
from tablectl.floor.store import BAD, OK, PENDING
from tablectl.fleet.wire import TableState

KEY = bytes.fromhex("11" * 32)


@pytest.fixture
def store(floor_db):
    s = floor_db.open({"t1": KEY})
    yield s
    s.close()


def test_rows_in_order_are_stored_contiguous_and_verified(store):
    rows = make_rows(KEY, 10)
    store.ingest([wire("t1", r) for r in rows])
    t = store.tracks["t1"]
    assert (t.rows, t.contiguous, t.max_seq, t.verified_upto) == (10, 10, 10, 10)
    assert [r.mac for r in store.rows("t1")] == [r.mac for r in rows]
    assert {r.verified for r in store.rows("t1")} == {OK}


def test_duplicates_are_dropped_and_counted(store):
    rows = make_rows(KEY, 5)
    store.ingest([wire("t1", r) for r in rows])
    res = store.ingest([wire("t1", r) for r in rows[2:]])
    assert res.duplicates == 3 and res.inserted == 0
    assert store.tracks["t1"].rows == 5


def test_a_final_row_replaces_a_masked_one_and_a_late_masked_copy_changes_nothing(store):
    rows = make_rows(KEY, 4)
    store.ingest([wire("t1", rows[0]), wire("t1", rows[1], mask_card=True, withhold_mac=True),
                  wire("t1", rows[2], withhold_mac=True)])
    stored = store.rows("t1")
    assert json.loads(stored[1].body)["card"] == "XX" and stored[1].mac is None and stored[1].masked
    assert [r.verified for r in stored] == [OK, PENDING, PENDING]  # the chain waits for the hole card
    store.ingest([wire("t1", rows[1]), wire("t1", rows[2]), wire("t1", rows[3])])
    assert [r.verified for r in store.rows("t1")] == [OK] * 4
    res = store.ingest([wire("t1", rows[1], mask_card=True, withhold_mac=True)])
    assert res.stale == 1 and store.rows("t1")[1].mac == rows[1].mac
    assert store.tracks["t1"].masked == set()


def test_a_different_final_row_that_does_not_verify_is_refused_and_the_tables_row_kept(store):
    rows = make_rows(KEY, 2)
    other = make_rows(bytes(32), 2)
    store.ingest([wire("t1", r) for r in rows])
    res = store.ingest([wire("t1", other[1])])
    assert res.refused == 1 and res.conflicts == 0 and store.rows("t1")[1].mac == rows[1].mac
    assert store.incidents()[0]["kind"] == "bad_mac" and store.conflict_seqs("t1") == []


def test_without_the_key_a_different_final_row_is_a_conflict_and_the_first_is_kept(floor_db):
    s = floor_db.open({})
    rows = make_rows(KEY, 2)
    other = make_rows(bytes(32), 2)
    s.ingest([wire("t1", r) for r in rows])
    res = s.ingest([wire("t1", other[1])])
    assert res.conflicts == 1 and s.rows("t1")[1].mac == rows[1].mac
    assert s.incidents()[0]["kind"] == "conflict" and s.conflict_seqs("t1") == [2]


def test_a_gap_is_noticed_reported_after_the_grace_and_closed_when_filled(store):
    rows = make_rows(KEY, 8)
    store.ingest([wire("t1", r) for r in rows[:3] + rows[5:]], now=100.0)
    assert store.missing("t1") == [(4, 5)]
    assert store.tracks["t1"].contiguous == 3 and store.tracks["t1"].verified_upto == 3
    assert store.report_gaps(5.0, now=102.0) == []  # reordering after a reconnect gets its chance
    assert store.report_gaps(5.0, now=106.0) == [("t1", 4, 5)]
    assert store.report_gaps(5.0, now=107.0) == []  # reported once
    assert store.open_gaps("t1")[0]["reported"] and store.incidents()[0]["kind"] == "gap"
    store.ingest([wire("t1", rows[4])], now=108.0)  # seq 5
    assert store.missing("t1") == [(4, 4)]
    store.ingest([wire("t1", rows[3])], now=109.0)
    assert store.missing("t1") == [] and store.open_gaps() == []
    assert store.tracks["t1"].contiguous == 8 and store.tracks["t1"].verified_upto == 8


def test_a_bad_mac_is_flagged_and_reported(store):
    rows = make_rows(KEY, 3)
    forged = make_rows(bytes(32), 3)
    store.ingest([wire("t1", rows[0]), wire("t1", forged[1]), wire("t1", rows[2])])
    assert [r.verified for r in store.rows("t1")][:2] == [OK, BAD]
    assert store.tracks["t1"].bad_macs >= 1 and store.incidents()[-1]["kind"] == "bad_mac"


def test_without_the_tables_key_rows_are_kept_unverified(floor_db):
    s = floor_db.open({})
    s.ingest([wire("t9", r) for r in make_rows(KEY, 3)])
    assert {r.verified for r in s.rows("t9")} == {PENDING} and s.tracks["t9"].verified_upto == 0


def test_the_store_survives_a_restart(floor_db):
    s = floor_db.open({"t1": KEY})
    rows = make_rows(KEY, 6)
    s.ingest([wire("t1", r) for r in rows[:2]] + [wire("t1", rows[2], mask_card=True, withhold_mac=True)])
    s.set_status("t1", "online")
    s.set_state("t1", TableState(table="t1", name="T1"))
    s.flush()
    s.close()
    s = floor_db.open({"t1": KEY})
    t = s.tracks["t1"]
    assert (t.contiguous, t.verified_upto, t.masked, t.status) == (3, 2, {3}, "online")
    assert t.state is not None and t.state.as_published() == {"table": "t1", "name": "T1"}
    s.ingest([wire("t1", r) for r in rows[2:]])
    assert s.tracks["t1"].verified_upto == 6


def test_export_needs_every_row_and_stops_before_a_masked_one(store):
    rows = make_rows(KEY, 5)
    with pytest.raises(ExportError, match="no rows"):
        list(export_table(store, "t1"))
    store.ingest([wire("t1", r) for r in rows[:2] + rows[3:4]])
    with pytest.raises(ExportError, match="3..3"):
        list(export_table(store, "t1"))
    store.ingest([wire("t1", rows[2]), wire("t1", rows[4], mask_card=True, withhold_mac=True)])
    assert [e["position"] for e in export_table(store, "t1")] == [1, 2, 3, 4]
