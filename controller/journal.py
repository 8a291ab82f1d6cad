"""The durable journal: a keyed, chained ledger of every input, in one SQLite file.

Every input the table accepted (an *event*, replayed) and every person's action
it refused (a *refusal*, kept for the audit trail and never replayed) is one
row of the ``ledger``, numbered 1, 2, 3, ... in the order applied, committed
in its own transaction (WAL, ``synchronous=FULL``) before anything is
acknowledged. Each row carries an HMAC-SHA256 over its content and the
previous row's MAC, with a per-table key kept outside the journal, so a row
that was changed, removed or inserted, even with the chain recomputed, is
found by anyone who holds the key (``tablectl journal verify``). Snapshots,
round records and the fleet outbox mark carry MACs bound to the ledger row
they follow. The journal never executes anything it reads: snapshots are
JSON, parsed and validated by the engine.

A journal is created only where nothing is: no file, no ``-wal``, no
``-shm``. Anything that exists and does not verify stops the service with a
message naming the first bad row; nothing is ever written over it. Readers
(`JournalReader`: status, export, the API's history, the fleet publisher)
open the file read-only and never change a byte of it.

Errors are by kind, one root (`JournalError`), each also a builtin category:
storage faults (`DiskFull`, `ReadOnlyStorage`, `StorageIOError`) are
`OSError`s; a file that is not a usable journal is a `ValueError`.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import importlib.metadata
import json
import logging
import os
import secrets
import shutil
import sqlite3
import stat
import tempfile
import urllib.parse
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from datetime import date, datetime, timedelta, timezone
from datetime import time as dt_time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .events import BadEvent, Event
from .event_codec import dump_event, parse_event

log = logging.getLogger(__name__)


def _release() -> str:
    """This release of tablectl, as installed (what a journal records of the release that wrote it)."""
    try:
        return importlib.metadata.version("tablectl")
    except importlib.metadata.PackageNotFoundError:  # (the source run without being installed)
        return "unknown"


RELEASE = _release()  # this release of tablectl: each release that writes to a journal records itself in it
APP_ID = "tablectl-journal"
SCHEMA_VERSION = 3  # 3: the outbox mark's MAC covers its ledger row's MAC (docs/service.md, "Journal format")
# 4: a segment after an archive (issue 42): schema 3, starting at the archive's last row (`segment_base`). An older
# release refuses it naming its schema, where it would have called its missing first rows removed.
SEGMENT_SCHEMA = 4
READABLE_SCHEMAS = (2, 3, 4)  # a schema-2 journal becomes 3 with the first outbox mark written to it
EVENT = "event"
REFUSAL = "refusal"
KINDS = (EVENT, REFUSAL)
MIN_FREE_BYTES = 1024 * 1024  # a shift starts only with this much room on the journal's disk
# SQLite's page cache per connection, in KiB (its default is 2,000): the writer appends at the end of its
# tables, whose pages stay cached, and the rest is in the OS's cache anyway. At the default the writer's
# cache filled as the shift's journal grew (and at once when a long journal was verified at start): 2 MiB
# more of a table's RSS, which has 60 in all (benchmarks/soak.py).
CACHE_KIB = 256

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ledger (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    received_at TEXT NOT NULL,
    body TEXT NOT NULL,
    shoe_id TEXT,
    position INTEGER,
    code TEXT,
    message TEXT,
    mac TEXT NOT NULL
);
CREATE INDEX ledger_card ON ledger (shoe_id, position) WHERE position IS NOT NULL;
CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, format INTEGER NOT NULL, state TEXT NOT NULL, mac TEXT NOT NULL);
CREATE TABLE rounds (number INTEGER PRIMARY KEY, seq INTEGER NOT NULL, record TEXT NOT NULL, mac TEXT NOT NULL);
CREATE TABLE outbox (name TEXT PRIMARY KEY, seq INTEGER NOT NULL, mac TEXT NOT NULL);
CREATE TABLE checkpoints (seq INTEGER PRIMARY KEY, previous INTEGER NOT NULL, mac TEXT NOT NULL);
CREATE TABLE tallies (seq INTEGER PRIMARY KEY, rounds INTEGER NOT NULL, mac TEXT NOT NULL);
"""
# Added after schema 3 was released (issue 37): a journal made before has none until its writer opens it. Derived
# rows, like the snapshots: an older release that reads schema 3 ignores the table.
_CHECKPOINTS = "CREATE TABLE IF NOT EXISTS checkpoints (seq INTEGER PRIMARY KEY, previous INTEGER NOT NULL, mac TEXT NOT NULL)"
# Added by issue 42, the same way: with each kept state, how many round records the file holds up to its row,
# MAC'd and bound to that row. A record removed is then found by counting, not by replaying every row before the
# state (`journal verify` replayed 10^6 rows through the engine: about a minute); the rows after it are replayed.
_TALLIES = "CREATE TABLE IF NOT EXISTS tallies (seq INTEGER PRIMARY KEY, rounds INTEGER NOT NULL, mac TEXT NOT NULL)"


# ---------------------------------------------------------------------- errors

class JournalError(Exception):
    """The journal cannot be used; the message says why and what to do."""


class JournalNotFound(JournalError, FileNotFoundError):
    """There is no journal at the path."""


class NotAJournal(JournalError, ValueError):
    """The file exists but is not a tablectl journal (or not of this schema)."""


class JournalDamaged(JournalError, ValueError):
    """SQLite reports the file as damaged."""


class JournalEmpty(JournalDamaged):
    """The journal holds no rows: a journal's first row is written with the file, so its rows were lost."""


class JournalTampered(JournalError, ValueError):
    """A row does not verify against the key: altered, removed, inserted or forged."""

    def __init__(self, message: str, *, table: str, row: int) -> None:
        super().__init__(message)
        self.table = table
        self.row = row


class RoundsMiscounted(JournalTampered):
    """The round records up to a tally's row are fewer than it counts: records were removed. ``after``: the newest
    tally before it that counts right (its row), 0 if none: the records that are missing were settled after it."""

    def __init__(self, message: str, *, row: int, after: int) -> None:
        super().__init__(message, table="rounds", row=row)
        self.after = after


class UnreadableRow(JournalError, ValueError):
    """A row that verifies but that this release cannot read: written by a newer release, or by a key holder."""

    def __init__(self, message: str, *, table: str, row: int, event_type: str | None = None) -> None:
        super().__init__(message)
        self.table = table
        self.row = row
        self.event_type = event_type


class WouldOverwrite(JournalError, FileExistsError):
    """Creating a journal here would write over data that exists."""


class JournalKeyError(JournalError, ValueError):
    """The journal's key file is missing, malformed, or not this journal's key."""


class StorageError(JournalError, OSError):
    """The disk refused a write or a read: the table must stop until it is fixed."""

    cause = "the journal's storage failed"


class DiskFull(StorageError):
    """No space is left for the journal."""

    cause = "the journal's disk is full"


class ReadOnlyStorage(StorageError):
    """The journal (or its folder) cannot be written."""

    cause = "the journal is read-only"


class StorageIOError(StorageError):
    """The disk reported an input/output error."""

    cause = "the journal's disk reported an I/O error"


_DAMAGED_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


def _storage_error(exc: sqlite3.Error, path: Path) -> JournalError:
    """Translate a SQLite error into the journal's kind of error, once, at this boundary."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    kind: type[StorageError] | None = {
        sqlite3.SQLITE_FULL: DiskFull,
        sqlite3.SQLITE_READONLY: ReadOnlyStorage,
        sqlite3.SQLITE_PERM: ReadOnlyStorage,
        sqlite3.SQLITE_CANTOPEN: ReadOnlyStorage,
        sqlite3.SQLITE_IOERR: StorageIOError,
    }.get(code)
    if kind is not None:
        return kind(f"{kind.cause}: {path} ({exc}; {getattr(exc, 'sqlite_errorname', '?')})")
    if code in _DAMAGED_CODES:
        return JournalDamaged(f"journal {path} is damaged ({exc}); keep the file for investigation")
    return StorageIOError(f"the journal {path} could not be used: {exc}")


# ---------------------------------------------------------------------- the key

KEY_FILE_SIZES = (64, 65, 66)  # 64 hex digits, then nothing, "\n" or "\r\n"


def _file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"


@dataclass(frozen=True, slots=True)
class JournalKey:
    """The table's secret: 32 bytes, kept in a file outside the journal."""

    secret: bytes

    @property
    def key_id(self) -> str:
        """A public fingerprint of the key, kept in the journal to tell a wrong key from tampering."""
        return hmac.new(self.secret, b"tablectl journal key id", hashlib.sha256).hexdigest()[:16]

    @classmethod
    def load(cls, path: str | Path, *, warn: Callable[[str], None] | None = None) -> "JournalKey":
        """Read a key file (64 hex characters and a line end); JournalKeyError says what is wrong.

        Only a regular file of a key's size is read: a FIFO would hang the reader (open() waits
        for a writer), a device such as /dev/zero would be read without end. A mode that lets
        anyone but the owner in is said to `warn` (default: the log), and the key still read.
        """
        path = Path(path)
        try:
            # stat() first: a device or a FIFO is refused without being opened (opening one can do
            # things); fstat() after: the file read is the one that was checked.
            cls._check_file(path, os.stat(path))
            # O_NONBLOCK: should a FIFO be put in its place meanwhile, opening it does not wait.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
            try:
                st = os.fstat(fd)
                cls._check_file(path, st)
                data = os.read(fd, max(KEY_FILE_SIZES) + 1)
            finally:
                os.close(fd)
        except FileNotFoundError:
            # No advice here: a new key never verifies an old journal; each caller says where its key is.
            raise JournalKeyError(f"the journal's key file {path} is missing") from None
        except OSError as exc:
            raise JournalKeyError(f"cannot read the journal's key file {path}: {exc.strerror or exc}") from None
        try:
            secret = bytes.fromhex(data.decode("ascii").strip())
        except (UnicodeDecodeError, ValueError):
            secret = b""
        if len(secret) != 32:
            raise JournalKeyError(f"the journal's key file {path} must hold 64 hexadecimal characters")
        mode = stat.S_IMODE(st.st_mode)
        if mode & 0o177:
            (warn or log.warning)(f"the journal's key file {path} has mode {mode:04o}: whoever it lets read the key can "
                                  f"forge rows that verify; chmod 600 {path} (readable by the service alone)")
        return cls(secret)

    @staticmethod
    def _check_file(path: Path, st: os.stat_result) -> None:
        if not stat.S_ISREG(st.st_mode):
            raise JournalKeyError(f"the journal's key file {path} is not a regular file ({_file_kind(st.st_mode)}): "
                                  "a key is 64 hexadecimal characters in a file of its own")
        if st.st_size not in KEY_FILE_SIZES:
            raise JournalKeyError(f"the journal's key file {path} is {st.st_size} bytes: a key file holds 64 "
                                  "hexadecimal characters and a line end, nothing else")

    @classmethod
    def generate(cls, path: str | Path) -> "JournalKey":
        """Create a new key file readable by its owner alone; never replaces an existing one."""
        path = Path(path)
        key = cls(secrets.token_bytes(32))
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise JournalKeyError(f"{path} exists already: a key is never replaced") from None
        except OSError as exc:
            raise JournalKeyError(f"cannot create the key file {path}: {exc.strerror}") from None
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(key.secret.hex() + "\n")
            f.flush()
            os.fsync(f.fileno())
        return key


# ---------------------------------------------------------------------- rows and MACs

@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One row of the ledger, exactly as stored."""

    seq: int
    kind: str
    received_at: str
    body: str
    shoe_id: str | None
    position: int | None
    code: str | None
    message: str | None
    mac: str


def _field(value: str | int | None) -> str:
    # Length-prefixed (a netstring's "len:text"), so no two rows ever read the same; None is "~".
    if value is None:
        return "~"
    text = str(value)
    return f"{len(text)}:{text}"


@lru_cache(maxsize=64)
def _keyed(key: bytes) -> "hmac.HMAC":
    # HMAC's keyed start is computed once per key; each MAC copies it (a third of the cost).
    return hmac.new(key, digestmod=hashlib.sha256)


def _mac(key: bytes, text: str) -> str:
    h = _keyed(key).copy()
    h.update(text.encode())
    return h.hexdigest()


def canonical_row(prev_mac: str, seq: int, kind: str, received_at: str, body: str, shoe_id: str | None,
                  position: int | None, code: str | None, message: str | None) -> str:
    """The text a ledger row's MAC is computed over: the previous row's MAC, then every column."""
    return (f"{prev_mac}\n{seq}|{kind}|{_field(received_at)}|{_field(body)}|{_field(shoe_id)}|"
            f"{_field(position)}|{_field(code)}|{_field(message)}")


def row_mac(key: bytes, prev_mac: str, row: LedgerRow) -> str:
    """The MAC a ledger row must carry: HMAC-SHA256 over the previous row's MAC and every column of this one."""
    return _mac(key, canonical_row(prev_mac, row.seq, row.kind, row.received_at, row.body, row.shoe_id,
                                   row.position, row.code, row.message))


