"""The journal: durable appends, reopen, replay equivalence, and refusing what it cannot trust."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from controller import events as ev
from controller.authority import TableAuthority
from controller.cards import parse_card
from controller.engine import IllegalAction
from controller.journal import Journal, JournalError
from controller.replay import replay_lines
from controller.rules import build_rules

T0 = datetime(2026, 11, 30, 20, 0, tzinfo=timezone.utc)

ROUND = [ev.PlaceBet(box=1, amount=10), *(ev.CardDrawn(card=parse_card(c)) for c in ("TS", "6D", "9C")),
         ev.Stand(), ev.CardDrawn(card=parse_card("TD")), ev.CardDrawn(card=parse_card("2H"))]


def play_rounds(authority: TableAuthority, n: int) -> None:
    t = T0
    authority.submit(ev.Shuffle(shoe_id="S1"), t)
    for _ in range(n):
        for event in ROUND:
            t += timedelta(seconds=1)
            authority.submit(ev.CardDrawn(card=event.card) if isinstance(event, ev.CardDrawn) else
                             type(event)(**{k: getattr(event, k) for k in ("box", "amount") if hasattr(event, k)}), t)


def test_reopen_restores_the_exact_state(tmp_path):
    path = tmp_path / "j.sqlite"
    a = TableAuthority.open(path, build_rules("ru-standard"), snapshot_every_rounds=3)
    play_rounds(a, 7)
    before = (a.table.phase, a.table.rounds_played, a.table.shoe.dealt, a.table.last_round)
    a.journal.close()
    b = TableAuthority.open(path, build_rules("ru-standard"), snapshot_every_rounds=3)
    assert (b.table.phase, b.table.rounds_played, b.table.shoe.dealt, b.table.last_round) == before
    assert b.replayed < 7 * len(ROUND)  # the snapshot at round 6 spared most of the replay


def test_refused_action_is_journalled_marked_and_skipped(tmp_path):
    a = TableAuthority.open(tmp_path / "j.sqlite", build_rules("ru-standard"))
    with pytest.raises(IllegalAction):
        a.submit(ev.Stand(actor="dealer:ann"), T0)
    entries = list(a.journal.entries())
    assert entries[-1].refused == "not_players_turn"
    assert entries[-1].event.actor == "dealer:ann"  # the audit trail keeps who tried
    assert all(line["type"] != "stand" for line in a.export())


def test_export_replays_to_the_same_rounds(tmp_path):
    a = TableAuthority.open(tmp_path / "j.sqlite", build_rules("ru-surrender"))
    play_rounds(a, 4)
    import json
    result = replay_lines([json.dumps(line) for line in a.export()])
    assert result.error is None
    assert result.rounds == a.journal.rounds(0, 100)[::-1]
    assert len(result.rounds) == 4


def test_altered_journal_is_refused_with_a_clear_message(tmp_path):
    path = tmp_path / "j.sqlite"
    a = TableAuthority.open(path, build_rules("ru-standard"))
    play_rounds(a, 2)
    a.journal.close()
    db = sqlite3.connect(path)
    db.execute("""UPDATE events SET body = replace(body, '"TS"', '"AS"') WHERE seq = 4""")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="integrity check at event 4"):
        Journal(path)


def test_foreign_and_garbage_files_are_refused(tmp_path):
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('app', 'someone-else')")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="not a tablectl journal"):
        Journal(other)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(JournalError):
        Journal(garbage)
    plain = tmp_path / "plain.sqlite"
    sqlite3.connect(plain).execute("CREATE TABLE x (y)").connection.close()
    with pytest.raises(JournalError, match="not a tablectl journal"):
        Journal(plain)


@pytest.mark.parametrize("cut", [0.3, 0.5, 0.8, 0.95])
def test_torn_wal_keeps_a_committed_prefix_or_refuses(tmp_path, cut):
    """A power cut mid-write tears the WAL: reopening gives a valid prefix of the events, never garbage."""
    path = tmp_path / "j.sqlite"
    a = TableAuthority.open(path, build_rules("ru-standard"))
    play_rounds(a, 3)
    full = [e.event.type for e in a.journal.entries()]
    # copy the files as they are on disk while the writer still holds them (no checkpoint)
    torn = tmp_path / "torn"
    torn.mkdir()
    shutil.copy(path, torn / "j.sqlite")
    wal = path.with_name("j.sqlite-wal")
    data = wal.read_bytes()
    (torn / "j.sqlite-wal").write_bytes(data[: int(len(data) * cut)])
    a.journal.close()
    try:
        j = Journal(torn / "j.sqlite")
    except JournalError:
        return  # refused with a message: acceptable, never a silent wrong state
    got = [e.event.type for e in j.entries()]
    assert got == full[: len(got)]


def test_card_positions_give_the_resume_point(tmp_path):
    a = TableAuthority.open(tmp_path / "j.sqlite", build_rules("ru-standard"))
    a.submit(ev.Shuffle(shoe_id="S9"), T0)
    a.submit(ev.PlaceBet(box=1, amount=10), T0)
    a.submit(ev.CardDrawn(card=parse_card("5S"), position=1), T0, shoe_id="S9", position=1)
    a.submit(ev.CardDrawn(card=parse_card("6S"), position=2), T0, shoe_id="S9", position=2)
    assert a.journal.last_card() == ("S9", 2)
