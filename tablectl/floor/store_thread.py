"""The floor's store, called on a thread of its own: a database that stops answering never stops the event loop.

The store's connection (SQLite's file or a PostgreSQL session) blocks its caller while a statement runs. On
the event loop, one statement that never returned (a PostgreSQL server stopped, a lock held, a disk stalled)
held the MQTT client, the dashboard and `/healthz` with it (issue 37). Every call to the store now goes to one
daemon thread, in the order made (the store is used from one thread at a time, as before), and the loop awaits
its answer. The thread notes since when its current call runs, so the floor can tell a stalled store from a
busy one and answer at once rather than queue behind it.

A daemon thread, not a ThreadPoolExecutor: the pool's threads are joined when the interpreter exits, and one
stuck in a statement that never returns would keep a stopping floor from ever exiting.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from typing import Any, Callable, TypeVar

T = TypeVar("T")

_Job = tuple[Callable[..., Any], tuple[Any, ...], asyncio.AbstractEventLoop, "asyncio.Future[Any]", float]


class StoreThread:
    """Runs the store's calls one at a time, in order, on one daemon thread (started at the first call)."""

    def __init__(self, name: str = "floor-store") -> None:
        self.name = name
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        # When the call running now started (monotonic) and how long it may take before it counts as stalled;
        # None when idle. Written by the thread, read by the loop (two plain attributes: no lock needed).
        self.busy_since: float | None = None
        self.busy_limit = 0.0

    async def call(self, fn: Callable[..., T], *args: Any, limit: float = 2.0) -> T:
        """`fn(*args)` on the store's thread; its result or its exception here. `limit`: how long the call may
        run before `stalled` says so (a long export is given longer than a batch). Cancelling the await leaves
        a call already running to finish (its result dropped); one not started yet is skipped."""
        self._start()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[T] = loop.create_future()
        self._jobs.put((fn, args, loop, done, limit))
        return await done

    def stalled(self, now: float | None = None) -> float | None:
        """Since when (monotonic) the call running now has run past its limit, or None."""
        since, limit = self.busy_since, self.busy_limit
        if since is None:
            return None
        now = time.monotonic() if now is None else now
        return since if now - since > limit else None

    def stop(self) -> None:
        """Let the thread end once the calls queued before this are done (it is a daemon: a stuck one is left)."""
        if self._thread is not None:
            self._jobs.put(None)

    def _start(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, args, loop, done, limit = job
            if done.cancelled():  # the caller stopped waiting before its turn: nothing to do
                continue
            self.busy_limit, self.busy_since = limit, time.monotonic()
            try:
                result, error = fn(*args), None
            except BaseException as exc:  # handed to the caller, whatever it is
                result, error = None, exc
            finally:
                self.busy_since = None
            try:
                loop.call_soon_threadsafe(_settle, done, result, error)
            except RuntimeError:
                pass  # the caller's loop has closed meanwhile: nobody waits for this answer


def _settle(done: "asyncio.Future[Any]", result: Any, error: BaseException | None) -> None:
    if done.done():
        return  # cancelled by a timeout meanwhile
    if error is not None:
        done.set_exception(error)
    else:
        done.set_result(result)