def _bound_mac(key: bytes, what: str, *fields: str | int | None) -> str:
    """The MAC of a derived row (snapshot, round record, outbox mark), bound to a ledger row's MAC."""
    return _mac(key, what + "\n" + "|".join(_field(f) for f in fields))


def _outbox_mac(key: bytes, schema: int, name: str, seq: int, ledger_mac: str | None) -> str:
    """The MAC an outbox mark must carry: bound to the MAC of the ledger row it names (schema 3);
    over its name and row number alone in a schema-2 journal (which is also never read beyond its head)."""
    if schema == 2:
        return _bound_mac(key, "outbox", name, seq)
    return _bound_mac(key, "outbox", name, seq, ledger_mac or "")


def _checkpoint_mac(key: bytes, seq: int, ledger_mac: str, previous: int, previous_mac: str) -> str:
    """The MAC a checkpoint carries: bound to its ledger row's MAC and to the previous checkpoint's row and MAC,
    so the checkpoints chain from the first to the last as the rows do, one link per snapshot."""
    return _bound_mac(key, "checkpoint", seq, ledger_mac, previous, previous_mac)


def event_body(event: Event) -> str:
    """An event as the ledger stores it: the session format, canonical JSON."""
    return json.dumps(dump_event(event), ensure_ascii=True, separators=(",", ":"), sort_keys=True)


_STRINGS = json.JSONDecoder()  # (decodes one JSON string at a time in _event_type: no recursion)


def _event_type(body: str) -> str | None:
    """The ``type`` member of an event's JSON object, read without decoding it (a body nested too
    deep for the decoder still names its type); None if there is none."""
    depth, i, n = 0, 0, len(body)
    try:
        while i < n:
            c = body[i]
            if c == '"':
                text, i = _STRINGS.raw_decode(body, i)
                if depth == 1 and text == "type":
                    j = i
                    while j < n and body[j] in " \t\r\n:":
                        j += 1
                    if j < n and body[j] == '"' and body[i:j].count(":") == 1:
                        value = _STRINGS.raw_decode(body, j)[0]
                        return value[:64] if isinstance(value, str) else None
                continue
            if c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
            i += 1
    except ValueError:
        return None
    return None


def _utc(at: datetime) -> str:
    return at.astimezone(timezone.utc).isoformat()


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One accepted event from the ledger: its sequence number, when it arrived, and the event."""

    seq: int
    received_at: datetime
    event: Event
    shoe_id: str | None = None
    position: int | None = None


@dataclass(frozen=True, slots=True)
class Verified:
    """What verification found: the rows that verify and the head of the chain."""

    rows: int
    head_seq: int
    head_mac: str
    rounds: int
    snapshots: int
    bad_snapshots: tuple[int, ...] = ()  # rows of the snapshots that do not verify (ignored by the service)
    first_seq: int = 1  # the file's first row: a segment after an archive starts at the archive's last row


def key_beside(path: Path) -> Path:
    """Where a journal's key is kept unless the config names another file: beside it, `NAME.key`."""
    return path.with_name(path.name + ".key")


