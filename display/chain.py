"""Non-blocking front of a display driver: queue, coalesce, write from a worker thread.

The engine calls :meth:`DisplayChain.show` and returns at once; the worker writes the
newest text of each display (a newer text for a display replaces an older unsent one),
so a slow or dead SPI bus never delays the game. A driver that raises is reported
through ``on_status`` (from the worker thread) and retried; after a failure the
chain is reinitialised, since the glitch may have scrambled the modules.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from display.clock import Clock
from display.drivers.base import DisplayDriver, check_brightness, check_texts
from display.glyphs import cell_count
from display.model import TableView
from display.render import render_table

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DisplayStatus:
    """Health of the displays: ``ok`` False while writes fail (``failures`` in a row)."""

    ok: bool
    error: str | None = None
    failures: int = 0


StatusCallback = Callable[[DisplayStatus], None]


class DisplayChain:
    """Queued, coalescing, failure-tolerant access to one display driver.

    With ``start=False`` no thread runs and the owner calls :meth:`pump` (tests, or a
    caller with its own loop). ``reinit_interval`` (seconds, None = never) re-sends
    the whole configuration periodically, so a module that browned out recovers by
    itself; ``retry_interval`` spaces retries after a failure.
    """

    def __init__(
        self,
        driver: DisplayDriver,
        *,
        clock: Clock = time.monotonic,
        on_status: StatusCallback | None = None,
        reinit_interval: float | None = 30.0,
        retry_interval: float = 1.0,
        start: bool = True,
    ) -> None:
        self.driver = driver
        self.display_ids = list(driver.display_ids)
        self.digits = driver.digits
        self._clock = clock
        self._on_status = on_status
        self._reinit_interval = reinit_interval
        self._retry_interval = retry_interval
        self._cond = threading.Condition()
        self._texts: dict[str, str] = {}
        self._brightness: int | None = None
        self._blanked: bool | None = None
        self._reinit = False
        self._shown: dict[str, str] = {}
        self._busy = False
        self._closed = False
        self._retry_at = 0.0
        self._last_reinit = clock()
        self._status = DisplayStatus(ok=True)
        self._thread: threading.Thread | None = None
        if start:
            self._thread = threading.Thread(target=self._run, name="display-chain", daemon=True)
            self._thread.start()

    # -- called by the engine side (never blocks on I/O) -------------------------

    def show(self, texts: Mapping[str, str]) -> None:
        """Queue texts for their displays; a later text for a display replaces this one.

        Raises at once (in the caller's thread) for an unknown display id or a text
        that is not drawable or too wide: those are programming errors, not faults.
        """
        check_texts(texts, self.display_ids)
        for display_id, text in texts.items():
            if cell_count(text) > self.digits:  # also rejects undrawable characters
                raise ValueError(f"{text!r} is wider than {self.digits} digits ({display_id})")
        with self._cond:
            self._texts.update(texts)
            self._cond.notify_all()

    def show_view(self, view: TableView) -> dict[str, str]:
        """Render the table view and queue it; returns the rendered texts."""
        texts = render_table(view, self.digits)
        self.show(texts)
        return texts

    def set_brightness(self, level: int) -> None:
        """Queue a brightness change (0..15)."""
        check_brightness(level)
        with self._cond:
            self._brightness = level
            self._cond.notify_all()

    def set_blanked(self, blanked: bool) -> None:
        """Queue darkening (True) or relighting (False) every display."""
        with self._cond:
            self._blanked = blanked
            self._cond.notify_all()

    def reinitialise(self) -> None:
        """Queue a full reinitialisation (configuration and every digit)."""
        with self._cond:
            self._reinit = True
            self._cond.notify_all()

    @property
    def status(self) -> DisplayStatus:
        """The current health."""
        with self._cond:
            return self._status

    # -- the worker ---------------------------------------------------------------

    def _pending(self) -> bool:
        return bool(self._texts) or self._brightness is not None or self._blanked is not None or self._reinit

    def _periodic_due(self, now: float) -> bool:
        return self._reinit_interval is not None and now - self._last_reinit >= self._reinit_interval

    def _has_work(self, now: float) -> bool:
        return (self._pending() and now >= self._retry_at) or self._periodic_due(now)

    def _next_deadline(self) -> float | None:
        deadlines = []
        if self._pending():
            deadlines.append(self._retry_at)
        if self._reinit_interval is not None:
            deadlines.append(self._last_reinit + self._reinit_interval)
        return min(deadlines) if deadlines else None

    def pump(self) -> bool:
        """Do one round of pending work now; returns True when something was written."""
        with self._cond:
            now = self._clock()
            if self._closed or not self._has_work(now):
                return False
            texts = {d: t for d, t in self._texts.items() if self._shown.get(d) != t}
            brightness, blanked = self._brightness, self._blanked
            reinit = self._reinit or self._periodic_due(now)
            self._texts, self._brightness, self._blanked, self._reinit = {}, None, None, False
            self._busy = True
        error: BaseException | None = None
        try:
            if reinit:
                self.driver.reinitialise()
            if brightness is not None:
                self.driver.set_brightness(brightness)
            if blanked is not None:
                self.driver.set_blanked(blanked)
            if texts:
                self.driver.write(texts)
        except Exception as exc:  # a display fault is an alert, never a crash
            error = exc
        with self._cond:
            self._busy = False
            if error is None:
                self._shown.update(texts)
                if reinit:
                    self._last_reinit = now
                status = DisplayStatus(ok=True)
            else:
                # Put back what did not go out, unless something newer came meanwhile;
                # the modules may be scrambled, so reinitialise on the retry.
                for display_id, text in texts.items():
                    self._texts.setdefault(display_id, text)
                    self._shown.pop(display_id, None)
                if self._brightness is None:
                    self._brightness = brightness
                if self._blanked is None:
                    self._blanked = blanked
                self._reinit = True
                self._retry_at = now + self._retry_interval
                status = DisplayStatus(
                    ok=False, error=f"{type(error).__name__}: {error}", failures=self._status.failures + 1
                )
            changed = status.ok != self._status.ok
            self._status = status
            self._cond.notify_all()
        if error is not None:
            log.warning("display write failed (%d in a row): %s", status.failures, error)
        if changed and self._on_status is not None:
            try:
                self._on_status(status)
            except Exception:  # the callback's failure must not stop the displays
                log.exception("display status callback failed")
        return error is None

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and not self._has_work(self._clock()):
                    deadline = self._next_deadline()
                    timeout = None if deadline is None else max(0.0, deadline - self._clock())
                    self._cond.wait(timeout)
                if self._closed:
                    return
            self.pump()

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every queued change is written (threaded mode); False on timeout."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._pending() or self._busy:
                remaining = end - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    def close(self) -> None:
        """Stop the worker and close the driver."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        try:
            self.driver.close()
        except Exception:
            log.exception("closing the display driver failed")
