"""What each press of the dealer console means at a club-21 table (the registry's ``console`` part)."""

from __future__ import annotations

from controller import events as ev
from controller.engine import Phase, Table
from display.console import ConsoleAction, ConsoleKind

from ..club.events import BankerStand, Fold
from .events import Contra, Recontra


def club21_console_event(action: ConsoleAction, table: Table) -> ev.Event | None:
    """A press at a club table (003), where the croupier is the banker and decides for every box.

    The same buttons, in the club game's words: STAND ends the box's turn, or the banker's
    drawing in his turn; DOUBLE doubles a pair, the named box's stake on a spent pack, or,
    after everyone's first card, every stake (the banker's contra; with a box selected, that
    box's recontra); SURRENDER surrenders, or folds the named box on a spent pack. There is
    no insurance. The engine refuses what the table's options do not allow (logged).
    """
    kind = action.kind
    box = action.box
    phase = table.phase
    if kind is ConsoleKind.STAND:
        return BankerStand() if phase is Phase.DEALER else ev.Stand()
    if kind is ConsoleKind.DOUBLE:
        if phase is Phase.CONTRA:
            return Recontra(box=box) if box is not None else Contra()
        return ev.Double(box=box)  # on a spent pack the engine asks for the box (needs_box) when none is named
    if kind is ConsoleKind.SURRENDER:
        if phase is Phase.PACK_OUT:
            return Fold(box=box) if box is not None else None  # fold names its box: press the box first
        return ev.Surrender(box=box)
    if kind is ConsoleKind.SPLIT:
        return ev.Split()
    if kind is ConsoleKind.CALL_PIT:
        return ev.CallPit()
    return None


class Club21Console:
    """The dealer console at a club-21 table."""

    def event(self, action: ConsoleAction, table: Table) -> ev.Event | None:
        """The event a press means now, or None."""
        return club21_console_event(action, table)


CONSOLE = Club21Console()
