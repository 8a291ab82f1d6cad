"""Where the engine's effects go: one small interface, many outputs.

The service calls ``output.handle(effects, table)`` after every input it
applied, in the loop thread. An output must not block: the displays queue
and coalesce, the bell plays from its own thread, the shoe lock is a
non-blocking command to the link. What each display shows is the game's
mapping (`tablectl.display_views`: display/ never imports the controller).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Callable, Protocol

from controller.alerts import AlertKind, AlertLevel
from controller.effects import AlertRaised, Effect, ShoeLock
from controller.engine import Table
from controller.round import Round
from display.bell import BellSignal
from display.model import TableMessage, TableView

from .display_views import display_view

log = logging.getLogger(__name__)


class Output(Protocol):
    """Anything that wants to hear what the table decided.

    An output may also have ``stopped(reason)``: the table has stopped (its journal
    failed) and takes nothing more; show it, ring for it. It must not block either.
    """

    def handle(self, effects: list[Effect], table: Table) -> None:
        """React to the effects of one input; the table is the state after it. Must not block."""


class ShoeLockOutput:
    """Holds the shoe's gate shut while the table needs attention or a shuffle is due."""

    def __init__(self, lock: Callable[[], None], unlock: Callable[[], None]) -> None:
        self._lock, self._unlock = lock, unlock

    def handle(self, effects: list[Effect], table: Table) -> None:
        """Pass lock changes to the shoe."""
        for effect in effects:
            if isinstance(effect, ShoeLock):
                (self._lock if effect.locked else self._unlock)()

    def sync(self, table: Table) -> None:
        """Set the gate to the table's state (at startup and after a reconnect)."""
        (self._lock if table.locked else self._unlock)()

    def stopped(self, reason: str) -> None:
        """No card may leave the shoe while nothing can be journalled."""
        self._lock()


# The pattern follows the alert's level (controller.alerts.ALERT_LEVEL), so the pit knows by ear
# whether it must come (an alarm: the rapid bursts) or the table waits for someone (an action:
# long-short-long). The dealer's call keeps its own two long rings: the pit knows who asks.
_BELL_FOR_LEVEL = {AlertLevel.ALARM: BellSignal.ATTENTION, AlertLevel.ACTION: BellSignal.FAULT}
_BELL_FOR_KIND = {AlertKind.CALL_PIT: BellSignal.CALL_PIT}


class BellOutput:
    """Rings the pattern that says why, each time an alert that needs a person is raised.

    A notice (controller.alerts.ALERT_LEVEL: a due shuffle, an empty shoe) is shown but never rung:
    it comes every shoe, and a bell that rings for routine teaches the pit to ignore it.
    """

    def __init__(self, ring: Callable[[BellSignal], None]) -> None:
        self._ring = ring

    def handle(self, effects: list[Effect], table: Table) -> None:
        """Ring for every new alert of level action or alarm."""
        for effect in effects:
            if isinstance(effect, AlertRaised) and effect.alert.level is not AlertLevel.NOTICE:
                alert = effect.alert
                self._ring(_BELL_FOR_KIND.get(alert.kind) or _BELL_FOR_LEVEL[alert.level])

    def stopped(self, reason: str) -> None:
        """The table stopped (its storage failed): the pit must come, so it rings the alarm's pattern."""
        self._ring(_BELL_FOR_LEVEL[AlertLevel.ALARM])


class DisplayOutput:
    """Shows every box's total and the dealer's on the displays.

    A settled round stays on the displays (each box's payout, the dealer's round total)
    until the next round's first card, or for ``settled_seconds`` when that is more than
    0: then ``call_later(seconds, callback)`` (the event loop's) brings the next view.
    """

    def __init__(self, show: Callable[[TableView], object], link_up: Callable[[], bool] = lambda: True,
                 *, settled_seconds: float = 0.0,
                 call_later: Callable[[float, Callable[[], None]], Any] | None = None) -> None:
        self._show = show
        self._link_up = link_up
        self._last: TableView | None = None
        self._settled_seconds = settled_seconds
        self._call_later = call_later
        self._table: Table | None = None
        self._settled: Round | None = None  # the settled round whose timer runs or ran
        self._expired = False

    def handle(self, effects: list[Effect], table: Table) -> None:
        """Render the new state if it changed."""
        self._table = table
        settled = table.previous if table.round is None else None
        if settled is not self._settled:
            self._settled, self._expired = settled, False
            if settled is not None and self._settled_seconds > 0 and self._call_later is not None:
                self._call_later(self._settled_seconds, lambda: self._expire(settled))
        self._render()

    def _expire(self, settled: Round) -> None:
        if settled is self._settled and self._table is not None:
            self._expired = True
            self._render()

    def _render(self) -> None:
        assert self._table is not None
        view = display_view(self._table, self._link_up(), show_settled=not self._expired)
        if view != self._last:
            self._last = view
            self._show(view)

    def stopped(self, reason: str) -> None:
        """Every display says the table has stopped: no total shown can be trusted now."""
        if self._last is not None:
            self._last = replace(self._last, messages=self._last.messages | {TableMessage.TABLE_STOPPED})
            self._show(self._last)
