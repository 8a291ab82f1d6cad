"""The table service: shoe to journal to engine to outputs, in one ordered path.

Every input the table hears, a message from the shoe, a person's action from
the API or the console, a clock tick, the fleet's outbox mark, is put into one
inbox, and one task, the *writer*, takes them out one at a time. Only the
writer touches the journal and the engine, so the journal's order is the order
applied, whatever number of clients post at once. Handling one input has no
``await`` inside: reads served on the same event loop (the API's handlers are
``async``) see the table between two inputs, never during one.

For each input the writer decides, writes, applies (`TableAuthority.submit`):
a card is journalled (committed) before the shoe is told it may forget it; a
person's action is checked by the engine first and only an accepted one
becomes an event, a refused one a refusal row. A storage fault (disk full,
read-only, I/O error) stops the table: one clear log line, the shoe locked, the
displays and bell told, `/healthz` failed at once, every waiting caller
answered, and the process exits with a documented status so systemd restarts
it once the fault is gone. Nothing is acknowledged that is not committed.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from datetime import time as dt_time
from decimal import Decimal
from typing import Any, AsyncIterator, Callable, Iterator, Protocol, runtime_checkable

import firmware_bridge as fb
from controller import events as ev
from controller.authority import ImportedJournal, TableAuthority
from controller.closed import ClosedCards
from controller.effects import Effect, RoundSettled
from controller.engine import BETWEEN_ROUNDS, IllegalAction, SnapshotError, Table
from controller.event_codec import dump_event
from controller.game import ShoeFigure
from controller.journal import (
    JournalEntry,
    JournalError,
    JournalKey,
    JournalKeyError,
    JournalReader,
    Rotation,
    StorageError,
    journal_exists,
)
from controller.rules import build_rules

from .config import Settings
from .zones import zone_of
from .outputs import Output, ShoeLockOutput
from .shoe_intake import (
    CLEARABLE_FAULTS,
    Ack,
    CountReported,
    LinkState,
    Remember,
    Say,
    ShoeMemory,
    Step,
    Submit,
    SyncGate,
    TableSide,
    codes,
    intake,
)

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The wall clock, in UTC (the only place the service reads it)."""
    return datetime.now(timezone.utc)


@runtime_checkable
class ShoeLinkPort(Protocol):
    """What the service needs of its link to the shoe: the port it is given (`firmware_bridge.ShoeLink` on a
    serial port or pty; the in-memory wire of tests.support.inprocess; the fleet simulator's shoe).

    Messages come in through `messages`; the service's answers go out through the rest, each a
    non-blocking command (the link sends it when it can): the gate shut or opened, and the shoe told it
    may forget a card event now stored. A link may also count what crossed it (`stats`, a
    `firmware_bridge.LinkStats`): the metrics show it where there is one; the service needs none.
    """

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Open the link; its messages are delivered in `loop` (default: the running one)."""

    def stop(self) -> None:
        """Close the link: `messages` ends."""

    def messages(self) -> AsyncIterator[fb.ShoeMessage]:
        """Every message from the shoe, in order, until the link is stopped."""
        ...

    def ack(self, shoe_id: str, position: int) -> None:
        """Card event `position` of `shoe_id` is journalled: the shoe may forget it and every one before it."""

    def lock(self) -> None:
        """Hold the shoe's card gate shut."""

    def unlock(self) -> None:
        """Release the shoe's card gate."""


class TableStopped(Exception):
    """The table has stopped (its journal failed, or it is shutting down): nothing more is taken."""


@dataclass(slots=True)
class StreamItem:
    """One entry of the live event stream: the journal sequence and what happened."""

    seq: int
    event: dict[str, Any]
    phase: str
    effects: list[dict[str, Any]]
    closed_card: bool = False  # the event's card is closed (not yet turned): hidden below supervisor


