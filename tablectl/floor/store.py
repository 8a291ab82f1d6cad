"""The floor's store: every table's ledger rows in sequence order, gaps, MAC checks, state, incidents.

One SQLite file (WAL, ``synchronous=FULL``). Rows are keyed by (table, seq) and
upserted, since delivery is at least once: an exact duplicate is dropped, a
final (unmasked) row replaces a masked one of the same seq, a masked row never
replaces a final one, and two different final rows for one seq are a conflict,
reported, the first kept. A batch of messages is committed in one transaction
before any of them is acknowledged to the broker, so a crash loses nothing
the broker still holds.

Per table the store follows ``contiguous`` (every row up to it is here),
``max_seq``, and ``verified_upto`` (every row up to it has had its MAC
checked, in chain order, where the table's key is known).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from tablectl.fleet.wire import LedgerRow, WireRow, row_mac

from . import StoreError

log = logging.getLogger(__name__)

APP_ID = "tablectl-floor"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE rows (
    table_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, received_at TEXT NOT NULL,
    body TEXT NOT NULL, shoe_id TEXT, position INTEGER, code TEXT, message TEXT, mac TEXT,
    masked INTEGER NOT NULL, verified TEXT NOT NULL, stored_at REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE tables (
    table_id TEXT PRIMARY KEY, status TEXT, status_at REAL, state TEXT, state_at REAL,
    contiguous INTEGER NOT NULL DEFAULT 0, max_seq INTEGER NOT NULL DEFAULT 0, rows INTEGER NOT NULL DEFAULT 0,
    verified_upto INTEGER NOT NULL DEFAULT 0, verified_mac TEXT NOT NULL DEFAULT '',
    bad_macs INTEGER NOT NULL DEFAULT 0, duplicates INTEGER NOT NULL DEFAULT 0, conflicts INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE gaps (
    table_id TEXT NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL, noticed_at REAL NOT NULL,
    reported INTEGER NOT NULL DEFAULT 0, closed_at REAL, PRIMARY KEY (table_id, first)
);
CREATE TABLE incidents (id INTEGER PRIMARY KEY, at REAL NOT NULL, table_id TEXT, kind TEXT NOT NULL, detail TEXT NOT NULL);
"""

# Verification of a row's MAC: ok, bad, or not yet done (its predecessor or itself is missing or
# masked, or the floor has no key for that table).
OK, BAD, PENDING = "ok", "bad", "pending"

_COLS = "seq, kind, received_at, body, shoe_id, position, code, message, mac, masked, verified, stored_at"


@dataclass
class Track:
    """What the store knows of one table's sequence."""

    contiguous: int = 0
    max_seq: int = 0
    rows: int = 0
    verified_upto: int = 0
    verified_mac: str = ""
    bad_macs: int = 0
    duplicates: int = 0
    conflicts: int = 0
    status: str | None = None
    status_at: float | None = None
    state: dict[str, Any] | None = None
    state_at: float | None = None
    dirty: bool = False
    masked: set[int] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class StoredRow:
    """A row as the floor holds it."""

    table: str
    seq: int
    kind: str
    received_at: str
    body: str
    shoe_id: str | None
    position: int | None
    code: str | None
    message: str | None
    mac: str | None
    masked: bool
    verified: str
    stored_at: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {k: getattr(self, k) for k in self.__slots__}


@dataclass
class IngestResult:
    """What one batch changed."""

    inserted: int = 0
    replaced: int = 0
    duplicates: int = 0
    stale: int = 0
    conflicts: int = 0
    tables: set[str] = field(default_factory=set)


