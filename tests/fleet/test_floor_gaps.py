"""Gaps kept as ranges (issue 21, finding 3): a row's cost to the floor does not grow with the table's gaps,
and the ranges stay exactly the seqs missing, through any order of arrival and a restart; on both engines."""

from __future__ import annotations

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
