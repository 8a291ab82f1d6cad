"""The table's single authority: the journal first, then the engine.

Every input, from the shoe or a person, goes through `TableAuthority.submit`:
it is appended to the journal (committed) before the engine applies it. An
action the engine refuses stays in the journal, marked refused, for the audit
trail; replay skips it. Opening an authority on an existing journal restores
the exact state: the newest snapshot, then every event after it.
"""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

from .effects import Effect, RoundSettled
from .engine import IllegalAction, Phase, SnapshotError, Table
from .events import Event, SetRules, dump_event
from .journal import Journal, JournalError
from .rules import RuleProfile, build_rules

log = logging.getLogger(__name__)


class TableAuthority:
    """A Table kept in step with its journal."""

    def __init__(self, journal: Journal, rules: RuleProfile, snapshot_every_rounds: int = 50) -> None:
        self.journal = journal
        self.snapshot_every_rounds = snapshot_every_rounds
        self.table = Table(rules)
        self.replayed = 0
        self._restore(rules)

    @classmethod
    def open(cls, path: str | Path, rules: RuleProfile, snapshot_every_rounds: int = 50) -> "TableAuthority":
        """Open (or create) the journal at `path` and restore the table from it."""
        return cls(Journal(path), rules, snapshot_every_rounds)

    def _restore(self, rules: RuleProfile) -> None:
        since = 0
        snap = self.journal.latest_snapshot()
        if snap is not None and isinstance(snap[1], dict):
            try:
                since, self.table = snap[0], Table.from_snapshot(snap[1])
            except SnapshotError as exc:  # from another build: replay the whole journal instead
                log.warning("snapshot at event %s unusable (%s); replaying the whole journal", snap[0], exc)
                since, self.table = 0, Table(rules)
        for entry in self.journal.entries(since):
            if entry.refused:
                continue
            try:
                effects = self.table.apply(entry.event)
            except IllegalAction as exc:
                raise JournalError(
                    f"journal event {entry.seq} ({entry.event.type}) was accepted when recorded but is refused "
                    f"on replay ({exc.code}): the journal does not match this build's rules"
                ) from None
            self.replayed += 1
            for effect in effects:  # rounds settled after the last write (a crash in between)
                if type(effect) is RoundSettled:
                    self.journal.save_round(entry.seq, effect.result)
        if since == 0 and self.journal.last_seq == 0:
            # A new journal records the rules the table starts with, so an export replays alone.
            self.submit(SetRules(profile=rules.name, options=_non_default(rules)), datetime.now().astimezone())

    def submit(self, event: Event, received_at: datetime, *, shoe_id: str | None = None,
               position: int | None = None) -> tuple[int, list[Effect]]:
        """Journal the event durably, then apply it. Returns (seq, effects); IllegalAction after journalling."""
        if event.at is None:
            event.at = received_at
        seq = self.journal.append(event, received_at, shoe_id=shoe_id, position=position)
        try:
            effects = self.table.apply(event)
        except IllegalAction as exc:
            self.journal.mark_refused(seq, exc.code, exc.message)
            raise
        self._after(seq, effects)
        return seq, effects

    def _after(self, seq: int, effects: list[Effect]) -> None:
        for effect in effects:
            if type(effect) is RoundSettled:
                self.journal.save_round(seq, effect.result)
                if self.table.rounds_played % self.snapshot_every_rounds == 0:
                    self.journal.save_snapshot(seq, self.table.snapshot())

    def export(self, since_time: datetime | None = None) -> Iterator[dict[str, Any]]:
        """The accepted events as session-format dicts (see export_session)."""
        return export_session(self.journal, since_time)

    @property
    def phase(self) -> Phase:
        """The table's phase."""
        return self.table.phase


def _non_default(rules: RuleProfile) -> dict[str, Any]:
    base = build_rules(rules.name).options()
    return {k: v for k, v in rules.options().items() if base.get(k) != v}


def export_session(journal: Journal, since_time: datetime | None = None) -> Iterator[dict[str, Any]]:
    """A journal's accepted events as session-format dicts (what `tablectl journal export` writes).

    With `since_time`, the export starts at the first shuffle at or after that time,
    preceded by the rules in force, so it replays on its own.
    """
    started = since_time is None
    rules_line: dict[str, Any] | None = None
    for entry in journal.entries():
        if entry.refused:
            continue
        data = dump_event(entry.event)
        if isinstance(entry.event, SetRules):
            rules_line = data
        if not started:
            if data["type"] != "shuffle" or entry.received_at < since_time:  # type: ignore[operator]
                continue
            started = True
            if rules_line is not None:
                yield rules_line
        yield data
