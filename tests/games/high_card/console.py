"""High card at the dealer console: no decision to make, so no button means anything."""

from __future__ import annotations

from controller import events as ev
from controller.engine import Table
from display.console import ConsoleAction


class HighCardConsole:
    """`tablectl.parts.ConsolePart` for high card."""

    def event(self, action: ConsoleAction, table: Table) -> ev.Event | None:
        return None


CONSOLE = HighCardConsole()
