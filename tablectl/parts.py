"""The parts of a game the table's own parts take from its folder: its displays, console, terminal lines.

Each is a registry part (`controller.registry`), named as the consumer names it: ``display``,
``console``, ``terminal``, ``view``. This module says, as a Protocol, what the composition root needs of each,
and hands a part out only through its accessor, which checks it and names the game and the part when
it is missing or is not what is needed. Nothing here names a game.
"""

from __future__ import annotations

from pathlib import Path
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, cast, runtime_checkable

from controller import events as ev
from controller import registry
from controller.engine import Table
from controller.round import Round
from controller.view_model import GameView, RoundRecord
from display.console import ConsoleAction
from display.model import BoxView, DealerView

__all__ = ["ConsolePart", "DisplayPart", "DisputePart", "EdgePart", "PartError", "PublicPart", "TerminalPart",
           "SpotOddsPart", "TilePart", "ViewPart", "console_part", "display_part", "dispute_part", "edge_part", "game_evidence",
           "has_edge",
           "has_spot_odds", "public_part", "public_parts", "spot_odds_part", "static_dir", "terminal_part", "tile_facts",
           "view_part"]


PartError = registry.PartError  # (the registry's: one error for a part a consumer cannot use)


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


part = registry.checked_part  # the part ``kind`` of ``game``, checked against ``protocol``


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


@runtime_checkable
class DisputePart(Protocol):
    """A game's own section of the dispute record: rows it adds to a box's hands (blackjack's insurance)."""

    def box_rows(self, box: int, engine: Mapping[str, Any], recorded: Mapping[str, Any] | None) -> Sequence[Sequence[str]]:
        """The box's own rows, each in the hands' six columns (what, cards, stake, outcome, the player's net the
        engine computes, as recorded), from the engine's round record and the one the round kept (None: none)."""


def dispute_part(game: str) -> DisputePart | None:
    """The dispute record's section of ``game``, or None: a game with nothing of its own to add is drawn by the
    shared record alone (the part is optional)."""
    if not registry.is_game(game) or "dispute" not in registry.entry(game).parts:
        return None
    return cast(DisputePart, part(game, "dispute", DisputePart))


@runtime_checkable
class EdgePart(Protocol):
    """A game's exact edge of the next round from the cards left (blackjack's exact analyser): surveillance's figure."""

    def player_edge(self, rules: Any, counts: Sequence[int], play: str) -> float:
        """The player's expectation per unit of initial bet, playing ``play``, from ``counts`` (aces first)."""


def has_edge(game: str) -> bool:
    """Whether ``game`` has an exact edge (its optional ``edge`` part): the live figure and the report's."""
    return registry.is_game(game) and "edge" in registry.entry(game).parts


def edge_part(game: str) -> EdgePart:
    """The exact edge of ``game`` (PartError when it has none: ask `has_edge` first)."""
    return cast(EdgePart, part(game, "edge", EdgePart))


@runtime_checkable
class SpotOddsPart(Protocol):
    """A game's exact expectation of each spot on the next round from the cards left, and the game's own event that
    carries it back to the table through the one writer (baccarat's side-bet watch: docs/baccarat.md)."""

    def expectations(self, rules: Any, ranks_left: Mapping[str, int]) -> dict[str, float]:
        """Spot -> expectation per unit staked on the next round (run in the worker process: plain data out)."""

    def event(self, shoe_id: str, cards_out: int, expectations: Mapping[str, float]) -> ev.Event:
        """The input that journals them, for the round dealt after the shoe's first ``cards_out`` cards."""

    def signals(self, rules: Any, rounds: Sequence[tuple[Mapping[str, int], Mapping[str, Any]]]) -> dict[str, list[Any]]:
        """Player -> their evidence (`controller.protection.advantage.Signal`s) from the settled rounds: each the
        cards left by rank before its first card, and its record, oldest first (`tablectl protect players`)."""


def has_spot_odds(game: str) -> bool:
    """Whether ``game`` has exact odds per spot (its optional ``spot_odds`` part)."""
    return registry.is_game(game) and registry.has_part(game, "spot_odds")


def spot_odds_part(game: str) -> SpotOddsPart:
    """The exact odds per spot of ``game`` (PartError when it has none: ask `has_spot_odds` first)."""
    return cast(SpotOddsPart, part(game, "spot_odds", SpotOddsPart))


def game_evidence(rules: Any) -> Callable[[Any, Sequence[tuple[Mapping[str, int], Mapping[str, Any]]]],
                                         dict[str, list[Any]]] | None:
    """A game's own evidence for the players' report (`tablectl.figures.player_book`'s ``evidence_of``): its
    ``spot_odds`` part's signals (baccarat's side bets at a positive exact expectation), or None."""
    return spot_odds_part(rules.game).signals if has_spot_odds(rules.game) else None


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


@runtime_checkable
class TilePart(Protocol):
    """What the floor's tile shows of a game's table beyond what every table shows (baccarat's last results and
    the shoe's counts). The table publishes it in its state; the floor draws it as it comes, naming no game. It
    must be public at the table already (settled results: never a card face down)."""

    def facts(self, table: Table) -> list[tuple[str, str]]:
        """(label, text) pairs, in the order the tile shows them (a dozen at most, short)."""


def tile_facts(table: Table) -> list[dict[str, str]]:
    """The game's own facts for the floor's tile, as the state carries them ([] for a game with no ``tile`` part)."""
    game = table.rules.game
    if not registry.has_part(game, "tile"):
        return []
    facts = cast(TilePart, part(game, "tile", TilePart)).facts(table)
    return [{"label": label, "text": text} for label, text in facts]