def sidecars(path: Path) -> list[Path]:
    """The files SQLite keeps beside a WAL database."""
    return [path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def journal_exists(path: Path) -> bool:
    """A journal, or files of one (a WAL beside no main file is journal data too), at `path`."""
    return any(p.exists() for p in (path, *sidecars(path)))


_SQLITE_HEADER = b"SQLite format 3\x00"


def _check_header(path: Path) -> None:
    """Refuse, before SQLite ever opens it, a file that is not an SQLite database.

    SQLite treats a file without a header as a new empty database and would drop
    the WAL beside it: that WAL can hold every row of the journal. Never call this
    in a process that already has the file open in SQLite: closing any descriptor
    of a file drops every POSIX lock the process holds on it, SQLite's included,
    and another process could then take itself for the last user and remove the WAL.
    """
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as exc:
        raise _os_error(exc, path) from None
    if len(head) < 100 or not head.startswith(_SQLITE_HEADER):
        beside = [p.name for p in sidecars(path) if p.exists()]
        extra = f"; {', '.join(beside)} beside it may hold journal data: keep them all" if beside else ""
        what = "is empty" if not head else "is not an SQLite database"
        raise NotAJournal(f"{path} {what}, so it is not a tablectl journal{extra}")


def _os_error(exc: OSError, path: Path, doing: str = "open") -> JournalError:
    """Translate an OS error on the journal's files into the journal's kind of storage error."""
    what = f"cannot {doing} {path} ({exc.strerror or exc})"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return ReadOnlyStorage(f"{ReadOnlyStorage.cause}: {what}")
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return DiskFull(f"{DiskFull.cause}: {what}")
    return StorageIOError(f"{StorageIOError.cause}: {what}")


def _uri(path: Path, mode: str, *, immutable: bool = False) -> str:
    """The SQLite URI of the file at `path`, every byte of its name taken literally.

    In a URI ``#`` ends the path (dropping the ``?mode=ro`` after it: the file would be opened
    read-write), ``?`` starts the parameters and ``%XX`` is decoded: so ``j.sqlite#`` would name
    ``j.sqlite``, another file. Everything but ``/`` and the unreserved characters is %-escaped,
    from the name's bytes as the OS has them (a name need not be UTF-8). ``file://`` and an
    absolute path: a leading ``//`` is then never read as a host.
    """
    quoted = urllib.parse.quote(os.fsencode(os.path.abspath(path)), safe="/")
    return f"file://{quoted}?mode={mode}" + ("&immutable=1" if immutable else "")


def _connect(path: Path, mode: str, *, header_checked: bool = False) -> sqlite3.Connection:
    """A connection to the journal in SQLite's `mode`: ``ro`` (nothing is ever written, whatever the
    caller does), ``rw`` (an existing journal, never made anew should it vanish after the header
    check) or ``rwc`` (a new one). `header_checked`: a new file, or one this process holds already.
    """
    if not header_checked:
        _check_header(path)
    db = sqlite3.connect(_uri(path, mode), uri=True, isolation_level=None, check_same_thread=False)
    if mode != "ro":  # (a read-only one is bounded once `_read_only` knows it can read: the pragma reads the schema)
        _bound_cache(db)
    return db


def _bound_cache(db: sqlite3.Connection) -> sqlite3.Connection:
    """Bound the connection's page cache to `CACHE_KIB`."""
    db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    return db


def _read_only(path: Path) -> tuple[sqlite3.Connection, Path | None]:
    """A connection that cannot change the journal at `path`, on any media; and the private
    folder holding the copy it reads, when it reads one (None: it reads the file itself).

    A WAL journal is read through its ``-shm`` index, which SQLite makes beside the file: where
    the reader cannot write (a write-protected card, a folder of another user) and none is there,
    ``mode=ro`` cannot open it. Then, with no WAL (or an empty one), the main file is the whole
    journal and is read ``immutable=1``, without the index or any lock: no writer can be at work
    on it, since a writer always keeps a WAL beside the file. With a WAL, ``immutable`` would
    skip it, and its rows with it (the newest, a crashed table's last): the journal and its WAL
    are read through a private copy, byte for byte, in a folder of the reader's own.
    """
    db = _connect(path, "ro")
    try:
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # SQLite opens the WAL, or fails, here
        return _bound_cache(db), None
    except sqlite3.Error as exc:
        db.close()
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        if code not in (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY) or os.access(path.parent, os.W_OK):
            raise
    wal = sidecars(path)[0]
    try:
        has_wal = wal.exists() and wal.stat().st_size > 0
    except OSError as exc:
        raise _os_error(exc, wal) from None
    if not has_wal:
        log.info("journal %s: its folder cannot be written; reading it as immutable (it has no WAL)", path)
        return _bound_cache(sqlite3.connect(_uri(path, "ro", immutable=True), uri=True, isolation_level=None,
                                            check_same_thread=False)), None
    private = Path(tempfile.mkdtemp(prefix="tablectl-journal-"))
    copy = private / "journal.sqlite"
    try:
        shutil.copyfile(path, copy)
        shutil.copyfile(wal, sidecars(copy)[0])
    except OSError as exc:
        shutil.rmtree(private, ignore_errors=True)
        raise StorageIOError(f"cannot read the journal {path}: its folder cannot be written, so its WAL is read "
                             f"through a copy, and copying it to {private} failed ({exc.strerror or exc})") from None
    log.info("journal %s: its folder cannot be written; reading it and its WAL through a copy in %s", path, private)
    return _bound_cache(_connect(copy, "ro", header_checked=True)), private


def _open_archive(path: Path) -> sqlite3.Connection:
    """A connection to a closed archive that makes nothing beside it (``immutable=1``: no lock, no ``-shm``,
    no ``-wal``): an archive's WAL was folded in before it was archived, and nothing writes to it after."""
    _check_header(path)
    return _bound_cache(sqlite3.connect(_uri(path, "ro", immutable=True), uri=True, isolation_level=None,
                                        check_same_thread=False))


# ---------------------------------------------------------------------- archives (issue 42)

def archive_folder(path: Path) -> Path:
    """Where a journal's archives are kept: beside it, ``NAME.archive/``."""
    return path.with_name(path.name + ".archive")


def archives(path: Path) -> list[Path]:
    """The journal's archived segments, oldest first (each named by its first row and gaming day)."""
    folder = archive_folder(Path(path))
    try:
        names = [p for p in folder.iterdir() if p.suffix == ".sqlite" and p.name[:9].isdigit()]
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise _os_error(exc, folder) from None
    return sorted(names, key=lambda p: int(p.name.split("-", 1)[0]))


def segments(path: Path) -> list[Path]:
    """Every file of the journal's history in order: its archives, then the live file."""
    return [*archives(Path(path)), Path(path)]


@dataclass(frozen=True, slots=True)
class Rotation:
    """When the writer archives the live file and starts a new one: at the first input of each gaming day
    (which starts at `starts` in `zone`), and when the live file passes `max_bytes` (0: never by size)."""

    zone: Any  # a tzinfo (the table's zone: tablectl passes it in, the core reads no zone database)
    starts: dt_time
    max_bytes: int = 0

    def gaming_day(self, at: datetime) -> date:
        """The gaming day an instant belongs to: the local date, less a day before the day's start time."""
        local = at.astimezone(self.zone)
        day = local.date()
        return day - timedelta(days=1) if local.time() < self.starts else day


MANIFEST = "MANIFEST"
_ROTATION_STEPS = ("made", "closed", "archived", "switched", "listed")


def _sync_dir(folder: Path) -> None:
    """fsync a folder, so the names made or changed in it survive a power cut."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _segment_summary(path: Path) -> dict[str, Any]:
    """One segment's entry in the MANIFEST: its first and last rows, their times, and its head's MAC."""
    db = _open_archive(path)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        base = int(meta.get("segment_base", "1"))
        first = db.execute("SELECT seq, received_at FROM ledger WHERE seq = ?", (base,)).fetchone()
        last = db.execute("SELECT seq, received_at, mac FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
    finally:
        db.close()
    return {"file": path.name, "first_seq": first[0], "first_at": first[1], "last_seq": last[0], "last_at": last[1],
            "head_mac": last[2]}


def _verified_summary(reader: JournalReader, result: Verified) -> dict[str, Any]:
    """A verified archive's entry as the MANIFEST has it (`_segment_summary`'s), from what was verified."""
    def at(seq: int) -> str:
        return str(reader.db.execute("SELECT received_at FROM ledger WHERE seq = ?", (seq,)).fetchone()[0])

    return {"file": reader.path.name, "first_seq": result.first_seq, "first_at": at(result.first_seq),
            "last_seq": result.head_seq, "last_at": at(result.head_seq), "head_mac": result.head_mac}


@dataclass(frozen=True, slots=True)
class ArchiveFacts:
    """What the readers ask of an archive before they open it (issue 42): its rows, their times, its rounds."""

    first_seq: int
    last_seq: int
    first_at: str
    last_at: str
    rounds: int
    first_round: int | None
    last_round: int | None


_FACTS: dict[tuple[str, int, int, int], ArchiveFacts] = {}
_FACTS_KEPT = 4096  # (an entry a gaming day: ten years of a table's archives)


def archive_facts(path: Path) -> ArchiveFacts:
    """An archive's `ArchiveFacts`, read once per process: an archive never changes (its name, inode, size and
    time are the cache's key, so a file put in its place is read anew). A reader across the archives by time or
    by round then opens only the archives that hold what it asks for."""
    try:
        st = path.stat()
    except OSError as exc:
        raise _os_error(exc, path) from None
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    found = _FACTS.get(key)
    if found is not None:
        return found
    db = _open_archive(path)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        base = int(meta.get("segment_base", "1"))
        first = db.execute("SELECT seq, received_at FROM ledger WHERE seq = ?", (base,)).fetchone()
        last = db.execute("SELECT seq, received_at FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
        count, low, high = db.execute("SELECT COUNT(*), MIN(number), MAX(number) FROM rounds").fetchone()
    except sqlite3.Error as exc:
        raise _open_error(exc, path) from None
    finally:
        db.close()
    if first is None or last is None:
        raise NotAJournal(f"the archive {path} holds no rows from its first, {base}")
    if len(_FACTS) >= _FACTS_KEPT:
        _FACTS.clear()
    _FACTS[key] = found = ArchiveFacts(first[0], last[0], first[1], last[1], count, low, high)
    return found


def manifest_current(path: Path) -> bool:
    """True when the MANIFEST beside the archives lists every archive there."""
    try:
        listed = json.loads((archive_folder(path) / MANIFEST).read_text())
        return [a["file"] for a in listed["archives"]] == [p.name for p in archives(path)]
    except (OSError, ValueError, KeyError, TypeError):
        return False


def write_manifest(path: Path, key: JournalKey) -> None:
    """The MANIFEST beside the archives: each archive's first/last row and time and head MAC, MAC'd with the key
    (a convenience for people and tools: each archive verifies alone, and `History.verify` checks the links)."""
    listed = [_segment_summary(p) for p in archives(path)]
    body = {"journal": path.name, "key_id": key.key_id, "archives": listed}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    body["mac"] = _mac(key.secret, "manifest\n" + text)
    folder = archive_folder(path)
    tmp = folder / (MANIFEST + ".tmp")
    with open(tmp, "w", encoding="ascii") as f:
        json.dump(body, f, indent=1, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, folder / MANIFEST)
    _sync_dir(folder)


# ---------------------------------------------------------------------- reading

def _begin_file(db: sqlite3.Connection, schema: int, key_id: str, now: datetime, *meta: tuple[str, str]) -> None:
    """A new journal file's one transaction begun: WAL, every table, and its meta rows (the app, its schema, the key's
    id, when and by which release it was made, and ``meta``: a segment's base and the MAC before it). A new journal
    and the live file after an archiving are made alike."""
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("BEGIN IMMEDIATE")
    for stmt in _SCHEMA.strip().split(";"):
        if stmt.strip():
            db.execute(stmt)
    db.executemany("INSERT INTO meta VALUES (?, ?)", [
        ("app", APP_ID), ("schema", str(schema)), ("key_id", key_id), ("created_at", _utc(now)), ("release", RELEASE),
        *meta])


class JournalReader:
    """Read-only access to a journal: verification, history, exports. Never writes a byte."""

    _private: Path | None = None  # the folder of the copy it reads (read-only media with a WAL)

    def __init__(self, path: str | Path, key: JournalKey | None = None, *, beside_writer: bool = False,
                 archived: bool = False) -> None:
        """Open read-only. `beside_writer`: the service's own reads, while its writer holds the file.

        A ``mode=ro`` connection cannot take part in the WAL index's locking, so beside a busy
        writer it can meet a WAL being restarted (a short read); the service's readers use an
        ordinary connection made unable to write (``query_only``) instead. Tools that inspect
        a journal from outside use ``mode=ro``, which cannot change the file whatever happens.
        `archived`: a closed archive (issue 42), read ``immutable=1``: no lock, no ``-wal``/``-shm``
        made beside it (``mode=ro`` made both beside every archive it read); its WAL was folded in
        when it was archived, and nothing writes to it after.
        """
        self.path = Path(path)
        self.key = key
        if not self.path.exists():
            raise JournalNotFound(f"no journal at {self.path}")
        try:
            if beside_writer:  # (the writer checked the header before it opened the file)
                self.db = _connect(self.path, "rw", header_checked=True)
                self.db.execute("PRAGMA query_only = ON")
            elif archived:
                self.db = _open_archive(self.path)
            else:
                self.db, self._private = _read_only(self.path)
            self._check_identity()
        except BaseException as exc:
            if hasattr(self, "db"):
                self.close()
            if isinstance(exc, sqlite3.Error):
                raise _open_error(exc, self.path) from None
            raise

    # --- identity and verification
    def _check_identity(self) -> None:
        try:
            meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            if (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in _DAMAGED_CODES or "no such table" in str(exc):
                raise NotAJournal(f"{self.path} is not a tablectl journal ({exc})") from None
            raise
        if meta.get("app") != APP_ID:
            raise NotAJournal(f"{self.path} is not a tablectl journal (app = {meta.get('app')!r})")
        if meta.get("schema") not in [str(v) for v in READABLE_SCHEMAS]:
            raise NotAJournal(f"{self.path} has journal schema {str(meta.get('schema'))[:20]}, this release "
                              f"(tablectl {RELEASE}) reads schemas {' and '.join(map(str, READABLE_SCHEMAS))}: "
                              "run the release that wrote it")
        self.meta = meta
        # A segment after an archive (issue 42) starts with the archive's last row, copied with its MAC (the chain's
        # link across files), and keeps the MAC of the row before it: the file verifies alone, from its first row.
        try:
            self.base = int(meta.get("segment_base", "1"))
        except ValueError:
            raise NotAJournal(f"{self.path}: its segment_base is not a row number") from None
        self.base_prev_mac = meta.get("base_prev_mac", "")
        tables = {name for (name,) in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoints', 'tallies')")}
        self.has_checkpoints = "checkpoints" in tables
        self.has_tallies = "tallies" in tables
        if self.key is not None and meta.get("key_id") != self.key.key_id:
            raise JournalKeyError(f"the key given is not this journal's key (the journal was made with key "
                                  f"{meta.get('key_id')}, this key is {self.key.key_id})")

    @contextmanager
    def read_transaction(self) -> Iterator[None]:
        """Every read inside sees the journal as it was at the first of them (one SQLite read transaction).

        Beside a writer (the service's own readers, or a tool run on a live table's journal), reads made
        one after another each see the journal as it is then: a round settled between the ledger's check
        and its round records' would look like a record beyond the ledger's head. Inside one, a reader
        sees one moment of the journal, and the writer goes on (WAL).
        """
        if self.db.in_transaction:
            yield
            return
        try:
            self.db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise _storage_error(exc, self.path) from None
        try:
            yield
        finally:
            if self.db.in_transaction:
                try:
                    self.db.execute("COMMIT")  # (it changed nothing: this only ends the read)
                except sqlite3.Error:
                    pass

    def verify(self) -> Verified:
        """Check SQLite's integrity and every MAC; JournalTampered names the first row that fails.

        All in one read transaction: every table is checked as of the same moment, beside a writer too.
        """
        if self.key is None:
            raise JournalKeyError("verifying a journal needs its key")
        with self.read_transaction():
            return self._verify(self.key.secret)

    def _verify(self, key: bytes) -> Verified:
        try:
            if self.db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise JournalDamaged(f"journal {self.path} fails SQLite's integrity check; keep it for investigation")
            equal = hmac.compare_digest
            head, prev = self._check_chain(key, self.base - 1, self.base_prev_mac, None)
            if head < self.base:
                raise self.empty()
            rounds = 0
            for number, seq, record, mac, ledger_mac in self.db.execute(
                    "SELECT r.number, r.seq, r.record, r.mac, l.mac FROM rounds r LEFT JOIN ledger l ON l.seq = r.seq "
                    "ORDER BY r.number"):
                if seq > head:
                    raise self._beyond_head(f"the record of round {number} is at row {seq}", head, "rounds", number)
                if ledger_mac is None or not equal(_bound_mac(key, "round", number, seq, record, ledger_mac), mac):
                    raise JournalTampered(f"journal {self.path}: the record of round {number} does not verify: "
                                          "it was altered or forged", table="rounds", row=number)
                rounds += 1
            # A snapshot that does not verify is only a lost shortcut: the service ignores it (with a
            # warning) and replays the ledger; `journal verify` reports it. One beyond the head is a cut.
            bad_snapshots = []
            for seq, fmt, state, mac, ledger_mac in self.db.execute(
                    "SELECT s.seq, s.format, s.state, s.mac, l.mac FROM snapshots s LEFT JOIN ledger l ON l.seq = s.seq "
                    "ORDER BY s.seq"):
                if seq > head:
                    raise self._beyond_head(f"the snapshot after row {seq} is there", head, "snapshots", seq)
                if ledger_mac is None or not equal(_bound_mac(key, "snapshot", seq, fmt, state, ledger_mac), mac):
                    bad_snapshots.append(seq)
            schema = int(self.meta["schema"])
            for name, seq, mac, ledger_mac in self.db.execute(
                    "SELECT o.name, o.seq, o.mac, l.mac FROM outbox o LEFT JOIN ledger l ON l.seq = o.seq "
                    "ORDER BY o.name"):
                if seq > head:
                    raise self._beyond_head(f"the outbox mark {name!r} says the rows up to {seq} were acknowledged",
                                            head, "outbox", seq)
                if seq < self.base:  # (its row is in an archive: `History.verify` checks it there)
                    continue
                if not equal(_outbox_mac(key, schema, name, seq, ledger_mac), mac):
                    raise JournalTampered(f"journal {self.path}: the outbox mark {name!r} (row {seq}) does not "
                                          "verify: it was altered, forged, or taken from another journal",
                                          table="outbox", row=seq)
            if self.has_checkpoints:
                for seq, previous, mac, ledger_mac, previous_mac in self.db.execute(
                        "SELECT c.seq, c.previous, c.mac, l.mac, p.mac FROM checkpoints c LEFT JOIN ledger l ON l.seq = "
                        "c.seq LEFT JOIN ledger p ON p.seq = c.previous ORDER BY c.seq"):
                    if seq > head:
                        raise self._beyond_head(f"the checkpoint at row {seq} is there", head, "checkpoints", seq)
                    if ledger_mac is None or not equal(_checkpoint_mac(key, seq, ledger_mac, previous, previous_mac or ""),
                                                       mac):
                        raise JournalTampered(f"journal {self.path}: the checkpoint at row {seq} does not verify: it "
                                              "was altered or forged", table="checkpoints", row=seq)
            if self.has_tallies:
                beyond = self.db.execute("SELECT MIN(seq) FROM tallies WHERE seq > ?", (head,)).fetchone()[0]
                if beyond is not None:
                    raise self._beyond_head(f"the tally of round records at row {beyond} is there", head, "tallies",
                                            beyond)
            snapshots = self.db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0]
        except sqlite3.Error as exc:
            raise _storage_error(exc, self.path) from None
        return Verified(rows=head - self.base + 1, head_seq=head, head_mac=prev, rounds=rounds, snapshots=snapshots,
                        bad_snapshots=tuple(bad_snapshots), first_seq=self.base)

    def _beyond_head(self, what: str, head: int, table: str, row: int) -> JournalTampered:
        return JournalTampered(f"journal {self.path}: {what}, but the ledger ends at row {head}: rows were cut "
                               "from its tail; keep the file for investigation", table=table, row=row)

    def empty(self) -> JournalEmpty:
        """The error for this journal holding no rows (never so once made: its first row comes with it)."""
        return JournalEmpty(
            f"journal {self.path} holds no rows, yet a journal's first row is written with the file: its rows "
            "were lost (a copy made without its -wal file?); keep it as it is and look for its WAL, or, if this "
            "table never ran, move it away to start afresh")

    # --- the ledger
    def head(self) -> tuple[int, str]:
        """The last row: (seq, mac), or (0, "") for an empty ledger."""
        row = self.db.execute("SELECT seq, mac FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else (0, "")

    def ledger_rows(self, after_seq: int = 0, limit: int = 1000) -> list[LedgerRow]:
        """Rows after `after_seq`, in order, at most `limit` (what the fleet publishes, the floor's gap reads); rows
        before this file's first are read from the archives (issue 42)."""
        out: list[LedgerRow] = []
        if after_seq + 1 < self.base:
            for archive in archives(self.path):
                if len(out) >= limit:
                    break
                with JournalReader(archive, archived=True) as old:
                    if old.head()[0] <= after_seq:
                        continue
                    got = old.ledger_rows(after_seq, limit - len(out))
                out += got
                after_seq = got[-1].seq if got else after_seq
        rows = self.db.execute(
            "SELECT seq, kind, received_at, body, shoe_id, position, code, message, mac FROM ledger "
            "WHERE seq > ? ORDER BY seq LIMIT ?", (after_seq, limit - len(out)))
        return out + [LedgerRow(*r) for r in rows]

    def entries(self, since: int = 0, since_time: datetime | None = None) -> Iterator[JournalEntry]:
        """Every accepted event after sequence `since` (and at or after `since_time`), in order."""
        sql = "SELECT seq, received_at, body, shoe_id, position FROM ledger WHERE kind = 'event' AND seq > ?"
        args: list[object] = [since]
        if since_time is not None:
            sql += " AND received_at >= ?"
            args.append(_utc(since_time))
        for seq, received_at, body, shoe_id, position in self.db.execute(sql + " ORDER BY seq", args):
            yield JournalEntry(seq, datetime.fromisoformat(received_at), self._event(seq, body), shoe_id, position)

    def _event(self, seq: int, body: str) -> Event:
        """The event a ledger row holds; UnreadableRow names the row if this release cannot read it."""
        try:
            return parse_event(json.loads(body), recorded=True)
        except (ValueError, RecursionError) as exc:  # (BadEvent and JSONDecodeError are ValueErrors)
            if isinstance(exc, RecursionError):
                reason = "its body is nested too deeply to read"
            elif isinstance(exc, BadEvent) and exc.code == "unknown_event":
                reason = "this release knows no such event"
            else:
                reason = str(exc).splitlines()[0][:200]
            raise self._unreadable("ledger", seq, _event_type(body), reason) from None

    def _json(self, table: str, row: int, text: str) -> Any:
        """A derived row's JSON (a round record, a refusal's event); UnreadableRow if it cannot be read."""
        try:
            return json.loads(text)
        except (ValueError, RecursionError) as exc:
            reason = "nested too deeply to read" if isinstance(exc, RecursionError) else f"not JSON ({exc})"
            raise self._unreadable(table, row, None, reason) from None

    def _unreadable(self, table: str, row: int, event_type: str | None, reason: str) -> UnreadableRow:
        written = self.meta.get("release")
        what = f"{'ledger row' if table == 'ledger' else f'the {table} row'} {row}"
        if event_type is not None:
            what += f" ({event_type!r})"
        if written and written != RELEASE:
            who = (f"this journal was last written by tablectl {written[:40]}: run that release (or a newer "
                   "one), or restore the copy taken before the upgrade (deploy/README.md, section 8)")
        else:
            who = ("it verifies against the key, so it was written by a newer release of tablectl than this "
                   "one, or by someone who holds the key: run the release that wrote it")
        return UnreadableRow(f"journal {self.path}: {what} cannot be read by tablectl {RELEASE}: {reason}; {who}; "
                             "keep the file as it is", table=table, row=row, event_type=event_type)

    def refusals(self, limit: int = 100) -> list[dict[str, Any]]:
        """The newest refused actions, newest first: when, what, who, and why."""
        rows = self.db.execute("SELECT seq, received_at, body, code, message FROM ledger WHERE kind = 'refusal' "
                               "ORDER BY seq DESC LIMIT ?", (limit,))
        return [{"seq": seq, "at": at, "event": self._json("ledger", seq, body), "code": code, "message": message}
                for seq, at, body, code, message in rows]

    def last_card(self) -> tuple[str, int] | None:
        """The shoe id and position of the last card event journalled from the shoe (the resume point)."""
        row = self.db.execute(
            "SELECT shoe_id, position FROM ledger WHERE position IS NOT NULL ORDER BY seq DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else None

    def shoe_cards(self, shoe_id: str) -> dict[int, str]:
        """Position -> event body of every card event journalled from one shoe (the first at each position)."""
        out: dict[int, str] = {}
        for position, body in self.db.execute(
                "SELECT position, body FROM ledger WHERE shoe_id = ? AND position IS NOT NULL ORDER BY seq",
                (shoe_id,)):
            out.setdefault(position, body)
        return out

    def outbox_position(self, name: str) -> int:
        """The last seq the named outbox (e.g. the fleet broker) acknowledged; 0 if never."""
        row = self.db.execute("SELECT seq FROM outbox WHERE name = ?", (name,)).fetchone()
        return row[0] if row else 0

    # --- the index: a round's rows, the states kept along the ledger, the checkpoints (issue 37)
    def row_mac(self, seq: int) -> str | None:
        """The MAC stored with ledger row `seq` (not checked here), or None if there is no such row."""
        row = self.db.execute("SELECT mac FROM ledger WHERE seq = ?", (seq,)).fetchone()
        if row is None and seq == self.base - 1 and self.base > 1:  # (a segment keeps the MAC of the row before it)
            return self.base_prev_mac or None
        return row[0] if row else None

    def _check_chain(self, key: bytes, after: int, previous_mac: str, until: int | None) -> tuple[int, str]:
        """Check the MAC of every ledger row after `after` (up to `until`, or the last), chained from `previous_mac`
        (row `after`'s); return the last row checked and its MAC. JournalTampered names the first that fails.

        The hot loop of `journal verify` (issue 42: 17,000 rows/s was a minute for 10^6 rows): the rows are read as
        bytes and the MAC's text is made with one bytes format, not a str per field encoded; where that text could
        differ from `canonical_row`'s (a field not ASCII: its length is counted in characters), a row that does
        not match is checked again the exact way before it is called tampered.
        """
        keyed, equal = _keyed(key), hmac.compare_digest
        events, refusals = EVENT.encode(), REFUSAL.encode()
        prev = previous_mac.encode()
        expected = after + 1
        # (the text columns read as their bytes: no str made per field only to be encoded again)
        cursor = self.db.execute(
            "SELECT seq, CAST(kind AS BLOB), CAST(received_at AS BLOB), CAST(body AS BLOB), CAST(shoe_id AS BLOB), "
            "position, CAST(code AS BLOB), CAST(message AS BLOB), CAST(mac AS BLOB) FROM ledger "
            "WHERE seq > ? AND seq <= ? ORDER BY seq", (after, 2**63 - 1 if until is None else until))
        cursor.arraysize = 512
        for seq, kind, at, body, shoe_id, position, code, message, mac in cursor:
            if seq != expected:
                raise JournalTampered(
                    f"journal {self.path}: ledger row {expected} is missing (the next row is {seq}): "
                    "rows were removed; keep the file for investigation", table="ledger", row=expected)
            h = keyed.copy()
            try:
                h.update(b"%s\n%d|%s|%d:%s|%d:%s|%s|%s|%s|%s" % (
                    prev, seq, kind, len(at), at, len(body), body,
                    b"~" if shoe_id is None else b"%d:%s" % (len(shoe_id), shoe_id),
                    b"~" if position is None else b"%d:%d" % (len(str(position)), position),
                    b"~" if code is None else b"%d:%s" % (len(code), code),
                    b"~" if message is None else b"%d:%s" % (len(message), message)))
                ok = equal(h.hexdigest().encode(), mac)
            except TypeError:  # (a column of another type than the writer's: checked the exact way below)
                ok = False
            if not ok:
                ok = self._row_matches(key, prev, (seq, kind, at, body, shoe_id, position, code, message, mac))
            if not ok or (kind != events and kind != refusals):
                raise JournalTampered(
                    f"journal {self.path}: ledger row {seq} does not verify: it was altered, forged, or "
                    "rows before it were changed; keep the file for investigation", table="ledger", row=seq)
            prev = mac
            expected += 1
        return expected - 1, prev.decode("ascii", "replace")

    @staticmethod
    def _row_matches(key: bytes, prev: bytes, row: tuple[Any, ...]) -> bool:
        """One row's MAC checked exactly as `row_mac` makes it (its columns read as the text SQLite holds)."""
        def text(value: Any) -> Any:
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else value

        seq, kind, at, body, shoe_id, position, code, message, mac = (text(v) for v in row)
        if not isinstance(mac, str):
            return False
        return hmac.compare_digest(_mac(key, canonical_row(text(prev), seq, kind, at, body, shoe_id, position, code,
                                                           message)), mac)

    def verify_rows(self, after: int, previous_mac: str, until: int) -> str:
        """Check the MAC of every ledger row after `after` up to `until`, chained from `previous_mac` (row `after`'s);
        return row `until`'s MAC. Streams (bounded memory); JournalTampered names the first row that fails."""
        if self.key is None:
            raise JournalKeyError("verifying a journal needs its key")
        expected, prev = self._check_chain(self.key.secret, after, previous_mac, until)
        expected += 1
        if expected != until + 1:
            raise JournalTampered(f"journal {self.path}: ledger row {expected} is missing: rows were removed or cut; "
                                  "keep the file for investigation", table="ledger", row=expected)
        return prev

    def check_row(self, row: LedgerRow, previous_mac: str) -> None:
        """Check one ledger row's MAC, chained from the row before it's; JournalTampered if it does not verify."""
        if self.key is None:
            raise JournalKeyError("verifying a journal needs its key")
        if row.kind not in KINDS or not hmac.compare_digest(row_mac(self.key.secret, previous_mac, row), row.mac):
            raise JournalTampered(f"journal {self.path}: ledger row {row.seq} does not verify: it was altered, forged, "
                                  "or rows before it were changed; keep the file for investigation",
                                  table="ledger", row=row.seq)

    def first_seq_at(self, at: datetime) -> int:
        """The first ledger row received at or after `at` (one past the head if none), found by bisection over the
        rows' order: a clock stepped back mid-journal can move the boundary by the rows it overlaps, no more."""
        head = self.head()[0]
        when = _utc(at)
        lo, hi = self.base, head + 1
        while lo < hi:
            mid = (lo + hi) // 2
            row = self.db.execute("SELECT received_at FROM ledger WHERE seq = ?", (mid,)).fetchone()
            if row is None or row[0] >= when:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def round_before(self, number: int) -> tuple[int, int] | None:
        """The kept round of the highest number up to `number`: (its number, the row that settled it), or None."""
        row = self.db.execute("SELECT number, seq FROM rounds WHERE number <= ? ORDER BY number DESC LIMIT 1",
                              (number,)).fetchone()
        return (row[0], row[1]) if row else None

    def last_row_before(self, seq: int, kind: str, within: int = 100_000) -> LedgerRow | None:
        """The last ledger row at or before `seq` (and at most `within` rows back) that is a shuffle (``kind``
        "shuffle": an accepted one) or an act of a supervisor's key (``kind`` "supervisor": accepted or refused),
        its MAC checked against the stored MAC of the row before it; None if there is none in reach."""
        where = {"shuffle": "kind = 'event' AND json_extract(body, '$.type') = 'shuffle'",
                 "supervisor": "(json_extract(body, '$.actor') LIKE 'supervisor:%' OR "
                               "json_extract(body, '$.actor') LIKE 'admin:%')"}[kind]
        try:
            found = self.db.execute(
                "SELECT seq, kind, received_at, body, shoe_id, position, code, message, mac FROM ledger "
                f"WHERE seq <= ? AND seq > ? AND json_valid(body) AND {where} ORDER BY seq DESC LIMIT 1",
                (seq, seq - within)).fetchone()
        except sqlite3.Error as exc:
            raise _storage_error(exc, self.path) from None
        if found is None:
            return None
        row = LedgerRow(*found)
        self.check_row(row, self.row_mac(row.seq - 1) or "")
        return row

    def verified_round(self, number: int) -> tuple[int, dict[str, Any], str] | None:
        """Round `number`'s record as kept (the row it is bound to, the record, its MAC), its MAC checked against
        that row's; None if none is kept. JournalTampered if it does not verify."""
        row = self.db.execute("SELECT r.seq, r.record, r.mac, l.mac FROM rounds r LEFT JOIN ledger l ON l.seq = r.seq "
                              "WHERE r.number = ?", (number,)).fetchone()
        if row is None:
            return None
        seq, text, mac, ledger_mac = row
        if self.key is None:
            raise JournalKeyError("verifying a journal needs its key")
        if ledger_mac is None or not hmac.compare_digest(_bound_mac(self.key.secret, "round", number, seq, text,
                                                                    ledger_mac), mac):
            raise JournalTampered(f"journal {self.path}: the record of round {number} does not verify: it was altered "
                                  "or forged", table="rounds", row=number)
        return seq, self._json("rounds", number, text), mac

    def snapshot_at_or_before(self, seq: int) -> tuple[int, dict[str, Any], str] | None:
        """The newest state kept at or before ledger row `seq` whose MAC verifies: (its row, the state, the row's
        MAC); None if there is none (a snapshot that does not verify is passed over, with a warning)."""
        if self.key is None:
            return None
        for snap_seq, fmt, state, mac, ledger_mac in self.db.execute(
                "SELECT s.seq, s.format, s.state, s.mac, l.mac FROM snapshots s JOIN ledger l ON l.seq = s.seq "
                "WHERE s.seq <= ? ORDER BY s.seq DESC LIMIT 8", (seq,)):
            if hmac.compare_digest(_bound_mac(self.key.secret, "snapshot", snap_seq, fmt, state, ledger_mac), mac):
                try:
                    return snap_seq, json.loads(state), ledger_mac
                except (ValueError, RecursionError):
                    pass
            log.warning("journal %s: the snapshot at row %s does not verify; an earlier one is used", self.path,
                        snap_seq)
        return None

    def link_to_head(self, seq: int, mac: str, head: int) -> tuple[int, int]:
        """Verify that ledger row `seq` (whose MAC, `mac`, was checked) chains on to row `head`, in bounded work:
        the rows to the first checkpoint after it, the checkpoints from there on (each bound by the key to the
        one before), and the rows from the last of them to the head. Returns (checkpoints followed, rows read);
        JournalTampered names what fails. Without checkpoints every row to the head is read."""
        if self.key is None:
            raise JournalKeyError("verifying a journal needs its key")
        key = self.key.secret
        rows = 0
        checkpoints = 0
        if self.has_checkpoints:
            first = self.db.execute("SELECT seq FROM checkpoints WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT 1",
                                    (seq, head)).fetchone()
            if first is not None:
                mac = self.verify_rows(seq, mac, first[0])
                rows += first[0] - seq
                seq = first[0]
                for at, previous, cmac, ledger_mac, previous_mac in self.db.execute(
                        "SELECT c.seq, c.previous, c.mac, l.mac, p.mac FROM checkpoints c LEFT JOIN ledger l ON "
                        "l.seq = c.seq LEFT JOIN ledger p ON p.seq = c.previous WHERE c.seq > ? AND c.seq <= ? "
                        "ORDER BY c.seq", (seq, head)):
                    if previous != seq or previous_mac != mac or ledger_mac is None or not hmac.compare_digest(
                            _checkpoint_mac(key, at, ledger_mac, previous, previous_mac), cmac):
                        raise JournalTampered(f"journal {self.path}: the checkpoint at row {at} does not chain from "
                                              f"the one at row {seq}: it was altered, forged or removed; keep the "
                                              "file for investigation", table="checkpoints", row=at)
                    seq, mac = at, ledger_mac
                    checkpoints += 1
        self.verify_rows(seq, mac, head)
        return checkpoints, rows + head - seq

    def counted_rounds(self) -> tuple[int, int] | None:
        """The newest tally of round records (its row, the records up to it), every tally checked: its MAC against
        its row's, and the records the file holds up to its row counted against it; None when there is none.
        JournalTampered names a tally that does not verify, or one whose count is not the file's (a record removed)."""
        if self.key is None:
            raise JournalKeyError("verifying a journal needs its key")
        if not self.has_tallies:
            return None
        key, newest = self.key.secret, None
        try:
            kept = self.db.execute("SELECT seq FROM rounds ORDER BY seq")
            kept.arraysize = 1024
            counted, upto = 0, kept.fetchone()
            for seq, rounds, mac, ledger_mac in self.db.execute(
                    "SELECT t.seq, t.rounds, t.mac, l.mac FROM tallies t LEFT JOIN ledger l ON l.seq = t.seq "
                    "ORDER BY t.seq"):
                if ledger_mac is None or not hmac.compare_digest(_bound_mac(key, "tally", seq, rounds, ledger_mac), mac):
                    raise JournalTampered(f"journal {self.path}: the tally of round records at row {seq} does not "
                                          "verify: it was altered, forged, or rows were cut from the ledger; keep the "
                                          "file for investigation", table="tallies", row=seq)
                while upto is not None and upto[0] <= seq:  # (the records in row order, counted as the tallies pass)
                    counted += 1
                    upto = kept.fetchone()
                if counted != rounds:
                    raise RoundsMiscounted(f"journal {self.path}: {rounds} round records were kept up to row {seq}, "
                                           f"the journal holds {counted}: records were removed; keep the file for "
                                           "investigation", row=seq, after=newest[0] if newest else 0)
                newest = (seq, rounds)
        except sqlite3.Error as exc:
            raise _storage_error(exc, self.path) from None
        return newest

    # --- snapshots
    def latest_snapshot(self, at_most: int | None = None) -> tuple[int, dict[str, Any]] | None:
        """The newest snapshot that verifies (seq, state), or with `at_most` the newest taken at or before that
        row (a reader rebuilding the stream from there); an unverifiable one is ignored with a warning."""
        row = self.db.execute(
            "SELECT s.seq, s.format, s.state, s.mac, l.mac FROM snapshots s JOIN ledger l ON l.seq = s.seq "
            "WHERE s.seq <= ? ORDER BY s.seq DESC LIMIT 1", (2**63 - 1 if at_most is None else at_most,)).fetchone()
        if row is None:
            return None
        seq, fmt, state, mac, ledger_mac = row
        if self.key is None or not hmac.compare_digest(_bound_mac(self.key.secret, "snapshot", seq, fmt, state,
                                                                  ledger_mac), mac):
            log.warning("journal %s: the snapshot at row %s does not verify; replaying the whole journal",
                        self.path, seq)
            return None
        try:
            data = json.loads(state)
        except (ValueError, RecursionError):
            log.warning("journal %s: the snapshot at row %s is not JSON; replaying the whole journal", self.path, seq)
            return None
        return seq, data

    def state_at_base(self) -> tuple[int, dict[str, Any]] | None:
        """The state kept at a segment's first row, its MAC unchecked (a reader without the key, which says its rows
        are not verified: the rows of a segment after an archive replay from there, never from a blank table)."""
        row = self.db.execute("SELECT seq, state FROM snapshots WHERE seq = ?", (self.base,)).fetchone()
        if row is None:
            return None
        try:
            return row[0], json.loads(row[1])
        except (ValueError, RecursionError):
            return None

    # --- round records
    def _older(self) -> list[Path]:
        """The archives before this file, oldest first (issue 42): none for an archive, or a journal never archived.
        The readers of round records and of a time window read on into them, as `ledger_rows` does by row."""
        return archives(self.path) if self.base > 1 else []

    def _local_rounds(self) -> int:
        count: int = self.db.execute("SELECT COUNT(*) FROM rounds").fetchone()[0]
        return count

    def rounds(self, offset: int = 0, limit: int = 20) -> list[dict[str, Any]]:
        """Settled rounds, newest first: this file's, then each archive's, newest first (an archive is opened only
        when the page reaches it: its count of rounds is known without, `archive_facts`)."""
        rows = self.db.execute("SELECT number, record FROM rounds ORDER BY number DESC LIMIT ? OFFSET ?",
                               (limit, offset))
        out = [self._json("rounds", number, record) for number, record in rows]
        older = self._older()
        if len(out) >= limit or not older:
            return out
        skip = max(0, offset - self._local_rounds())
        for archive in reversed(older):
            facts = archive_facts(archive)
            if skip >= facts.rounds:
                skip -= facts.rounds
                continue
            with JournalReader(archive, archived=True) as old:
                out += old.rounds(skip, limit - len(out))
            skip = 0
            if len(out) >= limit:
                break
        return out

    def _holding(self, number: int) -> Path | None:
        """The archive whose round records hold round `number` (by each archive's first and last round)."""
        for archive in reversed(self._older()):
            facts = archive_facts(archive)
            if facts.first_round is not None and facts.first_round <= number <= (facts.last_round or 0):
                return archive
        return None

    def archive_holding(self, number: int) -> Path | None:
        """The archive whose round records hold round `number`; None when this file holds it, or none does."""
        return None if self.round_seq(number) is not None else self._holding(number)

    def link_from_archive(self, archive: Path, seq: int, mac: str, before: str) -> tuple[int, int, int, int, str]:
        """Verify that row `seq` (`archive`'s last, its MAC `mac` checked; `before`: the MAC of the row before it)
        chains on to this file's head across every file after `archive`, in bounded work: each file's first row is
        the one before's last with the same MAC, chained from the same row (`History.verify`'s link), and each
        file's rows are linked to its head through its checkpoints (`link_to_head`). Returns (files, checkpoints
        followed, rows read, the head's row, its MAC); JournalTampered names what fails."""
        older = self._older()
        names = [a.name for a in older]
        if archive.name not in names:
            raise JournalNotFound(f"{archive} is not an archive of {self.path}")
        files = checkpoints = rows = 0
        for path in [*older[names.index(archive.name) + 1:], self.path]:
            segment = self if path == self.path else JournalReader(path, self.key, archived=True)
            try:
                head, head_mac = segment.head()
                if segment.base != seq or segment.row_mac(seq) != mac or segment.base_prev_mac != before:
                    raise JournalTampered(f"journal {self.path}: {path.name} does not start at the last row of the "
                                          f"file before it (row {seq}): a file of its history is missing or not its "
                                          "own; keep them all for investigation", table="ledger", row=seq)
                followed, read = segment.link_to_head(seq, mac, head)
                before = (segment.row_mac(head - 1) or "") if head > segment.base else segment.base_prev_mac
            finally:
                if segment is not self:
                    segment.close()
            files, checkpoints, rows, seq, mac = files + 1, checkpoints + followed, rows + read, head, head_mac
        return files, checkpoints, rows, seq, mac

    def round(self, number: int) -> dict[str, Any] | None:
        """One settled round's record (from its archive, if an archive holds it)."""
        row = self.db.execute("SELECT record FROM rounds WHERE number = ?", (number,)).fetchone()
        if row is None and (archive := self._holding(number)) is not None:
            with JournalReader(archive, archived=True) as old:
                return old.round(number)
        return self._json("rounds", number, row[0]) if row else None

    def round_count(self) -> int:
        """How many rounds are recorded, in this file and the archives before it."""
        return self._local_rounds() + sum(archive_facts(a).rounds for a in self._older())

    def kept_round(self, number: int) -> tuple[int, dict[str, Any], str] | None:
        """Round `number`'s record as kept: (the ledger row it is bound to, the record, its MAC), or None."""
        row = self.db.execute("SELECT seq, record, mac FROM rounds WHERE number = ?", (number,)).fetchone()
        return (row[0], self._json("rounds", number, row[1]), row[2]) if row else None

    def round_seq(self, number: int) -> int | None:
        """The sequence number of the event that settled round `number`."""
        row = self.db.execute("SELECT seq FROM rounds WHERE number = ?", (number,)).fetchone()
        return row[0] if row else None

    def round_times(self, numbers: list[int]) -> dict[int, str]:
        """When each of these rounds was settled (the arrival time of its settling event)."""
        if not numbers:
            return {}
        marks = ",".join("?" * len(numbers))
        rows = self.db.execute(f"SELECT r.number, l.received_at FROM rounds r JOIN ledger l ON l.seq = r.seq "
                               f"WHERE r.number IN ({marks})", list(numbers))
        found = {number: at for number, at in rows}
        missing = [n for n in numbers if n not in found]
        if missing and self._older():
            held: dict[Path, list[int]] = {}
            for n in missing:
                if (archive := self._holding(n)) is not None:
                    held.setdefault(archive, []).append(n)
            for archive, some in held.items():
                with JournalReader(archive, archived=True) as old:
                    found.update(old.round_times(some))
        return found

    def first_round_from(self, seq: int) -> int:
        """The lowest number of a kept round settled at or after ledger row `seq` (one past the last if none), found
        by bisection over the round numbers (their rows rise with them)."""
        last = self.db.execute("SELECT MAX(number) FROM rounds").fetchone()[0] or 0
        lo, hi = 1, last + 1
        while lo < hi:
            mid = (lo + hi) // 2
            row = self.db.execute("SELECT seq FROM rounds WHERE number >= ? ORDER BY number LIMIT 1", (mid,)).fetchone()
            if row is None or row[0] >= seq:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def _archives_since(self, since: datetime) -> list[Path]:
        """The archives before this file that hold rows at or after `since`, oldest first (by their last row's
        time, `archive_facts`: the others are not opened)."""
        when = _utc(since)
        return [a for a in self._older() if archive_facts(a).last_at >= when]

    def settled_with_seq_since(self, since: datetime) -> list[tuple[int, str, dict[str, Any]]]:
        """(seq of the settling event, settled at, record) of every round settled at or after `since`: read from the
        first row at `since` on (bisection), so the work is the window's, not the journal's; from the archives that
        reach into the window too (issue 42: a shift's window crosses the gaming day's start)."""
        out: list[tuple[int, str, dict[str, Any]]] = []
        for archive in self._archives_since(since):
            with JournalReader(archive, archived=True) as old:
                out += [r for r in old.settled_with_seq_since(since) if not out or r[0] > out[-1][0]]
        return out + [r for r in self._settled_here(since) if not out or r[0] > out[-1][0]]

    def _settled_here(self, since: datetime) -> list[tuple[int, str, dict[str, Any]]]:
        first = self.first_round_from(self.first_seq_at(since))
        rows = self.db.execute(
            "SELECT r.number, r.seq, l.received_at, r.record FROM rounds r JOIN ledger l ON l.seq = r.seq "
            "WHERE r.number >= ? AND l.received_at >= ? ORDER BY r.number", (first, _utc(since)))
        return [(seq, at, self._json("rounds", number, body)) for number, seq, at, body in rows]

    def bets_and_voids_since(self, since: datetime, also: Iterable[str] = ()) -> list[tuple[int, dict[str, Any]]]:
        """(seq, event) of every accepted bet and void_round (and event of a type in ``also``) at or after `since`, in
        order (from the first row at `since` on: the window's rows alone are read), from the archives that reach into
        the window too (a row an archive shares with the file after it is read once)."""
        out: list[tuple[int, dict[str, Any]]] = []
        for archive in self._archives_since(since):
            with JournalReader(archive, archived=True) as old:
                out += [r for r in old.bets_and_voids_since(since, also) if not out or r[0] > out[-1][0]]
        return out + [r for r in self._bets_here(since, also) if not out or r[0] > out[-1][0]]

    def _bets_here(self, since: datetime, also: Iterable[str] = ()) -> list[tuple[int, dict[str, Any]]]:
        types = ("bet", "void_round", *sorted(also))
        rows = self.db.execute(
            "SELECT seq, body FROM ledger WHERE seq >= ? AND kind = 'event' AND received_at >= ? "
            f"AND json_extract(body, '$.type') IN ({', '.join('?' * len(types))}) ORDER BY seq",
            (self.first_seq_at(since), _utc(since), *types))
        return [(seq, self._json("ledger", seq, body)) for seq, body in rows]

    def close(self) -> None:
        """Close the connection (and remove the private copy it read, if any)."""
        self.db.close()
        if self._private is not None:
            shutil.rmtree(self._private, ignore_errors=True)
            self._private = None

    def __enter__(self) -> "JournalReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_error(exc: sqlite3.Error, path: Path) -> JournalError:
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    if code in _DAMAGED_CODES:
        return NotAJournal(f"{path} is not a tablectl journal, or it is damaged ({exc})")
    return _storage_error(exc, path)


class History:
    """A journal's whole history: its archives, then the live file (issue 42); an old single-file journal is one
    segment. Each segment is opened when it is read and closed after, so the memory is one segment's at most."""

    def __init__(self, path: str | Path, key: JournalKey | None = None) -> None:
        self.path = Path(path)
        self.key = key
        if not self.path.exists():
            raise JournalNotFound(f"no journal at {self.path}")
        self.files = segments(self.path)
        # What `verify` found that is not a fault of the history but a person should hear of (a stray file beside
        # an archive, a MANIFEST one archiving behind): one line each, said by the tool.
        self.notes: list[str] = []

    def readers(self) -> Iterator[JournalReader]:
        """Each segment's reader in turn, oldest first (each closed when the next is opened)."""
        for path in self.files:
            with JournalReader(path, self.key, archived=path != self.path) as reader:
                yield reader

    def verify(self, each: Callable[[JournalReader, Verified], None] | None = None) -> Verified:
        """Verify every segment (`JournalReader.verify`) and each link between them: a segment's first row is
        the previous one's last, with the same MAC, chained from the same row before it. `each` is called with
        every segment's reader and result (the round records' check, a report). The history's head is returned;
        JournalTampered names the first row or link that fails. With archives, the MANIFEST too: its MAC (first,
        before any row is read), then each entry against the archive verified (`_check_manifest`); and no file
        written to an archive after it was closed (`_check_sidecars`)."""
        self.notes = []
        listed: list[Any] | None = None
        if len(self.files) > 1:
            self._check_sidecars()
            listed = self._manifest()
        found: list[dict[str, Any]] = []  # each archive's entry as verified, in the MANIFEST's form
        total = rounds = snapshots = 0
        bad: list[int] = []
        before: tuple[Verified, str] | None = None  # the previous segment's result and the MAC of its row head-1
        last: Verified | None = None
        for reader in self.readers():
            result = reader.verify()
            if reader.path != self.path:
                found.append(_verified_summary(reader, result))
            if before is None:
                if result.first_seq != 1:
                    raise JournalTampered(f"journal {self.path}: its first file, {reader.path.name}, starts at row "
                                          f"{result.first_seq}: the archives before it are missing",
                                          table="ledger", row=1)
            else:
                previous, previous_mac = before
                if (result.first_seq != previous.head_seq or reader.row_mac(result.first_seq) != previous.head_mac
                        or reader.base_prev_mac != previous_mac):
                    raise JournalTampered(
                        f"journal {self.path}: {reader.path.name} does not start at the last row of the file before it "
                        f"(row {previous.head_seq}): a file of its history is missing or not its own; keep them all "
                        "for investigation", table="ledger", row=previous.head_seq)
                self._check_outbox(reader)
            total += result.rows - (0 if before is None else 1)  # (the row a segment shares with the one before)
            rounds += result.rounds
            snapshots += result.snapshots
            bad += result.bad_snapshots
            if each is not None:
                each(reader, result)
            before = (result, reader.row_mac(result.head_seq - 1) or "" if result.head_seq > result.first_seq
                      else reader.base_prev_mac)
            last = result
        assert last is not None
        if len(self.files) > 1:
            self._check_manifest(listed, found)
        return Verified(rows=total, head_seq=last.head_seq, head_mac=last.head_mac, rounds=rounds,
                        snapshots=snapshots, bad_snapshots=tuple(bad))

    def _tampered(self, what: str, row: int) -> JournalTampered:
        return JournalTampered(f"journal {self.path}: {what}; keep the journal and its archive folder as they are for "
                               "investigation", table="manifest", row=row)

    def _manifest(self) -> list[Any] | None:
        """The MANIFEST's list of archives, its MAC checked with the key; None when there is none (an archiving
        killed before it wrote its first, which `_check_manifest` allows for one archive)."""
        if self.key is None:
            raise JournalKeyError("verifying a journal needs its key")
        where = archive_folder(self.path) / MANIFEST
        try:
            text = where.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            if isinstance(exc, OSError):
                raise _os_error(exc, where, "read") from None
            text = ""
        try:
            body = json.loads(text)
            mac = body.pop("mac")
            listed = body["archives"]
            if not isinstance(mac, str) or not isinstance(listed, list):
                raise TypeError
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            raise self._tampered(f"its MANIFEST ({where}) is not one tablectl wrote (not its JSON)", 0) from None
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
        if not hmac.compare_digest(_mac(self.key.secret, "manifest\n" + canonical), mac):
            raise self._tampered(f"its MANIFEST ({where}) does not verify against the key: it was edited or forged (an "
                                 "archive's entry changed, added, removed or reordered)", 0)
        return listed

    def _check_manifest(self, listed: list[Any] | None, found: list[dict[str, Any]]) -> None:
        """Each archive the MANIFEST lists is there, in its place, holding what it says (its first and last rows,
        their times, its head's MAC); none is there that it does not list, but the newest, when an archiving was
        killed after its rename and before its MANIFEST (the writer's next open lists it: a note)."""
        folder = archive_folder(self.path)
        listed = listed or []
        for i, entry in enumerate(listed):
            name = entry.get("file") if isinstance(entry, dict) else None
            first = entry.get("first_seq", 0) if isinstance(entry, dict) else 0
            row = first if isinstance(first, int) else 0
            if i >= len(found):
                raise self._tampered(f"its MANIFEST lists the archive {name}, which is not in {folder}: an archive "
                                     "was removed or renamed", row)
            if name != found[i]["file"]:
                raise self._tampered(f"its MANIFEST lists {name} as archive {i + 1}, {folder} holds "
                                     f"{found[i]['file']} there: an archive was renamed, removed or put in its place",
                                     row)
            if entry != found[i]:
                said = ", ".join(f"{k} {entry.get(k)!r}" for k in sorted(found[i]) if entry.get(k) != found[i][k])
                held = ", ".join(f"{k} {found[i][k]!r}" for k in sorted(found[i]) if entry.get(k) != found[i][k])
                raise self._tampered(f"its MANIFEST says the archive {name} holds {said}, the archive holds {held}: "
                                     "it is not the file that was archived under that name", row)
        unlisted = [f["file"] for f in found[len(listed):]]
        if len(unlisted) > 1:
            raise self._tampered(f"the archives {', '.join(unlisted)} are not in its MANIFEST: archives were added "
                                 "or renamed", found[len(listed)]["first_seq"])
        if unlisted:
            self.notes.append(f"the newest archive, {unlisted[0]}, is not in the MANIFEST yet (an archiving was "
                              "stopped after its rename, before its MANIFEST): it verifies and links as the others "
                              "do, and the service's next start lists it")

    def _check_sidecars(self) -> None:
        """An archive is a closed file, read ``immutable`` (nothing made beside it). A ``-wal`` with bytes beside
        one holds writes made to it after it was closed: refused. An empty ``-wal`` or an ``-shm`` is left by a
        reader that opened it with SQLite's locking (another tool, or tablectl before these reads): a note; they
        are never read, and may be removed."""
        for archive in archives(self.path):
            for side in sidecars(archive):
                try:
                    size = side.stat().st_size
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    raise _os_error(exc, side, "read") from None
                if side.name.endswith("-wal") and size:
                    raise self._tampered(f"{side} beside the archive {archive.name} holds {size} bytes written to the "
                                         "archive after it was closed (an archive's WAL is folded in when it is made; "
                                         "the archive itself is read without it)", int(archive.name.split("-")[0]))
                self.notes.append(f"{side} is a stray file beside the archive {archive.name} (left by a reader that "
                                  "opened it with SQLite's locking): it holds no rows, is never read, and may be "
                                  "removed")

    def _check_outbox(self, reader: JournalReader) -> None:
        """An outbox mark below the live file's first row names a row of an archive: checked there."""
        if reader.key is None:
            return
        for name, seq, mac in reader.db.execute("SELECT name, seq, mac FROM outbox WHERE seq < ?", (reader.base,)):
            row_mac_ = self.row_mac(seq) if seq else ""
            if row_mac_ is None or not hmac.compare_digest(
                    _outbox_mac(reader.key.secret, int(reader.meta["schema"]), name, seq, row_mac_), mac):
                raise JournalTampered(f"journal {self.path}: the outbox mark {name!r} (row {seq}) does not verify",
                                      table="outbox", row=seq)

    def row_mac(self, seq: int) -> str | None:
        """The MAC stored with row `seq`, from the segment that holds it."""
        for path in self.files:
            with JournalReader(path, archived=path != self.path) as reader:
                if reader.base <= seq:
                    found = reader.row_mac(seq)
                    if found is not None:
                        return found
        return None

    def entries(self, since: int = 0, since_time: datetime | None = None) -> Iterator[JournalEntry]:
        """Every accepted event after `since` (and at or after `since_time`) across the segments, in order."""
        after = since
        for reader in self.readers():
            if reader.head()[0] <= after:
                continue
            for entry in reader.entries(after, since_time):
                yield entry
                after = entry.seq

    def ledger_rows(self, after_seq: int = 0, limit: int = 1000) -> list[LedgerRow]:
        """Rows after `after_seq` across the segments, in order, at most `limit`."""
        with JournalReader(self.path) as live:
            return live.ledger_rows(after_seq, limit)

    def holding_round(self, number: int) -> Path | None:
        """The segment whose round records hold round `number` (newest first: a recent round is the usual ask)."""
        for path in reversed(self.files):
            with JournalReader(path, archived=path != self.path) as reader:
                if reader.round_seq(number) is not None:
                    return path
        return None


class HistoryReader(JournalReader):
    """A journal's whole history behind a reader's face (issue 42): the live file's reader whose reads by row, by
    time and by round go on into the archives before it, each archive opened only when the read reaches it
    (`archive_facts`), one at a time. What the tools read through (`protect`, `ratings`, `shift`: they replay from
    the history's first row, or from the state kept before their window, wherever it is); the service keeps the
    live file's `JournalReader`, whose reads of rounds and of a time window cross into the archives too."""

    def __init__(self, path: str | Path, key: JournalKey | None = None) -> None:
        super().__init__(path, key)
        self.history = History(self.path, key)

    def verify(self) -> Verified:
        """Every archive, each link and the MANIFEST, then the live file (`History.verify`)."""
        return self.history.verify()

    def entries(self, since: int = 0, since_time: datetime | None = None) -> Iterator[JournalEntry]:
        """Every accepted event after `since` across the files (streamed, a file open at a time)."""
        if since >= self.base:
            return super().entries(since, since_time)
        return self.history.entries(since, since_time)

    def row_mac(self, seq: int) -> str | None:
        if seq >= self.base - 1:
            return super().row_mac(seq)
        return self.history.row_mac(seq)

    def _archive(self, path: Path) -> JournalReader:
        return JournalReader(path, self.key, archived=True)

    def first_seq_at(self, at: datetime) -> int:
        """The first row received at or after `at`, in the first file whose rows reach it."""
        when = _utc(at)
        for archive in self._older():
            if archive_facts(archive).last_at >= when:
                with self._archive(archive) as old:
                    return old.first_seq_at(at)
        return super().first_seq_at(at)

    def snapshot_at_or_before(self, seq: int) -> tuple[int, dict[str, Any], str] | None:
        """The newest state kept at or before row `seq`, in the file that holds it (each file keeps one at its
        last row or its first), or an earlier one."""
        if seq >= self.base and (found := super().snapshot_at_or_before(seq)) is not None:
            return found
        for archive in reversed(self._older()):
            if archive_facts(archive).first_seq <= seq:
                with self._archive(archive) as old:
                    if (found := old.snapshot_at_or_before(seq)) is not None:
                        return found
        return None

    def last_row_before(self, seq: int, kind: str, within: int = 100_000) -> LedgerRow | None:
        """As `JournalReader.last_row_before`, the rows in reach read back into the archives."""
        if seq >= self.base:
            found = super().last_row_before(seq, kind, within)
            if found is not None or seq - within >= self.base:
                return found
        for archive in reversed(self._older()):
            facts = archive_facts(archive)
            if facts.first_seq > seq:
                continue
            if facts.last_seq <= seq - within:
                break
            upto = min(seq, facts.last_seq)
            with self._archive(archive) as old:
                found = old.last_row_before(upto, kind, within - (seq - upto))
            if found is not None:
                return found
        return None

    def verify_rows(self, after: int, previous_mac: str, until: int) -> str:
        """Check every row after `after` up to `until` across the files, each file's first row the one before's
        last with the same MAC (the chain's link across files); return row `until`'s MAC."""
        if after >= self.base:
            return super().verify_rows(after, previous_mac, until)
        mac, joined = previous_mac, False
        for archive in [*self._older(), self.path]:
            with (self._archive(archive) if archive != self.path else _kept_open(self)) as seg:
                head = seg.head()[0]
                if head <= after:
                    continue
                if joined and (after != seg.base or seg.row_mac(seg.base) != mac):
                    raise JournalTampered(f"journal {self.path}: {seg.path.name} does not start at the last row of "
                                          f"the file before it (row {after}); keep them all for investigation",
                                          table="ledger", row=after)
                end = min(until, head)
                mac = (super().verify_rows(after, mac, end) if seg is self else seg.verify_rows(after, mac, end))
                after, joined = end, True
                if after >= until:
                    return mac
        raise JournalTampered(f"journal {self.path}: ledger row {after + 1} is missing: rows were removed or cut; "
                              "keep the file for investigation", table="ledger", row=after + 1)


@contextmanager
def _kept_open(reader: JournalReader) -> Iterator[JournalReader]:
    """The reader as a context that does not close it (the live file's, beside the archives opened and closed)."""
    yield reader


# ---------------------------------------------------------------------- writing

class Journal(JournalReader):
    """The writer's journal: the only code that appends to the ledger. One per table, one thread."""

    key: JournalKey  # a reader may have no key; the writer always has one

    def __init__(self, path: str | Path, key: JournalKey, *, create: bool = False,
                 now: datetime | None = None, first: Event | None = None) -> None:
        """Open the journal at `path` (verifying every row), or create it there when `create` is set.

        A new journal records when it was created: `now`, the caller's clock reading (the journal
        never reads a clock itself, so a replay or a test gives the same file at any date); and
        it is made with its first row, the event `first` (the rules the table starts with),
        received at `now`. So a journal is never empty: one with no rows lost them, and is refused.
        """
        self.path = Path(path)
        self.key = key
        self._rotation_hook: Callable[[str], None] | None = None  # (tests: a kill after each step of a rotation)
        self.generation = 0  # how many times this writer has archived the live file (a long-lived reader reopens)
        self._recover_rotation()
        exists = [p for p in (self.path, *sidecars(self.path)) if p.exists()]
        if not exists:
            if not create:
                raise JournalNotFound(f"no journal at {self.path}")
            if now is None:
                raise ValueError("a new journal needs the time it is created at (now=): time is passed in")
            if first is None:
                raise ValueError("a new journal is made with its first row (first=: the rules the table starts with)")
            self._create(now, first)
        elif not self.path.exists():
            raise WouldOverwrite(
                f"{self.path} does not exist but {', '.join(p.name for p in exists)} does beside it: that is "
                "journal data; a new journal is never created over it (move it away to start afresh)")
        try:
            self.db = _connect(self.path, "rw")
            try:
                # Before switching modes or writing anything: is this file ours, and whole? (A refused
                # journal is left exactly as it was found.)
                self._check_identity()
                self.verified = self.verify()
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                # SQLite opens a file it cannot write read-only without a word: find out now, at
                # start-up, not at the first card (a probe row, rolled back, never committed).
                self.db.execute("BEGIN IMMEDIATE")
                self.db.execute("INSERT INTO meta VALUES ('writable', 'probe')")
                self.db.execute("ROLLBACK")
                if not self.has_checkpoints:  # (a journal made before them: derived rows, from now on)
                    self.db.execute(_CHECKPOINTS)
                    self.has_checkpoints = True
                if not self.has_tallies:
                    self.db.execute(_TALLIES)
                    self.has_tallies = True
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                self.db.close()
                raise
        except sqlite3.Error as exc:
            raise _open_error(exc, self.path) from None
        self.last_seq, self.last_mac = self.verified.head_seq, self.verified.head_mac
        self._check_space()
        # The service's metrics: `on_commit` is called with the seconds each committed write took, as
        # measured by `commit_timer` (its monotonic clock, passed in: the journal reads none).
        self.on_commit: Callable[[float], None] | None = None
        self.commit_timer: Callable[[], float] | None = None
        self._in_transaction = False

    def _check_space(self) -> None:
        """Refuse to start a shift with no room for it: the first card would meet a full disk."""
        try:
            st = os.statvfs(self.path.parent)
        except OSError as exc:
            raise _os_error(exc, self.path) from None
        free = st.f_bavail * st.f_frsize
        if free < MIN_FREE_BYTES:
            raise DiskFull(f"{DiskFull.cause}: {self.path} ({free // 1024} KiB free; the table needs at least "
                           f"{MIN_FREE_BYTES // 1024} KiB to start)")

    def _create(self, now: datetime, first: Event) -> None:
        try:
            self._make(now, first)
        except OSError as exc:
            if isinstance(exc, JournalError):
                raise
            # (EROFS comes even from unlinking a file that is not there: the folder is read-only.)
            raise _os_error(exc, self.path, f"create a journal in {self.path.parent}: making") from None

    def _make(self, now: datetime, first: Event) -> None:
        tmp = self.path.with_name(self.path.name + ".new")
        for p in (tmp, *sidecars(tmp)):
            p.unlink(missing_ok=True)
        try:
            db = _connect(tmp, "rwc", header_checked=True)
            _begin_file(db, SCHEMA_VERSION, self.key.key_id, now)
            # The first row comes with the file, in the same transaction: a journal is never empty.
            if first.at is None:
                first.at = now
            row = LedgerRow(1, EVENT, _utc(now), event_body(first), None, None, None, None, "")
            db.execute("INSERT INTO ledger VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (row.seq, row.kind, row.received_at, row.body, None, None, None, None,
                        row_mac(self.key.secret, "", row)))
            db.execute("COMMIT")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.close()
        except sqlite3.Error as exc:
            raise _storage_error(exc, self.path) from None
        for p in sidecars(tmp):
            p.unlink(missing_ok=True)
        # The new file appears whole or not at all: a crash here never leaves a half-made journal.
        try:
            os.link(tmp, self.path)
        except FileExistsError:
            raise WouldOverwrite(f"{self.path} appeared while the journal was being created") from None
        finally:
            tmp.unlink(missing_ok=True)
        log.info("created a new journal at %s (key %s)", self.path, self.key.key_id)

    # --- the ledger
    def append_event(self, event: Event, received_at: datetime, *, shoe_id: str | None = None,
                     position: int | None = None) -> int:
        """Append an accepted event durably (committed when this returns); returns its sequence number."""
        return self._append(EVENT, event_body(event), _utc(received_at), shoe_id, position, None, None)

    def append_refusal(self, event: Event, received_at: datetime, code: str, message: str) -> int:
        """Record a refused action for the audit trail (never replayed); returns its sequence number."""
        return self._append(REFUSAL, event_body(event), _utc(received_at), None, None, code, message)

    def _append(self, kind: str, body: str, at: str, shoe_id: str | None, position: int | None,
                code: str | None, message: str | None) -> int:
        seq = self.last_seq + 1
        row = LedgerRow(seq, kind, at, body, shoe_id, position, code, message, "")
        mac = row_mac(self.key.secret, self.last_mac, row)
        insert = ("INSERT INTO ledger VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  (seq, kind, at, body, shoe_id, position, code, message, mac))
        if self.meta.get("release") != RELEASE:
            # The release that last wrote a row, so an older one that cannot read it can say which can
            # (recorded with the first row it writes, not at opening: an older release that refuses a
            # newer row never overwrites the name of the release that wrote it).
            self._write(insert, ("INSERT OR REPLACE INTO meta VALUES ('release', ?)", (RELEASE,)))
            self.meta["release"] = RELEASE
        else:
            self._write(*insert)
        self.last_seq, self.last_mac = seq, mac
        return seq

    def _write(self, *statements: Any) -> None:
        """Run (sql, args) pairs, committed when this returns (or with the open `transaction`)."""
        pairs = [statements] if isinstance(statements[0], str) else list(statements)
        if self._in_transaction:
            try:
                for sql, args in pairs:
                    self.db.execute(sql, args)
            except sqlite3.Error as exc:
                raise _storage_error(exc, self.path) from None
            return
        with self.transaction():
            for sql, args in pairs:
                self.db.execute(sql, args)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Everything written inside is committed together, at the end, or not at all.

        The writer groups the inputs waiting for it into one transaction (one fsync for all),
        and answers and acknowledges none of them before this commit returns. A failure rolls
        back every row of the group; the caller stops the table (its memory is ahead of the disk).
        """
        if self._in_transaction:
            yield
            return
        db = self.db
        timer = self.commit_timer
        start = timer() if timer is not None else 0.0
        head = (self.last_seq, self.last_mac)
        self._in_transaction = True
        try:
            try:
                db.execute("BEGIN IMMEDIATE")
                yield
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise _storage_error(exc, self.path) from None
        except BaseException:
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            self.last_seq, self.last_mac = head
            raise
        finally:
            self._in_transaction = False
        if self.on_commit is not None and timer is not None:
            self.on_commit(timer() - start)

    def head(self) -> tuple[int, str]:
        """The last row written: (seq, mac)."""
        return self.last_seq, self.last_mac

    # --- derived rows
    def save_snapshot(self, seq: int, state: dict[str, Any], fmt: int) -> None:
        """Keep the engine's state as it was after row `seq` (JSON, MAC'd), and a checkpoint at that row.

        Every state is kept, not only the newest (issue 37): the states along the ledger are where a reader
        starts a replay of any round (a dispute record, the players' evidence of a shift) instead of the first
        row; the checkpoints chain them, so a reader links a round to the head without reading every row.
        """
        text = json.dumps(state, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
        ledger_mac = self._mac_at(seq)
        mac = _bound_mac(self.key.secret, "snapshot", seq, fmt, text, ledger_mac)
        last = self.db.execute("SELECT seq FROM checkpoints WHERE seq < ? ORDER BY seq DESC LIMIT 1", (seq,)).fetchone()
        previous = last[0] if last else 0
        checkpoint = _checkpoint_mac(self.key.secret, seq, ledger_mac, previous,
                                     self._mac_at(previous) if previous else "")
        rounds = self.db.execute("SELECT COUNT(*) FROM rounds WHERE seq <= ?", (seq,)).fetchone()[0]
        self._write(("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)", (seq, fmt, text, mac)),
                    ("INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?)", (seq, previous, checkpoint)),
                    ("INSERT OR REPLACE INTO tallies VALUES (?, ?, ?)",
                     (seq, rounds, _bound_mac(self.key.secret, "tally", seq, rounds, ledger_mac))))

    def save_round(self, seq: int, record: dict[str, Any]) -> None:
        """Keep a settled round's record (derived from the events, MAC'd, rebuilt by a replay when missing)."""
        text = json.dumps(record, ensure_ascii=True, separators=(",", ":"))
        number = record["number"]
        mac = _bound_mac(self.key.secret, "round", number, seq, text, self._mac_at(seq))
        self._write("INSERT OR REPLACE INTO rounds VALUES (?, ?, ?, ?)", (number, seq, text, mac))

    def has_round(self, number: int) -> bool:
        """True when round `number`'s record is kept."""
        return self.db.execute("SELECT 1 FROM rounds WHERE number = ?", (number,)).fetchone() is not None

    def set_outbox(self, name: str, seq: int) -> None:
        """Remember durably that the named outbox (the fleet broker) has acknowledged rows up to `seq`.

        The mark's MAC is bound to row `seq`'s MAC (schema 3). In a schema-2 journal, the marks
        already there are bound the same way and the journal becomes schema 3, in the same
        transaction: from then on a release of schema 2 refuses it, naming the schema.
        """
        if not 0 <= seq <= self.last_seq:
            raise ValueError(f"an outbox mark at row {seq} is beyond the ledger's last row {self.last_seq}")
        key = self.key.secret
        upgrade = self.meta["schema"] == "2"
        writes: list[tuple[str, tuple[object, ...]]] = []
        if upgrade:
            for other, at in self.db.execute("SELECT name, seq FROM outbox WHERE name != ?", (name,)).fetchall():
                writes.append(("UPDATE outbox SET mac = ? WHERE name = ?",
                               (_outbox_mac(key, SCHEMA_VERSION, other, at, self._mac_at(at) if at else ""), other)))
            writes.append(("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),)))
        mac = _outbox_mac(key, SCHEMA_VERSION, name, seq, self._mac_at(seq) if seq else "")
        writes.append(("INSERT OR REPLACE INTO outbox VALUES (?, ?, ?)", (name, seq, mac)))
        self._write(*writes)
        if upgrade:
            log.info("journal %s: now schema %d (outbox marks bound to their ledger rows); a release that reads "
                     "schema %s alone refuses it", self.path, SCHEMA_VERSION, self.meta["schema"])
            self.meta["schema"] = str(SCHEMA_VERSION)

    def _mac_at(self, seq: int) -> str:
        if seq == self.last_seq:
            return self.last_mac
        if seq < self.base:  # (an outbox mark behind the live file: its row is in an archive)
            found = History(self.path).row_mac(seq)
            if found is None:
                raise ValueError(f"no ledger row {seq}")
            return found
        row = self.db.execute("SELECT mac FROM ledger WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise ValueError(f"no ledger row {seq}")
        mac: str = row[0]
        return mac

    # --- archives (issue 42)
    def segment_started(self) -> datetime:
        """When the live file began (its gaming day is the file's): its first row's arrival, or for a segment after
        an archive, the archiving (its first row is the archive's last, of the day before)."""
        if self.base > 1 and "created_at" in self.meta:
            return datetime.fromisoformat(self.meta["created_at"])
        row = self.db.execute("SELECT received_at FROM ledger WHERE seq = ?", (self.base,)).fetchone()
        return datetime.fromisoformat(row[0])

    def size(self) -> int:
        """The live file's bytes on disk, its WAL included."""
        total = 0
        for p in (self.path, sidecars(self.path)[0]):
            try:
                total += p.stat().st_size
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise _os_error(exc, p) from None
        return total

    def rotation_due(self, rotation: Rotation, now: datetime) -> bool:
        """True when the live file is to be archived before an input received at `now`: a new gaming day since its
        first row, or past its size. Never for a file of one row (a new segment is never archived empty)."""
        if self.last_seq <= self.base:
            return False
        if rotation.gaming_day(now) != rotation.gaming_day(self.segment_started()):
            return True
        return bool(rotation.max_bytes) and self.size() >= rotation.max_bytes

    def rotate(self, now: datetime, state: dict[str, Any], rotation: Rotation) -> Path:
        """Archive the live file and start a new one whose first row is the archive's last, with the table's state
        there (`state`, the engine's snapshot at the head): a start replays the new file alone. Returns the archive.

        Called by the one writer between transactions, between rounds with no card closed. Crash-safe, in this
        order: the new file made whole beside the live one (``NAME.next``) and fsynced; the live file closed with
        its WAL folded in; linked into the archive folder under its name; the new file renamed over the live one;
        the MANIFEST written. A kill before the rename leaves the live file as it was (the next open removes the
        ``.next`` file and the archive's link, and the rotation is done again); after it, the new file is the live
        one and the open writes the MANIFEST anew.
        """
        if self._in_transaction:
            raise RuntimeError("a rotation is made between transactions")
        head, head_mac, base = self.last_seq, self.last_mac, self.base
        started = self.segment_started()
        archive = archive_folder(self.path) / f"{self.base:09d}-{rotation.gaming_day(started).isoformat()}.sqlite"
        nxt = self.path.with_name(self.path.name + ".next")
        try:
            # The archive's own state and tally at its last row: its round records are then checked by count
            # alone, and its rows replayed by nobody (the same state starts the new file).
            if self.db.execute("SELECT 1 FROM snapshots WHERE seq = ?", (head,)).fetchone() is None:
                self.save_snapshot(head, state, state["format"])
            self._make_next(nxt, now, head, head_mac, state)
            self._step("made")
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self.db.close()
            for side in sidecars(self.path):  # (folded in: an empty WAL must not meet the new file)
                if side.exists() and side.name.endswith("-wal") and side.stat().st_size:
                    raise StorageIOError(f"the journal {self.path}'s WAL was not folded in; not archived")
                side.unlink(missing_ok=True)
            self._step("closed")
            archive.parent.mkdir(exist_ok=True)
            _sync_dir(archive.parent.parent)
            try:
                os.link(self.path, archive)
            except FileExistsError:
                if not os.path.samefile(self.path, archive):
                    raise WouldOverwrite(f"{archive} exists and is not the live journal: not archived over") from None
            _sync_dir(archive.parent)
            self._step("archived")
            os.replace(nxt, self.path)
            _sync_dir(self.path.parent)
            self._step("switched")
            try:
                os.chmod(archive, 0o440)  # (evidence: read-only from now on)
            except OSError:
                pass
            self.generation += 1
            write_manifest(self.path, self.key)
            self._step("listed")
        except sqlite3.Error as exc:
            raise _storage_error(exc, self.path) from None
        except OSError as exc:
            if isinstance(exc, JournalError):
                raise
            raise _os_error(exc, self.path, "archive") from None
        finally:
            if not self._db_open():
                self._reopen()
        log.info("journal %s: rows %d-%d archived as %s; the live file starts at row %d", self.path, base, head,
                 archive, head)
        return archive

    def _step(self, name: str) -> None:
        if self._rotation_hook is not None:
            self._rotation_hook(name)

    def _db_open(self) -> bool:
        try:
            self.db.execute("SELECT 1")
            return True
        except sqlite3.ProgrammingError:
            return False

    def _reopen(self) -> None:
        """Open the live file again (after a rotation, or one that failed before its rename: the same file)."""
        self.db = _connect(self.path, "rw")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self._check_identity()
        if self.head() != (self.last_seq, self.last_mac):
            raise JournalTampered(f"journal {self.path}: after archiving, its head is not the writer's",
                                  table="ledger", row=self.last_seq)

    def _make_next(self, nxt: Path, now: datetime, head: int, head_mac: str, state: dict[str, Any]) -> None:
        for p in (nxt, *sidecars(nxt)):
            p.unlink(missing_ok=True)
        row = self.db.execute("SELECT seq, kind, received_at, body, shoe_id, position, code, message, mac FROM ledger "
                              "WHERE seq = ?", (head,)).fetchone()
        before = self.base_prev_mac if head == self.base else self._mac_at(head - 1)
        outbox = self.db.execute("SELECT name, seq, mac FROM outbox").fetchall()
        key = self.key.secret
        text = json.dumps(state, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
        fmt = state["format"]
        db = _connect(nxt, "rwc", header_checked=True)
        try:
            _begin_file(db, SEGMENT_SCHEMA, self.key.key_id, now, ("segment_base", str(head)), ("base_prev_mac", before))
            db.execute("INSERT INTO ledger VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            db.execute("INSERT INTO snapshots VALUES (?, ?, ?, ?)",
                       (head, fmt, text, _bound_mac(key, "snapshot", head, fmt, text, head_mac)))
            db.execute("INSERT INTO checkpoints VALUES (?, ?, ?)", (head, 0, _checkpoint_mac(key, head, head_mac, 0, "")))
            db.execute("INSERT INTO tallies VALUES (?, ?, ?)", (head, 0, _bound_mac(key, "tally", head, 0, head_mac)))
            db.executemany("INSERT INTO outbox VALUES (?, ?, ?)", outbox)
            db.execute("COMMIT")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()
        for p in sidecars(nxt):
            p.unlink(missing_ok=True)
        with open(nxt, "rb") as f:
            os.fsync(f.fileno())

    def _recover_rotation(self) -> None:
        """Undo a rotation killed before its rename (the live file is then whole and as it was), and list the
        archives again if one was killed after it."""
        nxt = self.path.with_name(self.path.name + ".next")
        try:
            if nxt.exists() and self.path.exists():
                for archive in archives(self.path):
                    if os.path.samefile(archive, self.path):
                        archive.unlink()
                        _sync_dir(archive.parent)
                for p in (nxt, *sidecars(nxt)):
                    p.unlink(missing_ok=True)
                log.warning("journal %s: an archiving was interrupted before it was done; the live file is whole "
                            "and it is done again", self.path)
            if archives(self.path) and not manifest_current(self.path):
                write_manifest(self.path, self.key)
        except OSError as exc:
            if isinstance(exc, JournalError):
                raise
            raise _os_error(exc, self.path, "recover the archiving of") from None

    def close(self) -> None:
        """Close the file (a clean close folds the WAL back into it)."""
        try:
            self.db.close()
        except sqlite3.Error as exc:
            log.warning("closing the journal %s: %s", self.path, exc)
