"""The table's single authority: decide, then write, then apply.

`TableAuthority.submit` is the one place an input becomes part of the table:

- a person's action is first checked by the engine (`Table.refusal`, a pure
  check that changes nothing); a refused action is written to the ledger as a
  *refusal* (kept for the audit trail, never replayed) and `IllegalAction`
  is raised; an accepted one is appended as an *event*, then applied;
- a card (or any input from the shoe or the clock) is physical: it is
  appended first, then applied; the engine never refuses it.

So no instant of a crash can leave an event in the ledger that replay refuses.
Opening an authority on an existing journal restores the exact state: the
newest snapshot that verifies, then every event after it.
"""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .closed import ClosedCards, closed_cards, mask_event
from .effects import AlertRaised, Effect, RoundSettled
from .engine import IllegalAction, Phase, Table
from .errors import SnapshotError
from .event_codec import dump_event
from .events import CardDrawn, Event, SetRules, Shuffle
from .journal import (History, Journal, JournalEntry, JournalError, JournalKey, JournalReader, JournalTampered,
                      Rotation, RoundsMiscounted)
from .rules import Rules, build_rules

log = logging.getLogger(__name__)


# Events between two kept states at most when no round settles (the start's replay is bounded by it: about
# 2 hours of a busy table's inputs, a few seconds of replay on a Pi).
SNAPSHOT_EVERY_ROWS = 5_000


class ReplayRefused(JournalError, ValueError):
    """An event the journal accepted is refused by this build's engine on replay."""


class ImportedJournal(JournalError, ValueError):
    """The journal was made by `tablectl journal import` (issue 38): evidence brought in from elsewhere. A table
    never runs on it, so nothing live is ever written among rows that are not its own."""


