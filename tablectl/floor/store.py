"""The floor's store: every table's ledger rows in sequence order, gaps, MAC checks, state, incidents.

In one SQLite file (WAL, ``synchronous=FULL``; the default) or one PostgreSQL database, as
``[floor] store`` says: every check is here, in one place, and its SQL is written once for both
(database.py turns it into each engine's). Rows are keyed by (table, seq) and
upserted, since delivery is at least once: an exact duplicate is dropped, a
final (unmasked) row replaces a masked one of the same seq, a masked row never
replaces a final one. A batch of messages is committed in one transaction
before any of them is acknowledged to the broker, so a crash loses nothing
the broker still holds.

Two different final rows for one seq (anyone on an open broker can publish one):

- with the table's key, the one whose MAC verifies in the chain is the table's row, whichever came first.
  A version that arrives before its chain can be checked waits in ``alternates`` until verification
  reaches its seq; a row that does not verify stops the chain there (``bad``) until one that does arrives.
  Two versions that both verify (a table restored from an old backup) are a conflict;
- without the key the first is kept and the seq is marked a conflict.

The export refuses a seq marked a conflict, and, with the key, any row that has not verified.

Per table the store follows ``contiguous`` (every row up to it is here),
``max_seq``, and ``verified_upto`` (every row up to it has verified, in chain
order, where the table's key is known).

Each table's `Track` (its counts, gaps, masked seqs) is kept in memory and written back with each batch.
On SQLite the floor process is the file's one writer, so its memory is the truth between batches. On
PostgreSQL several floor processes may write one database (docs/floor.md, "Several workers": an MQTT
shared subscription hands each of them some of every table's rows, in no particular order), so there a
batch first takes the advisory lock of every table it touches, in one order (`table_key`), reads those
tables' tracks back from the database under the locks, applies its rows by the rules above, writes the
tracks back and commits: the locks end with the commit. Rows arriving out of order are what the store
handles anyway (gaps, verification in chain order), so several writers leave exactly what one would.
A table's state and status are written column by column (`_SAVE_STATE`, `_SAVE_STATUS`), never with its
counts, so a worker storing a state never writes back counts another worker has just changed.
What the other writers did reaches this process's memory, for its dashboard and API, by `refresh`.
"""

from __future__ import annotations

import json
import logging
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tablectl.fleet import BadMessage
from tablectl.fleet.wire import TABLE_ID, LedgerRow, RatingSlip, TableState, WireRow, load_state, row_mac

from . import StoreError
from .database import Database, SqliteDatabase, connect, table_key
from .gaps import Change, Closed, Gaps, Opened, Resized, Split
from .throttle import Throttle

if TYPE_CHECKING:
    from .settings import FloorSection

log = logging.getLogger(__name__)

APP_ID = "tablectl-floor"
SCHEMA_VERSION = 2
MAX_ALTERNATES = 8  # versions of one row kept waiting for the chain; more are reported and dropped
# A row further than this beyond its table's highest on the floor is refused ([floor] max_seq_jump).
MAX_SEQ_JUMP = 100_000
# A state published further ahead of the floor's clock than this is refused (the tables' and the floor's clocks are
# kept by NTP): a forged time far ahead would otherwise order it after every state the table publishes.
FUTURE_SLACK = 120.0

