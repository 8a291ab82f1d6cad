"""The floor store's database: SQLite, embedded (the default), or PostgreSQL, behind one small connection.

Every check the floor makes (gaps, MACs, conflicts, what a row replaces) lives in the store
(store.py), which writes its SQL once, in what both engines read alike: `?` placeholders,
`INSERT ... ON CONFLICT`, the schema in SQLite's words. A connection here only connects, runs a
transaction, turns `?` into the driver's placeholder and the schema's types into PostgreSQL's
(INTEGER is BIGINT there, REAL is DOUBLE PRECISION, no WITHOUT ROWID), and names its database in
messages. Nothing else may differ between the two: the same tests run against both
(tests/fleet, the `floor_db` fixture).

PostgreSQL goes through psycopg 3 (pure Python over Debian's libpq5: see pyproject.toml), imported
only when a floor is configured for it, so the table's Pi and an SQLite floor never load it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import stat
from abc import ABC, abstractmethod
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Protocol, Sequence

from . import FloorConfigError, StoreError
from .settings import FloorSection, PostgresStore

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger(__name__)

APPLICATION_NAME = "tablectl-floor"
# PostgreSQL ends a session left idle inside a transaction this long (a worker stopped mid-batch), and its locks.
IDLE_IN_TRANSACTION_SECONDS = 60
# SQLite: how long a statement waits for another connection's lock on the file before it fails (the batch then
# fails unacknowledged and comes again); Python's default, said here.
SQLITE_BUSY_SECONDS = 5.0
# Taken inside the transaction that creates the schema: two floors started at once on a new database
# create it once (the second finds it made). Any constant agreed by every floor process will do.
_SCHEMA_LOCK = 0x7461626C65  # "table"
# The first of the two 32-bit keys of a table's lock (and of the floor's leader locks), the second being the
# table's hash: PostgreSQL's two-key advisory locks are a space apart from the one-key schema lock above.
TABLE_LOCKS = 0x74626C  # "tbl"
LEADER_LOCKS = 0x6C6564  # "led"


def table_key(table: str) -> int:
    """A table's lock key: 32 bits of its id's BLAKE2b, the same in every floor process (Python's hash() is not).

    Two tables that share a key only take turns; nothing else follows from it.
    """
    return int.from_bytes(hashlib.blake2b(table.encode("utf-8"), digest_size=4).digest(), "big", signed=True)


class Cursor(Protocol):
    """What the store reads of a statement's result (sqlite3's and psycopg's cursors alike)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Database(ABC):
    """One connection to the store's database, used from one thread (the floor's event loop)."""

    name: str  # the database as messages name it: the file, or postgresql://USER@HOST:PORT/DBNAME
    errors: tuple[type[Exception], ...]  # what the driver raises for a database that cannot be used
    # Can other floor processes write this database while we do? (PostgreSQL: several workers; SQLite: no, one
    # floor process per file, each keeping its tables' tracks in memory.)
    several_writers = False

    @abstractmethod
    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor:
        """Run one statement, `?` marking each argument."""

    @abstractmethod
    def executemany(self, sql: str, args: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each set of arguments (to PostgreSQL in one pipeline, not a round trip each)."""

    @abstractmethod
    def begin(self) -> None:
        """Start a transaction (the writer's: nothing else writes the store until it ends)."""

    @abstractmethod
    def begin_schema(self) -> None:
        """Start the transaction that looks for the schema and creates it, one floor at a time."""

    @abstractmethod
    def begin_snapshot(self) -> None:
        """Start a read-only transaction that sees one moment of the database, whatever commits meanwhile."""

    def lock_tables(self, keys: list[int]) -> None:
        """Hold these tables' locks (`table_key`, in this order) until the transaction ends.

        Nothing to do where this connection is the only writer: its transaction already excludes every other.
        """

    def lead(self, role: int) -> bool:
        """Is this connection the one floor process doing `role` (one at a time among the writers)? Always, alone."""
        return True

    @abstractmethod
    def commit(self) -> None:
        """End the transaction, keeping what it did."""

    @abstractmethod
    def rollback(self) -> None:
        """End the transaction, keeping nothing of it (never raises for a connection already lost)."""

    @property
    @abstractmethod
    def in_transaction(self) -> bool:
        """Is a transaction open?"""

    @abstractmethod
    def is_empty(self) -> bool:
        """No table at all yet: a new store, whose schema is to be created."""

    def ddl(self, statement: str) -> str:
        """A CREATE TABLE of the store's schema (in SQLite's words) in this engine's."""
        return statement

    @abstractmethod
    def close(self) -> None:
        """Close the connection."""


class SqliteDatabase(Database):
    """The embedded store: one file, WAL, `synchronous=FULL` (a commit is on the disk when it returns)."""

    errors = (sqlite3.DatabaseError,)

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        if not create and not self.path.exists():
            raise StoreError(f"no floor store at {self.path}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # check_same_thread off: the floor calls its store from one thread at a time, its store thread's
            # (store_thread.py), not always the one that opened it.
            self.connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                              timeout=SQLITE_BUSY_SECONDS)
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=FULL")
        except (OSError, sqlite3.DatabaseError) as exc:
            raise StoreError(f"floor store {self.path} is damaged or not a floor store: {exc}") from None

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor:
        """Run one statement."""
        return self.connection.execute(sql, args)

    def executemany(self, sql: str, args: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each set of arguments."""
        self.connection.executemany(sql, args)

    def begin(self) -> None:
        """BEGIN IMMEDIATE: the write lock now, not at the first write."""
        self.connection.execute("BEGIN IMMEDIATE")

    def begin_schema(self) -> None:
        """The same: SQLite's write lock is one writer for the whole file."""
        self.begin()

    def begin_snapshot(self) -> None:
        """BEGIN (deferred): in WAL mode a reader sees the file as of its first read."""
        self.connection.execute("BEGIN")

    def commit(self) -> None:
        """COMMIT."""
        self.connection.execute("COMMIT")

    def rollback(self) -> None:
        """ROLLBACK."""
        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK")

    @property
    def in_transaction(self) -> bool:
        """sqlite3's own flag."""
        return self.connection.in_transaction

    def is_empty(self) -> bool:
        """No table in the file (a new or empty file)."""
        return bool(self.connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0)

    def close(self) -> None:
        """Close the file."""
        self.connection.close()


@lru_cache(maxsize=512)
def _placeholders(sql: str) -> str:
    """`?` to psycopg's `%s` (the store's SQL has no `%` and no `?` in a literal)."""
    if "%" in sql:
        raise ValueError(f"a '%' in the store's SQL would be read as a placeholder: {sql[:80]!r}")
    return sql.replace("?", "%s")


_PG_TYPES = [
    (re.compile(r"\bid INTEGER PRIMARY KEY\b"), "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b"), "BIGINT"),  # seqs reach 2**62; PostgreSQL's INTEGER is 32 bits
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),  # times in seconds; PostgreSQL's REAL is 32 bits
    (re.compile(r"\)\s*WITHOUT ROWID"), ")"),  # SQLite's storage choice; PostgreSQL keys by the index anyway
]


class PostgresDatabase(Database):
    """A PostgreSQL database: one connection (libpq through psycopg 3), autocommit but for the store's batches.

    A connection found broken (the server restarted, the network dropped) is opened again before the next
    statement that is not inside a transaction; a transaction it broke fails, and the store keeps nothing of it.

    Several floor processes may write one database (docs/floor.md, "Several workers"): a batch holds each
    table's advisory lock (`lock_tables`) while it reads that table's track back and writes it.
    """

    several_writers = True

    def __init__(self, settings: PostgresStore) -> None:
        self.name = settings.describe()
        self._settings = settings
        try:
            import psycopg
            from psycopg import pq
        except ImportError as exc:  # psycopg absent, or libpq5 not installed (psycopg says which)
            raise StoreError(f"store = \"postgresql\" needs psycopg and libpq5 (pip install 'tablectl[postgresql]'; "
                             f"apt-get install libpq5): {exc}") from None
        self._psycopg = psycopg
        self._idle = pq.TransactionStatus.IDLE
        self.errors = (psycopg.Error,)
        self._password = _password(settings)
        self._leading: set[int] = set()  # the roles this connection holds the session lock of
        self.connection = self._connect()

    def _connect(self) -> "psycopg.Connection[Any]":
        s = self._settings
        params: dict[str, Any] = {"application_name": APPLICATION_NAME, "client_encoding": "UTF8",
                                  "connect_timeout": s.connect_timeout_seconds}
        if not s.dsn:
            params.update(host=s.host, port=s.port, dbname=s.dbname, user=s.user, sslmode=s.sslmode)
            if s.ca_file:
                params["sslrootcert"] = s.ca_file
        if self._password is not None:
            params["password"] = self._password
        try:
            conn = self._psycopg.connect(s.dsn, autocommit=True, **params)
            # Bounds on the server's side: a statement that runs long, a batch waiting on a table's lock that
            # another worker keeps, a session idle in a transaction (a worker stopped mid-batch holds its
            # tables' locks until the server ends it). Each fails the batch, which is not acknowledged and comes
            # again. A server that does not answer at all is the floor's store thread's to outlast
            # (store_thread.py): no statement of it can time itself out then.
            conn.execute(f"SET statement_timeout = '{s.statement_timeout_seconds}s'")
            conn.execute(f"SET lock_timeout = '{s.lock_timeout_seconds}s'")
            conn.execute(f"SET idle_in_transaction_session_timeout = '{IDLE_IN_TRANSACTION_SECONDS}s'")
            return conn
        except self._psycopg.Error as exc:
            raise StoreError(f"cannot connect to the floor store {self.name}: {str(exc).strip()}") from None

    def _live(self) -> "psycopg.Connection[Any]":
        if self.connection.broken or self.connection.closed:
            self._leading.clear()  # a session's locks end with it
            self.connection = self._connect()
        return self.connection

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor:
        """Run one statement (a broken connection is opened again first, outside a transaction)."""
        conn = self.connection if self.in_transaction else self._live()
        return conn.execute(_placeholders(sql), args)

    def executemany(self, sql: str, args: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each set of arguments: psycopg sends them in pipeline mode, one round trip."""
        conn = self.connection if self.in_transaction else self._live()
        with conn.cursor() as cur:
            cur.executemany(_placeholders(sql), args)

    def begin(self) -> None:
        """BEGIN (read committed): the store's rows are written by this connection alone (see FloorStore).

        A connection that turns out lost here (the server restarted since the last batch) is opened again and
        the BEGIN sent again: nothing was done in it yet, so nothing is lost or done twice.
        """
        try:
            self._live().execute("BEGIN", prepare=False)  # never a prepared statement: PREPARE takes no BEGIN
        except self._psycopg.OperationalError:
            if not self.connection.broken:
                raise
            self._leading.clear()
            self.connection = self._connect()
            self.connection.execute("BEGIN", prepare=False)

    def commit(self) -> None:
        """COMMIT."""
        self.connection.execute("COMMIT", prepare=False)

    def begin_schema(self) -> None:
        """BEGIN, and the schema's advisory lock until the end of the transaction; no statement or lock timeout in
        it: a floor waits for another creating the schema, and an index built at a first start on a long store
        takes its time."""
        self.begin()
        self.execute("SET LOCAL statement_timeout = 0", ())
        self.execute("SET LOCAL lock_timeout = 0", ())
        self.execute("SELECT pg_advisory_xact_lock(?)", (_SCHEMA_LOCK,))

    def begin_snapshot(self) -> None:
        """BEGIN REPEATABLE READ, READ ONLY: every statement sees the snapshot of the first."""
        self._live().execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", prepare=False)

    def lock_tables(self, keys: list[int]) -> None:
        """pg_advisory_xact_lock on each key, in the order given, in one round trip (unnest keeps the array's order).

        Every writer takes its tables' locks in ascending key order before it writes any of them, so two
        workers never each hold a lock the other waits for.
        """
        self.connection.execute("SELECT pg_advisory_xact_lock(%s, k) FROM unnest(%s::integer[]) AS k",
                                (TABLE_LOCKS, keys))

    def lead(self, role: int) -> bool:
        """pg_try_advisory_lock on the role, held by this session until it ends (a worker killed, its connection
        lost): then another process's next try takes it."""
        if role in self._leading and not (self.connection.broken or self.connection.closed):
            return True
        found = self._live().execute("SELECT pg_try_advisory_lock(%s, %s)", (LEADER_LOCKS, role)).fetchone()
        got = bool(found is not None and found[0])
        if got:
            self._leading.add(role)
        return got

    def rollback(self) -> None:
        """ROLLBACK, if the connection still has a transaction to end."""
        if self.connection.broken or self.connection.closed:
            return  # nothing was committed; the server dropped the transaction with the connection
        try:
            self.connection.execute("ROLLBACK", prepare=False)
        except self._psycopg.OperationalError:
            pass  # lost just now: the same

    @property
    def in_transaction(self) -> bool:
        """libpq's transaction status: in a transaction, or in one that failed."""
        return not self.connection.closed and self.connection.info.transaction_status != self._idle

    def is_empty(self) -> bool:
        """No table in the connection's schema (search_path's first: `public` unless the dsn says otherwise)."""
        found = self.execute("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()")
        return bool(found.fetchone()[0] == 0)

    def ddl(self, statement: str) -> str:
        """SQLite's types in PostgreSQL's."""
        for pattern, replacement in _PG_TYPES:
            statement = pattern.sub(replacement, statement)
        return statement

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()


def _password(settings: PostgresStore) -> str | None:
    if not settings.password_file:
        return None
    try:
        with open(settings.password_file, encoding="utf-8") as f:
            warn_if_others_read(f.fileno(), settings.password_file, "[floor.postgresql] password_file",
                                "can log in to the floor's database as the floor and rewrite its evidence")
            return f.read(4096).strip()
    except OSError as exc:
        raise FloorConfigError(f"[floor.postgresql] password_file {settings.password_file}: {exc.strerror}") from None


def warn_if_others_read(fd: int, path: object, what: str, harm: str) -> None:
    """A secret's file open to more than its owner is taken, with a warning, as the journal's key is
    (controller.journal.JournalKey.load): mode 0600 wanted."""
    mode = stat.S_IMODE(os.fstat(fd).st_mode)
    if mode & 0o177:
        log.warning("%s %s has mode %04o: whoever it lets read it %s; chmod 600 %s (readable by the floor alone)",
                    what, path, mode, harm, path)


def connect(settings: FloorSection, *, create: bool = True) -> Database:
    """The database of the floor's store as configured (`create`: make the SQLite file if there is none)."""
    if settings.store == "postgresql":
        return PostgresDatabase(settings.postgresql)
    return SqliteDatabase(settings.sqlite.path, create=create)
