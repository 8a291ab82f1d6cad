"""The composition root's registry of games: for each game the engine plays, what the table's own parts do.

`controller.games.GAMES` is the engine's registry; this is the rest of the table's: what the box
displays show (`display_views`), what each press of the dealer console means (`console_events`),
and whether the virtual dealer needs the pit's key (a game with a bank the pit opens). A new game
is its folder under controller/games/ and one line here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from controller import events as ev
from controller.engine import Table
from display.console import ConsoleAction
from display.model import TableView

from .console_events import blackjack_console_event, club21_console_event, club2136_console_event
from .display_views import blackjack_display_view, club_display_view


@dataclass(frozen=True, slots=True)
class TableSide:
    """What the table around the engine does for one game."""

    display_view: Callable[..., TableView]
    """(table, link_up, *, show_settled) -> what every display shows."""
    console_event: Callable[[ConsoleAction, Table], "ev.Event | None"]
    """The event a console press means now, or None."""
    pit_opens_bank: bool = False
    """The game has a bank the pit opens and closes with its own key (the demo's dealer is given one)."""


SIDES: dict[str, TableSide] = {
    "blackjack": TableSide(blackjack_display_view, blackjack_console_event),
    "club-21": TableSide(club_display_view, club21_console_event),
    "club-21-36": TableSide(club_display_view, club2136_console_event, pit_opens_bank=True),
}


def side_of(game: str) -> TableSide:
    """The table's parts for ``game`` (a game the engine plays but this registry lacks is a bug: KeyError)."""
    return SIDES[game]


def display_view(table: Table, link_up: bool = True, *, show_settled: bool = True) -> TableView:
    """What every display shows now, in the table's game (settled rounds stay unless ``show_settled`` is False)."""
    return side_of(table.rules.game).display_view(table, link_up, show_settled=show_settled)


def console_event(action: ConsoleAction, table: Table) -> ev.Event | None:
    """The table event a console press means now, in the table's game, or None."""
    return side_of(table.rules.game).console_event(action, table)
