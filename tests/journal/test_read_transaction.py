"""A reader beside the table's writer sees one moment of the journal: `JournalReader.read_transaction`, and
`verify` inside one (a dispute record, `status` and `protect` are read from a live table's journal too).

Before, each of verify's reads saw the journal as it was then: a round settled between the ledger's check and
the round records' left a record "beyond the ledger's head", and a live journal was called tampered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.journal import JournalReader
from tests.support.journals import key_for, open_authority, play_rounds


class _SettlesARoundMidway:
    """The reader's connection, with the writer settling a round just before verify reads the round records."""

    def __init__(self, db: Any, settle: Any) -> None:
        self.db, self.settle, self.settled = db, settle, False

    def execute(self, sql: str, *args: Any) -> Any:
        if "FROM rounds" in sql and not self.settled:
            self.settled = True
            self.settle()
        return self.db.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def test_verify_beside_a_writer_sees_one_moment(tmp_path: Path) -> None:
    path = tmp_path / "live.sqlite"
    authority = open_authority(path)
    end = play_rounds(authority, 2)
    with JournalReader(path, key_for(path), beside_writer=True) as reader:
        before = reader.head()
        proxy = _SettlesARoundMidway(reader.db, lambda: play_rounds(authority, 1, shoe_id="S2", start=end))
        reader.db = proxy  # type: ignore[assignment]
        verified = reader.verify()
        assert proxy.settled  # the writer did settle a round in the middle of it
        assert (verified.head_seq, verified.head_mac, verified.rounds) == (*before, 2)
        assert reader.head()[0] > before[0]  # and the reader, past verify, sees it
    authority.journal.close()


def test_reads_inside_a_read_transaction_see_the_journal_as_at_the_first(tmp_path: Path) -> None:
    path = tmp_path / "live.sqlite"
    authority = open_authority(path)
    end = play_rounds(authority, 1)
    with JournalReader(path, key_for(path), beside_writer=True) as reader:
        with reader.read_transaction():
            head = reader.head()
            play_rounds(authority, 1, shoe_id="S2", start=end)
            assert reader.head() == head and reader.round_count() == 1
        assert reader.head()[0] > head[0] and reader.round_count() == 2
    authority.journal.close()