class TableAuthority:
    """A Table kept in step with its journal."""

    def __init__(self, journal: Journal, rules: Rules, snapshot_every_rounds: int = 50,
                 snapshot_every_rows: int = SNAPSHOT_EVERY_ROWS) -> None:
        """Restore the table from `journal` (a new one holds its first row already: see `open`).

        The state is kept every `snapshot_every_rounds` settled rounds, and after `snapshot_every_rows` events
        with none kept (at the first of them between rounds with no card closed): a table that records
        thousands of inputs and no round (the pit called all night, a shoe that faults) still starts from a
        state at most that many rows back (issue 42: a start on 10^6 such rows replayed them all).
        """
        self.journal = journal
        self.snapshot_every_rounds = snapshot_every_rounds
        self.snapshot_every_rows = snapshot_every_rows
        self.table = Table(rules)
        self.replayed = 0
        # Ledger rows holding a card dealt face down and not yet turned (the dealer's hole card, the club
        # games' closed cards): masked for every role below supervisor.
        self.closed = ClosedCards()
        self._restore()

    @classmethod
    def open(cls, path: str | Path, key: JournalKey, rules: Rules, snapshot_every_rounds: int = 50,
             *, now: datetime, create: bool = True, snapshot_every_rows: int = SNAPSHOT_EVERY_ROWS) -> "TableAuthority":
        """Open (or, where nothing is, create) the journal at `path` and restore the table from it.

        `now` is the caller's clock reading: a new journal is created at that time with its first row
        (the rules the table starts with, so an export replays alone) received then, so an export
        replays to the very same table.
        """
        # Every option, not only those that differ from the profile: the row means the same rules even
        # after the casino changes what a profile's defaults are.
        first = SetRules(profile=rules.name, options=rules.options())
        return cls(Journal(path, key, create=create, now=now, first=first), rules, snapshot_every_rounds,
                   snapshot_every_rows)

    def _restore(self) -> None:
        def after(entry: JournalEntry, effects: list[Effect]) -> None:
            self.replayed += 1
            self.closed.track(entry.seq, effects)
            for effect in effects:  # a round settled just before a crash has no record yet
                if type(effect) is RoundSettled and not self.journal.has_round(effect.round.number):
                    self.journal.save_round(entry.seq, effect.result)

        self.table = replay_journal(self.journal, self.table, after)
        self.rounds_since_snapshot = 0
        self.rows_since_snapshot = self.replayed  # (the rows replayed are those after the newest state)
        if len(self.closed.rows) < len(closed_cards(self.table)):
            # Restored from a snapshot while a card dealt before it is still closed (club-21-36's banker
            # carries a kept card past the round whose settlement took the snapshot): its row lies before the
            # snapshot, so the rows are followed again from the first (rare: only then).
            closed = ClosedCards()
            replay_journal(self.journal, None, lambda entry, effects: closed.track(entry.seq, effects),
                           from_snapshot=False)
            self.closed = closed
        self._keep_state_if_due()

    def _keep_state_if_due(self) -> None:
        """Keep the state now if `snapshot_every_rows` events or more were replayed to restore it (a journal written
        before states were kept by rows: the next start replays from here, not from the first row again)."""
        if self.rows_since_snapshot >= self.snapshot_every_rows and self.table.round is None and not self.closed.rows:
            seq = self.journal.head()[0]
            state = self.table.snapshot()
            self.journal.save_snapshot(seq, state, state["format"])
            self.rounds_since_snapshot = self.rows_since_snapshot = 0
            log.info("replayed %d rows to start: the state is kept at row %d", self.replayed, seq)

    def submit(self, event: Event, received_at: datetime, *, shoe_id: str | None = None,
               position: int | None = None) -> tuple[int, list[Effect]]:
        """Decide, write, apply. Returns (seq, effects); a refused action raises IllegalAction after its refusal row.

        A storage fault raises the journal's StorageError before anything is applied.
        """
        if event.at is None:
            event.at = received_at
        table = self.table
        if type(event) is not CardDrawn:
            refusal = table.refusal(event)
            if refusal is not None:
                self.journal.append_refusal(event, received_at, refusal.code, refusal.message)
                raise IllegalAction(refusal)
        # The row and what it derives (a settled round's record, a snapshot) commit together, so no
        # reader (a backup's copy, journal verify) ever sees a settled round without its record. Inside
        # the service's batch this is its transaction already.
        with self.journal.transaction():
            seq = self.journal.append_event(event, received_at, shoe_id=shoe_id, position=position)
            effects = table.apply(event)
            self.closed.track(seq, effects)
            self.rows_since_snapshot += 1
            snapshot = False
            for effect in effects:
                if type(effect) is RoundSettled:
                    self.journal.save_round(seq, effect.result)
                    self.rounds_since_snapshot += 1
                    snapshot = snapshot or self.rounds_since_snapshot >= self.snapshot_every_rounds
                elif type(effect) is AlertRaised:  # (logged here, live: a replay applies the same rows silently)
                    alert = effect.alert
                    if alert.count > 1:
                        log.info("alert %s %s raised again (%d times): %s", alert.id, alert.kind.value, alert.count,
                                 effect.said or alert.message)
                    else:
                        log.info("alert %s %s: %s", alert.id, alert.kind.value, alert.message)
            if snapshot or (self.rows_since_snapshot >= self.snapshot_every_rows and table.round is None
                            and not self.closed.rows):
                state = table.snapshot()
                self.journal.save_snapshot(seq, state, state["format"])
                self.rounds_since_snapshot = self.rows_since_snapshot = 0
                log.info("snapshot after row %d; journal head %d %s", seq, *self.journal.head())
        return seq, effects

    def rotate_if_due(self, rotation: Rotation, now: datetime) -> Path | None:
        """Archive the live journal before an input received at `now`, if a gaming day began since its first row
        or it passed its size, and the table is between rounds with no card closed (a round never spans two
        files; a closed card's row stays in the file that replays it). The archive made, or None."""
        if self.table.round is not None or self.closed.rows or not self.journal.rotation_due(rotation, now):
            return None
        archive = self.journal.rotate(now, self.table.snapshot(), rotation)
        self.rounds_since_snapshot = self.rows_since_snapshot = 0
        return archive

    @property
    def closed_rows(self) -> frozenset[int]:
        """The ledger rows holding a card not yet turned (see controller.closed)."""
        return self.closed.rows

    def export(self, since_time: datetime | None = None) -> Iterator[dict[str, Any]]:
        """The accepted events as session-format dicts (see export_session)."""
        return export_session(self.journal, since_time)

    @property
    def phase(self) -> Phase:
        """The table's phase."""
        return self.table.phase


def replay_journal(journal: JournalReader, table: Table | None = None,
                   after: Callable[[JournalEntry, list[Effect]], None] | None = None, *,
                   from_snapshot: bool = True, at_most: int | None = None) -> Table:
    """The table as the journal's accepted events leave it (read-only: nothing is written).

    Starts from the newest snapshot that verifies (only with the journal's key, and unless
    `from_snapshot` is false; with `at_most`, the newest taken at or before that row), else from the
    first row. ReplayRefused names the row if this build's engine refuses an event the journal accepted.
    """
    table = table if table is not None else Table(build_rules())
    since = 0
    snap = None
    if journal.key is not None and (from_snapshot or journal.base > 1):
        # (a segment after an archive starts from the state kept at its first row: its "first row", issue 42)
        snap = journal.latest_snapshot(at_most if from_snapshot else journal.base)
    elif journal.base > 1:  # (read without the key, said NOT verified by the tool: that state is where it starts)
        snap = journal.state_at_base()
    if snap is not None:
        try:
            table, since = Table.from_snapshot(snap[1]), snap[0]
        except SnapshotError as exc:
            log.warning("journal %s: the snapshot at row %s cannot be used (%s); replaying the whole journal",
                        journal.path, snap[0], exc)
    for entry in journal.entries(since):
        try:
            effects = table.apply(entry.event)
        except IllegalAction as exc:
            raise ReplayRefused(
                f"journal row {entry.seq} ({entry.event.type}) was accepted when it was recorded, but this "
                f"build's engine refuses it on replay ({exc.code}: {exc.message}); run the build that "
                "recorded the journal, and keep the file") from None
        if after is not None:
            after(entry, effects)
    return table