@dataclass
class Health:
    """What /healthz reports."""

    link_up: bool = False
    journal_ok: bool = True
    engine_ok: bool = True
    last_error: str | None = None
    outputs_failed: dict[str, str] = field(default_factory=dict)


DEFAULT_SUBSCRIBER_QUEUE = 1_000  # items a subscriber may fall behind before it is let go
# Ledger rows a catch-up replays at most (from the snapshot it starts at to the head): about 1,100 rounds of
# blackjack; a reader further behind reloads the table instead (`CatchUp`).
CATCH_UP_ROWS = 20_000
CATCH_UP_CHUNK = 256  # items rebuilt in one go in the worker thread


class SubscriberLagged(Exception):
    """A subscriber fell its queue's length behind the table and was let go (what it had came first).

    The table never waits for a reader: a slow one is dropped rather than slowing the writer, or
    being handed a stream with a hole in it. Subscribe again (and catch up from the journal:
    `TableService.catch_up`, or its rows) to go on.
    """


class Subscription:
    """Every `StreamItem` committed after it was made, in order: ``async for item in subscription``.

    Made by `TableService.subscribe`, in aiomqtt's style: ``async with service.subscribe() as items:
    async for item in items: ...``. Its queue is bounded (`maxsize`); a subscriber that lets it
    fill is let go: its iteration raises `SubscriberLagged` once it has taken what was queued.
    Leaving the ``async with`` block (or `close`) ends it; the iteration then stops.
    """

    def __init__(self, subscribers: set[Subscription], maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"a subscription needs room for an item at least, got maxsize={maxsize}")
        self.maxsize = maxsize
        self.lagged = False
        self._subscribers = subscribers
        self._items: deque[StreamItem] = deque()
        self._ready = asyncio.Event()
        self._closed = False
        subscribers.add(self)

    def offer(self, item: StreamItem) -> None:
        """The service hands over one committed item (never blocks): queued, or the subscriber let go."""
        if self._closed:
            return
        if len(self._items) >= self.maxsize:
            self.lagged = True
            self.close()
            return
        self._items.append(item)
        self._ready.set()

    def close(self) -> None:
        """Stop hearing the table; the iteration ends once what was queued is taken."""
        self._closed = True
        self._subscribers.discard(self)
        self._ready.set()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> StreamItem:
        while not self._items:
            if self.lagged:
                raise SubscriberLagged(f"a subscriber fell {self.maxsize} items behind the table and was let go")
            if self._closed:
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        return self._items.popleft()

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class CatchUp:
    """The stream items a reader missed, rebuilt from the journal exactly as they were streamed.

    The service keeps no copy of what it streamed (10,000 items of it were 12 MiB of a table's RSS):
    the journal holds every input, and the engine, replaying them from the newest snapshot at or before
    `after`, gives each its phase, effects and whether its card was closed, as the writer did. It reads
    through a read-only connection of its own and does the work in a worker thread (`open` and `chunk`
    block: call them with `asyncio.to_thread`), so the writer never waits for a reader coming back.

    The journal keeps every snapshot (`Journal.save_snapshot`), so the replay starts at most
    `snapshot_every_rounds` rounds before `after`. A reader with more than `CATCH_UP_ROWS` rows to
    replay is told to reload the table (`open` returns False).
    """

    def __init__(self, reader: Callable[[], JournalReader], after: int, head: int, masked: frozenset[int]) -> None:
        self.after = after
        self.head = head
        self._masked = masked  # closed now: masked whatever the replay says (a row is closed at its commit first)
        self._open_reader = reader
        self._reader: JournalReader | None = None
        self._entries: Iterator[JournalEntry] | None = None
        self._table: Table | None = None
        self._closed = ClosedCards()
        self._lock = threading.Lock()  # held by the worker thread while it reads
        self._ended = False
        self.replayed = 0  # rows applied, those before `after` included
        self.failed = False  # the rows could not all be rebuilt: the reader is to reload the table

    def open(self) -> bool:
        """Find where to replay from (blocking); False when the journal cannot give what was missed."""
        with self._lock:
            try:
                return self._open()
            finally:
                if self._ended:
                    self._release()

    def _open(self) -> bool:
        if self._ended:
            return False
        if self.after >= self.head:
            return True
        try:
            reader = self._reader = self._open_reader()
            start, table = 0, Table(build_rules())  # (the journal's first row sets its rules)
            snapshot = reader.latest_snapshot(at_most=self.after)
            if snapshot is not None:
                try:
                    table, start = Table.from_snapshot(snapshot[1]), snapshot[0]
                except SnapshotError:
                    pass
        except JournalError as exc:
            log.warning("a reader coming back after row %d is told to reload the table: %s", self.after, exc)
            return False
        if self.head - start > CATCH_UP_ROWS or (reader.base > 1 and start < reader.base):  # (before the live file)
            return False
        self._table, self._entries = table, reader.entries(start)
        return True

    def chunk(self, size: int = CATCH_UP_CHUNK) -> list[StreamItem]:
        """The next items, at most `size` (blocking); an empty list once the head is reached."""
        with self._lock:
            out = self._chunk(size)
            if self._ended:
                self._release()
            return out

    def _chunk(self, size: int) -> list[StreamItem]:
        table, entries = self._table, self._entries
        if table is None or entries is None:
            return []
        out: list[StreamItem] = []
        try:
            for entry in entries:
                if entry.seq > self.head:
                    break
                effects = table.apply(entry.event)
                self.replayed += 1
                seq = entry.seq
                self._closed.track(seq, effects)
                if seq > self.after:
                    out.append(StreamItem(seq, dump_event(entry.event), table.phase.value,
                                          [_effect_dict(e) for e in effects],
                                          self._closed.is_closed(seq) or seq in self._masked))
                    if len(out) >= size:
                        return out
        except (JournalError, IllegalAction) as exc:  # the service replayed these rows itself: never expected
            log.error("the stream after row %d cannot be rebuilt from the journal: %s", self.after, exc)
            self.failed = True
        self._ended = True  # at the head: what follows comes live
        return out

    def close(self) -> None:
        """End the catch-up and release its read connection (at once, or as the worker thread finishes)."""
        self._ended = True
        if self._lock.acquire(blocking=False):  # else the worker thread reads still: it releases it after
            try:
                self._release()
            finally:
                self._lock.release()

    def _release(self) -> None:
        self._table = self._entries = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None


