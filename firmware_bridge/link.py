"""ShoeLink: the bridge's interface to its owner, and the thread that runs the port.

Threading and asyncio (decided here, documented in docs/shoe-protocol.md):
pyserial is blocking, so one daemon thread per link owns the port and the
codec session; nothing else touches them. The owner's calls (``ack``,
``lock``, ``unlock``) only put a small command on a thread-safe queue and wake
the port thread's read (pyserial's ``cancel_read``), which runs it at once, so
they never block the event loop and never wait out a read slice. Messages go the other way with
``loop.call_soon_threadsafe(queue.put_nowait, msg)`` into an unbounded
``asyncio.Queue``: the port thread never waits for the loop, and the volume is
small by nature (a few cards a second at most, one STATUS a second, each
event delivered once). Without an event loop (the monitor tool, scripts) the same messages
go into a ``queue.Queue`` read with :meth:`ShoeLink.get_blocking`.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from types import TracebackType
from typing import AsyncIterator, Callable

from firmware_bridge.codecs import LinkStats, LinkTiming, make_session
from firmware_bridge.messages import ShoeMessage, StoredPosition
from firmware_bridge.port import Port, PortError

log = logging.getLogger(__name__)


class _Stopped:
    """The type of :data:`_STOPPED`, so the queues' items are ShoeMessage | _Stopped to mypy."""


_STOPPED = _Stopped()  # put in the queues when the link stops


class LinkStopped(Exception):
    """The link was stopped: no more messages will come."""