# In SQLite's words; PostgresDatabase.ddl turns the types into PostgreSQL's (the same tables, columns and keys).
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
""" + """
CREATE TABLE alternates (
    table_id TEXT NOT NULL, seq INTEGER NOT NULL, n INTEGER NOT NULL, kind TEXT NOT NULL, received_at TEXT NOT NULL,
    body TEXT NOT NULL, shoe_id TEXT, position INTEGER, code TEXT, message TEXT, mac TEXT NOT NULL,
    stored_at REAL NOT NULL, PRIMARY KEY (table_id, seq, n)
) WITHOUT ROWID;
CREATE TABLE conflicts (
    table_id TEXT NOT NULL, seq INTEGER NOT NULL, noticed_at REAL NOT NULL, PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
"""
# What is read back of a table in each batch of a store with several writers, and by every dashboard's refresh:
# its masked rows and its open gaps, a few among millions of rows and gap records. Made on an existing store too.
_INDEXES = """
CREATE INDEX IF NOT EXISTS rows_masked ON rows (table_id, seq) WHERE masked = 1;
CREATE INDEX IF NOT EXISTS gaps_open ON gaps (table_id, first) WHERE closed_at IS NULL
"""
# The players' rating slips the tables push (issue 41): one a session, kept once (a table sends its slips again
# after a restart). Made on an existing store of schema 2 too, as the indexes are: no new schema number.
_RATINGS = """
CREATE TABLE IF NOT EXISTS ratings (
    table_id TEXT NOT NULL, box INTEGER NOT NULL, player TEXT NOT NULL, started TEXT NOT NULL, ended TEXT NOT NULL,
    slip TEXT NOT NULL, stored_at REAL NOT NULL, PRIMARY KEY (table_id, box, player, started)
) WITHOUT ROWID
"""
# Schema 1 had no alternates and no conflict marks: a conflict was only an incident, and the chain was
# verified on past a row that did not verify.
_SCHEMA_2 = _SCHEMA[_SCHEMA.index("CREATE TABLE alternates"):]
_OLD_CONFLICT = re.compile(r"^row (\d+) arrived with different content")

# Verification of a row's MAC: ok, bad, or not yet done (its predecessor or itself is missing or
# masked, or the floor has no key for that table).
OK, BAD, PENDING = "ok", "bad", "pending"

_COLS = "seq, kind, received_at, body, shoe_id, position, code, message, mac, masked, verified, stored_at"
_TABLES_COLS = ("table_id, status, status_at, state, state_at, contiguous, max_seq, rows, verified_upto, verified_mac, "
                "bad_macs, duplicates, conflicts")
_COUNTS = "contiguous, max_seq, rows, verified_upto, verified_mac, bad_macs, duplicates, conflicts"
# A table's counts written back with each batch that changed them (an upsert both engines read); never its state or
# status, which another worker may be writing (below).
_SAVE_COUNTS = (f"INSERT INTO tables (table_id, {_COUNTS}) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT (table_id) "
                "DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in _COUNTS.split(", ")))
# A table's state and its status, each alone, and only when it differs from the stored one: every worker takes every
# retained state and status (plain subscriptions), and the second to store one changes nothing (the status keeps
# since when it holds).
VERIFY_CHUNK = 200  # tables whose unverified rows one SELECT reads
INSERT_CHUNK = 200  # rows in one INSERT (13 arguments each: well within SQLite's 32,766 and PostgreSQL's 65,535)
_SAVE_STATE = ("INSERT INTO tables (table_id, state, state_at) VALUES (?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET "
               "state = excluded.state, state_at = excluded.state_at "
               "WHERE tables.state IS NULL OR tables.state <> excluded.state")
_SAVE_STATUS = ("INSERT INTO tables (table_id, status, status_at) VALUES (?, ?, ?) ON CONFLICT (table_id) DO UPDATE "
                "SET status = excluded.status, status_at = excluded.status_at "
                "WHERE tables.status IS NULL OR tables.status <> excluded.status")
# A gap record (re)opened: a closed record of the same first seq is reopened as new (reported 0, closed_at null).
_OPEN_GAP = ("INSERT INTO gaps (table_id, first, last, noticed_at) VALUES (?, ?, ?, ?) ON CONFLICT (table_id, first) "
             "DO UPDATE SET last = excluded.last, noticed_at = excluded.noticed_at, reported = excluded.reported, "
             "closed_at = excluded.closed_at")


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
    state: TableState | None = None
    state_at: float | None = None
    dirty: bool = False  # counts to write back
    state_due: bool = False  # a state to store
    status_due: bool = False  # a status to store
    masked: set[int] = field(default_factory=set)
    alternates: set[int] = field(default_factory=set)  # seqs with versions waiting in `alternates`
    gaps: Gaps = field(default_factory=Gaps)  # the seqs missing, as the open records of `gaps` hold them


class _TrackRow(BaseModel):
    """A row of the store's `tables` table as read back at start: the file is checked like any input."""

    model_config = ConfigDict(strict=True)

    table_id: str = Field(pattern=TABLE_ID)
    status: Literal["online", "offline"] | None
    status_at: float | None
    state: str | None
    state_at: float | None
    contiguous: int = Field(ge=0, le=2**62)
    max_seq: int = Field(ge=0, le=2**62)
    rows: int = Field(ge=0)
    verified_upto: int = Field(ge=0, le=2**62)
    verified_mac: str = Field(pattern=r"^([0-9a-f]{64})?$")
    bad_macs: int = Field(ge=0)
    duplicates: int = Field(ge=0)
    conflicts: int = Field(ge=0)


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
    refused: int = 0
    waiting: int = 0
    tables: set[str] = field(default_factory=set)


class FloorStore:
    """The floor's store, in SQLite or PostgreSQL; used from one thread (the floor's event loop).

    `where` is the database (`open_store` makes it from the floor's config), or an SQLite file's path.
    With `create` false a database without the store is an error, not a new store.
    """

    def __init__(self, where: str | Path | Database, keys: dict[str, bytes] | None = None, *,
                 max_seq_jump: int = MAX_SEQ_JUMP, throttle: Throttle | None = None, create: bool = True) -> None:
        self.db = where if isinstance(where, Database) else SqliteDatabase(where, create=create)
        self.name = self.db.name
        # What the database being away raises (a reconnection that fails is a StoreError): the floor waits it out.
        self.outages: tuple[type[Exception], ...] = (StoreError, *self.db.errors)
        self.keys = keys if keys is not None else {}
        self.max_seq_jump = max_seq_jump
        self.throttle = throttle if throttle is not None else Throttle()
        self._reload_due = False  # a batch failed and the tracks could not be read back then
        # Other floor processes may write this database too (PostgreSQL): tracks are read back under each table's
        # lock in every batch (`_hold`), and for the dashboard by `refresh`.
        self.shared = self.db.several_writers
        self._held: set[str] = set()  # the tables whose locks this batch holds, their tracks read back under them
        # Tables read in a read-only snapshot that need putting right (gap records that do not add up, a stored
        # state that does not validate): done under each one's lock by `_reload_tracks`.
        self._mismatched: set[str] = set()
        try:
            self._create_schema(create)
            meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("app") == APP_ID and meta.get("schema") == "1":
                self._migrate_from_1()
                meta["schema"] = str(SCHEMA_VERSION)
        except self.db.errors as exc:
            self.db.close()
            raise StoreError(f"floor store {self.name} is damaged, not a floor store, or not open to the floor: "
                             f"{str(exc).strip()}") from None
        except StoreError:
            self.db.close()
            raise
        if meta.get("app") != APP_ID or meta.get("schema") != str(SCHEMA_VERSION):
            self.db.close()
            raise StoreError(f"{self.name} is not a floor store of schema {SCHEMA_VERSION} (found {meta})")
        if create:  # a writer; the export (create false) changes nothing
            try:
                self._create_indexes()
            except self.db.errors as exc:
                self.db.close()
                raise StoreError(f"floor store {self.name}: cannot create its indexes: {str(exc).strip()}") from None
        self.tracks: dict[str, Track] = {}
        self._reload_tracks()

    def _create_indexes(self) -> None:
        """The indexes of `_INDEXES`, on a store made before them too (one floor at a time: the schema's lock)."""
        db = self.db
        db.begin_schema()
        try:
            for stmt in _INDEXES.strip().split(";"):
                db.execute(stmt.strip())
            db.execute(db.ddl(_RATINGS.strip()))
            db.commit()
        except BaseException:
            db.rollback()
            raise

    def _create_schema(self, create: bool) -> None:
        """A new (empty) database gets the schema, in one transaction; one that has tables is left as it is."""
        db = self.db
        db.begin_schema()
        try:
            if db.is_empty():
                if not create:
                    raise StoreError(f"no floor store at {self.name}")
                for stmt in _SCHEMA.strip().split(";"):
                    if stmt.strip():
                        db.execute(db.ddl(stmt))
                db.execute("INSERT INTO meta VALUES ('app', ?), ('schema', ?)", (APP_ID, str(SCHEMA_VERSION)))
            db.commit()
        except BaseException:
            db.rollback()
            raise

    def _migrate_from_1(self) -> None:
        """Schema 1 to 2, in one transaction: what a conflict or a row that did not verify left is kept as evidence.

        A conflict of schema 1 is known only from its incident: its seq is marked (the floor cannot tell now
        which version was the table's). Schema 1 verified on past a row that did not verify: the chain is
        taken back to just before the first such row, and verified again by the rules of schema 2.
        """
        db = self.db
        db.begin()
        try:
            # One statement at a time: executescript would commit on its own.
            for stmt in _SCHEMA_2.strip().split(";"):
                if stmt.strip():
                    db.execute(db.ddl(stmt))
            for table, at, detail in db.execute("SELECT table_id, at, detail FROM incidents WHERE kind = 'conflict' "
                                                "AND table_id IS NOT NULL").fetchall():
                found = _OLD_CONFLICT.match(detail)
                if found:
                    db.execute("INSERT INTO conflicts VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                               (table, int(found[1]), at))
            for table, first_bad in db.execute("SELECT table_id, MIN(seq) FROM rows WHERE verified = ? "
                                               "GROUP BY table_id", (BAD,)).fetchall():
                before = db.execute("SELECT mac FROM rows WHERE table_id = ? AND seq = ?",
                                    (table, first_bad - 1)).fetchone()
                db.execute("UPDATE tables SET verified_upto = ?, verified_mac = ? WHERE table_id = ?",
                           (first_bad - 1, before[0] if before else "", table))
                db.execute("UPDATE rows SET verified = ? WHERE table_id = ? AND seq > ?", (PENDING, table, first_bad))
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))
            db.commit()
        except BaseException:
            db.rollback()
            raise
        log.info("floor store %s: migrated from schema 1 to %d", self.name, SCHEMA_VERSION)

    def _load_track(self, values: tuple[Any, ...], *, cached: Track | None = None,
                    found: tuple[set[int], set[int], list[tuple[int, int]]] | None = None,
                    repair: bool = True) -> Track:
        """One table's track from its row in `tables`, checked; a state that does not validate is dropped.

        `cached`: this table's track in memory, whose state is taken as it is if the stored one is the same
        (same `state_at`: a state is parsed once per process, not once per batch). `found`: its masked seqs,
        seqs with alternates and open gaps, read with every other table's (`refresh`); else read here.
        `repair` false (a read-only snapshot): what does not add up is put right in memory only.
        """
        try:
            r = _TrackRow(**dict(zip(_TrackRow.model_fields, values)))
        except (ValidationError, TypeError) as exc:
            raise StoreError(f"floor store {self.name}: the record of table {str(values[0])[:80]!r} is damaged: "
                             f"{exc}") from None
        state = None
        if cached is not None and r.state is not None and cached.state is not None and cached.state_at == r.state_at:
            state = cached.state
        elif r.state is not None:
            try:
                state = load_state(r.state, r.table_id)
            except BadMessage as exc:  # stored by an earlier build that did not check it: never served
                if not repair:
                    self._mismatched.add(r.table_id)  # dropped for good under the table's lock (`_reload_tracks`)
                if repair:
                    self.db.execute("UPDATE tables SET state = NULL WHERE table_id = ?", (r.table_id,))
                    self.incident(r.table_id, "bad_state", f"the stored state does not validate and is dropped: "
                                  f"{exc}")
        if state is not None and state.head is not None and state.head.seq > r.max_seq + self.max_seq_jump:
            # Stored before states were bounded as rows are (a forged head pinned the tile): never served again.
            head, state = state.head.seq, None
            if not repair:
                self._mismatched.add(r.table_id)
            if repair:
                self.db.execute("UPDATE tables SET state = NULL WHERE table_id = ?", (r.table_id,))
                self.incident(r.table_id, "bad_state", f"the stored state names head {head}, more than "
                              f"{self.max_seq_jump} beyond the table's highest row ({r.max_seq}): dropped")
        t = Track(r.contiguous, r.max_seq, r.rows, r.verified_upto, r.verified_mac, r.bad_macs, r.duplicates,
                  r.conflicts, r.status, r.status_at, state, r.state_at)
        if found is None:
            t.masked = {s for (s,) in self.db.execute("SELECT seq FROM rows WHERE table_id = ? AND masked = 1",
                                                      (r.table_id,))}
            t.alternates = {s for (s,) in self.db.execute("SELECT DISTINCT seq FROM alternates WHERE table_id = ?",
                                                          (r.table_id,))}
            ranges = None
        else:
            t.masked, t.alternates, ranges = found
        t.gaps = self._load_gaps(r.table_id, t, ranges, repair)
        return t

    def _load_gaps(self, table: str, t: Track, ranges: list[tuple[int, int]] | None = None,
                   repair: bool = True) -> Gaps:
        """The table's missing ranges from the open gap records, checked against its counts; rebuilt if they differ.

        Rows are never deleted, so the rows stored plus the seqs missing make the highest seq; a store where
        they do not (damaged, or edited by hand) has its ranges rebuilt from the rows themselves.
        """
        if ranges is None:
            ranges = [(f, last) for f, last in self.db.execute(
                "SELECT first, last FROM gaps WHERE table_id = ? AND closed_at IS NULL ORDER BY first", (table,))]
        gaps = Gaps(ranges, t.max_seq)
        ordered = all(0 < f <= last < t.max_seq for f, last in ranges) and all(
            a[1] + 1 < b[0] for a, b in zip(ranges, ranges[1:]))
        if ordered and t.rows + gaps.missing_count() == t.max_seq and gaps.contiguous == t.contiguous:
            return gaps
        if not repair:
            self._mismatched.add(table)  # put right later, under the table's lock (`_reload_tracks`)
        if repair:
            log.warning("floor store %s: table %s: its gap records do not match its rows; rebuilt from the rows",
                        self.name, table)
        gaps = Gaps()
        count = 0
        for (seq,) in self.db.execute("SELECT seq FROM rows WHERE table_id = ? ORDER BY seq", (table,)):
            gaps.add(seq)
            count += 1
        if not repair:
            t.rows, t.max_seq, t.contiguous = count, gaps.top, gaps.contiguous
            return gaps
        now = time.time()
        own = not self.db.in_transaction  # at start; after a failed batch, the reload runs outside one too
        if own:
            self.db.begin()
        self.db.execute("UPDATE gaps SET closed_at = ? WHERE table_id = ? AND closed_at IS NULL", (now, table))
        for first, last in gaps.ranges():
            self.db.execute(_OPEN_GAP, (table, first, last, now))
        self.db.execute("UPDATE tables SET rows = ?, max_seq = ?, contiguous = ? WHERE table_id = ?",
                        (count, gaps.top, gaps.contiguous, table))
        if own:
            self.db.commit()
        t.rows, t.max_seq, t.contiguous = count, gaps.top, gaps.contiguous
        return gaps

    # ------------------------------------------------------------------ writing
    def track(self, table: str) -> Track:
        """The table's track, created on first sight; with several writers, held and read back first."""
        if self.shared and self.db.in_transaction and table not in self._held:
            self._hold([table])
        t = self.tracks.get(table)
        if t is None:
            t = self.tracks[table] = Track()
            t.dirty = True
        return t

    def _shown(self, table: str) -> Track:
        """The table's track to store its state or status on (held first, with several writers)."""
        if self.shared and self.db.in_transaction and table not in self._held:
            self._hold([table])
        t = self.tracks.get(table)
        if t is None:
            t = self.tracks[table] = Track()
        return t

    def _hold(self, tables: Iterable[str]) -> None:
        """With several writers: these tables' locks, held from now to the end of the batch's transaction, and their
        tracks read back under them (another worker may have just written them).

        A batch names its tables when it begins (`batch(tables)`), so each worker takes its locks in one
        order (ascending `table_key`) before it writes anything: no two batches can each hold what the other
        waits for. A table named only later is locked then; should that ever close a cycle, PostgreSQL ends
        one of the two transactions, the batch fails unacknowledged, and the broker sends it again.
        """
        if not self.shared:
            return
        new = sorted({t for t in tables if t not in self._held}, key=table_key)
        if not new:
            return
        self.db.lock_tables(sorted({table_key(t) for t in new}))
        self._held.update(new)
        read = self._read_back(new, repair=True)
        for table in new:
            cached = self.tracks.pop(table, None)
            fresh = read.get(table)
            if cached is not None and (cached.state_due or cached.status_due):  # taken earlier in this batch: kept
                if fresh is None:
                    fresh = Track()
                if cached.state_due:
                    fresh.state, fresh.state_at, fresh.state_due = cached.state, cached.state_at, True
                if cached.status_due:
                    fresh.status, fresh.status_at, fresh.status_due = cached.status, cached.status_at, True
            if fresh is not None:
                self.tracks[table] = fresh

    def _read_back(self, tables: list[str] | None, *, repair: bool) -> dict[str, Track]:
        """The tracks of these tables (None: every table) as the database holds them, in four statements however
        many tables (a few hundred at a time); a state already parsed is not parsed again."""
        found: dict[str, tuple[set[int], set[int], list[tuple[int, int]]]] = {}

        def of(table: str) -> tuple[set[int], set[int], list[tuple[int, int]]]:
            return found.setdefault(table, (set(), set(), []))

        records = []
        parts: list[list[str] | None] = [None] if tables is None else [tables[i:i + 500]
                                                                        for i in range(0, len(tables), 500)]
        for part in parts:
            only = "" if part is None else f" AND table_id IN ({', '.join('?' * len(part))})"
            args = () if part is None else tuple(part)
            records += self.db.execute(f"SELECT {_TABLES_COLS} FROM tables WHERE 1 = 1{only}", args).fetchall()
            for table, seq in self.db.execute(f"SELECT table_id, seq FROM rows WHERE masked = 1{only}", args):
                of(table)[0].add(seq)
            for table, seq in self.db.execute(f"SELECT DISTINCT table_id, seq FROM alternates WHERE 1 = 1{only}", args):
                of(table)[1].add(seq)
            for table, first, last in self.db.execute(f"SELECT table_id, first, last FROM gaps WHERE closed_at IS NULL"
                                                      f"{only} ORDER BY table_id, first", args):
                of(table)[2].append((first, last))
        return {values[0]: self._load_track(tuple(values), cached=self.tracks.get(values[0]), repair=repair,
                                            found=of(values[0])) for values in records}

    @contextmanager
    def batch(self, tables: Iterable[str] = ()) -> Iterator[None]:
        """One transaction (one commit) for everything done inside, the tables' tracks saved with it.

        `tables`: those it may write, whose locks it takes first where other floor processes write the store too.
        A batch inside a batch joins it. If anything raises, nothing of it is kept, in the database or in memory.
        """
        if self.db.in_transaction:
            self._hold(tables)
            yield
            return
        if self._reload_due:  # the database was away when a batch failed: what is committed, read back first
            self._reload_tracks()
            self._reload_due = False
        self.db.begin()
        try:
            self._hold(tables)
            yield
            self._save_tracks()
            self.db.commit()
        except BaseException:
            self.db.rollback()
            self._held.clear()
            try:
                self._reload_tracks()
            except self.db.errors:  # the connection is lost (PostgreSQL): read back before the next batch
                self._reload_due = True
            raise
        finally:
            self._held.clear()

    def ingest(self, rows: list[WireRow], now: float | None = None) -> IngestResult:
        """Upsert a batch of ledger rows in one transaction (see the module docstring)."""
        now = time.time() if now is None else now
        res = IngestResult()
        with self.batch({r.table for r in rows}):  # every row's table held and read back first
            inserted = self._insert_new(rows, now)
            for i, r in enumerate(rows):
                self._upsert(r, now, res, i in inserted)
            self._verify_tables(sorted(res.tables), now)
        return res

    def _refusal(self, r: WireRow, top: int) -> tuple[str, str] | None:
        """Why a row is not stored (an incident's kind and detail), given its table's highest row so far; else None."""
        if r.seq > top + self.max_seq_jump:  # kept, it would hold the export back until the table got that far
            return "seq_jump", (f"row {r.seq} is more than {self.max_seq_jump} beyond the table's highest row on the "
                                f"floor ({top}): refused, not stored ([floor] max_seq_jump)")
        if any("\x00" in v for v in (r.received_at, r.body, r.shoe_id, r.code, r.message) if v is not None):
            # PostgreSQL's text cannot hold it, so neither engine keeps it (a table's journal never has one).
            return "bad_message", (f"row {r.seq} has a NUL character in its text, which the floor's store does not "
                                   "hold: refused, not stored")
        return None

    def _insert_new(self, rows: list[WireRow], now: float) -> set[int]:
        """Insert, in a few statements, every row of the batch that is not refused and is the first of its seq in
        the batch; those already stored are left (ON CONFLICT DO NOTHING). Returns the indexes of the rows that
        were new. One statement a row was a round trip each to PostgreSQL (benchmarks/fleet.py); `_upsert` then
        takes each row in order, as before, and the versions already stored go its one-row way."""
        tops = {table: t.max_seq for table, t in self.tracks.items()}
        first: dict[tuple[str, int], int] = {}
        for i, r in enumerate(rows):
            top = tops.get(r.table, 0)
            if (r.table, r.seq) in first or self._refusal(r, top) is not None:
                continue
            first[(r.table, r.seq)] = i
            tops[r.table] = max(top, r.seq)  # as `_upsert` will have raised it by this row, if it is new
        inserted: set[int] = set()
        chosen = list(first.items())
        for at in range(0, len(chosen), INSERT_CHUNK):
            chunk = chosen[at:at + INSERT_CHUNK]
            values = [v for _, i in chunk for v in (rows[i].table, rows[i].seq, rows[i].kind, rows[i].received_at,
                                                    rows[i].body, rows[i].shoe_id, rows[i].position, rows[i].code,
                                                    rows[i].message, rows[i].mac, int(rows[i].masked), PENDING, now)]
            sql = ("INSERT INTO rows VALUES " + ",".join(["(?,?,?,?,?,?,?,?,?,?,?,?,?)"] * len(chunk))
                   + " ON CONFLICT DO NOTHING RETURNING table_id, seq")
            inserted.update(first[(table, seq)] for table, seq in self.db.execute(sql, values).fetchall())
        return inserted

    def _upsert(self, r: WireRow, now: float, res: IngestResult, inserted: bool) -> None:
        """Count a row of the batch in its table's track: `inserted` new by `_insert_new`, else refused, the same
        again, a masked row's newer form, or another version of a stored row."""
        known = self.tracks.get(r.table)
        refusal = self._refusal(r, known.max_seq if known is not None else 0)
        if refusal is not None:
            res.refused += 1
            self.report(r.table, *refusal, now)
            return
        t = self.track(r.table)
        if inserted:
            res.inserted += 1
            res.tables.add(r.table)
            t.rows += 1
            self._note_gap(r.table, t.gaps.add(r.seq), now)
            t.max_seq, t.contiguous = t.gaps.top, t.gaps.contiguous
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
            self._replace(r, PENDING)
            res.replaced += 1
            res.tables.add(r.table)
            if not r.masked:
                t.masked.discard(r.seq)
            t.dirty = True
        elif r.masked:
            res.stale += 1  # the final form is here already; a late masked copy changes nothing
        else:
            self._other_version(r, old, t, now, res)

    def _replace(self, r: WireRow | LedgerRow, verified: str, table: str | None = None) -> None:
        """Put `r` in the place of the stored row of its seq (final, since only a final row replaces another)."""
        masked = int(r.masked) if isinstance(r, WireRow) else 0
        self.db.execute("UPDATE rows SET kind=?, received_at=?, body=?, shoe_id=?, position=?, code=?, message=?, "
                        "mac=?, masked=?, verified=? WHERE table_id=? AND seq=?",
                        (r.kind, r.received_at, r.body, r.shoe_id, r.position, r.code, r.message, r.mac, masked,
                         verified, r.table if isinstance(r, WireRow) else table, r.seq))

    def _other_version(self, r: WireRow, old: tuple[Any, ...], t: Track, now: float, res: IngestResult) -> None:
        """A final row for a seq whose stored row is final and different: which one is the table's?"""
        key = self.keys.get(r.table)
        if key is None:
            self._conflict(r.table, r.seq, t, now, f"row {r.seq} arrived again with different content (stored MAC "
                           f"{old[8]}, new {r.mac}); without the table's key the floor cannot tell which is the "
                           "table's: the first is kept, and the export refuses this row")
            res.conflicts += 1
            return
        verified = old[10]
        if verified == PENDING:  # its chain is not verified yet: decided when verification reaches it
            res.waiting += self._wait(r, t, now)
            res.tables.add(r.table)
            return
        # verified (ok or bad) means every row before it verified: the chain up to it is known.
        prev = t.verified_mac if verified == BAD else self._mac_before(r.table, r.seq)
        good = row_mac(key, prev, _ledger(r)) == r.mac
        if verified == OK and good:
            self._conflict(r.table, r.seq, t, now, f"row {r.seq}: a second version that also verifies arrived "
                           f"(stored MAC {old[8]}, new {r.mac}): the table's journal forked; the first is kept, "
                           "and the export refuses this row")
            res.conflicts += 1
        elif good:  # the stored version did not verify, this one does: it is the table's row
            self._replace(r, PENDING)
            t.dirty = True
            res.replaced += 1
            res.tables.add(r.table)
            self.report(r.table, "bad_mac", f"row {r.seq}: the version stored first (MAC {old[8]}) did not verify; "
                        f"replaced by the one that does (MAC {r.mac})", now)
        else:
            t.bad_macs += 1
            t.dirty = True
            res.refused += 1
            self.report(r.table, "bad_mac", f"row {r.seq}: a version whose MAC does not verify (MAC {r.mac}) was "
                        "refused; " + ("the table's row is kept" if verified == OK else
                                       "the chain still waits for one that verifies"), now)

    def _wait(self, r: WireRow, t: Track, now: float) -> int:
        """Keep another version of a row until verification reaches its seq; 1 if kept."""
        versions = self.db.execute("SELECT n, kind, received_at, body, shoe_id, position, code, message, mac "
                                   "FROM alternates WHERE table_id = ? AND seq = ?", (r.table, r.seq)).fetchall()
        if any(v[1:] == (r.kind, r.received_at, r.body, r.shoe_id, r.position, r.code, r.message, r.mac)
               for v in versions):
            return 0
        if len(versions) >= MAX_ALTERNATES:
            self.report(r.table, "conflict", f"row {r.seq}: more than {MAX_ALTERNATES} versions arrived before "
                        "its chain could be verified; this one is dropped", now)
            return 0
        self.db.execute("INSERT INTO alternates VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                        (r.table, r.seq, max((v[0] for v in versions), default=0) + 1, r.kind, r.received_at, r.body,
                         r.shoe_id, r.position, r.code, r.message, r.mac, now))
        t.alternates.add(r.seq)
        return 1

    def _conflict(self, table: str, seq: int, t: Track, now: float, detail: str) -> None:
        """Two versions of a row the floor cannot tell apart: the seq is marked, the export refuses it."""
        t.conflicts += 1
        t.dirty = True
        self.db.execute("INSERT INTO conflicts VALUES (?, ?, ?) ON CONFLICT DO NOTHING", (table, seq, now))
        self.report(table, "conflict", detail, now)

    def _mac_before(self, table: str, seq: int) -> str:
        """The MAC the row `seq` chains on (the empty string for the first row)."""
        if seq == 1:
            return ""
        found = self.db.execute("SELECT mac FROM rows WHERE table_id = ? AND seq = ?", (table, seq - 1)).fetchone()
        return found[0] if found and found[0] else ""

    def _verify_tables(self, tables: list[str], now: float) -> None:
        """Verify each table's chain as far as its rows allow (`_verify`), their unverified rows read in one
        statement for up to VERIFY_CHUNK tables and those that verified marked in one executemany: a statement or
        two a table was a round trip each to PostgreSQL, most of a worker's time at 1,000 tables."""
        due = []
        for table in tables:
            t = self.tracks[table]
            t.dirty = True
            if table in self.keys and t.verified_upto < t.contiguous:
                due.append((table, t))
        verified: list[tuple[str, str, int, int]] = []
        for at in range(0, len(due), VERIFY_CHUNK):
            chunk = due[at:at + VERIFY_CHUNK]
            found: dict[str, list[tuple[Any, ...]]] = {table: [] for table, _ in chunk}
            for row in self.db.execute(
                    "SELECT table_id, seq, kind, received_at, body, shoe_id, position, code, message, mac, masked, "
                    "verified FROM rows WHERE " + " OR ".join(["(table_id = ? AND seq > ? AND seq <= ?)"] * len(chunk))
                    + " ORDER BY table_id, seq",
                    [v for table, t in chunk for v in (table, t.verified_upto, t.contiguous)]).fetchall():
                found[row[0]].append(row[1:])
            for table, t in chunk:
                first = t.verified_upto
                self._verify(table, t, now, found[table])
                if t.verified_upto > first:
                    verified.append((OK, table, first, t.verified_upto))
        if verified:
            self.db.executemany("UPDATE rows SET verified = ? WHERE table_id = ? AND seq > ? AND seq <= ?", verified)

    def _note_gap(self, table: str, change: Change | None, now: float) -> None:
        """Write what a row's arrival changed to the gap records (a gap keeps when it was noticed and reported)."""
        db = self.db
        if isinstance(change, Opened):
            db.execute(_OPEN_GAP, (table, change.first, change.last, now))
        elif isinstance(change, Closed):
            db.execute("UPDATE gaps SET closed_at = ? WHERE table_id = ? AND first = ? AND closed_at IS NULL",
                       (now, table, change.first))
        elif isinstance(change, Resized):
            # A closed record where the open one now starts gives way to it (what UPDATE OR REPLACE did in SQLite).
            db.execute("DELETE FROM gaps WHERE table_id = ? AND first = ? AND first <> ?",
                       (table, change.first, change.was_first))
            db.execute("UPDATE gaps SET first = ?, last = ? WHERE table_id = ? AND first = ? AND closed_at IS NULL",
                       (change.first, change.last, table, change.was_first))
        elif isinstance(change, Split):
            db.execute("INSERT INTO gaps (table_id, first, last, noticed_at, reported) SELECT table_id, ?, ?, "
                       "noticed_at, reported FROM gaps WHERE table_id = ? AND first = ? AND closed_at IS NULL "
                       "ON CONFLICT (table_id, first) DO UPDATE SET last = excluded.last, noticed_at = "
                       "excluded.noticed_at, reported = excluded.reported, closed_at = excluded.closed_at",
                       (change.second_first, change.second_last, table, change.first))
            db.execute("UPDATE gaps SET last = ? WHERE table_id = ? AND first = ? AND closed_at IS NULL",
                       (change.last, table, change.first))

    def missing(self, table: str, upto: int | None = None) -> list[tuple[int, int]]:
        """The ranges of seqs not stored between 1 and the highest stored (or `upto`), in order."""
        t = self.tracks.get(table)
        if t is None:
            return [(1, upto)] if upto else []
        out = t.gaps.ranges()
        if upto is not None and upto > t.max_seq:
            out.append((t.max_seq + 1, upto))
        return out

    def stuck_masked(self, table: str, before: float) -> list[tuple[int, int]]:
        """Masked rows of `table` below a final row stored before `before`, as ranges.

        A row after a face-down card goes out final only once the card is turned, and the publisher sends the
        final forms of the rows it sent masked before any row after them: a masked row below a final one had
        its final form lost on the way (a floor away without its session), and would stop the export there.
        """
        t = self.tracks.get(table)
        if t is None or not t.masked:
            return []
        found = self.db.execute("SELECT seq FROM rows WHERE table_id = ? AND seq > ? AND masked = 0 AND stored_at <= ? "
                                "ORDER BY seq DESC LIMIT 1", (table, min(t.masked), before)).fetchone()
        if found is None:
            return []
        ranges: list[tuple[int, int]] = []
        for seq in sorted(s for s in t.masked if s < found[0]):
            if ranges and seq == ranges[-1][1] + 1:
                ranges[-1] = (ranges[-1][0], seq)
            else:
                ranges.append((seq, seq))
        return ranges

    def _verify(self, table: str, t: Track, now: float, rows: list[tuple[Any, ...]]) -> None:
        """Verify the chain from `verified_upto` on, through `rows` (those after it up to `contiguous`, in order),
        while they are final; stop at one that does not verify. The caller marks the rows that verified.

        At each seq the stored row, else the first waiting version that verifies, is the table's row; the
        versions that do not verify are reported and dropped.
        """
        key = self.keys[table]
        prev = t.verified_mac
        for row in rows:
            seq, masked = row[0], row[9]
            if masked:
                break  # the chain goes on once this row is final
            stored = LedgerRow(seq, *row[1:9])
            others = self._take_alternates(table, seq, t) if seq in t.alternates else []
            mine = next((v for v in [stored, *others] if row_mac(key, prev, v) == v.mac), None)
            if mine is None:
                if row[10] != BAD:
                    t.bad_macs += 1
                    self.db.execute("UPDATE rows SET verified = ? WHERE table_id = ? AND seq = ?", (BAD, table, seq))
                    self.report(table, "bad_mac", f"row {seq}: its MAC does not match the table's key and chain; "
                                "the chain stops here until a version that verifies arrives", now)
                self._drop_forged(table, key, prev, others, now, t)
                break
            if mine is not stored:  # the stored one was a forgery (or damaged): the table's own takes its place
                t.bad_macs += 1
                self._replace(mine, OK, table)
                others.remove(mine)
                self.report(table, "bad_mac", f"row {seq}: the version stored first (MAC {stored.mac}) does not "
                            f"verify; replaced by the one that does (MAC {mine.mac})", now)
            self._drop_forged(table, key, prev, others, now, t)
            prev = mine.mac
            t.verified_upto = seq
        t.verified_mac = prev
        t.dirty = True

    def _take_alternates(self, table: str, seq: int, t: Track) -> list[LedgerRow]:
        """The versions of row `seq` that waited for the chain, in the order they arrived (and no longer waiting)."""
        found = [LedgerRow(seq, *v) for v in self.db.execute(
            "SELECT kind, received_at, body, shoe_id, position, code, message, mac FROM alternates "
            "WHERE table_id = ? AND seq = ? ORDER BY n", (table, seq))]
        self.db.execute("DELETE FROM alternates WHERE table_id = ? AND seq = ?", (table, seq))
        t.alternates.discard(seq)
        return found

    def _drop_forged(self, table: str, key: bytes, prev: str, others: list[LedgerRow], now: float, t: Track) -> None:
        """Versions of a row that lost to the table's own: reported; one that verifies too is a conflict."""
        for other in others:
            if row_mac(key, prev, other) == other.mac:
                self._conflict(table, other.seq, t, now, f"row {other.seq}: a second version that also verifies "
                               f"arrived (MAC {other.mac}): the table's journal forked; the export refuses this row")
            else:
                t.bad_macs += 1
                self.report(table, "bad_mac", f"row {other.seq}: a version whose MAC does not verify (MAC "
                            f"{other.mac}) was dropped", now)

    def conflict_seqs(self, table: str) -> list[int]:
        """The seqs of `table` where two versions arrived that the floor could not tell apart, in order."""
        return [s for (s,) in self.db.execute("SELECT seq FROM conflicts WHERE table_id = ? ORDER BY seq", (table,))]

    def set_state(self, table: str, state: TableState, now: float | None = None) -> bool:
        """Keep a table's latest retained state; returns whether it was kept.

        A state is bounded as a row is: one naming a head more than `max_seq_jump` beyond the table's highest row
        on the floor, published more than FUTURE_SLACK seconds ahead of the floor's clock, or naming a head MAC
        that the table's verified chain contradicts is refused (`seq_jump`, `bad_state`), so one forged state
        cannot show as the table (a head of 10^9 once read "missing: 999999998" for good).

        Where several workers share the store, a table's states reach them in any order (a shared subscription,
        as its rows), so they are ordered by what the rows confirm (`_state_order`): the head as far as the
        table's rows on the floor reach it, then a head the rows reach whole before one beyond them, then the
        time the table published it. A state "newer" only by a head no row confirms no longer holds the tile
        against every later one: the table's next state whose head its rows reach takes its place.
        """
        now = time.time() if now is None else now
        t = self._shown(table)
        head = state.head.seq if state.head is not None else 0
        if head > t.max_seq + self.max_seq_jump:
            self.report(table, "seq_jump", f"a state naming head {head}, more than {self.max_seq_jump} beyond the "
                        f"table's highest row on the floor ({t.max_seq}), was refused ([floor] max_seq_jump)", now)
            return False
        published = _published(state)
        if published is not None and published > now + FUTURE_SLACK:
            self.report(table, "bad_state", f"a state published at {state.published_at}, ahead of the floor's "
                        f"clock by more than {FUTURE_SLACK:g} s, was refused", now)
            return False
        if (state.head is not None and state.head.mac is not None and table in self.keys and t.verified_mac
                and head == t.verified_upto and state.head.mac != t.verified_mac):
            self.report(table, "bad_state", f"a state naming head {head} with MAC {state.head.mac}, which is not the "
                        f"MAC of the table's row {head} on the floor (verified: {t.verified_mac}), was refused", now)
            return False
        if self.shared and t.state is not None and _state_order(state, t) < _state_order(t.state, t):
            return False
        t.state, t.state_at, t.state_due = state, now, True
        return True

    def set_status(self, table: str, status: str, now: float | None = None) -> None:
        """Keep a table's online/offline status and since when."""
        t = self._shown(table)
        if t.status != status:
            t.status, t.status_at, t.status_due = status, time.time() if now is None else now, True

    def flush(self) -> None:
        """Write the tables' state and status (batched with rows by ingest, or alone)."""
        due = [tid for tid, t in self.tracks.items() if t.dirty or t.state_due or t.status_due]
        if due:
            with self.batch(due):
                pass

    def _save_tracks(self) -> None:
        # Each kind of write in one executemany (one round trip to PostgreSQL for a batch's tables, not one a table);
        # in table order, so that with several writers the rows of `tables` are locked in one order too.
        counts, statuses, states = [], [], []
        for tid in sorted(self.tracks):
            t = self.tracks[tid]
            if t.dirty:
                if self.shared and tid not in self._held:  # never counts this batch did not read back
                    raise RuntimeError(f"the track of table {tid} would be written back without its lock")
                counts.append((tid, t.contiguous, t.max_seq, t.rows, t.verified_upto, t.verified_mac, t.bad_macs,
                               t.duplicates, t.conflicts))
                t.dirty = False
            if t.status_due:
                statuses.append((tid, t.status, t.status_at))
                t.status_due = False
            if t.state_due and t.state is not None:
                states.append((tid, t.state.model_dump_json(exclude_unset=True), t.state_at))
            t.state_due = False
        for sql, args in ((_SAVE_COUNTS, counts), (_SAVE_STATUS, statuses), (_SAVE_STATE, states)):
            if args:
                self.db.executemany(sql, args)

    def _reload_tracks(self) -> None:
        """Every table's track as committed (at start, and after a batch that failed).

        Where other floor processes write the store too, the tracks are read in one snapshot (its statements one
        after the other would mix the counts of one moment with the gap records of the next, and a starting worker
        "repaired" tables that were whole: a false "gap records do not match" warning, and counts written without
        the table's lock while others wrote). A table that does not add up even in the snapshot is read again and
        put right under its lock, in one transaction (a batch of its own).
        """
        if not self.shared:
            self.tracks = {}
            for values in self.db.execute(f"SELECT {_TABLES_COLS} FROM tables").fetchall():
                self.tracks[values[0]] = self._load_track(values)
            return
        self._mismatched.clear()
        self.db.begin_snapshot()
        try:
            self.tracks = self._read_back(None, repair=False)
        finally:
            self.db.rollback()
        mismatched, self._mismatched = sorted(self._mismatched), set()
        for table in mismatched:
            self.tracks.pop(table, None)  # read back under the lock, and repaired there if it still needs it
            with self.batch([table]):
                pass

    def refresh(self) -> None:
        """Every table's track as the database holds it now, for this process's dashboard and API, where other floor
        processes write the store too (several workers); nothing to do where this process is its only writer.

        Read in one snapshot (the batches of the other workers are each whole in it or absent), in four statements
        whatever the number of tables; a table's state is parsed again only if it changed.
        """
        if not self.shared or self.db.in_transaction:
            return
        self.db.begin_snapshot()
        try:
            read = self._read_back(None, repair=False)
        finally:
            self.db.rollback()
        self._mismatched.clear()  # shown as rebuilt in memory; put right in the database by the table's next batch
        for table, kept in self.tracks.items():
            if table not in read or kept.dirty or kept.state_due or kept.status_due:
                read[table] = kept  # written by this process and not committed yet: its own is newer
        self.tracks = read

    def lead(self, role: int) -> bool:
        """Is this process the one doing `role` among the floor processes writing this store (one at a time)?"""
        return self.db.lead(role)

    def incident(self, table: str | None, kind: str, detail: str, now: float | None = None) -> None:
        """Record and log something the floor must report (a gap, a bad MAC, a dropped message...)."""
        log.warning("table %s: %s: %s", table or "-", kind, detail)
        detail = detail[:2000].replace("\x00", "\\x00")  # neither engine then holds what PostgreSQL cannot
        self.db.execute("INSERT INTO incidents (at, table_id, kind, detail) VALUES (?, ?, ?, ?)",
                        (time.time() if now is None else now, table, kind, detail))

    def report(self, table: str | None, kind: str, detail: str, now: float | None = None,
               sample: str | None = None) -> None:
        """An incident that input can repeat at will: recorded the first time, then at most once a window.

        What is held back is counted and summed up later (`report_held`), naming up to a few `sample`s.
        """
        now = time.time() if now is None else now
        held = self.throttle.admit((table, kind), now, sample)
        if held is None:
            return
        if held:
            detail += f" ({held} more like it before this one were not reported one by one)"
        self.incident(table, kind, detail, now)

    def report_held(self, now: float | None = None) -> None:
        """Sum up what `report` held back, for every table and kind whose window is over."""
        now = time.time() if now is None else now
        due = self.throttle.due(now)
        if not due:
            return
        with self.batch():
            for held in due:
                since = datetime.fromtimestamp(held.since, timezone.utc).isoformat(timespec="seconds")
                named = f": {', '.join(held.samples)}" if held.samples else ""
                self.incident(held.key[0], held.key[1], f"{held.count} more like it since {since}, not reported "
                              f"one by one{named}", now)

    def report_gaps(self, grace: float, now: float | None = None) -> list[tuple[str, int, int]]:
        """Report (once) every gap open longer than `grace` seconds; returns the newly reported ones."""
        now = time.time() if now is None else now
        due = self.db.execute("SELECT table_id, first, last FROM gaps WHERE closed_at IS NULL AND reported = 0 "
                              "AND noticed_at <= ? ORDER BY noticed_at, table_id, first", (now - grace,)).fetchall()
        reported: list[tuple[str, int, int]] = []
        if due:
            with self.batch({table for table, _, _ in due}):
                for table, first, last in due:
                    # Marked first, and reported only if this did mark it: with several workers each looks for due
                    # gaps, and one that another has reported, or that its rows have filled or changed meanwhile,
                    # is not marked again here.
                    if self.db.execute("UPDATE gaps SET reported = 1 WHERE table_id = ? AND first = ? AND last = ? "
                                       "AND reported = 0 AND closed_at IS NULL", (table, first, last)).rowcount:
                        # Throttled as any input-made incident: rows forged far apart open a gap each, and a
                        # thousand of them were a thousand WARNING lines and incidents (issue 37). Every gap is
                        # still marked reported, listed by GET /api/gaps and shown on its tile.
                        self.report(table, "gap", f"rows {first}..{last} are missing (lost between the table and "
                                    "here)", now, sample=f"{first}..{last}")
                        reported.append((table, first, last))
        return reported

    # ------------------------------------------------------------------ reading
    def open_gaps(self, table: str | None = None) -> list[dict[str, Any]]:
        """Gaps not (yet) filled, oldest first."""
        sql = "SELECT table_id, first, last, noticed_at, reported FROM gaps WHERE closed_at IS NULL"
        args: tuple[Any, ...] = ()
        if table is not None:
            sql += " AND table_id = ?"
            args = (table,)
        return [{"table": t, "first": first, "last": last, "noticed_at": n, "reported": bool(r)}
                for t, first, last, n, r in self.db.execute(sql + " ORDER BY noticed_at, table_id, first", args)]

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

    def add_ratings(self, slips: list[RatingSlip], now: float | None = None) -> int:
        """Keep these rating slips, each once (one already stored, by table, box, player and start, is left as it
        is); returns how many were new. Inside a batch, the batch's transaction; else its own."""
        now = time.time() if now is None else now
        new = 0
        with self.batch():
            for slip in slips:
                cur = self.db.execute(
                    "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (slip.table, slip.box, slip.player, slip.start, slip.end,
                     json.dumps(slip.model_dump(mode="json"), separators=(",", ":")), now))
                new += max(cur.rowcount, 0)
        return new

    def ratings(self, table: str | None = None, since: str | None = None, limit: int = 1000) -> list[dict[str, Any]]:
        """The rating slips kept, oldest end first: of one table, and/or ended at or after ``since`` (ISO time)."""
        sql, args = "SELECT slip FROM ratings WHERE 1 = 1", []
        if table is not None:
            sql += " AND table_id = ?"
            args.append(table)
        if since is not None:
            sql += " AND ended >= ?"
            args.append(since)
        rows = self.db.execute(sql + " ORDER BY ended, table_id, box LIMIT ?", [*args, limit]).fetchall()
        return [json.loads(slip) for (slip,) in rows]

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
        """Close the database."""
        self.db.close()


