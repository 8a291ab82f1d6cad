"""The journal: a keyed ledger, decide-then-write, reopening, and never writing over what it cannot trust."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller import events as ev
from controller.authority import TableAuthority
from controller.cards import parse_card
from controller.engine import IllegalAction
from controller.journal import (EVENT, REFUSAL, Journal, JournalError, JournalKey, JournalKeyError,
                                JournalNotFound, JournalReader, NotAJournal, WouldOverwrite)
from controller.replay import replay_lines
from controller.rules import build_rules
from tests.support.journals import T0, ROUND_STEPS, key_for, open_authority, play_rounds


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_reopen_restores_the_exact_state_from_a_snapshot(tmp_path):
    path = tmp_path / "j.sqlite"
    a = open_authority(path, "ru-standard", snapshot_every_rounds=3)
    play_rounds(a, 7)
    before = (a.table.snapshot(), a.table.last_round, a.journal.head())
    a.journal.close()
    b = open_authority(path, "ru-standard", snapshot_every_rounds=3)
    assert (b.table.snapshot(), b.table.last_round, b.journal.head()) == before
    assert b.replayed == len(ROUND_STEPS)  # the snapshot after round 6 spared the rest of the replay


def test_a_snapshot_that_does_not_verify_is_ignored_and_the_journal_replayed(tmp_path, caplog):
    path = tmp_path / "j.sqlite"
    a = open_authority(path, "ru-standard", snapshot_every_rounds=2)
    play_rounds(a, 4)
    before = a.table.snapshot()
    a.journal.close()
    con = sqlite3.connect(path)
    state = json.loads(con.execute("SELECT state FROM snapshots").fetchone()[0])
    state["rounds_played"] = 1008  # a forged snapshot: the MAC no longer matches
    con.execute("UPDATE snapshots SET state = ?", (json.dumps(state),))
    con.commit()
    con.close()
    b = open_authority(path, "ru-standard", snapshot_every_rounds=2)
    assert b.table.snapshot() == before and b.table.rounds_played == 4
    assert b.replayed == b.journal.last_seq  # replayed from the first row
    assert "does not verify" in caplog.text


def test_a_refused_action_is_a_refusal_row_that_replay_never_reads(tmp_path):
    """Decide, then write: the engine checks the action first; a refusal is its own kind of row."""
    a = open_authority(tmp_path / "j.sqlite")
    with pytest.raises(IllegalAction):
        a.submit(ev.Stand(actor="dealer:ann"), T0)
    rows = a.journal.ledger_rows()
    assert [r.kind for r in rows] == [EVENT, REFUSAL]  # the rules line, then the refused stand
    refusal = rows[-1]
    assert refusal.code == "not_players_turn" and json.loads(refusal.body)["actor"] == "dealer:ann"
    assert [e.event.type for e in a.journal.entries()] == ["rules"]
    assert all(line["type"] != "stand" for line in a.export())
    assert a.journal.refusals()[0]["code"] == "not_players_turn"


def test_export_replays_to_the_same_rounds(tmp_path):
    a = open_authority(tmp_path / "j.sqlite", "ru-surrender")
    play_rounds(a, 4)
    result = replay_lines([json.dumps(line) for line in a.export()])
    assert result.error is None
    assert result.rounds == a.journal.rounds(0, 100)[::-1]
    assert len(result.rounds) == 4


def test_every_row_verifies_against_the_key_and_a_wrong_key_is_named(tmp_path):
    path = tmp_path / "j.sqlite"
    a = open_authority(path)
    play_rounds(a, 2)
    head = a.journal.head()
    a.journal.close()
    with JournalReader(path, key_for(path)) as r:
        result = r.verify()
    assert (result.rows, result.head_seq, result.head_mac) == (head[0], head[0], head[1])
    assert result.rounds == 2
    other = JournalKey.generate(tmp_path / "other.key")
    with pytest.raises(JournalKeyError, match="not this journal's key"):
        Journal(path, other)


def test_kill_just_after_a_refused_action_never_bricks_the_journal(tmp_path):
    """SIGKILL at many instants of a loop of refused and accepted actions: every reopen accepts the journal."""
    path = tmp_path / "j.sqlite"
    open_authority(path).journal.close()
    script = f"""
import sys
from datetime import datetime, timezone
from controller import events as ev
from controller.engine import IllegalAction
from tests.support.journals import open_authority
a = open_authority(__import__('pathlib').Path({str(path)!r}))
now = datetime.now(timezone.utc)
print("ready", flush=True)
while True:
    for e in (ev.Stand(), ev.Double(), ev.PlaceBet(box=1, amount=10), ev.Split()):
        try:
            a.submit(e, now)
        except IllegalAction:
            pass
