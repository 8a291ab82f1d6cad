"""Time is passed in: a journal opened at any wall-clock time, in any time zone, exports a session that
replays to the very table the live one is, byte for byte, for every rule profile.

The live table's first row (the rules it starts with) carries the time the caller's clock gave when the
journal was opened; the replay applies that row, time included. Before this, the authority read the wall
clock for that row and the replay skipped it, so an export replayed to the same table only while the
calendar was behind the test's fixture time.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from controller.authority import TableAuthority, export_session
from controller.engine import IllegalAction
from controller.events import SetRules
from controller.journal import Journal, JournalKey, JournalReader
from controller.replay import replay_lines
from controller.rules import build_rules
from tests.support.clock import DATES, Instant, frozen
from tests.support.journals import T0, play_rounds
from tests.support.sessions import CASES, PROFILE_NAMES, START, Chooser, Session


def _played(case: str, seed: int) -> Session:
    """A session of plausible play (the world's events and a time on every event included)."""
    words = random.Random(seed).choices(range(2**16), k=400)
    session = Session(case, seed, Chooser(words=words), world=True)
    session.run(300)
    return session


def _canonical(table_snapshot: dict) -> str:
    return json.dumps(table_snapshot, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize("instant", DATES, ids=[d.label for d in DATES])
@pytest.mark.parametrize("case", PROFILE_NAMES)
def test_an_export_replays_to_the_live_table_byte_for_byte_at_any_date(tmp_path: Path, case: str,
                                                                       instant: Instant) -> None:
    session = _played(case, seed=PROFILE_NAMES.index(case) + 1)
    assert session.rounds, "the session settles at least one round"
    profile, options = CASES[case]
    with frozen(instant) as wall_clock:
        # The service's clock is the caller's: here the frozen wall clock, read once, outside the core.
        opened_at = datetime.now(timezone.utc)
        live = TableAuthority.open(tmp_path / "j.sqlite", JournalKey.generate(tmp_path / "k"),
                                   build_rules(profile, options), now=opened_at)
        for event in session.accepted:  # the same play, shifted to start when the journal was opened
            at = opened_at + (event.at - START) if event.at is not None else opened_at
            try:
                live.submit(replace(event, at=at), at)
            except IllegalAction as exc:  # pragma: no cover - the session's table accepted it
                pytest.fail(f"the authority refused what the session's table accepted: {exc}")
        lines = [json.dumps(row) for row in export_session(live.journal)]
        replayed = replay_lines(lines)
        assert replayed.error is None
        assert _canonical(replayed.table.snapshot()) == _canonical(live.table.snapshot())
        assert replayed.rounds == session.rounds
        assert live.table.now is not None and live.table.now >= wall_clock
        live.journal.close()
        # A restart replays the journal to the same table too.
        reopened = TableAuthority.open(tmp_path / "j.sqlite", JournalKey.load(tmp_path / "k"),
                                       build_rules(profile, options), now=datetime.now(timezone.utc))
        assert _canonical(reopened.table.snapshot()) == _canonical(live.table.snapshot())
        reopened.journal.close()


@pytest.mark.parametrize("rounds", [0, 2])
@pytest.mark.parametrize("instant", DATES, ids=[d.label for d in DATES])
def test_a_journal_opened_before_or_after_its_rows_times_replays_to_the_same_clock(
        tmp_path: Path, instant: Instant, rounds: int) -> None:
    """The shape of the bug: rows at a fixed time (T0), the journal opened at whatever the wall clock says,
    before T0 or after it. The table's clock is the latest time it was given, the first row's included."""
    with frozen(instant):
        opened_at = datetime.now(timezone.utc)
        live = TableAuthority.open(tmp_path / "j.sqlite", JournalKey.generate(tmp_path / "k"),
                                   build_rules("ru-standard"), now=opened_at)
        last = play_rounds(live, rounds, start=T0) if rounds else opened_at
        replayed = replay_lines(json.dumps(row) for row in export_session(live.journal))
        live.journal.close()
    assert replayed.error is None
    assert live.table.now == max(opened_at, last)
    assert replayed.table.now == live.table.now
    assert _canonical(replayed.table.snapshot()) == _canonical(live.table.snapshot())


@pytest.mark.parametrize("instant", DATES, ids=[d.label for d in DATES])
def test_a_new_journal_records_the_time_it_was_given_not_the_wall_clock(tmp_path: Path, instant: Instant) -> None:
    with frozen(instant):
        key = JournalKey.generate(tmp_path / "k")
        Journal(tmp_path / "j.sqlite", key, create=True, now=T0, first=SetRules()).close()
        reader = JournalReader(tmp_path / "j.sqlite", key)
        try:
            created = reader.db.execute("SELECT value FROM meta WHERE key = 'created_at'").fetchone()[0]
        finally:
            reader.close()
    assert datetime.fromisoformat(created) == T0


def test_a_new_journal_cannot_be_made_without_a_time(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="time is passed in"):
        Journal(tmp_path / "j.sqlite", JournalKey.generate(tmp_path / "k"), create=True)
    assert not (tmp_path / "j.sqlite").exists()