@dataclass(slots=True)
class _Act:
    """A person's action waiting in the inbox; `verdict` gets (seq, phase) or the refusal."""

    event: ev.Event
    actor: str
    verdict: asyncio.Future[tuple[int, str]] | None


@dataclass(slots=True)
class _OutboxMark:
    """The fleet broker has acknowledged rows up to `seq`: remember it in the journal."""

    name: str
    seq: int
    done: asyncio.Future[None]


class _Tick:
    """The clock moved."""


class _Stop:
    """The writer is to stop once what was taken in before it is handled."""


_TICK = _Tick()
_STOP = _Stop()
_Input = _Act | _Tick | _OutboxMark | fb.ShoeMessage  # what the writer handles
MAX_BATCH = 64  # inputs committed together at most (one fsync for all)


def _call_hooks(hooks: list[Callable[..., object]], *args: object) -> None:
    """Call each output's hook; one that fails is logged and never stops the table or the other outputs."""
    for hook in hooks:
        try:
            hook(*args)
        except Exception:
            log.exception("output %s failed", type(getattr(hook, "__self__", hook)).__name__)


def _settle(future: "asyncio.Future[Any]", outcome: object) -> None:
    """Answer a waiting caller (an exception is raised in it), unless it has gone."""
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


def journal_key(settings: Settings) -> JournalKey:
    """The table's journal key: loaded, or made anew only for a journal that does not exist yet."""
    path = settings.journal.key_path
    journal = settings.journal.path
    if path.exists():
        return JournalKey.load(path)
    if journal_exists(journal):
        raise JournalKeyError(f"the journal {journal} exists but its key file {path} is missing: without the "
                              "key nothing in the journal can be trusted; put the key back (never make a new one "
                              "for an old journal)")
    try:
        key = JournalKey.generate(path)
    except JournalKeyError as exc:
        raise JournalKeyError(f"{exc}: a new table's key is made by deploy/install.sh, or by `tablectl journal init "
                              "--config FILE` run as the service's user") from None
    log.info("made a new journal key at %s for the new journal %s", path, journal)
    return key


