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
import json
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

import firmware_bridge as fb
from controller import events as ev
from controller.authority import TableAuthority
from controller.cards import BadCard, parse_card
from controller.effects import Effect, RoundSettled
from controller.engine import BETWEEN_ROUNDS, IllegalAction, Table
from controller.journal import JournalError, JournalKey, JournalKeyError, JournalReader, StorageError, sidecars

from .config import Settings
from .outputs import Output, ShoeLockOutput

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The wall clock, in UTC (the only place the service reads it)."""
    return datetime.now(timezone.utc)


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


_TICK = _Tick()
_STOP = object()
MAX_BATCH = 64  # inputs committed together at most (one fsync for all)


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
    if any(p.exists() for p in (journal, *sidecars(journal))):
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


class TableService:
    """The single authority at run time: owns the journal, the engine, the shoe link and the outputs."""

    def __init__(
        self,
        settings: Settings,
        *,
        link: Any | None = None,
        outputs: list[Output] | None = None,
        clock: Clock = utc_now,
        key: JournalKey | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.authority = TableAuthority.open(
            settings.journal.path, key or journal_key(settings), settings.table.rules(),
            settings.journal.snapshot_every_rounds, now=clock())
        journal = self.authority.journal
        last = journal.last_card()
        self.stored: fb.StoredPosition | None = fb.StoredPosition(*last) if last else None
        # What each position of the shoe in play held, to tell a resent card from a different one.
        self._shoe_cards: dict[int, str] = _codes(journal.shoe_cards(last[0])) if last else {}
        self.link = link if link is not None else fb.ShoeLink(
            settings.shoe.port, codec=settings.shoe.codec, baudrate=settings.shoe.baudrate, resume_from=self.stored
        )
        self.health = Health()
        self.lock_output = ShoeLockOutput(self.link.lock, self.link.unlock)
        self.outputs: list[Output] = [self.lock_output, *(outputs or [])]
        self.recent: deque[StreamItem] = deque(maxlen=10_000)
        self.subscribers: set[asyncio.Queue[StreamItem]] = set()
        self.commit_listeners: list[Callable[[int], None]] = []
        self.last_status: fb.Status | None = None
        self.cards_received = 0
        self.duplicates = 0
        self.failure: JournalError | None = None
        self._count_reported: tuple[str, int] | None = None  # the last shoe count reported missing cards
        self._inbox: asyncio.Queue[object] = asyncio.Queue()
        self._later: list[Callable[[], None]] | None = None  # what waits for the current commit
        self._stop: asyncio.Event | None = None
        # Metrics hook (tablectl.metrics): called with the event and the seconds from submit to published.
        self.observe: Callable[[ev.Event, float], None] | None = None

    @property
    def table(self) -> Table:
        """The engine's state (read only: change it through the inbox)."""
        return self.authority.table

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

    # ------------------------------------------------------------------ the writer
    async def _writer(self) -> None:
        while True:
            batch = [await self._inbox.get()]
            # Group commit: whatever else waits is decided, written and applied in order inside
            # the same transaction, so one fsync serves them all; nothing is answered, acked or
            # shown before that commit.
            while len(batch) < MAX_BATCH and not self._inbox.empty():
                batch.append(self._inbox.get_nowait())
            stop = _STOP in batch
            batch = [item for item in batch if item is not _STOP]
            if self.failure is not None:
                for item in batch:
                    self._refuse_stopped(item)
            elif batch:
                self._write_batch(batch)
            if stop:
                return

    def _write_batch(self, batch: list[object]) -> None:
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

    def _handle(self, item: object) -> None:
        # type(item) itself, not a local holding it: mypy narrows `item` only on the former.
        if type(item) is _Act:
            self._handle_act(item)
        elif type(item) is _Tick:
            if self.table.reservations:  # only time-driven rules need ticks in the journal
                self._submit(ev.Tick(), "clock")
        elif type(item) is _OutboxMark:
            mark = item
            self.authority.journal.set_outbox(mark.name, mark.seq)
            self._after_commit(lambda: _settle(mark.done, None))
        else:
            self.on_shoe_message(item)  # type: ignore[arg-type]  # the inbox's other items are shoe messages

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
        try:
            seq, effects = self.authority.submit(event, self.clock(), shoe_id=shoe_id, position=position)
        except IllegalAction as exc:
            log.info("refused %s from %s: %s (%s)", event.type, event.actor, exc.message, exc.code)
            raise
        item = StreamItem(seq, ev.dump_event(event), self.table.phase.value,
                          [_effect_dict(e) for e in effects], self.authority.closed.is_closed(seq))
        self._after_commit(lambda: self._publish(item, effects, event, start))
        return seq, effects

    def _publish(self, item: StreamItem, effects: list[Effect], event: ev.Event, start: float) -> None:
        table = self.table
        for output in self.outputs:
            try:
                output.handle(effects, table)
            except Exception as exc:  # an output that fails never stops the table
                name = type(output).__name__
                if name not in self.health.outputs_failed:
                    log.exception("output %s failed", name)
                self.health.outputs_failed[name] = str(exc)
        self.recent.append(item)
        for queue in list(self.subscribers):
            queue.put_nowait(item)
        for listener in self.commit_listeners:
            try:
                listener(item.seq)
            except Exception:
                log.exception("commit listener failed")
        if self.observe is not None:  # metrics: every output and the live stream have it now
            self.observe(event, time.perf_counter() - start)

    # ------------------------------------------------------------------ stopping on a fault
    def _fail(self, exc: JournalError, batch: list[object]) -> None:
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

    def _refuse_stopped(self, item: object) -> None:
        future = item.verdict if isinstance(item, _Act) else item.done if isinstance(item, _OutboxMark) else None
        if future is not None and not future.done():
            future.set_exception(TableStopped(self._stopped_reason()))

    # ------------------------------------------------------------------ the shoe
    def on_shoe_message(self, msg: fb.ShoeMessage) -> None:
        """Turn one message from the shoe link into journalled inputs (and acks). Writer only."""
        # type(msg) itself, not a local holding it: mypy narrows `msg` only on the former.
        if type(msg) is fb.Card:
            self._on_card(msg)
        elif type(msg) is fb.Status:
            self.last_status = msg
            self._reconcile(msg)
            self._clear_faults(msg)
        elif type(msg) is fb.LinkUp:
            self.health.link_up = True
            log.info("shoe link up: %s", msg.hello)
            self._submit(ev.LinkUp(), "shoe")
            self._after_commit(lambda: self.lock_output.sync(self.table))
        elif type(msg) is fb.LinkDown:
            self.health.link_up = False
            log.warning("shoe link down: %s (%s)", msg.reason, msg.detail)
            self._submit(ev.LinkDown(reason=msg.reason), "shoe")
        elif type(msg) is fb.ShoeLoaded:
            shoe = self.table.shoe
            if shoe is not None and shoe.shoe_id == msg.shoe_id:
                return  # told again after a reconnect
            try:
                # The shoe's own count of the cards it loaded: the engine checks it against the pack.
                self._submit(ev.Shuffle(shoe_id=msg.shoe_id, card_count=msg.card_count), "shoe")
            except IllegalAction as exc:
                log.warning("shoe %s loaded but the table refused the shuffle: %s", msg.shoe_id, exc.message)
        elif type(msg) is fb.CutCard:
            shoe = self.table.shoe
            if shoe is None or not shoe.cut_card_out:
                self._submit(ev.CutCardOut(position=msg.position), "shoe")
        elif type(msg) is fb.Fault:
            self._on_fault(msg)
        elif type(msg) is fb.Button:
            self._submit(ev.CallPit(), f"shoe button {msg.name}")

    def _clear_faults(self, status: fb.Status) -> None:
        """The shoe's heartbeat says a jam or an open lid is gone: journal it, so the cause ends at once
        and the gate opens by itself (the alert stays on the board until a supervisor has seen it)."""
        for kind, standing in ((fb.FaultKind.JAM, status.jammed), (fb.FaultKind.LID_OPEN, status.lid_open)):
            if not standing and self.table.shoe_fault_active(kind.value):
                log.info("shoe reports its %s gone", kind.value)
                self._submit(ev.ShoeFaultCleared(kind=kind.value), "shoe status")  # its ShoeLock opens the gate

    def _reconcile(self, status: fb.Status) -> None:
        """Catch up from the shoe's heartbeat on a shuffle or cut card whose own message was lost.

        Only card events are held by the shoe until the journal has them; a SHOE_LOADED or
        CUT_CARD delivered just before a crash is gone, but the shoe's STATUS still says it.
        """
        table = self.table
        shoe = table.shoe
        if not status.shoe_id:
            return
        replaces_spent = shoe is not None and shoe.spent and table.round is not None
        if (shoe is None or shoe.shoe_id != status.shoe_id) and status.position == 0 \
                and (table.phase in BETWEEN_ROUNDS or replaces_spent):
            log.info("shoe %s is loaded (its STATUS came before, or instead of, SHOE_LOADED): recording the shuffle",
                     status.shoe_id)
            try:
                self._submit(ev.Shuffle(shoe_id=status.shoe_id), "shoe status")
            except IllegalAction as exc:
                log.warning("the table refused the shuffle of shoe %s: %s", status.shoe_id, exc.message)
        elif shoe is not None and shoe.shoe_id == status.shoe_id and status.cut_card_out and not shoe.cut_card_out \
                and table.rules.game == "blackjack":  # a club pack is dealt to its bottom card: no cut card to catch up
            log.warning("the cut card of shoe %s is out but its CUT_CARD was not journalled: recording it now",
                        status.shoe_id)
            self._submit(ev.CutCardOut(), "shoe status")
        self._check_count(status)

    def _check_count(self, status: fb.Status) -> None:
        """The shoe's own count against the journal's: cards it released that the journal lacks are missing.

        ``position - unacked`` is what the shoe believes the table has stored; more than the
        journal holds means a journal put back from a copy (or an SD card that lost its last
        writes). Journalled once for each count, so a replay shows the same alert.
        """
        believed = status.position - status.unacked
        stored = self.stored
        if stored is not None and stored.shoe_id == status.shoe_id:
            missing = believed > stored.position
        else:
            shoe = self.table.shoe
            missing = believed > 0 and (shoe is None or shoe.shoe_id != status.shoe_id)
        key = (status.shoe_id, believed)
        if missing and key != self._count_reported:
            self._count_reported = key
            log.error("the shoe counts %d cards of shoe %s as stored but the journal has %s: cards are missing",
                      believed, status.shoe_id, stored.position if stored and stored.shoe_id == status.shoe_id else 0)
            self._submit(ev.ShoeCount(shoe_id=status.shoe_id, position=status.position, unacked=status.unacked),
                         "shoe status")

    def _seen(self, shoe_id: str, position: int) -> bool:
        s = self.stored
        return s is not None and s.shoe_id == shoe_id and position <= s.position

    def _note_card(self, shoe_id: str, position: int, code: str) -> None:
        code = _card_code(code)
        if self.stored is None or self.stored.shoe_id != shoe_id:
            self._shoe_cards = {}
        self._shoe_cards.setdefault(position, code)
        self.stored = fb.StoredPosition(shoe_id, position)

    def _on_card(self, msg: fb.Card) -> None:
        self.cards_received += 1
        if self._seen(msg.shoe_id, msg.position) and self._shoe_cards.get(msg.position) == _card_code(msg.code):
            self.duplicates += 1
            self.link.ack(msg.shoe_id, msg.position)  # stored already: the ack was lost
            return
        shoe = self.table.shoe
        if shoe is None or shoe.shoe_id != msg.shoe_id:
            if msg.position == 1 and (self.table.phase in BETWEEN_ROUNDS or (shoe is not None and shoe.spent)):
                # The first card of a shoe whose SHOE_LOADED was lost: the shuffle happened before it.
                self._reconcile(fb.Status(msg.shoe_id, 0, None, False, False, False, False, 0))
            else:  # a card of a shoe the table never saw loaded: its shuffle and first cards are missing
                self._check_count(fb.Status(msg.shoe_id, msg.position - 1, None, False, False, False, False, 0))
        try:
            event: ev.Event = ev.CardDrawn(card=parse_card(msg.code), position=msg.position)
        except BadCard:
            event = ev.ShoeFault(kind="bad_data", detail=f"card {msg.code!r} at position {msg.position} is not a card")
        self._submit(event, "shoe", shoe_id=msg.shoe_id, position=msg.position)
        self._note_card(msg.shoe_id, msg.position, msg.code)
        self._after_commit(lambda: self.link.ack(msg.shoe_id, msg.position))  # never before its commit

    def _on_fault(self, msg: fb.Fault) -> None:
        if msg.is_card_event and msg.position is not None:
            if self._seen(msg.shoe_id, msg.position) and self._shoe_cards.get(msg.position) == "??":
                self.link.ack(msg.shoe_id, msg.position)
                return
            self._submit(ev.ShoeFault(kind=msg.kind.value, detail=f"{msg.detail} (card {msg.position})"), "shoe",
                         shoe_id=msg.shoe_id, position=msg.position)
            self._note_card(msg.shoe_id, msg.position, "??")
            position = msg.position  # an int here; inside the lambda mypy would see int | None again
            self._after_commit(lambda: self.link.ack(msg.shoe_id, position))
        else:
            self._submit(ev.ShoeFault(kind=msg.kind.value, detail=msg.detail or None), "shoe")

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


def _card_code(code: str) -> str:
    """A card code as the journal writes it ('10H' is 'TH'); an unreadable one as it came."""
    try:
        return parse_card(code).code
    except BadCard:
        return code


def _codes(bodies: dict[int, str]) -> dict[int, str]:
    """Position -> card code of a shoe's journalled card events ('??' for a card that could not be read)."""
    out = {}
    for position, body in bodies.items():
        data = json.loads(body)
        out[position] = data.get("card", "??") if data.get("type") == "card" else "??"
    return out


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

