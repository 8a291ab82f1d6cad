"""The durable journal: every input event, in order, in a SQLite file.

WAL mode with ``synchronous=FULL`` and one explicit transaction per event, so
an event the service has acknowledged (a card to the shoe, an action to the
API) survives a crash or a power cut. Rows are chained by SHA-256, so a file
that was edited, truncated in the middle or mixed with another table's is
refused at startup with a clear message instead of being replayed wrongly.
Snapshots of the engine at round ends keep a long shift's startup fast.
"""

from __future__ import annotations

import hashlib
import json
import logging
import pickle
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from .events import Event, dump_event, parse_event

log = logging.getLogger(__name__)

APP_ID = "tablectl-journal"
SCHEMA_VERSION = 1
SNAPSHOT_FORMAT = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    received_at TEXT NOT NULL,
    body TEXT NOT NULL,
    shoe_id TEXT,
    position INTEGER,
    chain TEXT NOT NULL
);
CREATE TABLE refusals (seq INTEGER PRIMARY KEY REFERENCES events(seq), code TEXT NOT NULL, message TEXT NOT NULL);
CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, format INTEGER NOT NULL, state BLOB NOT NULL);
CREATE TABLE rounds (number INTEGER PRIMARY KEY, seq INTEGER NOT NULL, record TEXT NOT NULL);
"""


class JournalError(Exception):
    """The journal cannot be used; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One journalled input: its sequence number, when it arrived, the event, and a refusal if any."""

    seq: int
    received_at: datetime
    event: Event
    refused: str | None


def _chain(prev: str, seq: int, received_at: str, body: str) -> str:
    return hashlib.sha256(f"{prev}|{seq}|{received_at}|{body}".encode()).hexdigest()


class Journal:
    """Append-only event journal in one SQLite file."""

    def __init__(self, path: str | Path, *, verify: bool = True) -> None:
        self.path = Path(path)
        new = not self.path.exists() or self.path.stat().st_size == 0
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            if new:
                self._create()
            self._check_identity()
            if verify:
                self._verify()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"journal {self.path} is damaged or not a journal: {exc}") from None
        row = self.db.execute("SELECT seq, chain FROM events ORDER BY seq DESC LIMIT 1").fetchone()
        self.last_seq, self._last_chain = (row[0], row[1]) if row else (0, "")

    def _create(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        for stmt in _SCHEMA.strip().split(";"):
            if stmt.strip():
                self.db.execute(stmt)
        self.db.execute("INSERT INTO meta VALUES ('app', ?), ('schema', ?)", (APP_ID, str(SCHEMA_VERSION)))
        self.db.execute("COMMIT")

    def _check_identity(self) -> None:
        try:
            meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.OperationalError:
            raise JournalError(f"{self.path} is an SQLite file but not a tablectl journal") from None
        if meta.get("app") != APP_ID:
            raise JournalError(f"{self.path} is not a tablectl journal (app = {meta.get('app')!r})")
        if meta.get("schema") != str(SCHEMA_VERSION):
            raise JournalError(f"{self.path} has journal schema {meta.get('schema')}, this build reads {SCHEMA_VERSION}")

    def _verify(self) -> None:
        if self.db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise JournalError(f"journal {self.path} fails SQLite's integrity check")
        prev = ""
        expected = 1
        for seq, received_at, body, chain in self.db.execute(
            "SELECT seq, received_at, body, chain FROM events ORDER BY seq"
        ):
            if seq != expected or _chain(prev, seq, received_at, body) != chain:
                raise JournalError(
                    f"journal {self.path} fails its integrity check at event {seq}: "
                    "it was altered or damaged; keep the file for investigation and start a new journal"
                )
            prev = chain
            expected += 1

    # ------------------------------------------------------------------ writing
    def append(self, event: Event, received_at: datetime, *, shoe_id: str | None = None,
               position: int | None = None) -> int:
        """Append one event durably (committed when this returns) and return its sequence number."""
        body = json.dumps(dump_event(event), separators=(",", ":"), sort_keys=True)
        seq = self.last_seq + 1
        at = received_at.astimezone(timezone.utc).isoformat()
        chain = _chain(self._last_chain, seq, at, body)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", (seq, at, body, shoe_id, position, chain))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.last_seq, self._last_chain = seq, chain
        return seq

    def mark_refused(self, seq: int, code: str, message: str) -> None:
        """Record that the engine refused event `seq` (kept for the audit trail, skipped on export)."""
        self.db.execute("INSERT OR REPLACE INTO refusals VALUES (?, ?, ?)", (seq, code, message))

    def save_snapshot(self, seq: int, state: object) -> None:
        """Keep the engine's state as it was after event `seq`; older snapshots are dropped."""
        blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)", (seq, SNAPSHOT_FORMAT, blob))
        self.db.execute("DELETE FROM snapshots WHERE seq < ?", (seq,))
        self.db.execute("COMMIT")

    def save_round(self, seq: int, record: dict[str, object]) -> None:
        """Keep a settled round's record (derived from the events; rebuilt by a replay)."""
        self.db.execute("INSERT OR REPLACE INTO rounds VALUES (?, ?, ?)",
                        (record["number"], seq, json.dumps(record, separators=(",", ":"))))

    def rounds(self, offset: int = 0, limit: int = 20) -> list[dict[str, object]]:
        """Settled rounds, newest first."""
        rows = self.db.execute("SELECT record FROM rounds ORDER BY number DESC LIMIT ? OFFSET ?", (limit, offset))
        return [json.loads(r[0]) for r in rows]

    def round(self, number: int) -> dict[str, object] | None:
        """One settled round's record."""
        row = self.db.execute("SELECT record FROM rounds WHERE number = ?", (number,)).fetchone()
        return json.loads(row[0]) if row else None

    def round_count(self) -> int:
        """How many rounds are recorded."""
        return self.db.execute("SELECT COUNT(*) FROM rounds").fetchone()[0]

    def round_seq(self, number: int) -> int | None:
        """The sequence number of the event that settled round `number`."""
        row = self.db.execute("SELECT seq FROM rounds WHERE number = ?", (number,)).fetchone()
        return row[0] if row else None

    def rounds_settled_since(self, since: datetime) -> list[tuple[str, dict[str, object]]]:
        """(settled at, record) of every round settled at or after `since`, in round order."""
        rows = self.db.execute(
            "SELECT e.received_at, r.record FROM rounds r JOIN events e ON e.seq = r.seq "
            "WHERE e.received_at >= ? ORDER BY r.number", (since.astimezone(timezone.utc).isoformat(),))
        return [(at, json.loads(body)) for at, body in rows]

    # ------------------------------------------------------------------ reading
    def latest_snapshot(self) -> tuple[int, object] | None:
        """The newest usable snapshot (seq, state), or None."""
        row = self.db.execute(
            "SELECT seq, state FROM snapshots WHERE format = ? ORDER BY seq DESC LIMIT 1", (SNAPSHOT_FORMAT,)
        ).fetchone()
        if row is None:
            return None
        try:
            return row[0], pickle.loads(row[1])
        except Exception as exc:  # a snapshot from another build: replay from the start instead
            log.warning("snapshot at event %s unusable (%s); replaying the whole journal", row[0], exc)
            return None

    def entries(self, since: int = 0, since_time: datetime | None = None) -> Iterator[JournalEntry]:
        """Every event after sequence `since` (and at or after `since_time`), in order."""
        sql = ("SELECT e.seq, e.received_at, e.body, r.code FROM events e "
               "LEFT JOIN refusals r ON r.seq = e.seq WHERE e.seq > ?")
        args: list[object] = [since]
        if since_time is not None:
            sql += " AND e.received_at >= ?"
            args.append(since_time.astimezone(timezone.utc).isoformat())
        for seq, received_at, body, refused in self.db.execute(sql + " ORDER BY e.seq", args):
            yield JournalEntry(seq, datetime.fromisoformat(received_at), parse_event(json.loads(body)), refused)

    def last_card(self) -> tuple[str, int] | None:
        """The shoe id and position of the last card journalled from the shoe (the resume point)."""
        row = self.db.execute(
            "SELECT shoe_id, position FROM events WHERE position IS NOT NULL ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return (row[0], row[1]) if row else None

    def close(self) -> None:
        """Close the file."""
        self.db.close()

    # ------------------------------------------------------------------ the pit's reads (added for the dashboard)
    def round_times(self, numbers: list[int]) -> dict[int, str]:
        """When each of these rounds was settled (the arrival time of its settling event)."""
        if not numbers:
            return {}
        marks = ",".join("?" * len(numbers))
        rows = self.db.execute(f"SELECT r.number, e.received_at FROM rounds r JOIN events e ON e.seq = r.seq "
                               f"WHERE r.number IN ({marks})", list(numbers))
        return {number: at for number, at in rows}

    def settled_with_seq_since(self, since: datetime) -> list[tuple[int, str, dict[str, object]]]:
        """(seq of the settling event, settled at, record) of every round settled at or after `since`."""
        rows = self.db.execute(
            "SELECT r.seq, e.received_at, r.record FROM rounds r JOIN events e ON e.seq = r.seq "
            "WHERE e.received_at >= ? ORDER BY r.number", (since.astimezone(timezone.utc).isoformat(),))
        return [(seq, at, json.loads(body)) for seq, at, body in rows]

    def bets_and_voids_since(self, since: datetime) -> list[tuple[int, dict[str, object]]]:
        """(seq, event) of every accepted bet and void_round at or after `since`, in order."""
        rows = self.db.execute(
            "SELECT e.seq, e.body FROM events e LEFT JOIN refusals r ON r.seq = e.seq "
            "WHERE r.seq IS NULL AND e.received_at >= ? AND json_extract(e.body, '$.type') IN ('bet', 'void_round') "
            "ORDER BY e.seq", (since.astimezone(timezone.utc).isoformat(),))
        return [(seq, json.loads(body)) for seq, body in rows]
