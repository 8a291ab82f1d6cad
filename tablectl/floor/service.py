"""The floor service: the broker's messages into the store, gaps reported, tiles for the dashboard.

One asyncio loop: the consumer takes every message the broker delivers,
stores a batch (everything already received, up to 500) in one transaction,
and only then acknowledges each message (MQTT 5, manual acks, a persistent
session with `clean_start = false`): a floor killed at any instant loses
nothing, the broker sends again what was not acknowledged, and the store
drops what it already has.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from datetime import datetime, timezone
from typing import Any

from controller.alerts import ALERT_LEVEL, AlertKind, AlertLevel
from tablectl.fleet import BadMessage, BrokerUnavailable
from tablectl.fleet import broker as mqtt
from tablectl.fleet.wire import (
    MAX_STATE_BYTES,
    AlertState,
    WireRow,
    parse_ledger,
    parse_state,
    parse_status,
    read_key,
    split_topic,
)

from . import FloorConfigError
from .keys import load_keys
from .recovery import Recovery, Target
from .settings import FloorSettings
from .store import FloorStore

log = logging.getLogger(__name__)

BATCH = 500
BATCH_WINDOW_MAX = 0.02  # seconds: the longest a message waits for others to share its commit
BATCH_WINDOW_MIN = 0.002
RECEIVE_MAXIMUM = 1000  # unacknowledged messages the broker may have in flight to us


class FloorService:
    """Subscribes to every table, keeps the store, reports gaps; the API reads it."""

    def __init__(self, settings: FloorSettings) -> None:
        self.settings = settings
        self.keys = load_keys(settings.floor.keys_dir)
        self.known_tables = frozenset(settings.floor.known_tables)
        self.store = FloorStore(settings.floor.store, self.keys, max_seq_jump=settings.floor.max_seq_jump)
        self.prefix = settings.floor.topic_prefix
        self.connected = False
        self.messages = 0
        self.dropped = 0
        self._outage_logged = False
        self._key_tried: dict[str, float] = {}
        self.subscribed = asyncio.Event()  # set once the broker has our subscriptions
        self._commit_seconds = 0.001  # recent time a batch's commit takes (sizes the batching window)
        try:  # the tables' API keys and certificates are read now: one that cannot be used stops the floor
            self.recovery = Recovery(settings, self.store, self.is_known) if settings.floor.tables else None
        except FloorConfigError:
            self.store.close()
            raise

    # ------------------------------------------------------------------ running
    async def run(self, stop: asyncio.Event) -> None:
        """Consume until `stop` is set."""
        tasks = [asyncio.create_task(self._consume_forever(), name="floor-consumer"),
                 asyncio.create_task(self._watch_gaps(), name="floor-gaps")]
        if self.recovery is not None:  # its own task: a table's slow answer never holds the consumer
            tasks.append(asyncio.create_task(self.recovery.run(), name="floor-recovery"))
        try:
            await stop.wait()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.store.close()

    async def _consume_forever(self) -> None:
        backoff = 0.5
        while True:
            try:
                await self._consume()
            except BrokerUnavailable as exc:
                if not self._outage_logged:
                    log.warning("broker unavailable (%s); retrying, the broker keeps our queue meanwhile", exc)
                    self._outage_logged = True
            except asyncio.CancelledError:
                raise
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
            await conn.subscribe([f"{self.prefix}/+/ledger", f"{self.prefix}/+/state", f"{self.prefix}/+/status"])
            self.connected = True
            self.subscribed.set()
            if self._outage_logged:
                log.info("broker reachable again")
                self._outage_logged = False
            else:
                log.info("subscribed to %s/+/ledger, state and status at %s", self.prefix, s.broker.url)
            inbox: asyncio.Queue[Any] = asyncio.Queue()
            reader = asyncio.create_task(self._read(conn, inbox), name="floor-reader")
            try:
                while True:
                    batch = await self._next_batch(inbox)
                    started = time.perf_counter()
                    self.handle(batch)
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

    async def _next_batch(self, inbox: "asyncio.Queue[Any]") -> list[Any]:
        """The next messages to store together: the first, and what arrives within a short window, up to BATCH.

        The client hands over one packet per read, so storing each message alone would cost one commit
        (an fsync) per message, and on a slow disk the floor would fall behind. The window is three
        times the recent commit time (2 to 20 ms): on a fast disk a message waits a couple of
        milliseconds, on a slow one committing takes at most about a quarter of the floor's time.
        """
        first = await inbox.get()
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

    def handle(self, messages: list[Any], now: float | None = None) -> None:
        """Store a batch of broker messages in one transaction; a bad one is dropped and reported.

        Every message is validated here, into the wire's typed models, before anything of it is kept: one from
        a table the floor does not know is dropped unread; one that does not validate is an incident on the
        table its topic names (or on none), and changes nothing. Incidents that input can repeat are reported
        once a window (`FloorStore.report`), so a flood costs neither the log nor the store a line a message.
        """
        now = time.time() if now is None else now
        rows: list[WireRow] = []
        with self.store.batch():
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
                    elif leaf == "state":
                        if payload:  # an empty retained message clears the topic; the floor keeps the last state
                            self.store.set_state(table, parse_state(payload, table), now)
                    else:
                        if payload:
                            self.store.set_status(table, parse_status(payload), now)
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

    def is_known(self, table: str) -> bool:
        """Is this a table of the floor: its key in keys_dir, or its id in known_tables?"""
        return table in self.keys or table in self.known_tables

    def tables(self) -> list[str]:
        """The known tables the floor holds something of."""
        return [tid for tid in self.store.tracks if self.is_known(tid)]

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
                self.store.report_gaps(grace)
                self.store.report_held()
            except Exception:
                log.exception("gap check failed")

    # ------------------------------------------------------------------ reading
    def tiles(self, now: float | None = None) -> list[dict[str, Any]]:
        """One tile per table: the most urgent level first (alarm, action, notice, none), then the oldest
        alert, then by id. A table waiting for a shuffle does not push one that needs the pit down."""
        now = time.time() if now is None else now
        tiles = [self.tile(tid, now) for tid in self.tables()]
        return sorted(tiles, key=lambda t: (-_LEVEL_RANK.get(t["level"], -1),
                                            -(t["alerts"][0]["age_s"] or 0) if t["alerts"] else 0,
                                            t["online"], t["id"]))

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
        return {
            "id": table,
            "name": (state.name if state is not None else None) or table,
            "game": state.game if state is not None else None,
            "profile": state.profile if state is not None else None,
            "phase": view.phase if view is not None else None,
            "round": view.round if view is not None else None,
            "rounds_played": view.rounds_played if view is not None else None,
            "alerts": alerts,
            # The most urgent level open: notice tiles are not red, and are not counted "with alerts".
            "level": max((AlertLevel(a["level"]) for a in alerts), key=lambda lv: lv.rank).value if alerts else None,
            "penetration": shoe.penetration if shoe is not None else None,
            "shoe_id": shoe.id if shoe is not None else None,
            "rounds_per_hour": figures.rounds_per_hour if figures is not None else None,
            "hands_per_hour": figures.hands_per_hour if figures is not None else None,
            "house_result": figures.house_result if figures is not None else None,
            "online": t.status == "online",
            "status": t.status or "unknown",
            "status_since": t.status_at,
            "dashboard_url": (state.dashboard_url if state is not None else None) or None,
            "rows": t.rows,
            "contiguous": t.contiguous,
            "max_seq": t.max_seq,
            "head_seq": head_seq,
            "behind": max(0, head_seq - t.contiguous),
            "masked": len(t.masked),
            "gaps": len(t.gaps),
            "mac": mac,
            "verified_upto": t.verified_upto,
            "bad_macs": t.bad_macs,
            "conflicts": t.conflicts,
            "state_at": t.state_at,
            # Filling its gaps from its API: None where the floor has no [[floor.tables]] entry for it.
            "recovery": target.status() if (target := self._recovery_target(table)) is not None else None,
        }

    def _recovery_target(self, table: str) -> Target | None:
        return self.recovery.targets.get(table) if self.recovery is not None else None


_LEVEL_RANK = {level.value: level.rank for level in AlertLevel}


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


def with_alerts(tiles: list[dict[str, Any]]) -> int:
    """How many tables need a person: a notice (a due shuffle) is shown but not counted."""
    return sum(t["level"] in (AlertLevel.ACTION.value, AlertLevel.ALARM.value) for t in tiles)


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
