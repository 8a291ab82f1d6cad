"""The floor fills a gap by itself: it asks the table's own API for the missing rows (issue 21).

What the broker acknowledged, a table never sends again, so a gap the broker can no longer fill (the
floor's session dropped or expired, the broker's store lost) would hold the table's export back for
good. Nothing flows from the broker into a table (its ACL lets a table read nothing), so the floor asks
the table's API instead: `GET /api/ledger?after=SEQ&limit=N`, with the table's floor key, at the address
configured for it in `[[floor.tables]]`. Never at the `dashboard_url` the table publishes: anyone on an
open broker can publish a state, and a floor that fetched from it could be sent anywhere (SSRF).

A gap is asked for once it has been open `gap_grace_seconds` (its rows may be in flight). The answer is
untrusted like a broker message: bounded in bytes and in time (the whole answer, not each read),
without redirects, proxies or compression, and every line validated by the broker rows' own boundary
(`wire.parse_ledger`, naming the table it was asked for) and checked to be the rows asked for. The rows
are then stored by `FloorStore.ingest`, the broker rows' path: the table's key verifies their MACs in
chain order, and the bad-MAC and conflict rules apply unchanged. A masked row (a card still face down)
comes masked, as the publisher sends it, and its final form arrives through the broker once turned.

Each table is asked in its own task, a few at once, so a slow or dead table delays no other, and
nothing here blocks the floor's MQTT consumer (the store is written between two awaits, on the loop).
A table that fails is one `recovery_failed` incident per outage, retried with back-off up to
`[floor.recovery] backoff_max_seconds`, and said in the log once it answers again.
"""

from __future__ import annotations

import asyncio
import logging
import random
import ssl
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

import httpx
from pydantic import ValidationError

from tablectl.fleet import BadMessage
from tablectl.fleet.wire import MAX_LEDGER_BYTES, WireRow, parse_ledger
from tablectl.logs import one_line
from tablectl.web.errors import ErrorResponse

from . import FloorConfigError
from .database import warn_if_others_read
from .settings import FloorSettings, TableApi
from .store import FloorStore

log = logging.getLogger(__name__)

CONCURRENCY = 4  # tables asked at once
# With several floor workers, one of them asks the tables at a time (FloorStore.lead: PostgreSQL's session lock,
# taken over by another worker once its holder's connection ends).
RECOVERY_ROLE = 1
PAGES_PER_ATTEMPT = 20  # an attempt's work is bounded; a longer gap goes on at the next tick
BACKOFF_FIRST = 2.0  # seconds after a first failure, doubling to backoff_max_seconds
MAX_KEY_CHARS = 1024
MAX_ERROR_BYTES = 2048  # of a refusal's body, read for its error code


class RecoveryFailed(Exception):
    """An attempt failed: the table could not be reached, or its answer was refused (the message says why)."""


@dataclass
class Target:
    """One table the floor may ask for rows, and how asking it has gone."""

    table: str
    url: str
    key: str = field(repr=False)
    verify: ssl.SSLContext | bool = field(repr=False)
    failures: int = 0  # attempts failed in a row
    next_try: float = 0.0  # monotonic: not asked again before
    error: str | None = None  # why the last attempt failed (None: it did not)
    rows: int = 0  # rows stored from the table's API since the floor started
    awaited: tuple[int, float] | None = None  # (the row after the floor's highest, since when) below its head
    quiet: int = 0  # attempts in a row that brought nothing new (the rows had come meanwhile)
    task: asyncio.Task[None] | None = field(default=None, repr=False)
    client: httpx.AsyncClient | None = field(default=None, repr=False)

    def status(self) -> dict[str, object]:
        """How recovery stands for this table (its tile shows it)."""
        return {"failing": self.error is not None, "error": self.error, "failures": self.failures, "rows": self.rows}


def read_api_key(entry: TableApi) -> str:
    """The floor key in `entry.api_key_file`: one line of visible ASCII; FloorConfigError says what is wrong."""
    where = f"[[floor.tables]] {entry.id}: api_key_file {entry.api_key_file}"
    if entry.api_key_file is None:
        raise FloorConfigError(f"[[floor.tables]] {entry.id}: an api_url needs its api_key_file")
    try:
        with open(entry.api_key_file, "rb") as f:
            warn_if_others_read(f.fileno(), entry.api_key_file, f"[[floor.tables]] {entry.id}: api_key_file",
                                "can read the table's ledger through its API")
            raw = f.read(MAX_KEY_CHARS + 2)
    except OSError as exc:
        raise FloorConfigError(f"{where}: {exc.strerror}") from None
    key = raw.strip()
    if len(raw) > MAX_KEY_CHARS + 1 or not key or any(b <= 0x20 or b >= 0x7F for b in key):
        raise FloorConfigError(f"{where}: not a key (one line of at most {MAX_KEY_CHARS} visible ASCII "
                               "characters, as `tablectl hash-key --new` makes)")
    return key.decode("ascii")


