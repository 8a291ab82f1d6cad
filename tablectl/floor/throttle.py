"""How often the floor reports the same thing: at once the first time, then at most once a window.

Pure bookkeeping, no I/O: the store asks `admit` before it records (and logs) an incident that input from the
broker can repeat at will (a malformed message, an unknown table, a row that does not verify...). What is held
back is counted, and summed up once the window is over (`due`), so a flood costs the log and the store a line a
minute per table and kind, not a line a message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Key = tuple[str | None, str]  # (table or None, incident kind)

SAMPLES = 5  # what a summary names of what it held back


@dataclass
class _Held:
    last: float  # when the last one of this key was recorded (itself or a summary)
    count: int = 0
    samples: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Summary:
    """What was held back for one key since its last record."""

    key: Key
    count: int
    since: float
    samples: tuple[str, ...]


class Throttle:
    """The first incident of a key is recorded at once; later ones within `window` seconds are only counted.

    The keys are bounded by the caller (a table the floor knows, or none, times a handful of kinds); past
    `max_keys` the rest share one key per kind, so no input can make this grow without bound.
    """

    def __init__(self, window: float = 60.0, max_keys: int = 10_000) -> None:
        self.window = window
        self.max_keys = max_keys
        self._held: dict[Key, _Held] = {}

    def admit(self, key: Key, now: float, sample: str | None = None) -> int | None:
        """None: hold this one back (counted). Else record it now; the number held back before it is returned."""
        if key not in self._held and len(self._held) >= self.max_keys:
            key = (None, key[1])
        held = self._held.get(key)
        if held is None or now - held.last >= self.window:
            before = held.count if held is not None else 0
            self._held[key] = _Held(now)
            return before
        held.count += 1
        if sample is not None and len(held.samples) < SAMPLES and sample not in held.samples:
            held.samples.append(sample)
        return None

    def due(self, now: float) -> list[Summary]:
        """The keys whose window is over with something held back (each then starts a new window)."""
        out: list[Summary] = []
        for key, held in list(self._held.items()):
            if now - held.last < self.window:
                continue
            if held.count:
                out.append(Summary(key, held.count, held.last, tuple(held.samples)))
                self._held[key] = _Held(now)
            else:
                del self._held[key]  # quiet for a whole window: forget it
        return out

    def __len__(self) -> int:
        return len(self._held)


class SteadyGaps:
    """Gaps that keep coming: the sign of rows dealt somewhere else than this floor, not of an outage.

    An outage (the broker restarted, a worker killed and back) leaves gaps in a burst; a client that takes a
    share of the rows (another subscriber in the workers' shared group) or a worker's session dealt rows while
    it is away leaves gaps minute after minute. `note` takes the gaps reported (after the grace) and says when
    they have come in at least `minutes` different minutes of the last `window` seconds, at most once a window.
    Pure bookkeeping, bounded: at most `max_kept` gaps are remembered.
    """

    def __init__(self, window: float = 600.0, minutes: int = 3, max_kept: int = 10_000) -> None:
        self.window = window
        self.minutes = minutes
        self.max_kept = max_kept
        self._seen: list[tuple[float, str]] = []  # (when reported, table), oldest first
        self._said = -1e18

    def note(self, reported: list[str], now: float) -> tuple[int, list[str], int] | None:
        """`reported`: the tables of the gaps reported now. None, or (gaps in the window, their tables, the
        number of different minutes they came in) when it is time to say so."""
        self._seen += [(now, t) for t in reported]
        self._seen = [s for s in self._seen if now - s[0] < self.window][-self.max_kept:]
        if not reported or now - self._said < self.window:
            return None
        minutes = len({int(at // 60) for at, _ in self._seen})
        if minutes < self.minutes:
            return None
        self._said = now
        return len(self._seen), sorted({t for _, t in self._seen}), minutes