class ShoeLink:
    """A robust link to one shoe; see the module docstring for the threading model.

    ``port`` is a device path or pyserial URL, reopened by path after any
    failure (so a symlink or a /dev/serial/by-id name follows the device);
    ``codec`` picks the wire protocol ("framed" or "lines"); ``resume_from``
    is the last card event the owner has already stored, so the first RESUME
    asks only for what comes after it.
    """

    def __init__(
        self,
        port: str,
        *,
        codec: str = "framed",
        baudrate: int = 115200,
        resume_from: StoredPosition | None = None,
        timing: LinkTiming | None = None,
    ) -> None:
        self.port = port
        self._timing = timing or LinkTiming()
        self._baudrate = baudrate
        self._session = make_session(codec, resume_from, self._timing, port)
        self._commands: queue.SimpleQueue[Callable[[float], None]] = queue.SimpleQueue()
        self._stop_event = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._aqueue: asyncio.Queue[ShoeMessage | _Stopped] | None = None
        self._bqueue: queue.Queue[ShoeMessage | _Stopped] = queue.Queue()
        self._port: Port | None = None  # the open port, for waking its read (set by the port thread only)

    # --- lifecycle ----------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Start the port thread. Messages go to ``loop`` (default: the running loop, if any)."""
        if self._thread is not None:
            raise RuntimeError("ShoeLink already started")
        if loop is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
        self._loop = loop
        if loop is not None:
            self._aqueue = asyncio.Queue()
        self._thread = threading.Thread(target=self._run, name=f"shoe-link {self.port}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the thread (after sending any pending ACK) and close the port."""
        if self._thread is None:
            return
        self._stop_event.set()
        self._wake()
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.error("shoe link thread did not stop within %.1f s", timeout)
        self._deliver_one(_STOPPED)

    async def aclose(self) -> None:
        """Like :meth:`stop`, without blocking the event loop while the thread winds down."""
        await asyncio.to_thread(self.stop)

    async def __aenter__(self) -> ShoeLink:
        self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # --- messages in -----------------------------------------------------------

    async def get(self) -> ShoeMessage:
        """Wait for the next message; raises :class:`LinkStopped` once the link is stopped."""
        if self._aqueue is None:
            raise RuntimeError("ShoeLink was started without an event loop; use get_blocking()")
        item = await self._aqueue.get()
        if isinstance(item, _Stopped):
            self._aqueue.put_nowait(_STOPPED)  # wake any other reader too
            raise LinkStopped()
        return item

    async def messages(self) -> AsyncIterator[ShoeMessage]:
        """``async for msg in link.messages()``: every message until the link is stopped."""
        while True:
            try:
                yield await self.get()
            except LinkStopped:
                return

    def get_blocking(self, timeout: float | None = None) -> ShoeMessage:
        """Blocking read for programs without an event loop; raises TimeoutError or LinkStopped."""
        try:
            item = self._bqueue.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no message from the shoe within {timeout} s") from None
        if isinstance(item, _Stopped):
            self._bqueue.put(_STOPPED)
            raise LinkStopped()
        return item

    # --- owner's calls ---------------------------------------------------------

    def ack(self, shoe_id: str, position: int) -> None:
        """Card event ``position`` of ``shoe_id`` is safely stored: the shoe may forget it."""
        if not isinstance(shoe_id, str) or not isinstance(position, int) or isinstance(position, bool) or position < 1:
            raise ValueError(f"ack needs a shoe id and a position >= 1, got {shoe_id!r}, {position!r}")
        self._command(lambda now: self._session.ack(shoe_id, position))

    def lock(self) -> None:
        """Ask the shoe to hold its card gate shut (repeated until the shoe's STATUS agrees)."""
        self._command(lambda now: self._session.set_locked(True, now))

    def unlock(self) -> None:
        """Ask the shoe to release its card gate."""
        self._command(lambda now: self._session.set_locked(False, now))

    @property
    def stats(self) -> LinkStats:
        """Live counters (frames, bad frames, duplicates, NAKs, reconnects, delivered)."""
        return self._session.stats

    @property
    def stored(self) -> StoredPosition | None:
        """The resume point: the last card event acknowledged, in order."""
        return self._session.stored

    def _command(self, command: Callable[[float], None]) -> None:
        self._commands.put(command)
        self._wake()

    def _close_port(self, port: Port | None) -> None:
        # None too: the run loop's error paths call this with whatever port it holds.
        self._port = None  # first: a wake must never touch a closed port's pipe
        if port is not None:
            port.close()

    def _wake(self) -> None:
        # An ACK or a LOCK must not wait for the read slice to end (up to read_timeout).
        port = self._port
        if port is not None:
            port.cancel_read()

    # --- the port thread ---------------------------------------------------

    def _deliver_one(self, item: ShoeMessage | _Stopped) -> None:
        if self._loop is not None and self._aqueue is not None:
            try:
                self._loop.call_soon_threadsafe(self._aqueue.put_nowait, item)
            except RuntimeError:
                log.warning("event loop closed; dropping %r", item)
        else:
            self._bqueue.put(item)

    def _deliver(self, msgs: list[ShoeMessage]) -> None:
        for msg in msgs:
            self._deliver_one(msg)

    def _drain_commands(self, now: float) -> None:
        while True:
            try:
                command = self._commands.get_nowait()
            except queue.Empty:
                return
            command(now)

    def _run(self) -> None:
        session = self._session
        timing = self._timing
        port: Port | None = None
        backoff = timing.reopen_backoff_initial
        next_open = 0.0
        try:
            while not self._stop_event.is_set():
                now = time.monotonic()
                if port is None:
                    self._drain_commands(now)
                    if now < next_open:
                        self._stop_event.wait(min(next_open - now, 0.05))
                        continue
                    try:
                        port = Port(self.port, self._baudrate, timing.read_timeout)
                    except PortError as exc:
                        self._deliver(session.port_lost(exc.reason, now, str(exc)))
                        next_open = now + backoff
                        backoff = min(backoff * 2, timing.reopen_backoff_max)
                        continue
                    backoff = timing.reopen_backoff_initial
                    self._port = port
                    self._deliver(session.connected(now))
                try:
                    self._drain_commands(now)
                    out = session.take_output()
                    if out:
                        port.write(out)
                    data = port.read()
                    now = time.monotonic()
                    msgs = session.receive(data, now) if data else []
                    msgs += session.tick(now)
                    out = session.take_output()
                    if out:
                        port.write(out)
                    self._deliver(msgs)
                    if session.wants_reopen:
                        self._close_port(port)
                        port = None
                        next_open = now
                except PortError as exc:
                    self._close_port(port)
                    port = None
                    self._deliver(session.port_lost(exc.reason, now, str(exc)))
                    next_open = now + backoff
                    backoff = min(backoff * 2, timing.reopen_backoff_max)
                except Exception as exc:  # a bug must not kill the link silently
                    log.exception("shoe link: unexpected error; reopening the port")
                    self._close_port(port)
                    port = None
                    self._deliver(session.port_lost("the shoe's link failed (see the log)", now, f"internal error: {exc!r}"))
                    next_open = now + timing.reopen_backoff_max
        finally:
            if port is not None:
                # Say what we have stored before leaving, so the shoe can forget it.
                try:
                    self._drain_commands(time.monotonic())
                    out = session.take_output()
                    if out:
                        port.write(out)
                except PortError as exc:
                    log.debug("final flush failed: %s", exc)
                self._close_port(port)
