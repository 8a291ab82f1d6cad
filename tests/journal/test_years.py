"""A journal for years (issue 42): a start's cost is the tail's, not the history's.

A table that records thousands of inputs with no round among them (the pit called again and again, a shoe that
faults all night) kept no state to start from, so a start replayed every row; and the engine logged each alert it
raised, replayed or not: a start on 10^6 such rows wrote 1,000,005 INFO lines. The writer now keeps a state every
`snapshot_every_rows` rows too, and a replay says nothing per row.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path

import pytest

from controller import events as ev
from controller.authority import TableAuthority
from controller.journal import JournalReader
from tests.support.journals import T0, key_for, open_authority


def _call_pit_rows(path: Path, n: int, **kw: int) -> TableAuthority:
    authority = open_authority(path, **kw)
    with authority.journal.transaction():
        for i in range(n):
            authority.submit(ev.CallPit(actor="dealer:d1"), T0 + timedelta(seconds=2 * (i + 1)))
    return authority


def test_a_start_logs_nothing_per_replayed_row(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "j.sqlite"
    _call_pit_rows(path, 300).journal.close()
    caplog.set_level(logging.INFO)
    authority = open_authority(path)
    authority.journal.close()
    assert authority.table.alerts  # the replay did raise the pit's alert, again and again
    lines = [r for r in caplog.records if r.levelno >= logging.INFO]
    assert len(lines) < 10, [r.getMessage() for r in lines[:5]]


def test_a_live_alert_is_still_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "j.sqlite"
    authority = open_authority(path)
    caplog.set_level(logging.INFO)
    authority.submit(ev.CallPit(actor="dealer:d1"), T0 + timedelta(seconds=1))
    authority.journal.close()
    assert any("alert" in r.getMessage() and "call" in r.getMessage().lower() for r in caplog.records), \
        [r.getMessage() for r in caplog.records]


def test_rows_with_no_round_still_get_a_state_every_n_rows(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _call_pit_rows(path, 250, snapshot_every_rows=100).journal.close()
    with JournalReader(path, key_for(path)) as reader:
        seqs = [s for (s,) in reader.db.execute("SELECT seq FROM snapshots ORDER BY seq")]
        assert seqs == [100, 200]  # (row 1, the rules, is the first of the rows without a state)
        assert reader.verify().snapshots == 2
    authority = open_authority(path, snapshot_every_rows=100)
    assert authority.replayed == 51  # from the newest state, not from the first row
    authority.journal.close()


def _rounds(path: Path, n: int) -> None:
    from tests.support.journals import play_rounds

    authority = open_authority(path, snapshot_every_rounds=5)
    play_rounds(authority, n)
    authority.journal.close()


def test_verify_counts_the_records_before_the_newest_tally_and_replays_only_the_rows_after(tmp_path: Path) -> None:
    from controller.authority import check_round_records

    path = tmp_path / "j.sqlite"
    _rounds(path, 23)
    with JournalReader(path, key_for(path)) as reader:
        assert reader.counted_rounds() == (reader.round_seq(20), 20)  # the tally with the state after round 20
        assert check_round_records(reader) == 3  # rounds 21-23 replayed, not 23
        assert check_round_records(reader, whole=True) == 23


@pytest.mark.parametrize("number", [3, 12, 22])
def test_a_record_removed_anywhere_is_named_by_its_round(tmp_path: Path, number: int) -> None:
    import sqlite3

    from controller.authority import check_round_records
    from controller.journal import JournalTampered

    path = tmp_path / "j.sqlite"
    _rounds(path, 23)
    con = sqlite3.connect(path)
    con.execute("DELETE FROM rounds WHERE number = ?", (number,))
    con.commit()
    con.close()
    with JournalReader(path, key_for(path)) as reader:
        reader.verify()  # (every MAC that is there verifies: it is the record that is missing)
        with pytest.raises(JournalTampered, match="missing") as found:
            check_round_records(reader)
    assert (found.value.table, found.value.row) == ("rounds", number)


def test_a_forged_tally_is_named(tmp_path: Path) -> None:
    import sqlite3

    from controller.authority import check_round_records
    from controller.journal import JournalTampered

    path = tmp_path / "j.sqlite"
    _rounds(path, 12)
    con = sqlite3.connect(path)
    con.execute("UPDATE tallies SET rounds = rounds - 1 WHERE seq = (SELECT MIN(seq) FROM tallies)")
    con.commit()
    con.close()
    with JournalReader(path, key_for(path)) as reader:
        with pytest.raises(JournalTampered) as found:
            check_round_records(reader)
    assert found.value.table == "tallies"


def test_a_journal_written_with_no_state_by_rows_gets_one_at_its_next_start(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _call_pit_rows(path, 250, snapshot_every_rows=1_000).journal.close()  # (as a release before them wrote it)
    first = open_authority(path, snapshot_every_rows=100)
    assert first.replayed == 251
    first.journal.close()
    second = open_authority(path, snapshot_every_rows=100)
    assert second.replayed == 0  # from the state the first start kept at the head
    second.journal.close()
