"""Gaps kept as ranges (issue 21, finding 3): a row's cost to the floor does not grow with the table's gaps,
and the ranges stay exactly the seqs missing, through any order of arrival and a restart; on both engines."""

from __future__ import annotations

import logging
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.fleet import make_rows, wire

KEY = bytes.fromhex("66" * 32)


def _work_of_one_row(at, gaps: int) -> tuple[int, int]:  # noqa: ANN001 - a StoreAt
    """(SQL statements, SQLite VM steps: 0 on PostgreSQL) to store one more row of a table with `gaps` open gaps."""
    store = at.fresh().open({"t1": KEY})
    rows = make_rows(KEY, 2 * gaps + 3)
    store.ingest([wire("t1", r) for r in rows[::2][:-1]], now=1.0)  # every other row: a gap between each two
    assert len(store.missing("t1")) == gaps
    statements: list[str] = []
    steps = [0]

    def step() -> int:
        steps[0] += 1
        return 0

    execute = store.db.execute

    def counted(sql: str, args=()):  # noqa: ANN001, ANN202 - the store's own statements, counted on either engine
        statements.append(sql)
        return execute(sql, args)

    store.db.execute = counted  # type: ignore[method-assign]
    if at.kind == "sqlite":
        store.db.connection.set_progress_handler(step, 1)
    store.ingest([wire("t1", rows[-1])], now=2.0)  # a new row at the top, as most rows arrive
    if at.kind == "sqlite":
        store.db.connection.set_progress_handler(None, 1)
    del store.db.execute
    assert len(store.missing("t1")) == gaps + 1
    store.close()
    return len(statements), steps[0]


def test_the_work_of_storing_a_row_does_not_grow_with_the_number_of_gaps(floor_db):
    few = _work_of_one_row(floor_db, 10)
    many = _work_of_one_row(floor_db, 2000 if floor_db.kind == "sqlite" else 300)  # a round trip a statement
    assert many[0] == few[0] and few[0] > 0, (few, many)  # the same statements
    assert many[1] <= few[1] * 1.5 + 5, (few, many)  # and about the same work in SQLite (an index a bit deeper)


def _ranges(present: set[int]) -> list[tuple[int, int]]:
    """The missing seqs below the highest present, as ranges: the model the store must match."""
    out: list[tuple[int, int]] = []
    top = max(present, default=0)
    seq = 1
    while seq < top:
        if seq not in present:
            first = seq
            while seq + 1 < top and seq + 1 not in present:
                seq += 1
            out.append((first, seq))
        seq += 1
    return out


# The same property on both engines; fewer examples on PostgreSQL, where each costs a new schema and its round
# trips (the gaps' logic is the store's Python, the same for both: what PostgreSQL adds is its SQL for the records).
EXAMPLES = {"sqlite": 60, "postgresql": 15}


def test_the_gaps_are_exactly_the_missing_seqs_whatever_the_order(floor_db):
    rows = make_rows(KEY, 60)

    @settings(max_examples=EXAMPLES[floor_db.kind], deadline=None)
    @given(st.lists(st.lists(st.integers(1, 60), max_size=12), max_size=8), st.randoms(use_true_random=False))
    def check(batches: list[list[int]], rnd: random.Random) -> None:
        at = floor_db.fresh()  # a new store for each example
        store = at.open({"t1": KEY})
        present: set[int] = set()
        for i, batch in enumerate(batches):
            store.ingest([wire("t1", rows[s - 1]) for s in batch], now=float(i))
            present |= set(batch)
            want = _ranges(present)
            assert store.missing("t1") == want
            assert [(g["first"], g["last"]) for g in sorted(store.open_gaps("t1"), key=lambda g: g["first"])] == want
            if present:
                assert store.tracks["t1"].contiguous == (want[0][0] - 1 if want else max(present))
            if rnd.random() < 0.3:  # a restart: the ranges come back from the store
                store.close()
                store = at.open({"t1": KEY})
                assert store.missing("t1") == want
        store.close()

    check()


