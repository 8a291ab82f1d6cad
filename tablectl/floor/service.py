"""The floor service: the broker's messages into the store, gaps reported, tiles for the dashboard.

One asyncio loop: the consumer takes every message the broker delivers,
stores a batch (everything already received, up to 500) in one transaction,
and only then acknowledges each message (MQTT 5, manual acks, a persistent
session with `clean_start = false`): a floor killed at any instant loses
nothing, the broker sends again what was not acknowledged, and the store
drops what it already has.

Several floor processes (workers) may share the tables' rows: with `[floor] shared_group` each
subscribes to the ledger through the MQTT 5 shared subscription `$share/GROUP/{prefix}/+/ledger`,
and the broker hands each row to one of them; they keep one store on PostgreSQL, which takes every
table's rows in any order from any of them (store.py). States are shared the same way (one worker
stores each, and one older than the stored one is not kept); at each subscription a plain subscription
to them, taken and dropped at once, brings every table's retained state, which a shared subscription is
never sent. Statuses (a table's online/offline, rare) stay a plain subscription in every worker. Each
worker's API reads the shared store (`refresh`). docs/floor.md, "Several workers".
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import time
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Callable, TypeVar

from controller.alerts import ALERT_LEVEL, AlertKind, AlertLevel
from tablectl.fleet import BadMessage, BrokerUnavailable, SubscriptionRefused
from tablectl.fleet import broker as mqtt
from tablectl.fleet.wire import (
    MAX_STATE_BYTES,
    AlertState,
    RatingSlip,
    TableState,
    WireRow,
    parse_ledger,
    parse_rating,
    parse_state,
    parse_status,
    read_key,
    split_topic,
)

from . import FloorConfigError, StoreError
from .keys import load_keys
from .recovery import Recovery, Target
from .settings import FloorSettings
from .store import open_store
from .store_thread import StoreThread
from .throttle import SteadyGaps

log = logging.getLogger(__name__)
T = TypeVar("T")

BATCH = 500
REFRESH_SECONDS = 0.5  # with several workers, the dashboard and API read the store at most this long ago
LEAVE_IDLE_SECONDS = 3.0  # a worker leaving its group has stored everything once nothing has come for this long
BATCH_WINDOW_MAX = 0.02  # seconds: the longest a message waits for others to share its commit
BATCH_WINDOW_MIN = 0.002
RECEIVE_MAXIMUM = 1000  # unacknowledged messages the broker may have in flight to us
# The store is called on its own thread (store_thread.py). A call running longer than this counts as stalled: the
# routes that read the store answer 503 at once instead of queueing behind it, and the page says the store is away.
STALL_SECONDS = 2.0
READ_WAIT = 3.0  # the longest a route waits for the store to answer a read (then 503 store_unavailable)
EXPORT_WAIT = 120.0  # the same for a table's export, which reads every row of the table


class FloorService:
    """Subscribes to every table, keeps the store, reports gaps; the API reads it."""

    def __init__(self, settings: FloorSettings) -> None:
        self.settings = settings
        self.shared_group = settings.floor.shared_group
        self.keys = load_keys(settings.floor.keys_dir)
        self.known_tables = frozenset(settings.floor.known_tables)
        self.dashboards = {t.id: t.dashboard_url for t in settings.floor.tables if t.dashboard_url}
        self.store = open_store(settings.floor, self.keys, max_seq_jump=settings.floor.max_seq_jump)
        self.prefix = settings.floor.topic_prefix
        self.connected = False
        self.messages = 0
        self.ledger_rows = 0  # ledger rows this process took (with several workers, its share)
        self.dropped = 0
        self._outage_logged = False
        self._key_tried: dict[str, float] = {}
        # When the floor last took a valid message of each table (its clock): an offline table's "since".
        # Not stored: after a restart the store's state_at stands in for it.
        self.heard: dict[str, float] = {}
        self.subscribed = asyncio.Event()  # set once the broker has granted our subscriptions
        # Set when the floor cannot go on (the broker refused a subscription): `failure` says why. A floor refused
        # takes nothing, so it never reports ready and stops (`tablectl floor` exits 4), rather than look healthy.
        self.failed = asyncio.Event()
        self.failure: str | None = None
        self.steady_gaps = SteadyGaps()
        # The store's calls, on a thread of their own: a database that stops answering stops none of the loop.
        self.db_thread = StoreThread()
        self.store_down_since: float | None = None  # wall clock: a store call failed (the database away) since
        self.store_read_at: float | None = None  # wall clock: the store last answered
        self._commit_seconds = 0.001  # recent time a batch's commit takes (sizes the batching window)
        self._refreshed = -1e9  # monotonic: when the tracks were last read back from a shared store
        self._refresh_failed = False
        self._store_outage_logged = False
        try:  # the tables' API keys and certificates are read now: one that cannot be used stops the floor
            asks = any(t.api_url for t in settings.floor.tables)
            self.recovery = Recovery(settings, self.store, self.is_known) if asks else None
        except FloorConfigError:
            self.store.close()
            raise
        if self.shared_group and self.recovery is None:
            # Several workers lose rows the broker cannot give back (a worker away is still dealt its share;
            # Mosquitto forgets shared subscriptions at its restart): the tables' APIs are where they are filled.
            log.warning("shared_group %s without [[floor.tables]]: rows dealt to a worker while it is away, or "
                        "published while the broker restarts, stay gaps; list every table under [[floor.tables]] "
                        "(docs/floor.md, \"Several workers\")", self.shared_group)

    # ------------------------------------------------------------------ running
    async def run(self, stop: asyncio.Event) -> None:
        """Consume until `stop` is set."""
        tasks = [asyncio.create_task(self._consume_forever(), name="floor-consumer"),
                 asyncio.create_task(self._watch_gaps(), name="floor-gaps")]
        if self.recovery is not None:  # its own task: a table's slow answer never holds the consumer
            self.recovery.on_store = self.in_store
            tasks.append(asyncio.create_task(self.recovery.run(), name="floor-recovery"))
        try:
            await stop.wait()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            closing: tuple[type[BaseException], ...] = (TimeoutError, *self.store.outages)
            try:  # after whatever the thread is doing; a database that never answers is left, not waited for
                await asyncio.wait_for(self.db_thread.call(self.store.close, limit=5.0), 5.0)
            except closing:
                log.warning("the floor store did not close within 5 s (its database does not answer); leaving it")
            self.db_thread.stop()

    async def _consume_forever(self) -> None:
        backoff = 0.5
        while True:
            try:
                await self._consume()
            except SubscriptionRefused as exc:
                self.connected = False
                self.failure = (f"{exc}: this floor would take nothing, and stops. The broker's access rules must let "
                                f"{self.settings.floor.client_id} subscribe to them (on the shipped broker: `tablectl "
                                f"broker access`{' --workers N' if self.shared_group else ''}, docs/floor.md, \"The "
                                "broker\")")
                log.error("%s", self.failure)
                self.failed.set()
                return
            except BrokerUnavailable as exc:
                if not self._outage_logged:
                    log.warning("broker unavailable (%s); retrying, the broker keeps our queue meanwhile", exc)
                    self._outage_logged = True
            except asyncio.CancelledError:
                raise
            except self.store.outages as exc:  # the database away (restarting): said once
                if not self._store_outage_logged:
                    log.warning("floor store unavailable (%s); the batch is not acknowledged and the broker sends "
                                "it again", str(exc).strip())
                    self._store_outage_logged = True
            except Exception:  # a bug: logged, and the consumer goes on after the back-off
                log.exception("floor consumer failed")
            self.connected = False
            await asyncio.sleep(backoff * random.uniform(0.8, 1.2))
            backoff = min(backoff * 2, 10.0)
            if self.connected:
                backoff = 0.5

    async def _consume(self) -> None:
        s = self.settings
        async with mqtt.connect(s.broker, s.floor.client_id, clean_start=False,
                                session_expiry=s.floor.session_expiry_seconds, manual_ack=True,
                                receive_maximum=RECEIVE_MAXIMUM, max_packet=MAX_STATE_BYTES + 4096) as conn:
            ledger, state = f"{self.prefix}/+/ledger", f"{self.prefix}/+/state"
            rating = f"{self.prefix}/+/rating"
            if self.shared_group:
                # A session that was a whole floor before (or a worker of an earlier version, which took every
                # state) keeps its plain subscriptions, and would take every row or state besides its share:
                # dropped (a session without them is told so, and nothing changes).
                await conn.unsubscribe([ledger, state, rating])
                ledger, state, rating = (f"$share/{self.shared_group}/{ledger}", f"$share/{self.shared_group}/{state}",
                                         f"$share/{self.shared_group}/{rating}")
            # Every filter must be granted: a refused one (SUBACK 0x80 and above: the broker's access rules) would
            # leave this floor connected, looking healthy, and taking nothing (SubscriptionRefused: it stops).
            filters = [ledger, state, f"{self.prefix}/+/status"]
            mqtt.granted(filters, await conn.subscribe(filters), s.floor.client_id)
            try:  # the rating slips (issue 41): a broker whose access rules predate them refuses them, and the
                # floor goes on without (said once): the tables keep their slips in the journal and send them again
                mqtt.granted([rating], await conn.subscribe([rating]), s.floor.client_id)
            except SubscriptionRefused as exc:
                log.warning("rating slips not taken: %s (regenerate the broker's access rules: `tablectl broker "
                            "access`)", exc)
            if self.shared_group:
                # A shared subscription is sent no retained message (MQTT 5, 4.8.2), and a quiet table publishes
                # no new state: a plain subscription, taken and dropped at once, brings each table's retained
                # state, queued for this session before the broker takes the unsubscribe. One that overtakes a
                # newer state another worker stored is not kept (FloorStore.set_state).
                plain = [f"{self.prefix}/+/state"]
                mqtt.granted(plain, await conn.subscribe(plain), s.floor.client_id)
                await conn.unsubscribe(plain)
            self.connected = True
            self.subscribed.set()
            if self._outage_logged:
                log.info("broker reachable again")
                self._outage_logged = False
            else:
                log.info("subscribed to %s, %s/+/state and status at %s as %s", ledger, self.prefix, s.broker.url,
                         s.floor.client_id)
            inbox: asyncio.Queue[Any] = asyncio.Queue()
            reader = asyncio.create_task(self._read(conn, inbox), name="floor-reader")
            try:
                while True:
                    batch = await self._next_batch(inbox)
                    started = time.perf_counter()
                    await self.in_store(self.handle, batch)
                    if self._store_outage_logged:
                        log.info("floor store available again")
                        self._store_outage_logged = False
                    took = time.perf_counter() - started
                    self._commit_seconds = 0.8 * self._commit_seconds + 0.2 * took
                    for m in batch:  # only now: the batch is committed
                        conn.ack(m)
            finally:
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)

    @staticmethod
    async def _read(conn: mqtt.Connection, inbox: "asyncio.Queue[Any]") -> None:
        try:
            async for message in conn.messages():
                inbox.put_nowait(message)  # bounded by the broker: at most RECEIVE_MAXIMUM unacknowledged
        except BrokerUnavailable as exc:
            inbox.put_nowait(exc)
        else:
            inbox.put_nowait(BrokerUnavailable("the broker closed the connection"))

    async def _next_batch(self, inbox: "asyncio.Queue[Any]", wait: float | None = None) -> list[Any]:
        """The next messages to store together: the first, and what arrives within a short window, up to BATCH.

        The client hands over one packet per read, so storing each message alone would cost one commit
        (an fsync) per message, and on a slow disk the floor would fall behind. The window is three
        times the recent commit time (2 to 20 ms): on a fast disk a message waits a couple of
        milliseconds, on a slow one committing takes at most about a quarter of the floor's time.
        `wait`: none if the first has not come within that many seconds (an empty batch).
        """
        if wait is None:
            first = await inbox.get()
        else:
            try:  # a get cancelled by the timeout leaves its message in the queue
                first = await asyncio.wait_for(inbox.get(), wait)
            except asyncio.TimeoutError:
                return []
        if isinstance(first, BaseException):
            raise first
        batch = [first]
        loop = asyncio.get_running_loop()
        end = loop.time() + min(BATCH_WINDOW_MAX, max(BATCH_WINDOW_MIN, 3 * self._commit_seconds))
        while len(batch) < BATCH:
            if inbox.empty():
                left = end - loop.time()
                if left <= 0:
                    break
                try:
                    item = await asyncio.wait_for(inbox.get(), left)
                except asyncio.TimeoutError:
                    break
            else:
                item = inbox.get_nowait()
            if isinstance(item, BaseException):
                inbox.put_nowait(item)  # store what we have, then stop
                break
            batch.append(item)
        return batch

    async def leave(self, idle: float = LEAVE_IDLE_SECONDS) -> int:
        """Retire this worker from its shared group for good, losing nothing: its session stops being dealt rows
        (unsubscribed), the rows already queued for it or in flight to it are stored and acknowledged until none
        has come for `idle` seconds, then its session is ended at the broker (a clean start, expiry 0), which
        would otherwise go on receiving its share until it expired. Returns the rows stored.
        """
        s = self.settings
        async with mqtt.connect(s.broker, s.floor.client_id, clean_start=False,
                                session_expiry=s.floor.session_expiry_seconds, manual_ack=True,
                                receive_maximum=RECEIVE_MAXIMUM, max_packet=MAX_STATE_BYTES + 4096) as conn:
            await conn.unsubscribe([f"$share/{self.shared_group}/{self.prefix}/+/ledger",
                                    f"$share/{self.shared_group}/{self.prefix}/+/state", f"{self.prefix}/+/state",
                                    f"$share/{self.shared_group}/{self.prefix}/+/rating",
                                    f"{self.prefix}/+/status"])
            inbox: asyncio.Queue[Any] = asyncio.Queue()
            reader = asyncio.create_task(self._read(conn, inbox), name="floor-reader")
            try:
                while batch := await self._next_batch(inbox, idle):
                    self.handle(batch)
                    for m in batch:
                        conn.ack(m)
            finally:
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)
        async with mqtt.connect(s.broker, s.floor.client_id, clean_start=True, session_expiry=0):
            pass  # the session, its subscriptions and whatever came after the last row stored, ended
        self.store.close()
        log.info("left shared group %s as %s: %d ledger rows stored on the way", self.shared_group,
                 s.floor.client_id, self.ledger_rows)
        return self.ledger_rows

    def handle(self, messages: list[Any], now: float | None = None) -> None:
        """Store a batch of broker messages in one transaction; a bad one is dropped and reported.

        Every message is validated here, into the wire's typed models, before anything of it is kept: one from
        a table the floor does not know is dropped unread; one that does not validate is an incident on the
        table its topic names (or on none), and changes nothing. Incidents that input can repeat are reported
        once a window (`FloorStore.report`), so a flood costs neither the log nor the store a line a message.
        """
        now = time.time() if now is None else now
        rows: list[WireRow] = []
        # States are kept after the batch's rows: a state is bounded and ordered by the rows on the floor
        # (FloorStore.set_state), those of the same batch included.
        states: list[tuple[str, TableState]] = []
        slips: list[RatingSlip] = []
        with self.store.batch(_tables_named(self.prefix, messages)):
            for m in messages:
                self.messages += 1
                name = str(m.topic)
                table: str | None = None
                try:
                    table, leaf = split_topic(self.prefix, name)
                    if not self._accepts(table, now):
                        self.dropped += 1
                        self.store.report(None, "unknown_table", f"a message from table {table!r}, which this floor "
                                          "does not know (no key in keys_dir, not in known_tables), was dropped",
                                          now, sample=table)
                        continue
                    payload = _payload(m.payload)
                    if leaf == "ledger":
                        rows.append(parse_ledger(payload, table))
                        self.ledger_rows += 1
                        self.heard[table] = now
                    elif leaf == "rating":  # a player's ended session (issue 41), kept once
                        slips.append(parse_rating(payload, table))
                        self.heard[table] = now
                    elif leaf == "state":
                        if payload:  # an empty retained message clears the topic; the floor keeps the last state
                            states.append((table, parse_state(payload, table)))
                            self.heard[table] = now
                    else:
                        if payload:
                            status = parse_status(payload)
                            self.store.set_status(table, status, now)
                            if status == "online":  # "offline" may be the broker's last will, not the table
                                self.heard[table] = now
                except BadMessage as exc:
                    self.dropped += 1
                    self.store.report(table, "bad_message", f"dropped a message on {name[:200]!r}: {exc}", now)
                except Exception as exc:  # a bug, met by this message alone
                    # Failing the batch would have the broker send it again, and again: one message would
                    # stop every table's rows. It is dropped instead, logged with its traceback, and reported.
                    log.exception("a message on %r could not be handled", name[:200])
                    self.dropped += 1
                    self.store.report(table, "bad_message", f"dropped a message on {name[:200]!r} the floor could "
                                      f"not handle: {exc!r}"[:2000], now)
            if rows:
                self.store.ingest(rows, now)
            for table, parsed in states:
                self.store.set_state(table, parsed, now)
            if slips:
                self.store.add_ratings(slips, now)

    def refresh(self, max_age: float = REFRESH_SECONDS, raise_outage: bool = False) -> None:
        """Where other workers write the store too, read every table's track back (at most `max_age` seconds ago),
        for the dashboard and API; a database away leaves the last known in place, said once in the log (and
        raised, with `raise_outage`)."""
        if not self.store.shared:
            return
        now = time.monotonic()
        if now - self._refreshed < max_age:
            return
        try:
            self.store.refresh()
        except self.store.outages as exc:
            if not self._refresh_failed:
                log.warning("cannot read the floor store back (%s); the dashboard shows what it last read",
                            str(exc).strip())
                self._refresh_failed = True
            if self.store_down_since is None:
                self.store_down_since = time.time()
            if raise_outage:
                raise
            return
        if self._refresh_failed:
            log.info("the floor store answers again")
            self._refresh_failed = False
        self.store_down_since, self.store_read_at = None, time.time()
        self._refreshed = now

    # ------------------------------------------------------------------ the store, off the event loop
    async def in_store(self, fn: Callable[..., T], *args: Any, limit: float = STALL_SECONDS) -> T:
        """`fn(*args)` on the store's thread (every store call of the running floor goes there, in order); an
        outage it raises marks the store away until a call succeeds."""
        try:
            result = await self.db_thread.call(fn, *args, limit=limit)
        except self.store.outages:
            if self.store_down_since is None:
                self.store_down_since = time.time()
            raise
        self.store_down_since, self.store_read_at = None, time.time()
        return result

    def store_status(self) -> dict[str, Any]:
        """For `/healthz` and the dashboard: whether the store answers, since when it does not (wall clock), and
        when it last answered (what the tiles show was read then)."""
        stalled = self.db_thread.stalled()
        since = self.store_down_since
        if stalled is not None:
            since = min(since or time.time(), time.time() - (time.monotonic() - stalled))
        return {"available": since is None, "since": since, "read_at": self.store_read_at}

    async def read(self, fn: Callable[..., T], *args: Any, wait: float = READ_WAIT) -> T:
        """A read of the store for the API: StoreError at once while a store call hangs, or when this one has not
        answered within `wait` seconds, or the database's own error (the route answers 503 store_unavailable:
        never a hang). A store that failed but does not hang is asked again: its answer is the news."""
        if self.db_thread.stalled() is not None:  # queued behind a call that hangs, it would hang too
            raise StoreError("the floor's store is not answering (a call to its database has hung)")
        try:
            return await asyncio.wait_for(self.in_store(fn, *args, limit=wait), wait)
        except TimeoutError:
            raise StoreError(f"the floor's store did not answer within {wait:g} s") from None

    async def refreshed(self) -> None:
        """With several workers, the tracks read back for the dashboard (at most REFRESH_SECONDS old), if the
        store answers within READ_WAIT; else the tiles stay as last read (the page says so)."""
        if not self.store.shared or self.db_thread.stalled() is not None:
            return
        if time.monotonic() - self._refreshed < REFRESH_SECONDS:
            return
        away: tuple[type[BaseException], ...] = (TimeoutError, *self.store.outages)
        try:
            await asyncio.wait_for(self.in_store(self.refresh, REFRESH_SECONDS, True), READ_WAIT)
        except away:
            pass

    def is_known(self, table: str) -> bool:
        """Is this a table of the floor: its key in keys_dir, or its id in known_tables?"""
        return table in self.keys or table in self.known_tables

    def tables(self) -> list[str]:
        """The known tables the floor holds something of."""
        # list() of the dict is one step under the GIL: the store's thread may be adding a table meanwhile.
        return [tid for tid in list(self.store.tracks) if self.is_known(tid)]

    def _accepts(self, table: str, now: float) -> bool:
        """Is `table` known (loading its key if it was copied into keys_dir since)?"""
        if table in self.keys:
            return True
        if table in self.known_tables:
            self._try_key(table, now)  # known without a key; it may get one
            return True
        return self._load_key(table, now)

    def _load_key(self, table: str, now: float) -> bool:
        """A table not known so far: known from now on if its key is in keys_dir (nothing kept if not)."""
        path = self.settings.floor.keys_dir / f"{table}.key"
        if not path.exists():  # the common case for an unknown table: one stat, nothing logged
            return False
        try:
            self.keys[table] = read_key(str(path))  # the store shares this dict
        except (OSError, ValueError) as exc:
            self.store.report(None, "bad_key", f"table {table}: key {path} unusable: {exc}", now, sample=table)
            return False
        log.info("table %s: key %s loaded", table, path)
        return True

    def _try_key(self, table: str, now: float) -> None:
        """A table of known_tables without a key: look for one at most every 30 s."""
        if now - self._key_tried.get(table, -1e9) < 30:
            return
        self._key_tried[table] = now
        if not self._load_key(table, now):
            log.info("table %s: in known_tables, no key in %s: its rows' MACs are not verified", table,
                     self.settings.floor.keys_dir)

    async def _watch_gaps(self) -> None:
        grace = self.settings.floor.gap_grace_seconds
        while True:
            await asyncio.sleep(min(1.0, grace / 2))
            try:
                await self.in_store(self.check_gaps)
            except self.store.outages:
                pass  # the database away: the consumer says so once; the gaps wait for it
            except Exception:
                log.exception("gap check failed")

    def check_gaps(self, now: float | None = None) -> None:
        """Report the gaps open longer than the grace, sum up what was held back, and say so when gaps keep coming
        (`steady_gaps`: rows dealt somewhere else, docs/floor.md, "What the floor raises itself")."""
        now = time.time() if now is None else now
        reported = self.store.report_gaps(self.settings.floor.gap_grace_seconds, now)
        steady = self.steady_gaps.note([table for table, _, _ in reported], now)
        if steady is not None:
            count, tables, minutes = steady
            if self.shared_group:
                where = (f"another client subscribed to the workers' shared group ($share/{self.shared_group}/"
                         f"{self.prefix}/+/ledger: on the shipped broker only the workers named by `tablectl broker "
                         "access` may join it), or a worker away whose session the broker still deals its share "
                         "(start it again, or retire it: --leave)")
            else:
                where = (f"another client connected as this floor ({self.settings.floor.client_id}), or a broker "
                         "dropping rows (its queue limits)")
            named = ", ".join(tables[:5]) + (f" and {len(tables) - 5} more" if len(tables) > 5 else "")
            with self.store.batch():
                self.store.incident(None, "steady_gaps", f"{count} gaps on {len(tables)} tables ({named}) in "
                                    f"{minutes} different minutes of the last {self.steady_gaps.window / 60:g}: "
                                    f"rows keep going missing, as when they are dealt somewhere else: {where}. "
                                    "The tables' APIs fill what they can ([[floor.tables]])", now)
        self.store.report_held(now)

    # ------------------------------------------------------------------ reading
    def tiles(self, now: float | None = None) -> list[dict[str, Any]]:
        """One tile per table: alarms first (an offline table is one), then the tables waiting (action), then
        the others (a notice, a due shuffle, is routine: it does not push a table up), each by table name."""
        now = time.time() if now is None else now
        return sorted((self.tile(tid, now) for tid in self.tables() if tid in self.store.tracks), key=tile_order)

    def tile(self, table: str, now: float | None = None) -> dict[str, Any]:
        """What the floor shows of one table (from its last state that validated, and its rows)."""
        now = time.time() if now is None else now
        t = self.store.tracks[table]
        state = t.state
        view = state.view if state is not None else None
        figures = state.figures if state is not None else None
        shoe = view.shoe if view is not None else None
        alerts = [_alert(a, now) for a in (view.alerts if view is not None else [])]
        alerts.sort(key=lambda a: -(a["age_s"] or 0))
        if table not in self.keys:
            mac = "no_key"
        elif t.bad_macs:
            mac = "bad"
        elif t.verified_upto == t.contiguous and t.contiguous:
            mac = "ok"
        else:
            mac = "pending"
        head_seq = state.head.seq if state is not None and state.head is not None else 0
        offline = t.status == "offline"
        # This worker's last message from the table, or the last state any worker stored (with a shared group,
        # another worker may take most of its messages).
        heard = max(self.heard.get(table) or 0.0, t.state_at or 0.0) or None
        offline_since = (heard or t.status_at) if offline else None
        floor_alerts = []  # what the floor itself raises about the table (its own alerts come in its state)
        if offline:
            floor_alerts.append(_floor_alert("offline", AlertLevel.ALARM, "offline: the table has stopped "
                                             "publishing (the time is the floor's last message from it)",
                                             offline_since, now))
        if mac == "no_key":
            floor_alerts.append(_floor_alert("no_key", AlertLevel.ACTION, "no key for this table: its evidence "
                                             "cannot be verified", None, now))
        if table in self.keys:
            # With the key, a row counts as received once it is in the chain (every row before it is here, so it
            # is verified or about to be): rows past a gap may be anyone's on an open broker until the gap closes
            # and the chain reaches them (a thousand forged rows far apart once counted as received, and their
            # seqs as the table's length). The table's head, from a state bounded like a row, gives the length.
            total, received = max(head_seq, t.contiguous), t.contiguous
            past_gap = max(0, t.rows - t.contiguous)
        else:  # nothing tells the table's rows from others': every row counts, as it is kept
            total = max(head_seq, t.max_seq)
            received, past_gap = min(t.rows, total), 0
        return {
            "id": table,
            "name": (state.name if state is not None else None) or table,
            "pit": (state.pit if state is not None else None) or None,
            "game": state.game if state is not None else None,
            "profile": state.profile if state is not None else None,
            # The game's own facts (baccarat's last results and the shoe's counts), as the table's game says them.
            "game_facts": [{"label": f.label, "text": f.text} for f in state.tile] if state is not None else [],
            "phase": view.phase if view is not None else None,
            "round": view.round if view is not None else None,
            "rounds_played": view.rounds_played if view is not None else None,
            "dealer_on_duty": view.dealer_on_duty.dealer if view is not None and view.dealer_on_duty else None,
            "alerts": alerts,
            "floor_alerts": floor_alerts,
            # The most urgent level open, the floor's own included (offline: alarm; no key: action). Notice tiles
            # are not red, and are not counted "with alerts".
            "level": _most_urgent([*alerts, *floor_alerts]),
            "penetration": shoe.penetration if shoe is not None else None,
            "shoe_id": shoe.id if shoe is not None else None,
            "rounds_per_hour": figures.rounds_per_hour if figures is not None else None,
            "hands_per_hour": figures.hands_per_hour if figures is not None else None,
            "house_result": figures.house_result if figures is not None else None,
            "online": t.status == "online",
            "offline": offline,
            "status": t.status or "unknown",
            "status_since": t.status_at,
            "heard_at": heard,
            "offline_since": offline_since,
            # Only the dashboard the floor's config names for the table ([[floor.tables]] dashboard_url): a link
            # a message names would send the pit's browsers wherever anyone on the broker says.
            "dashboard_url": self.dashboards.get(table),
            "rows": t.rows,
            "contiguous": t.contiguous,
            "max_seq": t.max_seq,
            "head_seq": head_seq,
            "behind": max(0, head_seq - t.contiguous),
            "masked": len(t.masked),
            "gaps": len(t.gaps),
            "mac": mac,
            "evidence": _evidence(mac, t.contiguous, received, total, past_gap),
            "verified_upto": t.verified_upto,
            "bad_macs": t.bad_macs,
            "conflicts": t.conflicts,
            "state_at": t.state_at,
            # Filling its gaps from its API: None where the floor has no [[floor.tables]] entry for it.
            "recovery": target.status() if (target := self._recovery_target(table)) is not None else None,
        }

    def _recovery_target(self, table: str) -> Target | None:
        return self.recovery.targets.get(table) if self.recovery is not None else None


def _tables_named(prefix: str, messages: list[Any]) -> set[str]:
    """The tables these messages' topics name (a batch takes their locks first, with several workers)."""
    out = set()
    for m in messages:
        try:
            out.add(split_topic(prefix, str(m.topic))[0])
        except BadMessage:
            pass  # reported when the batch reaches it
    return out


