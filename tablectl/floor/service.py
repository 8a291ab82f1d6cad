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
from pathlib import Path
from typing import Any

from tablectl.fleet import BadMessage, BrokerUnavailable
from tablectl.fleet import broker as mqtt
from tablectl.fleet.wire import (
    MAX_STATE_BYTES,
    TABLE_ID,
    WireRow,
    parse_ledger,
    parse_state,
    parse_status,
    read_key,
    split_topic,
)

from .settings import FloorSettings
from .store import FloorStore

log = logging.getLogger(__name__)

BATCH = 500
BATCH_WINDOW_MAX = 0.02  # seconds: the longest a message waits for others to share its commit
BATCH_WINDOW_MIN = 0.002
RECEIVE_MAXIMUM = 1000  # unacknowledged messages the broker may have in flight to us


def load_keys(directory: Path) -> dict[str, bytes]:
    """Every table key in `directory` (TABLE_ID.key); a file that is not a key is reported and skipped."""
    import re

    keys: dict[str, bytes] = {}
    if not directory.is_dir():
        log.warning("keys folder %s does not exist: no table's MAC will be verified", directory)
        return keys
    for path in sorted(directory.glob("*.key")):
        if not re.match(TABLE_ID, path.stem):
            log.warning("key file %s: not a table id, skipped", path)
            continue
        try:
            keys[path.stem] = read_key(str(path))
        except (OSError, ValueError) as exc:
            log.warning("key file %s skipped: %s", path, exc)
    return keys


class FloorService:
    """Subscribes to every table, keeps the store, reports gaps; the API reads it."""

    def __init__(self, settings: FloorSettings) -> None:
        self.settings = settings
        self.keys = load_keys(settings.floor.keys_dir)
        self.store = FloorStore(settings.floor.store, self.keys)
        self.prefix = settings.floor.topic_prefix
        self.connected = False
        self.messages = 0
        self.dropped = 0
        self._outage_logged = False
        self._key_tried: dict[str, float] = {}
        self.subscribed = asyncio.Event()  # set once the broker has our subscriptions
        self._commit_seconds = 0.001  # recent time a batch's commit takes (sizes the batching window)

    # ------------------------------------------------------------------ running
    async def run(self, stop: asyncio.Event) -> None:
        """Consume until `stop` is set."""
        tasks = [asyncio.create_task(self._consume_forever(), name="floor-consumer"),
                 asyncio.create_task(self._watch_gaps(), name="floor-gaps")]
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
        """Store a batch of broker messages (ledger rows in one transaction); a bad one is dropped and reported."""
        now = time.time() if now is None else now
        rows: list[WireRow] = []
        for m in messages:
            self.messages += 1
            name = str(m.topic)
            try:
                table, leaf = split_topic(self.prefix, name)
                payload = m.payload if isinstance(m.payload, bytes) else bytes(m.payload or b"")
                if leaf == "ledger":
                    rows.append(parse_ledger(payload, table))
                elif leaf == "state":
                    if payload:  # an empty retained message clears the topic
                        self.store.set_state(table, parse_state(payload), now)
                else:
                    if payload:
                        self.store.set_status(table, parse_status(payload), now)
            except BadMessage as exc:
                self.dropped += 1
                self.store.incident(None, "bad_message", f"dropped a message on {name[:200]!r}: {exc}", now)
        for table in {r.table for r in rows}:
            if table not in self.keys:
                self._try_key(table, now)
        if rows:
            self.store.ingest(rows, now)
        else:
            self.store.flush()

    def _try_key(self, table: str, now: float) -> None:
        """A table first heard of after startup: its key may have been copied in since."""
        if now - self._key_tried.get(table, -1e9) < 30:
            return
        self._key_tried[table] = now
        path = self.settings.floor.keys_dir / f"{table}.key"
        try:
            self.keys[table] = read_key(str(path))  # the store shares this dict
            log.info("table %s: key %s loaded", table, path)
        except FileNotFoundError:
            log.warning("table %s: no key %s: its rows' MACs are not verified", table, path)
        except (OSError, ValueError) as exc:
            log.warning("table %s: key %s unusable: %s", table, path, exc)

    async def _watch_gaps(self) -> None:
        grace = self.settings.floor.gap_grace_seconds
        while True:
            await asyncio.sleep(min(1.0, grace / 2))
            try:
                self.store.report_gaps(grace)
            except Exception:
                log.exception("gap check failed")

    # ------------------------------------------------------------------ reading
    def tiles(self, now: float | None = None) -> list[dict[str, Any]]:
        """One tile per table, tables with open alerts first (oldest alert first), then by id."""
        now = time.time() if now is None else now
        tiles = [self.tile(tid, now) for tid in self.store.tracks]
        return sorted(tiles, key=lambda t: (not t["alerts"], -(t["alerts"][0]["age_s"] or 0) if t["alerts"] else 0,
                                            t["online"], t["id"]))

    def tile(self, table: str, now: float | None = None) -> dict[str, Any]:
        """What the floor shows of one table."""
        now = time.time() if now is None else now
        t = self.store.tracks[table]
        state = t.state or {}
        view = state.get("view") or {}
        figures = state.get("figures") or {}
        shoe = view.get("shoe") or {}
        head = state.get("head") or {}
        alerts = []
        for a in view.get("alerts") or []:
            age = None
            try:
                raised = datetime.fromisoformat(a.get("raised_at"))
                age = max(0.0, now - raised.astimezone(timezone.utc).timestamp())
            except (TypeError, ValueError):
                pass
            alerts.append({"id": a.get("id"), "kind": a.get("kind"), "message": a.get("message"),
                           "raised_at": a.get("raised_at"), "age_s": round(age, 1) if age is not None else None,
                           "active": a.get("active"), "acknowledged": a.get("acknowledged")})
        alerts.sort(key=lambda a: -(a["age_s"] or 0))
        if table not in self.keys:
            mac = "no_key"
        elif t.bad_macs:
            mac = "bad"
        elif t.verified_upto == t.contiguous and t.contiguous:
            mac = "ok"
        else:
            mac = "pending"
        seq = head.get("seq")
        head_seq = seq if isinstance(seq, int) else 0
        return {
            "id": table,
            "name": state.get("name") or table,
            "game": state.get("game"),
            "profile": state.get("profile"),
            "phase": view.get("phase"),
            "round": view.get("round"),
            "rounds_played": view.get("rounds_played"),
            "alerts": alerts,
            "penetration": shoe.get("penetration"),
            "shoe_id": shoe.get("id"),
            "rounds_per_hour": figures.get("rounds_per_hour"),
            "hands_per_hour": figures.get("hands_per_hour"),
            "house_result": figures.get("house_result"),
            "online": t.status == "online",
            "status": t.status or "unknown",
            "status_since": t.status_at,
            "dashboard_url": state.get("dashboard_url") or None,
            "rows": t.rows,
            "contiguous": t.contiguous,
            "max_seq": t.max_seq,
            "head_seq": head_seq,
            "behind": max(0, head_seq - t.contiguous),
            "masked": len(t.masked),
            "gaps": len(self.store.open_gaps(table)),
            "mac": mac,
            "verified_upto": t.verified_upto,
            "bad_macs": t.bad_macs,
            "conflicts": t.conflicts,
            "state_at": t.state_at,
        }
