"""The table bell (a relay or buzzer) and the optional tower light.

Patterns are sequences of (on, off) durations in seconds. :class:`BellPlayer` is
pure: given ``now`` it says the bell's level and when the level next changes, so
tests step time. :class:`Bell` applies it to a gpiozero output from a small thread
(or from :meth:`Bell.step` when the owner drives time).

Priority: a request for a signal of higher priority than the one ringing cuts it
short (the cut pattern is dropped: it has been heard); lower or equal ones wait in
a queue, one per signal (asking again for a queued or ringing signal does nothing).
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gpiozero import LED, OutputDevice
from gpiozero.pins import Factory

from display.clock import Clock

log = logging.getLogger(__name__)


class BellSignal(enum.Enum):
    """Why the bell rings. Declaration order is priority order, highest first."""

    # The service rings these by the alert's level (tablectl.outputs; controller.alerts.ALERT_LEVEL).
    ATTENTION = "attention"  # an alarm (integrity, link down): the pit must come now
    FAULT = "fault"  # an action (held card, shoe fault): the table waits for the dealer or the pit
    CALL_PIT = "call_pit"  # the dealer's button
    SHUFFLE_DUE = "shuffle_due"  # no alert rings it (a notice is silent, issue 23): kept for configs and bring-up

    @property
    def priority(self) -> int:
        """Higher rings first."""
        return len(BellSignal) - list(BellSignal).index(self)


Pulse = tuple[float, float]  # (on seconds, off seconds)

#: Distinct by ear: a rapid burst repeated, long-short-long, two long rings, one ding.
DEFAULT_PATTERNS: dict[BellSignal, tuple[Pulse, ...]] = {
    BellSignal.ATTENTION: ((0.1, 0.1),) * 5 + ((0.1, 0.6),) + ((0.1, 0.1),) * 5 + ((0.1, 0.0),),
    BellSignal.FAULT: ((1.0, 0.3), (0.2, 0.3), (1.0, 0.0)),
    BellSignal.CALL_PIT: ((0.6, 0.4), (0.6, 0.0)),
    BellSignal.SHUFFLE_DUE: ((0.2, 0.0),),
}


def check_pattern(pulses: Sequence[Pulse]) -> tuple[Pulse, ...]:
    """Validate a pattern: at least one pulse, on > 0, off >= 0, at most 30 s in all."""
    pulses = tuple((float(on), float(off)) for on, off in pulses)
    if not pulses:
        raise ValueError("a bell pattern needs at least one (on, off) pulse")
    for on, off in pulses:
        if on <= 0 or off < 0:
            raise ValueError(f"bell pulse ({on}, {off}): on must be > 0 and off >= 0")
    if sum(on + off for on, off in pulses) > 30:
        raise ValueError("a bell pattern may last at most 30 s")
    return pulses


@dataclass
class _Playing:
    signal: BellSignal
    changes: list[tuple[float, bool]]  # absolute times at which the level becomes the value


class BellPlayer:
    """Which level the bell has at any time, for queued requests (pure, not thread-safe)."""

    def __init__(self, patterns: Mapping[BellSignal, Sequence[Pulse]] | None = None) -> None:
        merged: dict[BellSignal, Sequence[Pulse]] = dict(DEFAULT_PATTERNS)
        merged.update(patterns or {})
        self.patterns = {signal: check_pattern(p) for signal, p in merged.items()}
        self._playing: _Playing | None = None
        self._queue: list[BellSignal] = []

    def _start(self, signal: BellSignal, now: float) -> None:
        changes: list[tuple[float, bool]] = []
        t = now
        for on, off in self.patterns[signal]:
            changes.append((t, True))
            t += on
            changes.append((t, False))
            t += off
        # The last entry marks the end of the pattern (its trailing off-time).
        changes.append((t, False))
        self._playing = _Playing(signal, changes)

    def request(self, signal: BellSignal, now: float) -> None:
        """Ask for a pattern at time ``now``."""
        self.update(now)
        playing = self._playing
        if playing is not None and playing.signal is signal or signal in self._queue:
            return
        if playing is None:
            self._start(signal, now)
        elif signal.priority > playing.signal.priority:
            log.info("bell: %s cuts %s short", signal.name, playing.signal.name)
            self._start(signal, now)
        else:
            self._queue.append(signal)
            self._queue.sort(key=lambda s: -s.priority)

    def update(self, now: float) -> tuple[bool, float | None]:
        """Advance to ``now``; returns (bell on?, time of the next change or None when idle)."""
        while self._playing is not None:
            changes = self._playing.changes
            while len(changes) > 1 and changes[1][0] <= now:
                changes.pop(0)
            if len(changes) > 1:
                return changes[0][1] if changes[0][0] <= now else False, (
                    changes[0][0] if changes[0][0] > now else changes[1][0]
                )
            # Pattern over at changes[0][0]; queued ones start from there, not from now,
            # so the rhythm does not depend on when update is called.
            end = changes[0][0]
            self._playing = None
            if self._queue:
                self._start(self._queue.pop(0), end)
        return False, None

    @property
    def ringing(self) -> BellSignal | None:
        """The signal whose pattern is playing, if any."""
        return self._playing.signal if self._playing else None

    @property
    def queued(self) -> list[BellSignal]:
        """Signals waiting, highest priority first."""
        return list(self._queue)


class Bell:
    """The bell on a gpiozero output: a relay (:class:`~gpiozero.OutputDevice`) or buzzer.

    ``ring`` is thread-safe and returns at once. With ``start=True`` a thread switches
    the output at the right times; with ``start=False`` the owner calls :meth:`step`.
    """

    def __init__(
        self,
        pin: int,
        *,
        pin_factory: Factory | None = None,
        active_high: bool = True,
        patterns: Mapping[BellSignal, Sequence[Pulse]] | None = None,
        clock: Clock = time.monotonic,
        start: bool = True,
    ) -> None:
        self.device = OutputDevice(pin, active_high=active_high, initial_value=False, pin_factory=pin_factory)
        self.player = BellPlayer(patterns)
        self._clock = clock
        self._cond = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None
        if start:
            self._thread = threading.Thread(target=self._run, name="bell", daemon=True)
            self._thread.start()

    def ring(self, signal: BellSignal) -> None:
        """Queue ``signal``'s pattern (see the module's priority rules)."""
        with self._cond:
            self.player.request(signal, self._clock())
            self._apply(self._clock())
            self._cond.notify_all()

    def _apply(self, now: float) -> float | None:
        level, next_change = self.player.update(now)
        if self.device.value != level:
            self.device.value = level
        return next_change

    def step(self) -> float | None:
        """Set the output for the clock's current time; returns when to step next."""
        with self._cond:
            return self._apply(self._clock())

    def _run(self) -> None:
        with self._cond:
            while not self._closed:
                next_change = self._apply(self._clock())
                timeout = None if next_change is None else max(0.0, next_change - self._clock())
                self._cond.wait(timeout)

    def close(self) -> None:
        """Stop, leave the bell off and release the pin."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self.device.off()
        self.device.close()


class TowerState(enum.Enum):
    """What the tower light shows."""

    OFF = "off"
    OK = "ok"  # green: table open, nothing wrong
    SERVICE = "service"  # amber: pit called, shuffle due
    ALARM = "alarm"  # red: attention, fault, link down


class TowerLight:
    """A tower light of up to three LEDs (red, amber, optional green), one lit per state."""

    def __init__(
        self,
        red: int,
        amber: int,
        green: int | None = None,
        *,
        pin_factory: Factory | None = None,
    ) -> None:
        self.red = LED(red, pin_factory=pin_factory)
        self.amber = LED(amber, pin_factory=pin_factory)
        self.green = LED(green, pin_factory=pin_factory) if green is not None else None
        self.state = TowerState.OFF

    def set(self, state: TowerState) -> None:
        """Light the state's lamp and put out the others."""
        self.state = state
        self.red.value = state is TowerState.ALARM
        self.amber.value = state is TowerState.SERVICE
        if self.green is not None:
            self.green.value = state is TowerState.OK

    def close(self) -> None:
        """Lamps off, pins released."""
        for led in (self.red, self.amber, self.green):
            if led is not None:
                led.off()
                led.close()