def journal_rotation(settings: Settings) -> Rotation:
    """When the table's journal is archived: the gaming day's start (`[table] gaming_day_starts`, the one the
    multiple transaction log counts by) in `[table] time_zone` (UTC if none), and `[journal] rotate_mb`."""
    hours, minutes = (int(x) for x in settings.table.gaming_day_starts.split(":"))
    zone = zone_of(settings.table.time_zone) if settings.table.time_zone else timezone.utc
    return Rotation(zone=zone, starts=dt_time(hours, minutes), max_bytes=settings.journal.rotate_mb * 1024 * 1024)


class TableService:
    """The single authority at run time: owns the journal, the engine, the shoe link and the outputs."""

    def __init__(
        self,
        settings: Settings,
        *,
        link: ShoeLinkPort | None = None,
        outputs: list[Output] | None = None,
        clock: Clock = utc_now,
        key: JournalKey | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.authority = TableAuthority.open(
            settings.journal.path, key or journal_key(settings), settings.table.rules(),
            settings.journal.snapshot_every_rounds, now=clock(),
            snapshot_every_rows=settings.journal.snapshot_every_rows)
        self.rotation = journal_rotation(settings)
        imported = self.authority.table.imported
        if imported is not None:
            self.authority.journal.close()
            raise ImportedJournal(
                f"{settings.journal.path} was made by `tablectl journal import` from {imported['source']} at "
                f"{imported['at']}: it is evidence brought in from elsewhere, not this table's journal, and the "
                "table never writes to it (give [journal] path a journal of the table's own)")
        journal = self.authority.journal
        last = journal.last_card()
        # The last card stored, and what each position of the shoe in play held (to tell a resent card
        # from a different one): the shoe intake's memory, carried across restarts by the journal.
        self.memory = ShoeMemory(fb.StoredPosition(*last), codes(journal.shoe_cards(last[0]))) if last else ShoeMemory()
        self.link: ShoeLinkPort = link if link is not None else fb.ShoeLink(
            settings.shoe.port, codec=settings.shoe.codec, baudrate=settings.shoe.baudrate, resume_from=self.stored
        )
        self.health = Health()
        self.lock_output = ShoeLockOutput(self.link.lock, self.link.unlock)
        self._outputs: list[Output] = []
        # The outputs' optional hooks, gathered once as each output is added (one is called per card).
        self._published_hooks: list[Callable[[ev.Event, float], object]] = []
        self._committed_hooks: list[Callable[[float], object]] = []
        self._subscriptions: set[Subscription] = set()
        self.last_status: fb.Status | None = None
        self.cards_received = 0
        self.duplicates = 0
        self.failure: JournalError | None = None
        self._inbox: asyncio.Queue[_Input | _Stop] = asyncio.Queue()
        self._later: list[Callable[[], None]] | None = None  # what waits for the current commit
        self._stop: asyncio.Event | None = None
        for output in (self.lock_output, *(outputs or [])):
            self.add_output(output)

    @property
    def table(self) -> Table:
        """The engine's state (read only: change it through the inbox)."""
        return self.authority.table

    # ------------------------------------------------------------------ who hears the table
    def add_output(self, output: Output) -> None:
        """Hear every applied input, synchronously and in order, after its commit (the displays, the bell,
        the metrics): `output.handle(effects, table)`, and where the output has them, `committed(seconds)`
        for each commit, `published(event, seconds)` once every output and subscriber has an input, and
        `stopped(reason)` if the table stops. Outputs are called in the order they were added."""
        self._outputs.append(output)
        published = getattr(output, "published", None)
        if published is not None:
            self._published_hooks.append(published)
        committed = getattr(output, "committed", None)
        if committed is not None:
            self._committed_hooks.append(committed)
            # The journal times each commit with the service's clock (it reads none), once an output times it.
            self.authority.journal.commit_timer = time.perf_counter
            self.authority.journal.on_commit = self._committed

    @property
    def outputs(self) -> tuple[Output, ...]:
        """The outputs, in the order they hear the table (the shoe's gate first); add one with `add_output`."""
        return tuple(self._outputs)

    def subscribe(self, *, maxsize: int = DEFAULT_SUBSCRIBER_QUEUE) -> Subscription:
        """Every input committed from now on, as a `StreamItem`, to an async reader (the live stream, the
        fleet's publisher): ``async with service.subscribe() as items: async for item in items: ...``.

        The reader never holds the table up: one that falls `maxsize` items behind is let go (its
        iteration raises `SubscriberLagged` after what it had), and may subscribe again.
        """
        return Subscription(self._subscriptions, maxsize)

    # ------------------------------------------------------------------ the inbox: every way in
    async def act(self, event: ev.Event, actor: str) -> tuple[int, str]:
        """A person's action: returns (seq, phase) once journalled and applied; IllegalAction if refused.

        Raises TableStopped when the table has stopped and takes nothing more.
        """
        if self.failure is not None:
            raise TableStopped(self._stopped_reason())
        verdict: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait(_Act(event, actor, verdict))
        return await verdict

    def post(self, event: ev.Event, actor: str) -> None:
        """A person's action whose verdict nobody waits for (the console: a refusal is logged)."""
        self._inbox.put_nowait(_Act(event, actor, None))

    def feed(self, message: fb.ShoeMessage) -> None:
        """A message from the shoe (the link's pump, or a simulated shoe) into the ordered path."""
        self._inbox.put_nowait(message)

    async def record_outbox(self, name: str, seq: int) -> None:
        """Remember durably that the named outbox (the fleet broker) has acknowledged rows up to `seq`."""
        if self.failure is not None:
            raise TableStopped(self._stopped_reason())
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait(_OutboxMark(name, seq, done))
        await done

    def head(self) -> tuple[int, str]:
        """The journal's last row: (seq, MAC). A copy taken off the table shows later whether rows were cut."""
        return self.authority.journal.head()

    def reader(self) -> JournalReader:
        """A read-only connection to the journal, for history and exports (never the writer's)."""
        return JournalReader(self.settings.journal.path, self.authority.journal.key, beside_writer=True)

    def masked_seqs(self) -> set[int]:
        """Rows holding a closed card not yet turned: hidden from every role below supervisor (controller.closed)."""
        return set(self.authority.closed_rows)

    def catch_up(self, after: int) -> CatchUp:
        """What a reader that comes back missed: every `StreamItem` after row `after` up to the head now, rebuilt
        from the journal (`CatchUp`). Call it in the event loop, with no ``await`` between it and the
        `subscribe` whose items follow it, so that nothing falls between the two."""
        return CatchUp(self.reader, after, self.head()[0], frozenset(self.authority.closed_rows))

    # ------------------------------------------------------------------ the writer
    async def _writer(self) -> None:
        while True:
            batch = [await self._inbox.get()]
            # Group commit: whatever else waits is decided, written and applied in order inside
            # the same transaction, so one fsync serves them all; nothing is answered, acked or
            # shown before that commit.
            while len(batch) < MAX_BATCH and not self._inbox.empty():
                batch.append(self._inbox.get_nowait())
            stop = any(isinstance(item, _Stop) for item in batch)
            inputs = [item for item in batch if not isinstance(item, _Stop)]
            if self.failure is not None:
                for item in inputs:
                    self._refuse_stopped(item)
            elif inputs:
                self._write_batch(inputs)
            if stop:
                return

    def _write_batch(self, batch: list[_Input]) -> None:
        try:  # (between transactions: the first input of a gaming day, or past the size, starts a new file)
            self.authority.rotate_if_due(self.rotation, self.clock())
        except JournalError as exc:
            self._fail(exc, batch)
            return
        later: list[Callable[[], None]] = []
        self._later = later
        try:
            with self.authority.journal.transaction():
                for item in batch:
                    self._handle(item)
        except JournalError as exc:
            self._fail(exc, batch)
            return
        except Exception as exc:  # a bug in the engine or an output: stop rather than guess
            log.exception("the table cannot handle %s", ", ".join(type(i).__name__ for i in batch))
            self.health.engine_ok = False
            self._fail(JournalError(f"internal error: {exc!r}"), batch)
            return
        finally:
            self._later = None
        for done in later:  # committed: now answer, acknowledge and show, in order
            try:
                done()
            except Exception:  # one answer that cannot be given must not stop the others, nor the writer
                log.exception("after a commit")

    def _after_commit(self, done: Callable[[], None]) -> None:
        """Do `done` once the transaction holding the current input has committed."""
        if self._later is None:
            done()
        else:
            self._later.append(done)

    def _handle(self, item: _Input) -> None:
        match item:
            case _Act():
                self._handle_act(item)
            case _Tick():
                if self.table.reservations:  # only time-driven rules need ticks in the journal
                    self._submit(ev.Tick(), "clock")
            case _OutboxMark():
                mark = item
                self.authority.journal.set_outbox(mark.name, mark.seq)
                self._after_commit(lambda: _settle(mark.done, None))
            case _:
                self.on_shoe_message(item)

    def _handle_act(self, act: _Act) -> None:
        try:
            seq, _ = self._submit(act.event, act.actor)
        except IllegalAction as exc:
            if act.verdict is None:
                log.info("%s refused for %s: %s (%s)", act.event.type, act.actor, exc.message, exc.code)
            else:
                verdict, refused = act.verdict, exc  # (`exc` itself is unbound once the except block ends)
                self._after_commit(lambda: _settle(verdict, refused))  # its refusal row is committed first
            return
        if act.verdict is not None:
            verdict, answer = act.verdict, (seq, self.table.phase.value)
            self._after_commit(lambda: _settle(verdict, answer))

    def _submit(self, event: ev.Event, actor: str | None = None, *, shoe_id: str | None = None,
                position: int | None = None) -> tuple[int, list[Effect]]:
        """Decide, journal and apply one input; it is published once committed (the writer's only way in)."""
        start = time.perf_counter()  # metrics: card-to-display latency starts here
        if actor is not None:
            event.actor = actor
        now = self.clock()
        if isinstance(event, ev.BuyIn):
            self._stamp_buy_in(event, now)
        elif isinstance(event, (ev.Closer, ev.Drop)):
            # The tolerance in force, journalled with the count (issue 41): a replay judges it by the same rule.
            event.tolerance = self.settings.inventory.tolerance_amount()
        try:
            seq, effects = self.authority.submit(event, now, shoe_id=shoe_id, position=position)
        except IllegalAction as exc:
            log.info("refused %s from %s: %s (%s)", event.type, event.actor, exc.message, exc.code)
            raise
        item = StreamItem(seq, dump_event(event), self.table.phase.value,
                          [_effect_dict(e) for e in effects], self.authority.closed.is_closed(seq))
        self._after_commit(lambda: self._publish(item, effects, event, start))
        return seq, effects

    def _stamp_buy_in(self, event: ev.BuyIn, now: datetime) -> None:
        """The service's part of a buy-in (issue 41): its gaming day by the table's clock and the MTL's thresholds
        in force, journalled with it (a person's values are refused at the API)."""
        event.gaming_day = self.settings.table.gaming_day(event.at or now)
        mtl = self.settings.mtl
        event.mtl_notice = Decimal(mtl.notice) if mtl.notice > 0 else None
        event.mtl_action = Decimal(mtl.action) if mtl.action > 0 else None

    def _publish(self, item: StreamItem, effects: list[Effect], event: ev.Event, start: float) -> None:
        table = self.table
        for output in self._outputs:
            try:
                output.handle(effects, table)
            except Exception as exc:  # an output that fails never stops the table
                name = type(output).__name__
                if name not in self.health.outputs_failed:
                    log.exception("output %s failed", name)
                self.health.outputs_failed[name] = str(exc)
        for subscription in list(self._subscriptions):
            subscription.offer(item)
        if self._published_hooks:  # the metrics' card-to-display latency: every output and reader has it now
            _call_hooks(self._published_hooks, event, time.perf_counter() - start)

    def _committed(self, seconds: float) -> None:
        """The journal committed a write that took `seconds`: tell the outputs that time commits."""
        _call_hooks(self._committed_hooks, seconds)

    # ------------------------------------------------------------------ stopping on a fault
    def _fail(self, exc: JournalError, batch: list[_Input]) -> None:
        """The journal failed: stop taking anything, say so everywhere, and stop the process."""
        self.failure = exc
        self.health.journal_ok = False
        reason = self._stopped_reason()
        self.health.last_error = reason
        log.error("%s; the table stops (nothing after this was acknowledged)", exc)
        for output in self.outputs:
            stopped = getattr(output, "stopped", None)
            if stopped is not None:
                try:
                    stopped(reason)
                except Exception:
                    log.exception("output %s could not show that the table stopped", type(output).__name__)
        for item in batch:
            self._refuse_stopped(item)
        while not self._inbox.empty():
            self._refuse_stopped(self._inbox.get_nowait())
        if self._stop is not None:
            self._stop.set()

    def _stopped_reason(self) -> str:
        exc = self.failure
        if isinstance(exc, StorageError):
            return f"{exc.cause} ({self.settings.journal.path}): the table has stopped"
        return f"the table has stopped: {exc}"

    def _refuse_stopped(self, item: _Input | _Stop) -> None:
        future = item.verdict if isinstance(item, _Act) else item.done if isinstance(item, _OutboxMark) else None
        if future is not None and not future.done():
            future.set_exception(TableStopped(self._stopped_reason()))

    # ------------------------------------------------------------------ the shoe
    def on_shoe_message(self, msg: fb.ShoeMessage) -> None:
        """Turn one message from the shoe link into journalled inputs (and acks). Writer only.

        What the message means is decided by the pure intake (`tablectl.shoe_intake`); here its steps
        are carried out, in order."""
        if isinstance(msg, fb.Card):
            self.cards_received += 1
        elif isinstance(msg, fb.Status):
            self.last_status = msg
        for step in intake(msg, self._table_side(), self.memory):
            self._apply(step, card=isinstance(msg, fb.Card))

    @property
    def stored(self) -> fb.StoredPosition | None:
        """The last card event of the shoe that the journal holds (where the shoe's link resumes)."""
        return self.memory.stored

    def _table_side(self) -> TableSide:
        """What the shoe intake needs to know of the table now."""
        table = self.table
        shoe = table.shoe
        return TableSide(
            between_rounds=table.phase in BETWEEN_ROUNDS, in_round=table.round is not None,
            shoe_id=shoe.shoe_id if shoe is not None else None, shoe_spent=shoe is not None and shoe.spent,
            cut_card_out=shoe is not None and shoe.cut_card_out,
            has_cut_card=ShoeFigure.CUT_CARD in table.game.shoe_figures,  # a club pack is dealt to its bottom card
            faults_active=frozenset(k for k in CLEARABLE_FAULTS if table.shoe_fault_active(k)))

    def _apply(self, step: Step, *, card: bool) -> None:
        """Carry out one step of the shoe intake (`card`: the message was a card, for the counters)."""
        match step:
            case Submit():
                try:
                    self._submit(step.event, step.actor, shoe_id=step.shoe_id, position=step.position)
                except IllegalAction as exc:
                    if step.refused is None:
                        raise
                    log.warning("%s: %s", step.refused, exc.message)
            case Ack(resent=True):
                if card:
                    self.duplicates += 1
                self.link.ack(step.shoe_id, step.position)  # stored already: the ack was lost
            case Ack():
                ack = step
                self._after_commit(lambda: self.link.ack(ack.shoe_id, ack.position))  # never before its commit
            case Remember():
                self.memory.remember(step.shoe_id, step.position, step.code)
            case CountReported():
                self.memory.count_reported = (step.shoe_id, step.believed)
            case LinkState():
                self.health.link_up = step.up
            case SyncGate():
                self._after_commit(lambda: self.lock_output.sync(self.table))
            case Say():
                log.log(step.level, "%s", step.text)

    # ------------------------------------------------------------------ running
    async def run(self, stop: asyncio.Event, *, ready: Callable[[], None] | None = None) -> None:
        """Run until `stop` is set (or the journal fails): the writer, the link, the clock ticks."""
        loop = asyncio.get_running_loop()
        self._stop = stop
        self.link.start(loop)
        self.lock_output.sync(self.table)
        for output in self.outputs:  # show the restored state at once
            try:
                output.handle([], self.table)
            except Exception:
                log.exception("output %s failed at startup", type(output).__name__)
        writer = asyncio.create_task(self._writer(), name="writer")
        writer.add_done_callback(self._writer_ended)
        tasks = [asyncio.create_task(self._pump_link(), name="shoe-link"),
                 asyncio.create_task(self._ticker(), name="clock")]
        if ready is not None:
            ready()
        try:
            await stop.wait()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._inbox.put_nowait(_STOP)  # what was taken in before the stop is still handled
            await asyncio.gather(writer, return_exceptions=True)
            while not self._inbox.empty():
                item = self._inbox.get_nowait()
                future = item.verdict if isinstance(item, _Act) else item.done if isinstance(item, _OutboxMark) else None
                if future is not None and not future.done():
                    future.set_exception(TableStopped("the table is stopping"))
            self.link.stop()
            self.authority.journal.close()

    def _writer_ended(self, task: "asyncio.Task[None]") -> None:
        # The writer ends only when told to stop; anything else stops the table, loudly, never a hang.
        if task.cancelled() or task.exception() is None:
            return
        exc = task.exception()
        log.error("the writer stopped: %r", exc)
        self.health.engine_ok = False
        self._fail(JournalError(f"internal error: the writer stopped ({exc!r})"), [])

    async def _pump_link(self) -> None:
        async for msg in self.link.messages():
            self._inbox.put_nowait(msg)

    async def _ticker(self) -> None:
        period = self.settings.clock.tick_seconds
        while True:
            await asyncio.sleep(period)
            self._inbox.put_nowait(_TICK)


def _effect_dict(effect: Effect) -> dict[str, Any]:
    if isinstance(effect, RoundSettled):
        return {"effect": "RoundSettled", "result": effect.result}
    data: dict[str, Any] = {"effect": type(effect).__name__}
    for name in getattr(effect, "__slots__", ()):
        value = getattr(effect, name)
        if hasattr(value, "as_dict"):
            value = value.as_dict()
        elif hasattr(value, "value"):
            value = value.value
        data[name] = value
    return data