def level_of_published(a: AlertState) -> AlertLevel:
    """An alert's level: the engine's table for a kind the floor knows, else what the table sent.

    A kind from a newer table than the floor is taken at its published level, or as an alarm when it
    sends none a floor understands: an alert nobody can place must not look routine.
    """
    try:
        return ALERT_LEVEL[AlertKind(a.kind)]
    except ValueError:
        pass
    sent = (a.model_extra or {}).get("level")
    try:
        return AlertLevel(sent) if isinstance(sent, str) else AlertLevel.ALARM
    except ValueError:
        return AlertLevel.ALARM


def needing_people(tiles: list[dict[str, Any]]) -> tuple[int, int]:
    """How many of these tables are at alarm (the pit must come), and how many wait for a person (action)."""
    alarms = sum(t["level"] == AlertLevel.ALARM.value for t in tiles)
    return alarms, sum(t["level"] == AlertLevel.ACTION.value for t in tiles)


def with_alerts(tiles: list[dict[str, Any]]) -> int:
    """How many tables need a person: a notice (a due shuffle) is shown but not counted."""
    return sum(needing_people(tiles))


def _name_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """A name as a person orders it: "Table 2" before "Table 10" (numbers by value, letters without case)."""
    return tuple((0, int(part)) if part.isdigit() else (1, part.casefold())
                 for part in re.split(r"(\d+)", name) if part)