def _tls(entry: TableApi) -> ssl.SSLContext | bool:
    if not entry.api_url.startswith("https:"):
        return False
    try:
        return ssl.create_default_context(cafile=str(entry.ca_file) if entry.ca_file else None)
    except (OSError, ssl.SSLError) as exc:
        raise FloorConfigError(f"[[floor.tables]] {entry.id}: ca_file {entry.ca_file}: {exc}") from None


class Recovery:
    """Asks the configured tables' APIs for the rows of their gaps, and stores what they answer."""

    def __init__(self, settings: FloorSettings, store: FloorStore, known: Callable[[str], bool], *,
                 clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time) -> None:
        self.store = store
        self.known = known
        self.clock = clock  # for back-off (passed in: tests may drive it)
        self.wall = wall  # for a gap's age: the store notes when a gap opened in wall-clock time
        self.grace = settings.floor.gap_grace_seconds
        r = settings.floor.recovery
        self.page_rows, self.timeout, self.backoff_max = r.page_rows, r.timeout_seconds, r.backoff_max_seconds
        # Every key and certificate is read now: a file that cannot be used stops the floor at start, named.
        self.targets = {e.id: Target(e.id, e.api_url, read_api_key(e), _tls(e)) for e in settings.floor.tables
                        if e.api_url}
        self._slots = asyncio.Semaphore(CONCURRENCY)
        # How a call to the store is made: the running floor sets its store thread's (FloorService.in_store), so
        # that a database that stalls holds no table's answer and no tick; alone (tests), a direct call.
        self.on_store: Callable[..., Awaitable[Any]] = _direct

    # ------------------------------------------------------------------ running
    async def run(self) -> None:
        """Look for gaps to fill every second (or half the grace) until cancelled; then close every client."""
        try:
            while True:
                await asyncio.sleep(min(1.0, self.grace / 2))
                try:
                    self._start(await self.on_store(self._due))
                except self.store.outages as exc:  # the store away: the consumer says so; next tick again
                    log.debug("gap recovery waits for the floor store: %s", exc)
                except Exception:  # a bug: logged, and the next tick tries again
                    log.exception("gap recovery failed")
        finally:
            await self.aclose()

    def poll(self) -> list[str]:
        """Start an attempt for every table with rows to ask for that is not being asked or waiting.

        Returns the tables an attempt was started for.
        """
        try:
            due = self._due()
        except self.store.outages as exc:  # the store away: the consumer says so; next tick again
            log.debug("gap recovery waits for the floor store: %s", exc)
            return []
        return self._start(due)

    def _due(self) -> list[tuple[Target, list[tuple[int, int]]]]:
        """The store's part of a tick (on the store's thread when the floor runs): each table to ask, and what.
        An outage of the store is raised (the caller waits for the next tick; the floor notes the store away)."""
        now = self.clock()
        due: list[tuple[Target, list[tuple[int, int]]]] = []
        if not self.store.lead(RECOVERY_ROLE):
            return due  # another worker asks the tables
        self.store.refresh()  # with several workers, the gaps the others' rows left or filled
        for t in self.targets.values():
            if (t.task is not None and not t.task.done()) or now < t.next_try or not self.known(t.table):
                continue
            ranges = self.wanted(t)
            if ranges:
                due.append((t, ranges))
        return due

    def _start(self, due: list[tuple[Target, list[tuple[int, int]]]]) -> list[str]:
        """The loop's part: an attempt (a task) for each table due."""
        for t, ranges in due:
            t.task = asyncio.create_task(self.attempt(t, ranges), name=f"floor-recover-{t.table}")
        return [t.table for t, _ in due]

    def wanted(self, t: Target) -> list[tuple[int, int]]:
        """What the floor lacks of `t`'s rows for longer than the grace, as ranges in order:

        - its gaps;
        - masked rows below a final one: their final form was published before that row (the publisher
          sends the final forms first), so it was lost on the way, and the export stops at them;
        - the rows up to the head its retained state names, when the one after the floor's highest has
          not come for the grace (the last rows before a table falls silent leave no gap behind them).
        """
        track = self.store.tracks.get(t.table)
        if track is None:
            return []
        due = self.wall() - self.grace
        ranges: list[tuple[int, int]] = []
        if len(track.gaps):  # in memory first: no query for a table without a gap
            ranges += [(g["first"], g["last"]) for g in self.store.open_gaps(t.table) if g["noticed_at"] <= due]
        if track.masked:
            ranges += self.store.stuck_masked(t.table, due)
        ranges += self._tail(t, track.max_seq, track.state.head.seq if track.state and track.state.head else 0)
        return _merge(ranges)

    def _tail(self, t: Target, top: int, head: int) -> list[tuple[int, int]]:
        """The rows after the floor's highest, up to the state's `head`, once row `top + 1` has been awaited the grace.

        The state is the table's word only as far as the broker's ACL goes; a head beyond its journal costs
        one request and is said as a failure (the table has no such row), never more than the pages bounded.
        """
        if head <= top:
            t.awaited = None
            return []
        now = self.wall()
        if t.awaited is None or t.awaited[0] <= top:  # a row not awaited yet (the one awaited came)
            t.awaited = (top + 1, now)
            return []
        if now - t.awaited[1] < self.grace:
            return []
        return [(top + 1, head)]

    async def aclose(self) -> None:
        """Stop every attempt and close the HTTP clients."""
        tasks = [t.task for t in self.targets.values() if t.task is not None and not t.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for t in self.targets.values():
            if t.client is not None:
                await t.client.aclose()
                t.client = None

    # ------------------------------------------------------------------ one attempt
    async def attempt(self, t: Target, ranges: list[tuple[int, int]]) -> None:
        """Ask `t` for the rows of `ranges` and store them; a failure is reported once per outage, then retried."""
        async with self._slots:
            stored: list[tuple[int, int]] = []  # what this attempt stored, even if it fails later
            try:
                await self._fetch(t, ranges, stored)
            except RecoveryFailed as exc:
                await self._failed(t, str(exc), stored)
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a bug, met with this table alone: reported as a failure, not raised
                log.exception("table %s: asking its API for rows failed", t.table)
                await self._failed(t, f"the floor could not handle the answer: {exc!r}"[:500], stored)
                return
            await self._succeeded(t, stored)

    async def _fetch(self, t: Target, ranges: list[tuple[int, int]], stored: list[tuple[int, int]]) -> None:
        """Fetch and store the rows of `ranges`, page by page, noting in `stored` the seqs stored."""
        pages = 0
        for first, last in ranges:
            after = first - 1
            while after < last:
                if pages == PAGES_PER_ATTEMPT:
                    return  # an attempt's work is bounded: the rest at the next tick
                pages += 1
                # Never more than the gap: every row asked for is one the floor lacks (or had just got).
                rows = await self._page(t, after, min(self.page_rows, last - after))
                if not rows:
                    raise RecoveryFailed(f"the table's API has no row {after + 1}: its journal ends before the "
                                         "floor's highest row of it (a row on the floor the table never wrote, "
                                         "see the incidents, or a journal replaced)")
                # The broker rows' path: MACs, bad_mac, conflicts (on the store's thread).
                res = await self.on_store(self.store.ingest, rows, self.wall())
                if res.inserted or res.replaced:
                    stored.append((rows[0].seq, rows[-1].seq))
                    t.rows += res.inserted + res.replaced
                after = rows[-1].seq

    async def _page(self, t: Target, after: int, n: int) -> list[WireRow]:
        """The `n` rows after `after`, as the table's API gives them, each validated; RecoveryFailed if not."""
        if t.client is None:
            t.client = httpx.AsyncClient(
                verify=t.verify, trust_env=False, follow_redirects=False, timeout=self.timeout,
                limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
                headers={"Authorization": f"Bearer {t.key}", "Accept-Encoding": "identity",
                         "User-Agent": "tablectl-floor"})
        limit = n * (MAX_LEDGER_BYTES + 1)  # n messages of the broker's largest, a line each
        body = bytearray()
        try:
            # The whole answer within the timeout: httpx's own bounds each read, and a table that
            # trickles a byte a second would pass every one of them.
            async with asyncio.timeout(self.timeout):
                async with t.client.stream("GET", t.url + "/api/ledger", params={"after": after, "limit": n}) as resp:
                    if resp.status_code != 200:
                        raise RecoveryFailed(f"the table's API answered {resp.status_code}"
                                             f"{await _refusal(resp)}")
                    kind = resp.headers.get("content-type", "")
                    if not kind.startswith("application/x-ndjson"):
                        raise RecoveryFailed(f"the table's API answered {kind[:80]!r}, not application/x-ndjson")
                    if resp.headers.get("content-encoding", "identity") != "identity":
                        raise RecoveryFailed("the table's API answered compressed, which the floor did not ask for")
                    async for chunk in resp.aiter_raw():
                        body += chunk
                        if len(body) > limit:
                            raise RecoveryFailed(f"the table's API answered more than {limit} bytes for {n} rows")
        except TimeoutError:
            raise RecoveryFailed(f"no whole answer from the table's API within {self.timeout:g} s") from None
        except httpx.HTTPError as exc:
            raise RecoveryFailed(f"the table's API could not be reached: {type(exc).__name__}: {exc}"[:500]) from None
        return self._rows(t, bytes(body), after, n)

    @staticmethod
    def _rows(t: Target, body: bytes, after: int, n: int) -> list[WireRow]:
        """The answer's lines as rows, each through the broker rows' boundary; they must be rows after+1.. in order."""
        if not body:
            return []
        if not body.endswith(b"\n"):
            raise RecoveryFailed("the table's answer was cut short (its last line has no end)")
        rows = []
        for i, line in enumerate(body[:-1].split(b"\n"), 1):
            if i > n:
                raise RecoveryFailed(f"the table's API answered more than the {n} rows asked for")
            try:
                rows.append(parse_ledger(line, t.table))
            except BadMessage as exc:
                raise RecoveryFailed(f"line {i} of the table's answer: {exc}") from None
        seqs = [r.seq for r in rows]
        if seqs != list(range(after + 1, after + 1 + len(rows))):
            raise RecoveryFailed(f"the table's API answered rows {seqs[0]}..{seqs[-1]} out of order or not those "
                                 f"asked for (after {after})")
        return rows

    # ------------------------------------------------------------------ outcomes
    async def _failed(self, t: Target, why: str, stored: list[tuple[int, int]]) -> None:
        why = one_line(why)  # it may quote the table's answer: no newline of it reaches the log or the tile
        t.failures += 1
        delay = min(self.backoff_max, BACKOFF_FIRST * 2 ** min(t.failures - 1, 30))
        t.next_try = self.clock() + delay * random.uniform(0.8, 1.2)
        first = t.error is None
        t.error = why
        if first:  # one incident an outage: a table away for hours is not a line a retry
            await self.on_store(self._incident, t.table, "recovery_failed", f"asking the table's API ({t.url}) for "
                                f"the rows of its gaps failed: {why}{_stored_note(stored)}; the floor asks again "
                                f"with back-off (up to {self.backoff_max:g} s) and says when it answers")
        else:
            log.debug("table %s: recovery attempt %d failed: %s", t.table, t.failures, why)

    def _incident(self, table: str, kind: str, detail: str) -> None:
        with self.store.batch():
            self.store.incident(table, kind, detail)

    async def _succeeded(self, t: Target, stored: list[tuple[int, int]]) -> None:
        if t.error is not None:
            log.info("table %s: its API answers again (after %d failed attempts)", t.table, t.failures)
        t.failures, t.error, t.next_try = 0, None, 0.0
        # An answer that brought nothing new (the rows came through the broker meanwhile, or the table
        # still has the card face down): asked again only after a back-off, never every tick.
        t.quiet = 0 if stored else t.quiet + 1
        if t.quiet:
            t.next_try = self.clock() + min(self.backoff_max, BACKOFF_FIRST * 2 ** min(t.quiet - 1, 30))
        if stored:  # evidence of where these rows came from, beside the gap incident they close
            await self.on_store(self._incident, t.table, "recovered", f"rows {_ranges(stored)} fetched from the "
                                f"table's API ({t.url}) and stored, their MACs checked as the broker's rows are")


async def _direct(fn: Callable[..., Any], *args: Any) -> Any:
    """A store call made where it is asked (a Recovery not run by a floor: tests)."""
    return fn(*args)


async def _refusal(resp: httpx.Response) -> str:
    """A refusal's error code and message, if its (bounded) body is the API's error envelope."""
    body = bytearray()
    async for chunk in resp.aiter_raw():
        body += chunk
        if len(body) > MAX_ERROR_BYTES:
            return ""
    try:
        err = ErrorResponse.model_validate_json(bytes(body)).error
    except ValidationError:
        return ""
    return f" ({err.code[:64]}: {err.message[:200]})"


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges sorted, overlapping or adjacent ones joined."""
    out: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


def _ranges(spans: list[tuple[int, int]]) -> str:
    merged = _merge(spans)
    text = ", ".join(f"{a}..{b}" if a != b else str(a) for a, b in merged[:5])
    return text + (f" and {len(merged) - 5} more ranges" if len(merged) > 5 else "")


def _stored_note(stored: list[tuple[int, int]]) -> str:
    return f" (rows {_ranges(stored)} were stored before that)" if stored else ""