def check_round_records(journal: JournalReader, *, whole: bool = False) -> int:
    """Check the round records against the ledger's replay; returns how many rounds the rows replayed settle.

    Each round the ledger settles must have its record, made at the row that settled it, and no
    other record may be there: a record removed (the last round's as well as one in the middle)
    or one without its round is named by JournalTampered. (What a record says is its MAC's to
    prove: `JournalReader.verify`. Its exact text is not compared, so a record written by another
    release, with other fields, is not taken for tampering.)

    Where the writer kept tallies (issue 42), the records up to the newest state a tally goes with are checked by
    their count (`JournalReader.counted_rounds`: each record is bound to its row, so none can be added, and one
    removed changes the count), and only the rows after that state are replayed: the work is the tail's, not the
    history's. `whole`: replay every row all the same (this release's engine replays the whole journal).
    """
    settled: dict[int, int] = {}

    def after(entry: JournalEntry, effects: list[Effect]) -> None:
        for effect in effects:
            if type(effect) is RoundSettled:
                settled[effect.round.number] = entry.seq

    miscounted: RoundsMiscounted | None = None
    try:
        tally = journal.counted_rounds()
    except RoundsMiscounted as exc:  # (the rows from the last tally that counts right name the round removed)
        miscounted, tally = exc, (exc.after, 0) if exc.after else None
    since = 0
    if tally is not None and not whole:
        start = journal.latest_snapshot(tally[0])
        if start is not None:
            try:
                Table.from_snapshot(start[1])
                since = start[0]
            except SnapshotError:
                pass
    if since:
        replay_journal(journal, None, after, at_most=since)
    else:
        replay_journal(journal, None, after, from_snapshot=False)
    kept = dict(journal.db.execute("SELECT number, seq FROM rounds WHERE seq > ?", (since,)).fetchall())
    for number in sorted(set(settled) | set(kept)):
        if number not in kept:
            raise JournalTampered(f"journal {journal.path}: the record of round {number}, settled at ledger row "
                                  f"{settled[number]}, is missing: it was removed; keep the file for investigation",
                                  table="rounds", row=number)
        if settled.get(number) != kept[number]:
            where = f"round {number} is settled at row {settled[number]}" if number in settled else \
                f"the ledger settles no round {number}"
            raise JournalTampered(f"journal {journal.path}: the record of round {number} is at row {kept[number]}, "
                                  f"but {where}: it was forged or moved; keep the file for investigation",
                                  table="rounds", row=number)
    if miscounted is not None:
        raise miscounted
    return len(settled)


def export_session(journal: JournalReader | History, since_time: datetime | None = None) -> Iterator[dict[str, Any]]:
    """A journal's accepted events as session-format dicts (what `tablectl journal export` writes).

    With `since_time`, the export starts at the first shuffle at or after that time,
    preceded by the rules in force, so it replays on its own.
    """
    started = since_time is None
    rules_line: dict[str, Any] | None = None
    for entry in journal.entries():
        data = dump_event(entry.event)
        if isinstance(entry.event, SetRules):
            rules_line = data
        if not started and since_time is not None:  # (not started: there is a since_time)
            if data["type"] != "shuffle" or entry.received_at < since_time:
                continue
            started = True
            if rules_line is not None:
                yield rules_line
        yield data


def export_shoe(journal: JournalReader, *, round_number: int | None = None, shoe_id: str | None = None,
                masked: Iterable[int] = ()) -> list[dict[str, Any]] | None:
    """The session-format events of one shoe (cut after `round_number`'s settlement), or None if unknown.

    Accepted events only, dumped as `export_session` dumps them, starting with the
    rules line in force and the shoe's shuffle, so the file replays alone. A replay
    numbers rounds from that shuffle, so round N comes out with the same cards and
    settlement under its number within the shoe. Rows in `masked` (a closed card not
    yet turned) show their card hidden (controller.closed).
    """
    hidden = set(masked)
    end_seq: int | None = None
    if round_number is not None:
        record = journal.round(round_number)
        end_seq = journal.round_seq(round_number)
        if record is None or end_seq is None:
            return None
        shoe_id = record.get("shoe_id")
    rules_line: dict[str, Any] | None = None
    out: list[dict[str, Any]] | None = None
    for entry in journal.entries():
        if end_seq is not None and entry.seq > end_seq:
            break
        event = entry.event
        if isinstance(event, SetRules):
            rules_line = dump_event(event)
        if isinstance(event, Shuffle):
            if out is not None and event.shoe_id != shoe_id:
                if end_seq is None:
                    break  # the next shoe
                out = None  # (a round number names its shoe: keep looking)
            if event.shoe_id == shoe_id and out is None:
                out = [rules_line] if rules_line is not None else []
        if out is not None:
            data = dump_event(event)
            out.append(mask_event(data) if entry.seq in hidden else data)
    return out
