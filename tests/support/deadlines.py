"""Every deadline of the tests, from one knob (issue 36, item 3).

A deadline in a test ends a test that hangs; it never measures speed. Each one is written for a machine
loaded four times over its cores (load 8 on 2 cores), and `TABLECTL_TEST_TIMEOUT_SCALE` multiplies them
all at once for a machine busier than that, or slower (an emulator): ``TABLECTL_TEST_TIMEOUT_SCALE=3
./scripts/test``. Waits are on conditions (`wait_until`, `until`), polled, never a sleep that hopes.

`scaled(s)` is the deadline for anything that takes a number of seconds: a subprocess's ``timeout=``, an
HTTP client's, a socket's, a thread's join; `scaled_ms(s)` the same in milliseconds, for Playwright.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Callable, TypeVar

SCALE_ENV = "TABLECTL_TEST_TIMEOUT_SCALE"
T = TypeVar("T")


def _scale() -> float:
    text = os.environ.get(SCALE_ENV, "").strip()
    if not text:
        return 1.0
    try:
        value = float(text)
    except ValueError:
        raise SystemExit(f"{SCALE_ENV}={text!r}: not a number (e.g. 2 doubles every deadline)") from None
    if not value > 0:
        raise SystemExit(f"{SCALE_ENV}={text!r}: must be more than 0")
    return value


SCALE = _scale()


def scaled(seconds: float) -> float:
    """A deadline of ``seconds`` on a machine loaded four times over its cores, times the knob."""
    return seconds * SCALE


def scaled_ms(seconds: float) -> float:
    """`scaled` in milliseconds (Playwright's unit)."""
    return seconds * SCALE * 1000


def wait_until(cond: Callable[[], T], seconds: float, what: str, interval: float = 0.02) -> T:
    """Poll ``cond()`` until it is true and return it; fail naming ``what`` after ``scaled(seconds)``."""
    end = time.monotonic() + scaled(seconds)
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {scaled(seconds):g} s waiting for {what}")
        time.sleep(interval)


def wait_steady(read: Callable[[], T], quiet: float, seconds: float, what: str) -> T:
    """``read()`` once it has stayed the same for ``quiet`` seconds (nothing more is on its way: a count of
    messages that may still be arriving), failing after ``scaled(seconds)``. ``quiet`` is not scaled: it is
    the gap that says "no more", and a slow machine only makes the wait for it longer."""
    end = time.monotonic() + scaled(seconds)
    value, since = read(), time.monotonic()
    while True:
        time.sleep(min(0.1, quiet))
        now, again = time.monotonic(), read()
        if again != value:
            value, since = again, now
        elif now - since >= quiet:
            return value
        if now > end:
            raise AssertionError(f"timed out after {scaled(seconds):g} s waiting for {what} to settle (last {value!r})")


async def until(cond: Callable[[], T], seconds: float = 15.0, what: str = "condition",
                interval: float = 0.01) -> T:
    """`wait_until` in an event loop: the loop runs between polls."""
    loop = asyncio.get_running_loop()
    end = loop.time() + scaled(seconds)
    while True:
        value = cond()
        if value:
            return value
        if loop.time() > end:
            raise AssertionError(f"timed out after {scaled(seconds):g} s waiting for {what}")
        await asyncio.sleep(interval)
