"""The table service: shoe to journal to engine to outputs, in one ordered path.

Everything the table hears, a card from the shoe or a button from a person,
is handled in the asyncio loop's thread by `TableService.submit`, which has no
await inside: inputs are applied strictly one after another, in the order
they reached the loop. A card is journalled (committed) before the shoe is
told it may forget it; a person's action is journalled before it is applied,
and a refused one stays in the journal marked refused.
"""

from __future__ import annotations

import asyncio
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
from controller.effects import CardPlaced, Effect, RoundSettled
from controller.engine import BETWEEN_ROUNDS, IllegalAction, Table
from controller.view import hole_card_hidden

from .config import Settings
from .outputs import Output, ShoeLockOutput

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The wall clock, in UTC (the only place the service reads it)."""
    return datetime.now(timezone.utc)


@dataclass(slots=True)
class StreamItem:
    """One entry of the live event stream: the journal sequence and what happened."""

    seq: int
    event: dict[str, Any]
    phase: str
    effects: list[dict[str, Any]]
    secret_card: bool = False  # the event is the dealer's hole card, not yet turned


@dataclass
class Health:
    """What /healthz reports."""

    link_up: bool = False
    journal_ok: bool = True
    engine_ok: bool = True
    last_error: str | None = None
    outputs_failed: dict[str, str] = field(default_factory=dict)


class TableService:
    """The single authority at run time: owns the journal, the engine, the shoe link and the outputs."""

    def __init__(
        self,
        settings: Settings,
        *,
        link: Any | None = None,
        outputs: list[Output] | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.authority = TableAuthority.open(
            settings.journal.path, settings.table.rules(), settings.journal.snapshot_every_rounds
        )
        last = self.authority.journal.last_card()
        self.stored: fb.StoredPosition | None = fb.StoredPosition(*last) if last else None
        self.link = link if link is not None else fb.ShoeLink(
            settings.shoe.port, codec=settings.shoe.codec, baudrate=settings.shoe.baudrate, resume_from=self.stored
        )
        self.health = Health()
        self.lock_output = ShoeLockOutput(self.link.lock, self.link.unlock)
        self.outputs: list[Output] = [self.lock_output, *(outputs or [])]
        self.recent: deque[StreamItem] = deque(maxlen=10_000)
        self.subscribers: set[asyncio.Queue[StreamItem]] = set()
        self.last_status: fb.Status | None = None
        self.cards_received = 0
        self.duplicates = 0
        # Metrics hook (tablectl.metrics): called with the event and the seconds from submit to published.
        self.observe: Callable[[ev.Event, float], None] | None = None

    @property
    def table(self) -> Table:
        """The engine's state (read only: change it with submit)."""
        return self.authority.table

    # ------------------------------------------------------------------ the ordered path
    def submit(self, event: ev.Event, actor: str | None = None, *, shoe_id: str | None = None,
               position: int | None = None) -> tuple[int, list[Effect]]:
        """Journal and apply one input; raises IllegalAction (journalled as refused) for a refused action."""
        start = time.perf_counter()  # metrics: card-to-display latency starts here
        if actor is not None:
            event.actor = actor
        try:
            seq, effects = self.authority.submit(event, self.clock(), shoe_id=shoe_id, position=position)
        except IllegalAction as exc:
            log.info("refused %s from %s: %s (%s)", event.type, event.actor, exc.message, exc.code)
            raise
        self._publish(seq, event, effects)
        if self.observe is not None:  # metrics: every output and the live stream have it now
            self.observe(event, time.perf_counter() - start)
        return seq, effects

    def _publish(self, seq: int, event: ev.Event, effects: list[Effect]) -> None:
        table = self.table
        for output in self.outputs:
            try:
                output.handle(effects, table)
            except Exception as exc:  # an output that fails never stops the table
                name = type(output).__name__
                if name not in self.health.outputs_failed:
                    log.exception("output %s failed", name)
                self.health.outputs_failed[name] = str(exc)
        secret = (isinstance(event, ev.CardDrawn) and hole_card_hidden(table)
                  and any(isinstance(e, CardPlaced) and e.to == "dealer" for e in effects)
                  and table.round is not None and len(table.round.dealer.cards) == 2)
        item = StreamItem(seq, ev.dump_event(event), table.phase.value,
                          [_effect_dict(e) for e in effects], secret)
        self.recent.append(item)
        for queue in list(self.subscribers):
            queue.put_nowait(item)

    # ------------------------------------------------------------------ the shoe
    def on_shoe_message(self, msg: fb.ShoeMessage) -> None:
        """Turn one message from the shoe link into journalled inputs (and acks)."""
        kind = type(msg)
        if kind is fb.Card:
            self._on_card(msg)  # type: ignore[arg-type]
        elif kind is fb.Status:
            self.last_status = msg  # type: ignore[assignment]
            self._reconcile(msg)  # type: ignore[arg-type]
        elif kind is fb.LinkUp:
            self.health.link_up = True
            log.info("shoe link up: %s", msg.hello)  # type: ignore[union-attr]
            self.submit(ev.LinkUp(), "shoe")
            self.lock_output.sync(self.table)
        elif kind is fb.LinkDown:
            self.health.link_up = False
            log.warning("shoe link down: %s (%s)", msg.reason, msg.detail)  # type: ignore[union-attr]
            self.submit(ev.LinkDown(reason=msg.reason), "shoe")  # type: ignore[union-attr]
        elif kind is fb.ShoeLoaded:
            shoe = self.table.shoe
            if shoe is not None and shoe.shoe_id == msg.shoe_id:  # type: ignore[union-attr]
                return  # told again after a reconnect
            try:
                self.submit(ev.Shuffle(shoe_id=msg.shoe_id), "shoe")  # type: ignore[union-attr]
            except IllegalAction as exc:
                log.warning("shoe %s loaded but the table refused the shuffle: %s", msg.shoe_id, exc.message)  # type: ignore[union-attr]
        elif kind is fb.CutCard:
            shoe = self.table.shoe
            if shoe is None or not shoe.cut_card_out:
                self.submit(ev.CutCardOut(position=msg.position), "shoe")  # type: ignore[union-attr]
        elif kind is fb.Fault:
            self._on_fault(msg)  # type: ignore[arg-type]
        elif kind is fb.Button:
            self.submit(ev.CallPit(), f"shoe button {msg.name}")  # type: ignore[union-attr]

    def _reconcile(self, status: fb.Status) -> None:
        """Catch up from the shoe's heartbeat on a shuffle or cut card whose own message was lost.

        Only card events are held by the shoe until the journal has them; a SHOE_LOADED or
        CUT_CARD delivered just before a crash is gone, but the shoe's STATUS still says it.
        """
        table = self.table
        shoe = table.shoe
        if not status.shoe_id:
            return
        if (shoe is None or shoe.shoe_id != status.shoe_id) and status.position == 0 \
                and table.phase in BETWEEN_ROUNDS:
            log.info("shoe %s is loaded (its STATUS came before, or instead of, SHOE_LOADED): recording the shuffle",
                     status.shoe_id)
            try:
                self.submit(ev.Shuffle(shoe_id=status.shoe_id), "shoe status")
            except IllegalAction as exc:
                log.warning("the table refused the shuffle of shoe %s: %s", status.shoe_id, exc.message)
        elif shoe is not None and shoe.shoe_id == status.shoe_id and status.cut_card_out and not shoe.cut_card_out:
            log.warning("the cut card of shoe %s is out but its CUT_CARD was not journalled: recording it now",
                        status.shoe_id)
            self.submit(ev.CutCardOut(), "shoe status")

    def _seen(self, shoe_id: str, position: int) -> bool:
        s = self.stored
        return s is not None and s.shoe_id == shoe_id and position <= s.position

    def _on_card(self, msg: fb.Card) -> None:
        self.cards_received += 1
        if self._seen(msg.shoe_id, msg.position):
            self.duplicates += 1
            self.link.ack(msg.shoe_id, msg.position)  # stored already: the ack was lost
            return
        shoe = self.table.shoe
        if msg.position == 1 and (shoe is None or shoe.shoe_id != msg.shoe_id) and self.table.phase in BETWEEN_ROUNDS:
            # The first card of a shoe whose SHOE_LOADED was lost: the shuffle happened before it.
            self._reconcile(fb.Status(msg.shoe_id, 0, None, False, False, False, False, 0))
        try:
            event: ev.Event = ev.CardDrawn(card=parse_card(msg.code), position=msg.position)
        except BadCard:
            event = ev.ShoeFault(kind="bad_data", detail=f"card {msg.code!r} at position {msg.position} is not a card")
        self.submit(event, "shoe", shoe_id=msg.shoe_id, position=msg.position)
        self.stored = fb.StoredPosition(msg.shoe_id, msg.position)
        self.link.ack(msg.shoe_id, msg.position)

    def _on_fault(self, msg: fb.Fault) -> None:
        if msg.is_card_event and msg.position is not None:
            if self._seen(msg.shoe_id, msg.position):
                self.link.ack(msg.shoe_id, msg.position)
                return
            self.submit(ev.ShoeFault(kind=msg.kind.value, detail=f"{msg.detail} (card {msg.position})"), "shoe",
                        shoe_id=msg.shoe_id, position=msg.position)
            self.stored = fb.StoredPosition(msg.shoe_id, msg.position)
            self.link.ack(msg.shoe_id, msg.position)
        else:
            self.submit(ev.ShoeFault(kind=msg.kind.value, detail=msg.detail or None), "shoe")

    # ------------------------------------------------------------------ running
    async def run(self, stop: asyncio.Event, *, ready: Callable[[], None] | None = None) -> None:
        """Run until `stop` is set: the link, the clock ticks, and the watchdog."""
        loop = asyncio.get_running_loop()
        self.link.start(loop)
        self.lock_output.sync(self.table)
        for output in self.outputs:  # show the restored state at once
            try:
                output.handle([], self.table)
            except Exception:
                log.exception("output %s failed at startup", type(output).__name__)
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
            self.link.stop()
            self.authority.journal.close()

    async def _pump_link(self) -> None:
        async for msg in self.link.messages():
            try:
                self.on_shoe_message(msg)
            except Exception as exc:  # the journal or engine failed: stop rather than guess
                self.health.engine_ok = False
                self.health.last_error = f"{type(exc).__name__}: {exc}"
                log.exception("cannot handle %s from the shoe", type(msg).__name__)
                raise

    async def _ticker(self) -> None:
        period = self.settings.clock.tick_seconds
        while True:
            await asyncio.sleep(period)
            if self.table.reservations:  # only time-driven rules need ticks in the journal
                self.submit(ev.Tick(), "clock")


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
