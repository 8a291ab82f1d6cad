"""What each press of the dealer console means at a baccarat table (the registry's ``console`` part).

Baccarat has no player decisions: STAND (the dealer's confirm button) marks the cards turned under the
squeeze; CALL_PIT calls the pit; the other buttons mean nothing here.
"""

from __future__ import annotations

from controller import events as ev
from controller.engine import Table
from display.console import ConsoleAction, ConsoleKind

from .events import Reveal


class BaccaratConsole:
    """The dealer console at a baccarat table."""

    def event(self, action: ConsoleAction, table: Table) -> ev.Event | None:
        """The event a press means now, or None."""
        if action.kind is ConsoleKind.STAND:
            return Reveal() if table.game.hidden_cards(table) else None
        return ev.CallPit() if action.kind is ConsoleKind.CALL_PIT else None


CONSOLE = BaccaratConsole()
