"""The parts of a game the table's own parts take from its folder: its displays, console, terminal lines.

Each is a registry part (`controller.registry`), named as the consumer names it: ``display``,
``console``, ``terminal``, ``view``. This module says, as a Protocol, what the composition root needs of each,
and hands a part out only through its accessor, which checks it and names the game and the part when
it is missing or is not what is needed. Nothing here names a game.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, cast, runtime_checkable

from controller import events as ev
from controller import registry
from controller.engine import Table
from controller.round import Round
from controller.view_model import GameView, RoundRecord
from display.console import ConsoleAction
from display.model import BoxView, DealerView

__all__ = ["ConsolePart", "DisplayPart", "PartError", "PublicPart", "TerminalPart", "ViewPart", "console_part",
           "display_part", "public_part", "public_parts", "terminal_part", "view_part"]


class PartError(LookupError):
    """A game has no such part, or a part that is not what its consumer needs: the message names both."""


@runtime_checkable
class DisplayPart(Protocol):
    """What the box displays show of a game's table (display/ never imports the engine: this is the mapping)."""

    def felt(self, table: Table, *, show_settled: bool = True) -> tuple[tuple[BoxView, ...], DealerView]:
        """Every box's display (boxes 1 to the rules' ``boxes``) and the dealer's, now; the settled round stays
        until the next round's first card unless ``show_settled`` is False."""


@runtime_checkable
class ConsolePart(Protocol):
    """What each press of the dealer console means in a game (the same buttons, the game's decisions)."""

    def event(self, action: ConsoleAction, table: Table) -> ev.Event | None:
        """The event a press means now, or None when it means nothing here (it only reads the table)."""


@runtime_checkable
class ViewPart(Protocol):
    """A game's view and round record as the readers validate them (the API's answers and its OpenAPI document)."""

    @property
    def model(self) -> type[GameView]:
        """The game's part of the table's view (extends `controller.view_model.GameView`)."""

    @property
    def record(self) -> type[RoundRecord]:
        """A settled round's record (extends `controller.view_model.RoundRecord`)."""


@runtime_checkable
class TerminalPart(Protocol):
    """A game's settled round in one line, for the demo's terminal."""

    def round_line(self, r: Round, dealer_title: str) -> str:
        """The round's line: the dealer (``dealer_title``), every hand with its marks, the house's result."""


def part(game: str, kind: str, protocol: type) -> Any:
    """The part ``kind`` of ``game``, checked against ``protocol`` (PartError names what is wrong)."""
    try:
        value = registry.part(game, kind)
    except registry.RegistryError as exc:
        raise PartError(str(exc)) from None
    if not isinstance(value, protocol):
        raise PartError(f"the {kind!r} part of the game {game!r} is not a {protocol.__name__} "
                        f"({type(value).__name__})")
    return value


def display_part(game: str) -> DisplayPart:
    """The box displays' mapping of ``game``."""
    return cast(DisplayPart, part(game, "display", DisplayPart))


def console_part(game: str) -> ConsolePart:
    """The dealer console's mapping of ``game``."""
    return cast(ConsolePart, part(game, "console", ConsolePart))


def view_part(game: str) -> ViewPart:
    """The view and record models of ``game``."""
    return cast(ViewPart, part(game, "view", ViewPart))


def static_dir(game: str) -> Path:
    """The folder of ``game``'s dashboard renderer (its ``felt.js``, for its view kind: docs/games.md)."""
    value = part(game, "static", Path)
    if not value.is_dir() or not (value / "felt.js").is_file():
        raise PartError(f"the 'static' part of the game {game!r} ({value}) is not a folder with a felt.js")
    return cast(Path, value)


def terminal_part(game: str) -> TerminalPart:
    """The terminal's round lines of ``game``."""
    return cast(TerminalPart, part(game, "terminal", TerminalPart))


@runtime_checkable
class PublicPart(Protocol):
    """A game's public reads and pages, served with no key (a baccarat shoe's scoreboard and its table-side screen).

    What a public read shows must be public at the table already (settled results: never a card face down); the
    API serves ``GET /api/<name>`` and ``GET /<page>`` for every name any registered game declares, and answers
    404 at a table whose game has not that name.
    """

    @property
    def reads(self) -> Mapping[str, Callable[[Table], dict[str, Any]]]:
        """Name -> the read's answer from the table now (JSON-ready)."""

    @property
    def pages(self) -> Mapping[str, str]:
        """Page name -> the file of the game's ``static`` folder that is the page."""


def public_part(game: str) -> PublicPart | None:
    """The public reads and pages of ``game``, or None when it has none."""
    if not registry.has_part(game, "public"):
        return None
    return cast(PublicPart, part(game, "public", PublicPart))


def public_parts() -> list[tuple[str, PublicPart]]:
    """(game, its public part) for every registered game that has one."""
    found = []
    for game in registry.names():
        p = public_part(game)
        if p is not None:
            found.append((game, p))
    return found