def tile_order(tile: dict[str, Any]) -> tuple[Any, ...]:
    """Where a tile goes among its pit's: alarms, then tables waiting (action), then the rest, each by name."""
    rank = {AlertLevel.ALARM.value: 0, AlertLevel.ACTION.value: 1}.get(tile["level"], 2)
    return rank, _name_key(tile["name"]), tile["id"]


def pits(tiles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tiles grouped by pit, pits by name and the tables without one last ("No pit": `pit` null), each
    group's tiles in `tile_order`: the ids, with how many tables of the group are at alarm and waiting."""
    groups: dict[str | None, list[dict[str, Any]]] = {}
    for t in sorted(tiles, key=tile_order):
        groups.setdefault(t["pit"], []).append(t)
    out = []
    for pit in sorted(groups, key=lambda p: (p is None, _name_key(p or ""))):
        alarms, waiting = needing_people(groups[pit])
        out.append({"pit": pit, "tables": [t["id"] for t in groups[pit]], "alarms": alarms, "waiting": waiting})
    return out


# A shift's result as a table publishes it (tablectl.figures: the house's, a decimal of at most 2 places).
_AMOUNT = re.compile(r"^-?\d{1,15}(\.\d{1,2})?$")


def totals(tiles: list[dict[str, Any]]) -> dict[str, Any]:
    """The floor's header: tables open (online), their rounds an hour, the shift's house result (every table's,
    an offline one's last known included), the tables at alarm (an offline table is one), the offline ones among
    them, and the tables waiting for a person (action)."""
    online = [t for t in tiles if t["online"]]
    alarms, waiting = needing_people(tiles)
    house = sum((Decimal(t["house_result"]) for t in tiles
                 if isinstance(t["house_result"], str) and _AMOUNT.match(t["house_result"])), Decimal(0))
    return {"tables": len(tiles), "online": len(online), "offline": sum(t["offline"] for t in tiles),
            "rounds_per_hour": round(sum(t["rounds_per_hour"] or 0 for t in online)),
            "house_result": str(house),
            "alarms": alarms, "waiting": waiting}


def _most_urgent(alerts: list[dict[str, Any]]) -> str | None:
    levels = [AlertLevel(a["level"]) for a in alerts]
    return max(levels, key=lambda lv: lv.rank).value if levels else None


def _floor_alert(kind: str, level: AlertLevel, message: str, since: float | None, now: float) -> dict[str, Any]:
    """An alert the floor raises itself on a tile: not the table's (no id, nothing to acknowledge)."""
    return {"kind": kind, "level": level.value, "message": message, "since": since,
            "age_s": round(max(0.0, now - since), 1) if since is not None else None}


def _evidence(mac: str, contiguous: int, received: int, total: int, past_gap: int = 0) -> dict[str, Any]:
    """The table's rows as evidence, in one word and its numbers (the page words it, docs/floor.md); `past_gap`:
    rows held beyond a gap, not counted as received until the gap closes (where the floor has the table's key):

    - ``bad``: a row that does not verify arrived (a forgery, or a wrong key: the incidents say which);
    - ``missing``: rows below the table's head are not on the floor (yet);
    - ``no_key``: every row is here, but the floor has no key to verify them with;
    - ``verifying``: every row is here, some not verified yet (a card face down holds the rest back);
    - ``verified``: every row is here and verified;
    - ``none``: no row yet.
    """
    if mac == "bad":
        state = "bad"
    elif contiguous < total:
        state = "missing"
    elif total == 0:
        state = "none"
    elif mac == "no_key":
        state = "no_key"
    elif mac == "ok":
        state = "verified"
    else:
        state = "verifying"
    received = min(received, total)
    return {"state": state, "received": received, "total": total, "missing": total - received,
            "past_gap": past_gap, "verified": mac == "ok", "key": mac != "no_key"}


def _alert(a: AlertState, now: float) -> dict[str, Any]:
    """An alert on a tile, with its age (a time without a zone is taken as UTC)."""
    age = None
    if a.raised_at is not None:
        raised = datetime.fromisoformat(a.raised_at)
        if raised.tzinfo is None:
            raised = raised.replace(tzinfo=timezone.utc)
        age = max(0.0, now - raised.timestamp())
    return {"id": a.id, "kind": a.kind, "level": level_of_published(a).value, "message": a.message, "raised_at": a.raised_at,
            "age_s": round(age, 1) if age is not None else None, "active": a.active, "acknowledged": a.acknowledged}


def _payload(raw: object) -> bytes:
    """A message's payload as bytes (the client gives bytes; anything else is refused, never converted blindly)."""
    if isinstance(raw, (bytes, bytearray, memoryview)):
        return bytes(raw)
    if raw is None:
        return b""
    if isinstance(raw, str):
        return raw.encode("utf-8", "surrogatepass")
    raise BadMessage(f"a payload of type {type(raw).__name__}")
