"""Each connection to a journal keeps a small page cache: the table's RSS has 60 MB for a whole shift (issue 36).

At SQLite's default (2,000 KiB a connection) the writer's cache filled as the shift's journal grew, and
at once when a long journal was verified at start; `benchmarks/soak.py` prints the service's RSS.
"""

from __future__ import annotations

from pathlib import Path

from controller.journal import CACHE_KIB, JournalReader
from tests.support.journals import key_for, open_authority, play_rounds


def cache_kib(db: object) -> int:
    """A connection's page cache, in KiB (SQLite gives a size in KiB as a negative number)."""
    (size,) = db.execute("PRAGMA cache_size").fetchone()  # type: ignore[attr-defined]
    assert size < 0, size
    return int(-size)


def test_the_writer_and_every_reader_keep_a_small_page_cache(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    authority = open_authority(path)
    try:
        play_rounds(authority, 3)
        assert cache_kib(authority.journal.db) == CACHE_KIB <= 256
        for beside_writer in (True, False):
            with JournalReader(path, key_for(path), beside_writer=beside_writer) as reader:
                assert cache_kib(reader.db) == CACHE_KIB
    finally:
        authority.journal.close()