"""
    for instant in (0.0, 0.001, 0.003, 0.007, 0.013, 0.02, 0.05, 0.11):
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=Path(__file__).parents[2])
        assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
        time.sleep(instant)
        child.kill()
        child.wait()
        child.stdout.close()
        b = open_authority(path)  # would raise if a row were left that replay refuses
        assert b.journal.verify().rows == b.journal.last_seq
        b.journal.close()
    kinds = {r.kind for r in JournalReader(path).ledger_rows(0, 10**6)}
    assert kinds == {EVENT, REFUSAL}


# ------------------------------------------------------------------ never over data

def test_a_journal_is_created_only_where_nothing_is(tmp_path):
    key = JournalKey.generate(tmp_path / "k")
    with pytest.raises(JournalNotFound):
        Journal(tmp_path / "absent.sqlite", key)
    # a WAL without its main file is journal data: never a new journal over it
    orphan = tmp_path / "orphan.sqlite"
    (tmp_path / "orphan.sqlite-wal").write_bytes(b"\x37\x7f\x06\x82" + b"\0" * 60)
    with pytest.raises(WouldOverwrite):
        Journal(orphan, key, create=True, now=T0)
    assert not orphan.exists()
    # an empty main file (beside a WAL, or alone) is not a new journal either
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    with pytest.raises(NotAJournal):
        Journal(empty, key, create=True, now=T0)
    assert empty.stat().st_size == 0


def test_empty_main_file_beside_a_wal_keeps_the_wal(tmp_path):
    """The journal's data can live in its WAL: an emptied main file must not start a new journal over it."""
    path = tmp_path / "j.sqlite"
    a = open_authority(path)
    play_rounds(a, 1)
    wal = path.with_name("j.sqlite-wal")
    saved = tmp_path / "saved"
    saved.mkdir()
    shutil.copy(wal, saved / "j.sqlite-wal")
    a.journal.db.execute("PRAGMA wal_checkpoint(PASSIVE)")  # (still open: the WAL file stays)
    a.journal.close()
    path.write_bytes(b"")
    shutil.copy(saved / "j.sqlite-wal", wal)
    before = digest(wal)
    with pytest.raises(JournalError):
        Journal(path, key_for(path), create=True, now=T0)
    assert digest(wal) == before and path.stat().st_size == 0


def test_foreign_and_garbage_files_are_refused_and_left_as_they_were(tmp_path):
    key = JournalKey.generate(tmp_path / "k")
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('app', 'someone-else')")
    db.commit()
    db.close()
    plain = tmp_path / "plain.sqlite"
    sqlite3.connect(plain).execute("CREATE TABLE x (y)").connection.close()
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database at all" * 100)
    for path in (other, plain, garbage):
        before = digest(path)
        with pytest.raises(NotAJournal, match="not a tablectl journal"):
            Journal(path, key, create=True, now=T0)
        assert digest(path) == before
        assert not path.with_name(path.name + "-wal").exists()  # not even switched to WAL


@pytest.mark.parametrize("cut", [0.3, 0.5, 0.8, 0.95])
def test_torn_wal_keeps_a_committed_prefix_or_refuses(tmp_path, cut):
    """A power cut mid-write tears the WAL: reopening gives a valid prefix of the events, never garbage."""
    path = tmp_path / "j.sqlite"
    a = open_authority(path)
    play_rounds(a, 3)
    full = [e.event.type for e in a.journal.entries()]
    torn = tmp_path / "torn"
    torn.mkdir()
    shutil.copy(path, torn / "j.sqlite")
    shutil.copy(path.with_name("j.sqlite.key"), torn / "j.sqlite.key")
    data = path.with_name("j.sqlite-wal").read_bytes()
    (torn / "j.sqlite-wal").write_bytes(data[: int(len(data) * cut)])
    a.journal.close()
    try:
        j = Journal(torn / "j.sqlite", key_for(torn / "j.sqlite"))
    except JournalError:
        return  # refused with a message: acceptable, never a silent wrong state
    got = [e.event.type for e in j.entries()]
    assert got == full[: len(got)]


def test_card_positions_give_the_resume_point(tmp_path):
    a = open_authority(tmp_path / "j.sqlite")
    a.submit(ev.Shuffle(shoe_id="S9"), T0)
    a.submit(ev.PlaceBet(box=1, amount=10), T0)
    a.submit(ev.CardDrawn(card=parse_card("5S"), position=1), T0, shoe_id="S9", position=1)
    a.submit(ev.CardDrawn(card=parse_card("6S"), position=2), T0, shoe_id="S9", position=2)
    assert a.journal.last_card() == ("S9", 2)
    assert a.journal.shoe_cards("S9") == {1: a.journal.ledger_rows(0)[-2].body, 2: a.journal.ledger_rows(0)[-1].body}


def test_steps_cover_a_whole_round():
    assert sum(1 for kind, _ in ROUND_STEPS if kind == "card") == 5


def test_a_new_journal_records_its_rules(tmp_path):
    a = TableAuthority.open(tmp_path / "j.sqlite", JournalKey.generate(tmp_path / "k"), build_rules("us-holecard"), now=T0)
    first = next(a.journal.entries())
    assert isinstance(first.event, ev.SetRules) and first.event.profile == "us-holecard"


def test_readers_beside_the_writer_keep_its_locks(tmp_path):
    """The service's own reads must not drop the writer's POSIX locks (closing any descriptor of the
    file would): otherwise another process's connection, closing, takes itself for the last one and
    removes the WAL index from under the live writer."""
    path = tmp_path / "j.sqlite"
    a = open_authority(path)
    play_rounds(a, 2)
    for _ in range(3):
        with JournalReader(path, a.journal.key, beside_writer=True) as r:
            assert r.round_count() == 2
    outside = f"import sqlite3; db = sqlite3.connect({str(path)!r}); db.execute('SELECT 1 FROM meta').fetchone(); db.close()"
    subprocess.run([sys.executable, "-c", outside], check=True)
    assert path.with_name("j.sqlite-shm").exists() and path.with_name("j.sqlite-wal").exists()
    play_rounds(a, 1, shoe_id="S1", start=T0)  # (a refused shuffle is fine: only the write path matters)
    with JournalReader(path, a.journal.key, beside_writer=True) as r:
        assert r.verify().head_seq == a.journal.last_seq
