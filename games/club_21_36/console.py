"""What each press of the dealer console means at a club-21-36 table (the registry's ``console`` part)."""

from __future__ import annotations

from controller import events as ev
from controller.engine import Phase, Table
from display.console import ConsoleAction, ConsoleKind

from ..club.events import BankerStand
from .events import Dark


def club2136_console_event(action: ConsoleAction, table: Table) -> ev.Event | None:
    """A press at a club-21-36 table, which has no doubling: DOUBLE sends the box in its duel dark (it draws
    from now on without looking); STAND ends the box's turn, or the banker's drawing in his turn."""
    kind = action.kind
    if kind is ConsoleKind.STAND:
        return BankerStand() if table.phase is Phase.DEALER else ev.Stand()
    if kind is ConsoleKind.DOUBLE:
        return Dark(box=action.box)
    return ev.CallPit() if kind is ConsoleKind.CALL_PIT else None


class Club2136Console:
    """The dealer console at a club-21-36 table."""

    def event(self, action: ConsoleAction, table: Table) -> ev.Event | None:
        """The event a press means now, or None."""
        return club2136_console_event(action, table)


CONSOLE = Club2136Console()