class FloorStore:
    """The floor's SQLite store; used from one thread (the floor's event loop)."""

    def __init__(self, path: str | Path, keys: dict[str, bytes] | None = None) -> None:
        self.path = Path(path)
        self.keys = keys if keys is not None else {}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists() or self.path.stat().st_size == 0
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            if new:
                self.db.execute("BEGIN IMMEDIATE")
                for stmt in _SCHEMA.strip().split(";"):
                    if stmt.strip():
                        self.db.execute(stmt)
                self.db.execute("INSERT INTO meta VALUES ('app', ?), ('schema', ?)", (APP_ID, str(SCHEMA_VERSION)))
                self.db.execute("COMMIT")
            meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"floor store {self.path} is damaged or not a floor store: {exc}") from None
        if meta.get("app") != APP_ID or meta.get("schema") != str(SCHEMA_VERSION):
            raise StoreError(f"{self.path} is not a floor store of schema {SCHEMA_VERSION} (found {meta})")
        self.tracks: dict[str, Track] = {}
        for (tid, status, status_at, state, state_at, contiguous, max_seq, rows, vupto, vmac, bad, dup,
             conf) in self.db.execute("SELECT * FROM tables"):
            t = Track(contiguous, max_seq, rows, vupto, vmac, bad, dup, conf, status, status_at,
                      json.loads(state) if state else None, state_at)
            t.masked = {s for (s,) in self.db.execute(
                "SELECT seq FROM rows WHERE table_id = ? AND masked = 1", (tid,))}
            self.tracks[tid] = t

    # ------------------------------------------------------------------ writing
    def track(self, table: str) -> Track:
        """The table's track, created on first sight."""
        t = self.tracks.get(table)
        if t is None:
            t = self.tracks[table] = Track()
            t.dirty = True
        return t

    def ingest(self, rows: list[WireRow], now: float | None = None) -> IngestResult:
        """Upsert a batch of ledger rows in one transaction (see the module docstring)."""
        now = time.time() if now is None else now
        res = IngestResult()
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for r in rows:
                self._upsert(r, now, res)
            for table in res.tables:
                self._advance(table, now)
            self._save_tracks()
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            self._reload_tracks()
            raise
        return res

    def _upsert(self, r: WireRow, now: float, res: IngestResult) -> None:
        t = self.track(r.table)
        values = (r.table, r.seq, r.kind, r.received_at, r.body, r.shoe_id, r.position, r.code, r.message, r.mac,
                  int(r.masked), PENDING, now)
        cur = self.db.execute("INSERT INTO rows VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING", values)
        if cur.rowcount == 1:
            res.inserted += 1
            res.tables.add(r.table)
            t.rows += 1
            t.max_seq = max(t.max_seq, r.seq)
            if r.masked:
                t.masked.add(r.seq)
            t.dirty = True
            return
        old = self.db.execute(f"SELECT {_COLS} FROM rows WHERE table_id = ? AND seq = ?", (r.table, r.seq)).fetchone()
        same = old[:10] == (r.seq, r.kind, r.received_at, r.body, r.shoe_id, r.position, r.code, r.message, r.mac,
                            int(r.masked))
        if same:
            res.duplicates += 1
            t.duplicates += 1
            t.dirty = True
            return
        old_masked = bool(old[9])
        if old_masked:  # a masked row is replaced by any newer form of it, final or masked
            self.db.execute("UPDATE rows SET kind=?, received_at=?, body=?, shoe_id=?, position=?, code=?, "
                            "message=?, mac=?, masked=?, verified=? WHERE table_id=? AND seq=?",
                            (r.kind, r.received_at, r.body, r.shoe_id, r.position, r.code, r.message, r.mac,
                             int(r.masked), PENDING, r.table, r.seq))
            res.replaced += 1
            res.tables.add(r.table)
            if not r.masked:
                t.masked.discard(r.seq)
            t.dirty = True
        elif r.masked:
            res.stale += 1  # the final form is here already; a late masked copy changes nothing
        else:
            res.conflicts += 1
            t.conflicts += 1
            t.dirty = True
            self.incident(r.table, "conflict", f"row {r.seq} arrived with different content than the one stored "
                                               f"(stored MAC {old[8]}, new {r.mac}); the first is kept", now)

    def _advance(self, table: str, now: float) -> None:
        t = self.tracks[table]
        while True:  # contiguous: walk forward over the rows that are here
            nxt = [s for (s,) in self.db.execute(
                "SELECT seq FROM rows WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT 512", (table, t.contiguous))]
            step = 0
            for s in nxt:
                if s != t.contiguous + 1:
                    break
                t.contiguous = s
                step += 1
            if step < 512:
                break
        self.db.execute("UPDATE gaps SET closed_at = ? WHERE table_id = ? AND closed_at IS NULL AND last <= ?",
                        (now, table, t.contiguous))
        if t.contiguous < t.max_seq:
            self._note_gaps(table, t, now)
        self._verify(table, t, now)
        t.dirty = True

    def _note_gaps(self, table: str, t: Track, now: float) -> None:
        missing = self.missing(table)
        for first, last in missing:
            self.db.execute("INSERT INTO gaps (table_id, first, last, noticed_at) VALUES (?, ?, ?, ?) "
                            "ON CONFLICT (table_id, first) DO UPDATE SET last = excluded.last", (table, first, last, now))
        # A gap partly filled from its start is now a smaller gap starting later: close the old record.
        firsts = {f for f, _ in missing}
        for (first,) in self.db.execute("SELECT first FROM gaps WHERE table_id = ? AND closed_at IS NULL",
                                        (table,)).fetchall():
            if first not in firsts:
                self.db.execute("UPDATE gaps SET closed_at = ? WHERE table_id = ? AND first = ?", (now, table, first))

    def missing(self, table: str, upto: int | None = None) -> list[tuple[int, int]]:
        """The ranges of seqs not stored between 1 and the highest stored (or `upto`), in order."""
        t = self.tracks.get(table)
        if t is None:
            return [(1, upto)] if upto else []
        out: list[tuple[int, int]] = []
        prev = t.contiguous
        if prev < t.max_seq:
            for (s,) in self.db.execute("SELECT seq FROM rows WHERE table_id = ? AND seq > ? ORDER BY seq",
                                        (table, prev)):
                if s > prev + 1:
                    out.append((prev + 1, s - 1))
                prev = s
        top = max(prev, t.max_seq)
        if upto is not None and upto > top:
            out.append((top + 1, upto))
        return out

    def _verify(self, table: str, t: Track, now: float) -> None:
        key = self.keys.get(table)
        if key is None or t.verified_upto >= t.contiguous:
            return
        prev = t.verified_mac
        updates: list[tuple[str, str, int]] = []
        for row in self.db.execute(
                "SELECT seq, kind, received_at, body, shoe_id, position, code, message, mac, masked FROM rows "
                "WHERE table_id = ? AND seq > ? AND seq <= ? ORDER BY seq", (table, t.verified_upto, t.contiguous)):
            seq, masked = row[0], row[9]
            if masked:
                break  # the chain goes on once this row is final
            ledger_row = LedgerRow(seq, row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8])
            good = row_mac(key, prev, ledger_row) == row[8]
            updates.append((OK if good else BAD, table, seq))
            if not good:
                t.bad_macs += 1
                self.incident(table, "bad_mac", f"row {seq}: its MAC does not match the table's key and chain", now)
            prev = row[8]
            t.verified_upto = seq
        t.verified_mac = prev
        self.db.executemany("UPDATE rows SET verified = ? WHERE table_id = ? AND seq = ?", updates)

    def set_state(self, table: str, state: dict[str, Any], now: float | None = None) -> None:
        """Keep a table's latest retained state."""
        t = self.track(table)
        t.state, t.state_at, t.dirty = state, time.time() if now is None else now, True

    def set_status(self, table: str, status: str, now: float | None = None) -> None:
        """Keep a table's online/offline status and since when."""
        t = self.track(table)
        if t.status != status:
            t.status, t.status_at, t.dirty = status, time.time() if now is None else now, True

    def flush(self) -> None:
        """Write the tables' state and status (batched with rows by ingest, or alone)."""
        if any(t.dirty for t in self.tracks.values()):
            self.db.execute("BEGIN IMMEDIATE")
            self._save_tracks()
            self.db.execute("COMMIT")

    def _save_tracks(self) -> None:
        for tid, t in self.tracks.items():
            if not t.dirty:
                continue
            self.db.execute(
                "INSERT OR REPLACE INTO tables VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (tid, t.status, t.status_at, json.dumps(t.state, separators=(",", ":")) if t.state else None,
                 t.state_at, t.contiguous, t.max_seq, t.rows, t.verified_upto, t.verified_mac, t.bad_macs,
                 t.duplicates, t.conflicts))
            t.dirty = False

    def _reload_tracks(self) -> None:
        keys = self.keys
        self.__init__(self.path, keys)  # type: ignore[misc]  # back to what is committed

    def incident(self, table: str | None, kind: str, detail: str, now: float | None = None) -> None:
        """Record and log something the floor must report (a gap, a bad MAC, a dropped message...)."""
        log.warning("table %s: %s: %s", table or "-", kind, detail)
        self.db.execute("INSERT INTO incidents (at, table_id, kind, detail) VALUES (?, ?, ?, ?)",
                        (time.time() if now is None else now, table, kind, detail[:2000]))

    def report_gaps(self, grace: float, now: float | None = None) -> list[tuple[str, int, int]]:
        """Report (once) every gap open longer than `grace` seconds; returns the newly reported ones."""
        now = time.time() if now is None else now
        due = self.db.execute("SELECT table_id, first, last FROM gaps WHERE closed_at IS NULL AND reported = 0 "
                              "AND noticed_at <= ?", (now - grace,)).fetchall()
        if due:
            self.db.execute("BEGIN IMMEDIATE")
            for table, first, last in due:
                self.incident(table, "gap", f"rows {first}..{last} are missing (lost between the table and here)",
                              now)
                self.db.execute("UPDATE gaps SET reported = 1 WHERE table_id = ? AND first = ?", (table, first))
            self.db.execute("COMMIT")
        return due

    # ------------------------------------------------------------------ reading
    def open_gaps(self, table: str | None = None) -> list[dict[str, Any]]:
        """Gaps not (yet) filled, oldest first."""
        sql = "SELECT table_id, first, last, noticed_at, reported FROM gaps WHERE closed_at IS NULL"
        args: tuple[Any, ...] = ()
        if table is not None:
            sql += " AND table_id = ?"
            args = (table,)
        return [{"table": t, "first": first, "last": last, "noticed_at": n, "reported": bool(r)}
                for t, first, last, n, r in self.db.execute(sql + " ORDER BY noticed_at", args)]

    def rows(self, table: str, after: int = 0, limit: int = 1000) -> list[StoredRow]:
        """A table's rows after seq `after`, in order."""
        # One tuple unpacked: mypy cannot count a starred row (Any) followed by more arguments.
        return [StoredRow(table, *(*r[:9], bool(r[9]), r[10], r[11])) for r in self.db.execute(
            f"SELECT {_COLS} FROM rows WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?", (table, after, limit))]

    def iter_rows(self, table: str) -> Iterator[StoredRow]:
        """Every row of a table, in order, a page at a time."""
        after = 0
        while True:
            page = self.rows(table, after, 2000)
            if not page:
                return
            yield from page
            after = page[-1].seq

    def incidents(self, limit: int = 100, table: str | None = None) -> list[dict[str, Any]]:
        """The newest incidents first."""
        sql = "SELECT id, at, table_id, kind, detail FROM incidents"
        args: list[Any] = []
        if table is not None:
            sql += " WHERE table_id = ?"
            args.append(table)
        args.append(limit)
        return [{"id": i, "at": at, "table": t, "kind": k, "detail": d}
                for i, at, t, k, d in self.db.execute(sql + " ORDER BY id DESC LIMIT ?", args)]

    def close(self) -> None:
        """Close the file."""
        self.db.close()
