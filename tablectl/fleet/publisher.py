"""The table's publisher: the journal is the outbox, sent to the broker in order at QoS 1.

An asyncio task beside the service. A commit wakes it (no I/O in the
callback); it reads the new rows through its own read-only connection and
publishes them, a window at a time, waiting for the broker's PUBACKs. What the
broker has acknowledged, in final form, is remembered in the journal (through
the service, at most once a second and at shutdown), and publishing resumes
there after a restart: at least once, in order; the floor drops duplicates.

The hole card's row is published masked (card ``XX``, no MAC), and every row
after it without its MAC, until the card is turned; then those rows are
published again, final (docs/floor.md says why the MACs are held back too).

It never blocks the loop for long, never raises into the service, and when the
broker is down it logs once, retries with back-off, and the table plays on. A
state larger than the floor accepts (`wire.MAX_STATE_BYTES`, the deployed broker's
`message_size_limit`) is not sent, logged once: the broker would drop the
connection for it, and the rows with it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import TYPE_CHECKING, Any, Callable, Protocol

from controller.view import head_view

from . import BrokerUnavailable, FleetConfigError
from . import broker as mqtt
from .settings import FleetSettings
from .wire import MAX_STATE_BYTES, PUBLIC_ROUND, SURVEILLANCE, LedgerRow, public_round, published_form, rating_payload, topic

if TYPE_CHECKING:  # pragma: no cover
    from tablectl.service import TableService

log = logging.getLogger(__name__)

WINDOW = 64  # rows in flight at once: enough to catch up quickly, small enough never to hold the loop
RECORD_EVERY = 1.0  # seconds between durable outbox marks
BACKOFF_MAX = 30.0


class Source(Protocol):
    """What the publisher needs from the table (tablectl.fleet.source.ServiceSource)."""

    def add_listener(self, wake: Any) -> None: ...
    def rows(self, after: int, limit: int) -> list[LedgerRow]: ...
    def head(self) -> tuple[int, str]: ...
    def outbox_position(self) -> int: ...
    async def record_outbox(self, seq: int) -> None: ...
    def masked_seqs(self) -> set[int]: ...
    def state(self, table_id: str, dashboard_url: str, head: tuple[int, str | None]) -> dict[str, Any]: ...
    def surveillance(self, table_id: str, head: tuple[int, str | None]) -> dict[str, Any]: ...
    def ended_ratings(self, table_id: str) -> list[dict[str, Any]]: ...
    def last_round_number(self) -> int: ...
    def settled_after(self, number: int, limit: int = 64) -> list[tuple[int, dict[str, Any], str | None]]: ...
    def close(self) -> None: ...


class Publisher:
    """Publishes one table's ledger rows, retained state and status to the broker."""

    def __init__(self, source: Source, settings: FleetSettings, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.source = source
        self.clock = clock  # seconds, for the pace of outbox marks and states (passed in: tests drive it)
        self.settings = settings
        self.table_id = settings.table_id
        prefix = settings.topic_prefix
        self.t_ledger = topic(prefix, self.table_id, "ledger")
        self.t_state = topic(prefix, self.table_id, "state")
        self.t_status = topic(prefix, self.table_id, "status")
        self.t_surveillance = topic(prefix, self.table_id, SURVEILLANCE)
        self.t_public = topic(prefix, self.table_id, PUBLIC_ROUND)
        self.t_rating = topic(prefix, self.table_id, "rating")
        self.ratings_sent = 0
        self._ratings_due: list[bytes] = []
        # The public feed starts with the next round settled: a display has no use for the table's history,
        # and a restart sends again at most the rounds of one window (at least once, as the ledger).
        self.public_after = source.last_round_number() if "public" in settings.feeds else 0
        self.recorded = source.outbox_position()
        self.acked = self.recorded  # every row up to here is at the broker (perhaps masked)
        self.published_masked: set[int] = set()  # at the broker only masked: to send again, final
        self.connected = False
        self.published = 0
        self.outages = 0
        self._wakeup = asyncio.Event()
        self._closing = asyncio.Event()
        self._state_dirty = True
        self._last_state = 0.0
        self._last_record = clock()
        self._outage_logged = False
        self.states_dropped = 0  # states over MAX_STATE_BYTES, never sent
        self._oversized_logged = False
        source.add_listener(self.wake)

    def wake(self, seq: int) -> None:
        """Commit listener: a row was committed (called in the loop's thread; no I/O here)."""
        self._state_dirty = True
        self._wakeup.set()

    @property
    def durable_mark(self) -> int:
        """The seq up to which the broker has every row in final form."""
        if self.published_masked:
            return min(self.acked, min(self.published_masked) - 1)
        return self.acked

    # ------------------------------------------------------------------ running
    async def run(self) -> None:
        """Publish until closed (see `aclose`) or cancelled; never raises anything but CancelledError."""
        backoff = 0.5
        try:
            while not self._closing.is_set():
                try:
                    await self._session()
                    backoff = 0.5
                except BrokerUnavailable as exc:
                    self.connected = False
                    if not self._outage_logged:
                        self.outages += 1
                        log.warning("broker unreachable (%s): the table plays on, rows wait in the journal "
                                    "from seq %d", exc, self.acked + 1)
                        self._outage_logged = True
                except FleetConfigError as exc:
                    log.error("fleet publishing is off: %s", exc)
                    return
                except Exception:  # a bug: logged, and publishing goes on after the back-off
                    self.connected = False
                    log.exception("fleet publisher failed; retrying")
                if self._closing.is_set():
                    break
                try:
                    await asyncio.wait_for(self._closing.wait(), backoff * random.uniform(0.8, 1.2))
                except asyncio.TimeoutError:
                    pass
                backoff = min(backoff * 2, BACKOFF_MAX)
        finally:
            await self._record(force=True)
            self.source.close()

    async def aclose(self) -> None:
        """Ask the task to say offline, record the outbox mark and stop (the caller awaits the task)."""
        self._closing.set()
        self._wakeup.set()

    async def _session(self) -> None:
        s = self.settings
        will = mqtt.Will(self.t_status, b"offline", retain=True)
        async with mqtt.connect(s.broker, f"tablectl-table-{self.table_id}", will=will) as conn:
            self.connected = True
            await conn.publish(self.t_status, b"online", retain=True)
            if self._outage_logged:
                log.info("broker reachable again: publishing from seq %d", self.acked + 1)
                self._outage_logged = False
            else:
                log.info("publishing to %s as %s from seq %d", s.broker.url, self.t_ledger, self.acked + 1)
            self._state_dirty = True
            while True:
                self._wakeup.clear()
                closing = self._closing.is_set()  # last round: the rest of the rows, the state, then offline
                await self._pump(conn)
                await self._record()
                await self._maybe_state(conn, force=closing)
                if closing:
                    await conn.publish(self.t_status, b"offline", retain=True, timeout=2)
                    return
                wait = s.state_every_seconds if self._state_dirty else RECORD_EVERY
                try:
                    await asyncio.wait_for(self._wakeup.wait(), wait)
                except asyncio.TimeoutError:
                    pass

    async def _pump(self, conn: mqtt.Connection) -> None:
        """Publish every row not yet at the broker, and the final form of rows sent masked."""
        while True:
            masked = self.source.masked_seqs()
            low = min(masked) if masked else None
            finals = sorted(s for s in self.published_masked if low is None or s < low)
            if finals:
                rows = [r for r in self.source.rows(finals[0] - 1, finals[-1] - finals[0] + 1)
                        if r.seq in self.published_masked][:WINDOW]
                await self._send(conn, rows, masked)
                for r in rows:
                    self.published_masked.discard(r.seq)
                continue
            rows = self.source.rows(self.acked, WINDOW)
            if not rows:
                return
            await self._send(conn, rows, masked)
            for r in rows:
                if low is not None and r.seq >= low:
                    self.published_masked.add(r.seq)
            self.acked = rows[-1].seq
            # Rows may keep coming as fast as they go out: the outbox mark and the state are due on
            # time all the same, not only once the table pauses (a fast table never does).
            await self._record()
            await self._maybe_state(conn)
            await asyncio.sleep(0)  # let a card in between two windows

    async def _send(self, conn: mqtt.Connection, rows: list[LedgerRow], masked: set[int]) -> None:
        payloads = published_form(self.table_id, rows, masked)
        results = await asyncio.gather(*(conn.publish(self.t_ledger, p) for p in payloads), return_exceptions=True)
        for res in results:
            if isinstance(res, BaseException):
                raise res
        self.published += len(rows)

    async def _record(self, force: bool = False) -> None:
        mark = self.durable_mark
        now = self.clock()
        if mark > self.recorded and (force or now - self._last_record >= RECORD_EVERY):
            try:
                await self.source.record_outbox(mark)
            except Exception:  # the journal is the service's: if it cannot write, the service will say so
                log.exception("could not record the outbox mark %d", mark)
                return
            self.recorded, self._last_record = mark, now

    async def _maybe_state(self, conn: mqtt.Connection, force: bool = False) -> None:
        now = self.clock()
        if not force and (not self._state_dirty or now - self._last_state < self.settings.state_every_seconds):
            return
        from .source import state_json

        head = head_view(self.source.head(), self.source.masked_seqs())  # no MAC while a row is masked
        state = self.source.state(self.table_id, self.settings.dashboard_url, (head["seq"], head["mac"]))
        self._state_dirty = False
        self._last_state = now
        payload = state_json(state)
        if len(payload) > MAX_STATE_BYTES:
            # A broker drops a client whose message passes its message_size_limit (the deployed one is the
            # floor's bound): sent, it would take the table off the floor at every state and stall the rows.
            self.states_dropped += 1
            if not self._oversized_logged:
                log.error("state of %d bytes not published (the floor's limit is %d): the floor keeps the last "
                          "one; rows go on", len(payload), MAX_STATE_BYTES)
                self._oversized_logged = True
            return
        self._oversized_logged = False
        await conn.publish(self.t_state, payload, retain=True)
        feeds = self.settings.feeds
        if "surveillance" in feeds:
            await conn.publish(self.t_surveillance, state_json(self.source.surveillance(self.table_id, (head["seq"],
                               head["mac"]))), retain=True)
        if "public" in feeds:
            for number, record, settled_at in self.source.settled_after(self.public_after):
                await conn.publish(self.t_public, state_json(public_round(record, settled_at)))
                self.public_after = number
        # The rating slips of the sessions ended meanwhile (docs/ratings.md, "Pushed over the floor"), at QoS 1.
        # Pending slips (the broker went away mid-way) go first next time: none is lost before the process ends.
        self._ratings_due.extend(rating_payload(row) for row in self.source.ended_ratings(self.table_id))
        while self._ratings_due:
            await conn.publish(self.t_rating, self._ratings_due[0])
            self._ratings_due.pop(0)
            self.ratings_sent += 1


def start(service: "TableService", edge: Any = None) -> tuple[Publisher, "asyncio.Task[None]"] | None:
    """Start publishing `service`'s journal if `[fleet] enabled`; None (logged) if it cannot. With `edge`
    (`tablectl.edge.EdgeWorker`), the surveillance feed carries its exact edge."""
    settings = service.settings
    if not settings.fleet.enabled:
        return None
    from .source import ServiceSource

    try:
        mqtt.check(settings.fleet.broker)
        source = ServiceSource(service, edge=edge)
    except (FleetConfigError, OSError, ValueError) as exc:
        log.error("fleet publishing is off: %s", exc)
        return None
    publisher = Publisher(source, settings.fleet)
    return publisher, asyncio.create_task(publisher.run(), name="fleet-publisher")


async def stop(started: tuple[Publisher, "asyncio.Task[None]"] | None, timeout: float = 3.0) -> None:
    """Say offline, record the outbox mark and end the publisher (cancelled after `timeout`)."""
    if started is None:
        return
    publisher, task = started
    await publisher.aclose()
    try:
        await asyncio.wait_for(asyncio.shield(task), timeout)
    except (asyncio.TimeoutError, Exception):
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
