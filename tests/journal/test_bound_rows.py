"""Every table of the journal is checked, and every derived row is bound to its ledger row (issue 21).

`journal verify` said 'verified' for a forged snapshot, a deleted round record, and a cut tail
whose signed outbox mark lay beyond the head: the outbox mark's MAC covered only (name, seq),
not the ledger row the docs said it was bound to, and verify read neither the snapshots nor which
rounds the ledger settles. Schema 3 binds the outbox mark to its ledger row's MAC; verify checks
every snapshot, replays the ledger to find every settled round's record, and refuses any derived
row beyond the ledger's last row. A schema-2 journal is still read (its marks under the old
formula, and never beyond the head) and becomes schema 3 with the first mark a release writes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from controller.journal import SCHEMA_VERSION, Journal, JournalTampered, NotAJournal, _bound_mac
from tests.support.harness import tablectl
from tests.support.journals import key_for, open_authority, play_rounds
from controller.journal import key_beside


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def journal_of(path: Path, rounds: int = 4, mark: int | None = None) -> Path:
    """A journal of `rounds` rounds, a snapshot every 2, and the broker's outbox mark at row `mark`
    (default: the last row)."""
    a = open_authority(path, snapshot_every_rounds=2)
    play_rounds(a, rounds)
    a.journal.set_outbox("broker", a.journal.last_seq if mark is None else mark)
    a.journal.close()
    return path


def edit(path: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    con = sqlite3.connect(path)
    for sql, params in statements:
        con.execute(sql, params)
    con.commit()
    con.close()


def verify(path: Path, *extra: str) -> tuple[int, dict[str, object]]:
    out = tablectl("journal", "verify", "--db", str(path), "--key", str(key_beside(path)),
                   "--json", *extra)
    assert "Traceback" not in out.stderr, out.stderr
    return out.returncode, json.loads(out.stdout) if out.stdout.strip() else {"stderr": out.stderr}


def service_check(tmp_path: Path, path: Path) -> "subprocess.CompletedProcess[str]":
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\npath = "{path}"\n[shoe]\nport = "{tmp_path / "no-shoe"}"\n')
    return tablectl("run", "--config", str(cfg), "--check", timeout=60)


def test_an_untouched_journal_verifies(tmp_path: Path) -> None:
    code, doc = verify(journal_of(tmp_path / "j.sqlite"))
    assert code == 0 and doc["ok"] and doc["rounds"] == 4, doc


def test_a_forged_snapshot_is_not_verified(tmp_path: Path) -> None:
    path = journal_of(tmp_path / "j.sqlite")
    con = sqlite3.connect(path)
    seq, state = con.execute("SELECT seq, state FROM snapshots").fetchone()
    con.close()
    forged = json.loads(state)
    forged["rounds_played"] = 1008
    edit(path, ("UPDATE snapshots SET state = ?", (json.dumps(forged),)))
    code, doc = verify(path)
    assert code == 1 and (doc["table"], doc["row"]) == ("snapshots", seq), doc
    # The service, as documented, ignores it with a warning and replays the ledger from its first row.
    assert service_check(tmp_path, path).returncode == 0


@pytest.mark.parametrize("which", ["first", "last"])
def test_a_deleted_round_record_is_not_verified(tmp_path: Path, which: str) -> None:
    path = journal_of(tmp_path / "j.sqlite")
    number = 1 if which == "first" else 4
    edit(path, ("DELETE FROM rounds WHERE number = ?", (number,)))
    code, doc = verify(path)
    assert code == 1 and (doc["table"], doc["row"]) == ("rounds", number), doc
    assert "missing" in str(doc["message"])


def test_a_cut_tail_whose_outbox_mark_lies_beyond_the_head_is_refused(tmp_path: Path) -> None:
    path = journal_of(tmp_path / "j.sqlite")
    con = sqlite3.connect(path)
    last = con.execute("SELECT MAX(seq) FROM ledger").fetchone()[0]
    con.close()
    cut = last - 10
    edit(path, ("DELETE FROM ledger WHERE seq > ?", (cut,)), ("DELETE FROM rounds WHERE seq > ?", (cut,)),
         ("DELETE FROM snapshots WHERE seq > ?", (cut,)))
    code, doc = verify(path)
    assert code == 1 and (doc["table"], doc["row"]) == ("outbox", last), doc
    assert "cut from its tail" in str(doc["message"])
    before = digest(path)
    out = service_check(tmp_path, path)
    assert out.returncode == 3 and "cut from its tail" in out.stderr, out.stderr
    assert digest(path) == before


def test_a_cut_tail_with_its_snapshot_left_beyond_the_head_is_refused(tmp_path: Path) -> None:
    path = journal_of(tmp_path / "j.sqlite", mark=1)
    con = sqlite3.connect(path)
    snap = con.execute("SELECT seq FROM snapshots").fetchone()[0]
    con.close()
    edit(path, ("DELETE FROM ledger WHERE seq >= ?", (snap,)), ("DELETE FROM rounds WHERE seq >= ?", (snap,)))
    code, doc = verify(path)
    assert code == 1 and (doc["table"], doc["row"]) == ("snapshots", snap), doc
    assert service_check(tmp_path, path).returncode == 3


def test_the_outbox_mark_is_bound_to_its_ledger_row(tmp_path: Path) -> None:
    """Another journal of the same table (same key, same row numbers, other rows) cannot lend its mark."""
    one = journal_of(tmp_path / "one.sqlite", rounds=3)
    other = tmp_path / "other.sqlite"
    other.with_name("other.sqlite.key").write_bytes(one.with_name("one.sqlite.key").read_bytes())
    a = open_authority(other, snapshot_every_rounds=2)
    play_rounds(a, 3, shoe_id="S2")  # the same row numbers, other rows
    a.journal.close()
    con = sqlite3.connect(one)
    name, seq, mac = con.execute("SELECT name, seq, mac FROM outbox").fetchone()
    con.close()
    edit(other, ("INSERT INTO outbox VALUES (?, ?, ?)", (name, seq, mac)))
    code, doc = verify(other)
    assert code == 1 and doc["table"] == "outbox", doc


def schema_2(path: Path) -> None:
    """Turn a journal into what a release of schema 2 left: outbox MACs over (name, seq) alone."""
    key = key_for(path).secret
    con = sqlite3.connect(path)
    for name, seq in con.execute("SELECT name, seq FROM outbox").fetchall():
        con.execute("UPDATE outbox SET mac = ? WHERE name = ?", (_bound_mac(key, "outbox", name, seq), name))
    con.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    con.commit()
    con.close()


def schema_of(path: Path) -> str:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
    finally:
        con.close()


def test_a_schema_2_journal_is_read_and_becomes_schema_3_with_its_next_mark(tmp_path: Path) -> None:
    assert SCHEMA_VERSION == 3
    path = journal_of(tmp_path / "j.sqlite")
    schema_2(path)
    assert verify(path)[0] == 0
    before = digest(path)
    assert service_check(tmp_path, path).returncode == 0
    assert schema_of(path) == "2" and digest(path) == before  # opening and checking change nothing
    a = open_authority(path, snapshot_every_rounds=2)
    play_rounds(a, 1, shoe_id="S2")
    a.journal.set_outbox("broker", a.journal.last_seq)
    a.journal.set_outbox("archive", 3)
    a.journal.close()
    assert schema_of(path) == "3"
    code, doc = verify(path)
    assert code == 0, doc
    schema_2_marks_now_fail = tmp_path / "downgraded.sqlite"
    schema_2_marks_now_fail.write_bytes(path.read_bytes())
    schema_2_marks_now_fail.with_name("downgraded.sqlite.key").write_bytes(key_for(path).secret.hex().encode())
    edit(schema_2_marks_now_fail, ("UPDATE meta SET value = '2' WHERE key = 'schema'", ()))
    assert verify(schema_2_marks_now_fail)[0] == 1  # marking it schema 2 again does not pass its marks


def test_a_schema_2_journal_with_a_mark_beyond_its_head_is_refused(tmp_path: Path) -> None:
    path = journal_of(tmp_path / "j.sqlite")
    schema_2(path)
    con = sqlite3.connect(path)
    last = con.execute("SELECT MAX(seq) FROM ledger").fetchone()[0]
    con.close()
    edit(path, ("DELETE FROM ledger WHERE seq > ?", (last - 10,)), ("DELETE FROM rounds WHERE seq > ?", (last - 10,)),
         ("DELETE FROM snapshots WHERE seq > ?", (last - 10,)))
    code, doc = verify(path)
    assert code == 1 and (doc["table"], doc["row"]) == ("outbox", last), doc
    with pytest.raises(JournalTampered, match="cut from its tail"):
        Journal(path, key_for(path))


def test_a_journal_of_an_unknown_schema_is_refused_naming_both(tmp_path: Path) -> None:
    path = journal_of(tmp_path / "j.sqlite")
    # (4 is a live file after an archive since issue 42: 5 is the schema no release has written yet)
    edit(path, ("UPDATE meta SET value = '5' WHERE key = 'schema'", ()))
    with pytest.raises(NotAJournal, match="schema 5"):
        Journal(path, key_for(path))
    out = service_check(tmp_path, path)
    assert out.returncode == 3 and "schema 5" in out.stderr and "Traceback" not in out.stderr


def test_a_mark_is_never_set_beyond_the_last_row(tmp_path: Path) -> None:
    a = open_authority(tmp_path / "j.sqlite")
    with pytest.raises(ValueError, match="beyond"):
        a.journal.set_outbox("broker", a.journal.last_seq + 1)
    a.journal.close()
