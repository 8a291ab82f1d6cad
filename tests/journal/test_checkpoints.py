"""The states the writer keeps and the checkpoints that chain them (issue 37): every state is kept, each with a
checkpoint bound to its row's MAC and the previous checkpoint's; `journal verify` checks them, names a forged
one and one beyond the ledger's head; a journal made before them gets the table from its writer, and verifies."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.journal import Journal, JournalKey, JournalReader, JournalTampered, key_beside
from tests.support.journals import play_many


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "j.sqlite"
    play_many(path, 120, snapshot_every_rounds=50)
    return path


def _edit(path: Path, *sql: str) -> None:
    con = sqlite3.connect(path)
    for statement in sql:
        con.execute(statement)
    con.commit()
    con.close()


def _verify(path: Path) -> None:
    with JournalReader(path, JournalKey.load(key_beside(path))) as reader:
        reader.verify()


def test_every_state_is_kept_with_its_checkpoint_and_they_verify(journal: Path) -> None:
    con = sqlite3.connect(journal)
    states = [r[0] for r in con.execute("SELECT seq FROM snapshots ORDER BY seq")]
    checkpoints = con.execute("SELECT seq, previous FROM checkpoints ORDER BY seq").fetchall()
    con.close()
    assert len(states) == 2 and [c[0] for c in checkpoints] == states
    assert checkpoints[0][1] == 0 and checkpoints[1][1] == states[0]  # each names the one before
    _verify(journal)


def test_a_forged_checkpoint_and_one_beyond_the_head_are_named(journal: Path) -> None:
    _edit(journal, "UPDATE checkpoints SET previous = 0 WHERE seq = (SELECT MAX(seq) FROM checkpoints)")
    with pytest.raises(JournalTampered) as found:
        _verify(journal)
    assert found.value.table == "checkpoints"
    _edit(journal, "UPDATE checkpoints SET previous = (SELECT MIN(seq) FROM checkpoints) WHERE seq = "
                   "(SELECT MAX(seq) FROM checkpoints)")
    _verify(journal)  # put back as it was
    cut = "(SELECT MAX(seq) FROM checkpoints)"
    _edit(journal, f"DELETE FROM rounds WHERE seq >= {cut}", f"DELETE FROM snapshots WHERE seq >= {cut}",
          f"DELETE FROM ledger WHERE seq >= {cut}")
    with pytest.raises(JournalTampered, match="cut from its tail") as found:
        _verify(journal)
    assert found.value.table == "checkpoints"


def test_a_journal_made_before_checkpoints_gets_them_from_its_writer(journal: Path) -> None:
    _edit(journal, "DROP TABLE checkpoints")
    _verify(journal)  # a reader takes it as it is
    Journal(journal, JournalKey.load(key_beside(journal))).close()
    con = sqlite3.connect(journal)
    assert con.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0] == 0
    con.close()
    _verify(journal)