def open_store(settings: FloorSection, keys: dict[str, bytes] | None = None, *, create: bool = True,
               max_seq_jump: int = MAX_SEQ_JUMP) -> FloorStore:
    """The floor's store as its config says (`[floor] store`): SQLite's file or the PostgreSQL database."""
    return FloorStore(connect(settings, create=create), keys, max_seq_jump=max_seq_jump, create=create)


def _ledger(r: WireRow) -> LedgerRow:
    """A wire row as the journal's row, for its MAC."""
    return LedgerRow(r.seq, r.kind, r.received_at, r.body, r.shoe_id, r.position, r.code, r.message, r.mac or "")


def _published(state: TableState) -> float | None:
    """When the table published the state (a time without a zone is UTC), or None."""
    if not state.published_at:
        return None
    at = datetime.fromisoformat(state.published_at)
    return (at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)).timestamp()


def _state_order(state: TableState, t: Track) -> tuple[int, bool, int, float]:
    """Which of a table's states came later, by what its rows on the floor confirm: its head as far as they reach
    (the journal only grows), then a head they reach whole before one beyond them (its rows in flight, or a head
    no row will confirm), then the head itself, then when the table published it."""
    head = state.head.seq if state.head is not None else 0
    return (min(head, t.max_seq), head <= t.max_seq, head, _published(state) or 0.0)
