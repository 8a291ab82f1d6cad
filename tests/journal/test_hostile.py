"""Hostile journals (issue 12): what an attacker with the file but not the key can do, and what it gets.

Each test changes a journal the way an attacker would and checks that the change is refused or
detected, that nothing in it runs, and that the file is left exactly as the attacker left it
(evidence is never overwritten by the tool that finds the tampering).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sqlite3
from pathlib import Path

import pytest

from controller import events as ev
from controller.engine import IllegalAction
from controller.journal import Journal, JournalKey, JournalReader, JournalTampered, LedgerRow, row_mac
from tests.support.harness import tablectl
from tests.support.journals import T0, key_for, open_authority, play_rounds
from controller.journal import key_beside


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def journal_of(tmp_path: Path, rounds: int = 4, snapshot_every_rounds: int = 2) -> Path:
    path = tmp_path / "j.sqlite"
    a = open_authority(path, snapshot_every_rounds=snapshot_every_rounds)
    play_rounds(a, rounds)
    a.journal.close()
    return path


def edit(path: Path, *statements: tuple[str, tuple]) -> None:
    con = sqlite3.connect(path)
    for sql, params in statements:
        con.execute(sql, params)
    con.commit()
    con.close()


def card_row(path: Path, nth: int = 3) -> int:
    """The sequence number of the nth card row (a row in the middle of the journal)."""
    con = sqlite3.connect(path)
    rows = [seq for seq, body in con.execute("SELECT seq, body FROM ledger ORDER BY seq") if '"card"' in body]
    con.close()
    return rows[nth]


def refused(path: Path) -> JournalTampered:
    """Opening the journal as the service does must refuse it, changing nothing."""
    before = digest(path)
    with pytest.raises(JournalTampered) as caught:
        Journal(path, key_for(path))
    assert digest(path) == before
    return caught.value


def verify_cli(path: Path, *extra: str) -> tuple[int, dict]:
    out = tablectl("journal", "verify", "--db", str(path), "--key", str(key_beside(path)),
                   "--json", *extra)
    assert "Traceback" not in out.stderr
    return out.returncode, json.loads(out.stdout) if out.stdout.strip() else {}


class Mkdir:
    """A snapshot payload that would make a directory if anything unpickled it."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self):
        return (os.mkdir, (str(self.target),))


@pytest.mark.parametrize("store", ["blob", "text"])
def test_a_pickled_snapshot_runs_nothing_at_start_or_at_status(tmp_path, caplog, store):
    path = journal_of(tmp_path)
    with JournalReader(path, key_for(path)) as r:
        rounds = r.round_count()
    marker = tmp_path / "pwned"
    payload = pickle.dumps(Mkdir(marker))
    edit(path, ("UPDATE snapshots SET state = ?", (payload if store == "blob" else payload.decode("latin-1"),)))
    status = tablectl("status", "--db", str(path), "--json")
    assert status.returncode == 0 and "Traceback" not in status.stderr
    assert json.loads(status.stdout)["rounds_played"] == rounds
    a = open_authority(path)
    assert a.table.rounds_played == rounds and a.replayed == a.journal.last_seq  # replayed from the first row
    a.journal.close()
    assert "does not verify" in caplog.text
    assert not marker.exists()


def test_a_changed_card_rechained_without_the_key_is_named_at_its_row(tmp_path):
    """The attacker changes a past card and recomputes every MAC after it, with a key of his own
    (the old plain SHA-256 chain let anyone do exactly this)."""
    path = journal_of(tmp_path)
    target = card_row(path)
    guess = JournalKey.generate(tmp_path / "guess.key").secret
    con = sqlite3.connect(path)
    rows = [LedgerRow(*r) for r in con.execute(
        "SELECT seq, kind, received_at, body, shoe_id, position, code, message, mac FROM ledger ORDER BY seq")]
    prev = rows[target - 2].mac
    for row in rows[target - 1:]:
        body = row.body.replace('"TS"', '"AS"') if row.seq == target else row.body
        row = LedgerRow(row.seq, row.kind, row.received_at, body, row.shoe_id, row.position, row.code,
                        row.message, "")
        prev = row_mac(guess, prev, row)
        con.execute("UPDATE ledger SET body = ?, mac = ? WHERE seq = ?", (body, prev, row.seq))
    con.commit()
    con.close()
    assert refused(path).row == target
    code, doc = verify_cli(path)
    assert code == 1 and doc["table"] == "ledger" and doc["row"] == target


def test_a_cut_tail_is_shown_by_the_head_taken_earlier(tmp_path):
    path = journal_of(tmp_path)
    code, doc = verify_cli(path)
    assert code == 0
    head = f"{doc['head_seq']}:{doc['head_mac']}"
    assert verify_cli(path, "--head", head)[0] == 0
    last = doc["head_seq"]
    edit(path, ("DELETE FROM ledger WHERE seq > ?", (last - 3,)), ("DELETE FROM rounds WHERE seq > ?", (last - 3,)),
         ("DELETE FROM snapshots WHERE seq > ?", (last - 3,)), ("DELETE FROM checkpoints WHERE seq > ?", (last - 3,)))
    code, cut = verify_cli(path)
    assert code == 0 and cut["head_seq"] == last - 3  # on its own a cut tail is a shorter, valid journal...
    code, doc = verify_cli(path, "--head", head)
    assert code == 1 and "cut from its tail" in doc["message"]  # ...the head taken earlier shows the cut


def test_a_removed_row_in_the_middle_is_named(tmp_path):
    path = journal_of(tmp_path)
    target = card_row(path)
    edit(path, ("DELETE FROM ledger WHERE seq = ?", (target,)))
    error = refused(path)
    assert error.row == target and "missing" in str(error)


def test_a_forged_or_edited_refusal_is_named(tmp_path):
    path = tmp_path / "j.sqlite"
    a = open_authority(path)
    play_rounds(a, 1)
    seq, mac = a.journal.head()
    a.journal.close()
    forged = (seq + 1, "refusal", "2026-11-30T20:59:00+00:00", '{"type":"stand"}', None, None, "no_round",
              "no round is in play", "0" * 64)
    edit(path, ("INSERT INTO ledger VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", forged))
    assert refused(path).row == seq + 1
    edit(path, ("DELETE FROM ledger WHERE seq = ?", (seq + 1,)))
    a = open_authority(path)
    with pytest.raises(IllegalAction):
        a.submit(ev.Stand(), T0)  # no round in play: a real refusal row, MAC'd
    a.journal.close()
    edit(path, ("UPDATE ledger SET message = 'the supervisor allowed it' WHERE kind = 'refusal'", ()))
    assert refused(path).row == seq + 1


def test_an_edited_round_record_is_named(tmp_path):
    path = journal_of(tmp_path)
    edit(path, ("UPDATE rounds SET record = replace(record, ?, ?) WHERE number = 2",
                ('"outcome":"win","net":"10"', '"outcome":"lose","net":"-10"')))
    con = sqlite3.connect(path)
    assert '"net":"-10"' in con.execute("SELECT record FROM rounds WHERE number = 2").fetchone()[0]
    con.close()
    error = refused(path)
    assert (error.table, error.row) == ("rounds", 2)


def test_an_edited_position_is_named(tmp_path):
    """A card's position decides where the shoe resumes: moving it would lose the next cards silently."""
    path = journal_of(tmp_path)
    target = card_row(path)
    edit(path, ("UPDATE ledger SET position = position + 5 WHERE seq = ?", (target,)))
    assert refused(path).row == target
    code, doc = verify_cli(path)
    assert code == 1 and doc["row"] == target
