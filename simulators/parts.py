"""The parts of a game the simulators take from its folder: its virtual dealer's moves and its simulation.

Each is a registry part (`controller.registry`): ``dealer`` and ``simulate``. This layer says, as a
Protocol, what it needs of each, and takes a part only through `dealer_moves` and `simulation`, which
check it and name the game and the part when it is missing or is not what is needed. Nothing here
names a game.
"""

from __future__ import annotations

import argparse
from typing import Any, Protocol, runtime_checkable

from controller import registry
from controller.rules import Rules

from .dealer_moves import Move

__all__ = ["DealerMoves", "PartError", "SimulatePart", "TablePlay", "dealer_moves", "simulated_games", "simulation"]


PartError = registry.PartError  # (the registry's: one error for a part a consumer cannot use)


class TablePlay(Protocol):
    """The dealer's play at one table: the next move from the view, and what it keeps of the cards it dealt."""

    def move(self, t: dict[str, Any]) -> Move:
        """The dealer's next move, from ``t``, the table as the dealer's key sees it (pure: no I/O)."""

    def dealt(self, t: dict[str, Any], shoe_id: str, position: int) -> None:
        """The card at ``position`` of ``shoe_id`` was just dealt where ``t`` (the view before it) said it goes."""

    def keep(self, t: dict[str, Any]) -> list[tuple[str, int]]:
        """The cards (shoe id, position) still on the table that a pack loaded now must leave out (none: [])."""


@runtime_checkable
class DealerMoves(Protocol):
    """A game's virtual dealer, pure: the one thing to do next, from the table's view alone.

    The dealer's I/O (the API, the shoe's control channel, or the service in memory) carries each move out.
    """

    needs_supervisor: bool
    """The game has a bank the pit opens and closes with its own key (the demo gives its dealer one)."""
    loads_packs: bool
    """The dealer loads the game's packs (``pack``, ``decks``) into the shoe at each shuffle, and checks
    between rounds that the shoe holds them."""
    in_memory: bool
    """The fleet's in-process dealer drives this game (`simulators.memory_table`)."""

    def play(self, rules: Rules, seed: int, random_choice: float, max_boxes: int | None) -> TablePlay:
        """The dealer's play at a table of ``rules``: every random choice drawn from ``seed`` and the table's
        own state, a share ``random_choice`` of the players' decisions taken at random, bets on at most
        ``max_boxes`` boxes (None: any)."""


@runtime_checkable
class SimulatePart(Protocol):
    """A game's simulation: `tablectl simulate` for a profile of this game."""

    def run(self, args: argparse.Namespace, rules: Rules) -> int:
        """Play ``args.rounds`` rounds by ``rules`` and print the house edge (``args.json``: one JSON document);
        the command's exit status (2 with a line on stderr for an option this game does not take)."""


_part = registry.checked_part


def dealer_moves(game: str) -> DealerMoves:
    """The virtual dealer's moves of ``game`` (PartError: it has none, or not a DealerMoves)."""
    return _part(game, "dealer", DealerMoves)


def simulation(game: str) -> SimulatePart:
    """The simulation of ``game`` (PartError: it has none, or not a SimulatePart)."""
    return _part(game, "simulate", SimulatePart)


def simulated_games() -> list[str]:
    """The registered games that have a simulation."""
    return [e.name for e in registry.entries() if "simulate" in e.parts]
