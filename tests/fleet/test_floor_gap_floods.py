"""Gaps that input can make, and gaps that keep coming (issue 37), on the real store (SQLite and PostgreSQL).

- 1,000 forged rows far apart opened a gap each: 1,000 WARNING lines and `gap` incidents, and the forged rows
  counted as `received` on the tile (and their seqs as the table's length). Gap incidents are throttled as the
  other input-made kinds are, and a row past a gap is not counted as received where the floor has the key.
- A share of every table's rows dealt somewhere else (another subscriber in the workers' group) leaves gaps
  minute after minute: the floor says so once (`steady_gaps`), naming the likely cause; a burst (an outage)
  does not.
"""

from __future__ import annotations

import json
import logging

from tests.support.floor import NOW, floor_service, ledger, state
from tests.support.fleet import make_rows

from tablectl.fleet.wire import ledger_payload

KEY = bytes.fromhex("61" * 32)


def _state(table: str, head: int) -> bytes:
    return json.dumps({"table": table, "name": table, "head": {"seq": head, "mac": None},
                       "published_at": "2026-11-30T20:00:00+00:00"}).encode()


def test_a_thousand_forged_rows_far_apart_are_not_a_thousand_warnings_nor_received(tmp_path, floor_db, caplog):
    rows = make_rows(KEY, 334)
    forged = make_rows(bytes(32), 2334)
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db, gap_grace_seconds=5.0)
    floor.handle([state("t1", _state("t1", 334))] + [ledger("t1", ledger_payload("t1", r)) for r in rows], now=NOW)
    floor.handle([ledger("t1", ledger_payload("t1", forged[s - 1])) for s in range(336, 2336, 2)], now=NOW)
    with caplog.at_level(logging.WARNING):
        floor.check_gaps(NOW + 6)
    gap_lines = [r for r in caplog.records if ": gap: " in r.getMessage()]
    gaps = [i for i in floor.store.incidents(2000) if i["kind"] == "gap"]
    assert len(floor.store.open_gaps("t1")) == 1000  # every gap is still listed (GET /api/gaps) and marked
    assert len(gaps) == 1 and len(gap_lines) == 1
    floor.check_gaps(NOW + 70)  # the window over: the rest summed up in one incident, naming a few
    gaps = [i for i in floor.store.incidents(2000) if i["kind"] == "gap"]
    assert len(gaps) == 2 and gaps[0]["detail"].startswith("999 more like it since")
    evidence = floor.tile("t1", NOW)["evidence"]
    assert (evidence["received"], evidence["total"], evidence["missing"]) == (334, 334, 0)
    assert evidence["past_gap"] == 1000 and evidence["state"] == "verified"


def test_a_table_without_a_key_counts_every_row_kept(tmp_path, floor_db):
    """Without the key nothing tells the table's rows from others': each row kept counts (as before)."""
    rows = make_rows(KEY, 10)
    floor = floor_service(tmp_path, {}, store=floor_db, known_tables=["t1"])
    floor.handle([ledger("t1", ledger_payload("t1", r)) for r in rows if r.seq != 5], now=NOW)
    evidence = floor.tile("t1", NOW)["evidence"]
    assert (evidence["state"], evidence["received"], evidence["total"], evidence["past_gap"]) == ("missing", 9, 10, 0)


def _deal(floor, rows, first: int, last: int, skip: int | None, now: float) -> None:  # noqa: ANN001
    floor.handle([ledger("t1", ledger_payload("t1", rows[s - 1])) for s in range(first, last + 1) if s != skip],
                 now=now)


def test_gaps_minute_after_minute_raise_one_steady_gaps_incident_naming_the_likely_cause(tmp_path, floor_db):
    rows = make_rows(KEY, 200)
    shared = {"shared_group": "floor"} if floor_db.kind == "postgresql" else {}
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db, gap_grace_seconds=5.0, **shared)
    for minute in range(4):  # every minute a row is dealt to someone else
        at = NOW + 60 * minute
        _deal(floor, rows, 20 * minute + 1, 20 * minute + 20, 20 * minute + 7, at)
        floor.check_gaps(at + 10)
    steady = [i for i in floor.store.incidents() if i["kind"] == "steady_gaps"]
    assert len(steady) == 1  # said once a window, not once a gap
    detail = steady[0]["detail"]
    assert detail.startswith("3 gaps on 1 tables (t1) in 3 different minutes of the last 10"), detail
    if shared:
        assert "another client subscribed to the workers' shared group ($share/floor/tablectl/+/ledger" in detail
    else:
        assert "another client connected as this floor (tablectl-floor)" in detail


def test_a_burst_of_gaps_is_an_outage_not_steady(tmp_path, floor_db):
    rows = make_rows(KEY, 200)
    floor = floor_service(tmp_path, {"t1": KEY}, store=floor_db, gap_grace_seconds=5.0)
    _deal(floor, rows, 1, 100, None, NOW)
    floor.handle([ledger("t1", ledger_payload("t1", rows[s - 1])) for s in range(101, 200, 2)], now=NOW + 30)
    floor.check_gaps(NOW + 40)  # fifty gaps at once: the broker restarted, say
    floor.check_gaps(NOW + 200)
    assert len(floor.store.open_gaps("t1")) == 49
    assert [i for i in floor.store.incidents(500) if i["kind"] == "steady_gaps"] == []


def test_a_worker_without_floor_tables_says_its_gaps_will_not_come_back(tmp_path, postgres, caplog):
    """Gap recovery from the tables' APIs is part of a floor of several workers: one without says so at start."""
    from tests.support.floor import PostgresAt

    database = postgres.database()
    try:
        with caplog.at_level(logging.WARNING, logger="tablectl.floor.service"):
            floor = floor_service(tmp_path, {"t1": KEY}, store=PostgresAt(postgres, database), shared_group="floor")
            floor.store.close()
        assert any("shared_group floor without [[floor.tables]]" in r.getMessage() for r in caplog.records)
    finally:
        postgres.drop(database)
