"""Time as an injected dependency: production passes ``time.monotonic``, tests a ManualClock."""

from __future__ import annotations

import threading
from collections.abc import Callable

#: A callable returning seconds on a monotonic scale.
Clock = Callable[[], float]


class ManualClock:
    """A clock that only moves when told to; safe to read from several threads."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move time forward by ``seconds`` and return the new time."""
        if seconds < 0:
            raise ValueError("a monotonic clock cannot go back")
        with self._lock:
            self._now += seconds
            return self._now

    def set(self, now: float) -> None:
        """Jump to ``now`` (not before the current time)."""
        with self._lock:
            if now < self._now:
                raise ValueError("a monotonic clock cannot go back")
            self._now = now