def test_a_gap_partly_filled_keeps_when_it_was_noticed_and_that_it_was_reported(floor_db):
    store = floor_db.open({"t1": KEY})
    rows = make_rows(KEY, 10)
    store.ingest([wire("t1", rows[0]), wire("t1", rows[9])], now=100.0)  # 2..9 missing
    assert store.report_gaps(5.0, now=106.0) == [("t1", 2, 9)]
    store.ingest([wire("t1", rows[1]), wire("t1", rows[5])], now=107.0)  # 2 and 6 arrive: 3..5 and 7..9 left
    gaps = sorted(store.open_gaps("t1"), key=lambda g: g["first"])
    assert [(g["first"], g["last"], g["noticed_at"], g["reported"]) for g in gaps] == [
        (3, 5, 100.0, True), (7, 9, 100.0, True)]
    assert store.report_gaps(5.0, now=200.0) == []  # the same rows missing: not reported again
    store.close()


def test_gap_records_that_do_not_match_the_rows_are_rebuilt_from_the_rows_at_start(floor_db):
    store = floor_db.open({"t1": KEY})
    rows = make_rows(KEY, 10)
    store.ingest([wire("t1", rows[i]) for i in (0, 3, 4, 9)], now=1.0)  # 2..3 and 6..9 missing
    store.close()
    floor_db.sql("DELETE FROM gaps WHERE first = 6")  # what the store says no longer adds up
    store = floor_db.open({"t1": KEY})
    assert store.missing("t1") == [(2, 3), (6, 9)]
    assert sorted((g["first"], g["last"]) for g in store.open_gaps("t1")) == [(2, 3), (6, 9)]
    store.close()


def test_a_worker_starting_while_another_writes_reads_one_snapshot_and_repairs_nothing_whole(postgres, caplog):
    """Issue 37: a starting worker read each table's counts and then its gap records in separate statements while
    another worker wrote: it saw the counts of one moment and the gaps of the next, warned "gap records do not
    match", and rewrote the table's counts and gaps without its lock. Here the other worker commits a batch (a
    gap opens) just after the starting one has read the tables' counts: nothing is out of order, nothing is
    said, and both hold the same track. A table that does not add up is still put right, under its lock."""
    from tests.support.floor import PostgresAt

    from tablectl.floor.database import PostgresDatabase
    from tablectl.floor.settings import floor_settings
    from tablectl.floor.store import FloorStore

    at = PostgresAt(postgres, postgres.database())
    writer = at.open({"t1": KEY})
    rows = make_rows(KEY, 20)
    try:
        writer.ingest([wire("t1", r) for r in rows[:10]], now=1.0)

        class Between(PostgresDatabase):
            """The starting worker's connection: the other worker commits right after the tables' counts are read."""

            fired = False

            def execute(self, sql, args=()):  # noqa: ANN001, ANN202
                cursor = super().execute(sql, args)
                if not self.fired and "FROM tables" in sql and "contiguous" in sql:
                    self.fired = True
                    writer.ingest([wire("t1", r) for r in rows[11:15]], now=2.0)  # 11 missing: a gap opens
                return cursor

        db = Between(floor_settings({"floor": at.settings()}).floor.postgresql)
        with caplog.at_level(logging.WARNING, logger="tablectl.floor.store"):
            starting = FloorStore(db, {"t1": KEY})
        assert db.fired
        assert not [r for r in caplog.records if "do not match" in r.getMessage()]
        t = starting.tracks["t1"]
        assert (t.rows, t.max_seq, t.contiguous) == (10, 10, 10)  # the snapshot's moment, whole
        starting.ingest([wire("t1", rows[15])], now=3.0)  # its next batch reads the table back under the lock
        t, w = starting.tracks["t1"], writer.tracks["t1"]
        assert (t.rows, t.max_seq, t.contiguous, t.gaps.ranges()) == (15, 16, 10, [(11, 11)])
        assert (w.rows, w.max_seq) == (14, 15)  # the writer's own memory, before it reads back the newer batch
        starting.close()
        # A gap record lost for real is still found and rebuilt, under the table's lock.
        at.sql("DELETE FROM gaps WHERE first = 11")
        with caplog.at_level(logging.WARNING, logger="tablectl.floor.store"):
            again = FloorStore(PostgresDatabase(floor_settings({"floor": at.settings()}).floor.postgresql),
                               {"t1": KEY})
        assert [r for r in caplog.records if "do not match" in r.getMessage()]
        assert again.missing("t1") == [(11, 11)] and again.open_gaps("t1")[0]["first"] == 11
        again.close()
    finally:
        writer.close()
        postgres.drop(at.database)
