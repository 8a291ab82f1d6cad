"""Any date, any time zone: the wall-clock instants and zones the date-sensitive tests run under.

The table never reads the wall clock (time is passed in), so a test must pass whatever the
calendar says. ``DATES`` holds the instants that have broken such code elsewhere: either side of
the suite's fixture times (``tests.support.journals.T0``, 2026-11-30 20:00 UTC, and the
2026-12-01 20:00 UTC of the club tests), a leap day, both daylight-saving changes of a zone west
of UTC, the first second past 32-bit ``time_t`` (2038) and a century that is not a leap year
(2100). ``frozen`` freezes the clock there with freezegun and sets ``TZ`` for the process.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterator

from freezegun import freeze_time


@dataclass(frozen=True)
class Instant:
    """A wall-clock instant (UTC) and the zone the process lives in at it."""

    label: str
    at: datetime
    tz: str


DATES: tuple[Instant, ...] = (
    Instant("before-the-fixtures", datetime(2026, 11, 30, 19, 0, tzinfo=timezone.utc), "UTC"),
    Instant("between-the-fixtures", datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc), "Europe/Moscow"),
    Instant("after-the-fixtures", datetime(2026, 12, 1, 20, 0, 1, tzinfo=timezone.utc), "Asia/Kolkata"),
    Instant("leap-day", datetime(2028, 2, 29, 23, 59, 59, tzinfo=timezone.utc), "UTC"),
    # 02:00 local on 2027-03-14 does not exist in New York, and 01:30 on 2026-11-01 happens twice.
    Instant("dst-starts-new-york", datetime(2027, 3, 14, 7, 0, 0, tzinfo=timezone.utc), "America/New_York"),
    Instant("dst-ends-new-york", datetime(2026, 11, 1, 5, 30, 0, tzinfo=timezone.utc), "America/New_York"),
    Instant("past-32-bit-time", datetime(2038, 1, 19, 3, 14, 8, tzinfo=timezone.utc), "Australia/Lord_Howe"),
    Instant("year-2100", datetime(2100, 3, 1, 0, 0, 0, tzinfo=timezone.utc), "Pacific/Kiritimati"),
)


@contextmanager
def frozen(instant: Instant) -> Iterator[datetime]:
    """The wall clock stopped at `instant` (it ticks on from there) in its zone; yields that instant."""
    old_tz = os.environ.get("TZ")
    os.environ["TZ"] = instant.tz
    time.tzset()
    try:
        # tick: monotonic and wall time move on from the instant, so event loops and timeouts work;
        # real_asyncio: asyncio's own clock is never frozen; nor is pytest's, which times each test
        # (frozen, it reported a test's setup as 130 years long in `--durations`).
        with freeze_time(instant.at, tick=True, real_asyncio=True, ignore=["_pytest"]):
            yield instant.at
    finally:
        if old_tz is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = old_tz
        time.tzset()
