"""A journal is never empty once made, so an existing one with no rows is refused (issue 21).

A journal whose rows were lost (the main file copied without its WAL, where every row still
was) started as a new table: the service wrote a first rules row into it and dealt on. A new
journal's first row (the rules the table starts with) is now written with the file itself, in
the same transaction, before the file appears; an existing journal with no rows is refused like
any damaged one: exit 3 from `run`, `status` and `export`, NOT VERIFIED (1) from `verify`, and
not a byte changed.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from controller import events as ev
from controller.journal import Journal, JournalDamaged, JournalReader
from tests.support.harness import tablectl
from tests.support.journals import T0, key_for, open_authority, play_rounds


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def emptied(path: Path) -> Path:
    """A journal of one round, then every row removed: what a journal whose WAL was lost looks like."""
    a = open_authority(path)
    play_rounds(a, 1)
    a.journal.close()
    con = sqlite3.connect(path)
    for table in ("ledger", "rounds", "snapshots", "outbox"):
        con.execute(f"DELETE FROM {table}")
    con.commit()
    con.execute("PRAGMA journal_mode=DELETE")  # (and no WAL left beside it)
    con.close()
    return path


def test_the_service_refuses_a_journal_with_no_rows(tmp_path: Path) -> None:
    path = emptied(tmp_path / "j.sqlite")
    before = digest(path)
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\npath = "{path}"\n[shoe]\nport = "{tmp_path / "no-shoe"}"\n')
    for args in (["--check"], ["--no-gpio", "--no-api"]):
        out = tablectl("run", "--config", str(cfg), *args, timeout=60)
        assert out.returncode == 3, out.stderr  # refused: a person must look, systemd does not restart it
        assert "no rows" in out.stderr and str(path) in out.stderr and "Traceback" not in out.stderr
        assert digest(path) == before  # never a fresh start over it
    assert not path.with_name("j.sqlite-wal").exists()


def test_the_tools_refuse_a_journal_with_no_rows(tmp_path: Path) -> None:
    path = emptied(tmp_path / "j.sqlite")
    key = str(path.with_name("j.sqlite.key"))
    before = digest(path)
    verify = tablectl("journal", "verify", "--db", str(path), "--key", key)
    assert verify.returncode == 1 and "NOT VERIFIED" in verify.stdout and "no rows" in verify.stdout
    for args in (["status", "--db", str(path)], ["journal", "export", "--db", str(path)]):
        for keyed in ([], ["--key", key]):
            out = tablectl(*args, *keyed)
            assert out.returncode == 3, out.stderr
            assert "no rows" in out.stderr and "Traceback" not in out.stderr
    assert digest(path) == before


def test_a_new_journal_holds_its_first_row_the_moment_it_exists(tmp_path: Path) -> None:
    """Copied alone (no WAL) right after it was made, a new journal still holds its rules row."""
    path = tmp_path / "j.sqlite"
    a = open_authority(path, "us-holecard")
    copy = tmp_path / "copy.sqlite"
    shutil.copy(path, copy)  # the main file alone, the writer still holding it
    shutil.copy(path.with_name("j.sqlite.key"), tmp_path / "copy.sqlite.key")
    a.journal.close()
    with JournalReader(copy, key_for(copy)) as reader:
        assert reader.verify().rows == 1
        [first] = list(reader.entries())
    assert isinstance(first.event, ev.SetRules) and first.event.profile == "us-holecard"
    assert first.received_at == T0 == first.event.at


def test_a_new_journal_needs_its_first_row(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="first row"):
        Journal(tmp_path / "j.sqlite", key_for(tmp_path / "j.sqlite"), create=True, now=T0)
    assert not (tmp_path / "j.sqlite").exists()


def test_an_empty_journal_is_refused_in_process_as_damaged(tmp_path: Path) -> None:
    path = emptied(tmp_path / "j.sqlite")
    with pytest.raises(JournalDamaged, match="no rows"):
        Journal(path, key_for(path))
    with JournalReader(path, key_for(path)) as reader, pytest.raises(JournalDamaged, match="no rows"):
        reader.verify()
