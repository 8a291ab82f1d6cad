"""The games a table can play: one folder per game, behind `controller.games.base.Game`.

``GAMES`` is the registry, as data: a rule profile's ``game`` option names one of these, and the
game's ``rules_model`` validates its options (`controller.rules`). A new game is a new folder here
(its round, legality, settlement, snapshot, view and rules) and one line below.

A game's code is imported the first time the game is asked for (``GAMES[name]``): a table plays
one game, and the others' code was 0.65 MiB of a blackjack table's RSS (benchmarks/soak.py). Its
names, and ``in``, need no import.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from typing import Any

from .base import Game

# name -> (module, class): each game's own `name` is checked against its key when it is loaded.
_WHERE: dict[str, tuple[str, str]] = {
    "blackjack": (".blackjack.game", "Blackjack"),
    "club-21": (".club21.game", "Ochko"),
    "club-21-36": (".club2136.game", "Ochko36"),
}


class GameRegistry(MutableMapping[str, "Game[Any, Any]"]):
    """The games by name; each made (its module imported) the first time it is asked for, then kept.

    ``GAMES[name] = game`` registers a game made already (a test's own game, say)."""

    def __init__(self, where: dict[str, tuple[str, str]]) -> None:
        self._games: dict[str, Game[Any, Any] | tuple[str, str]] = dict(where)

    def __getitem__(self, name: str) -> Game[Any, Any]:
        entry = self._games[name]  # (KeyError: no such game)
        if isinstance(entry, tuple):
            module, cls = entry
            entry = getattr(importlib.import_module(module, __name__), cls)()
            if entry.name != name:
                raise RuntimeError(f"controller.games: {cls} is the game {entry.name!r}, registered as {name!r}")
            self._games[name] = entry
        return entry

    def __setitem__(self, name: str, game: Game[Any, Any]) -> None:
        self._games[name] = game

    def __delitem__(self, name: str) -> None:
        del self._games[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._games)

    def __len__(self) -> int:
        return len(self._games)

    def __contains__(self, name: object) -> bool:
        return name in self._games


GAMES: GameRegistry = GameRegistry(_WHERE)

__all__ = ["GAMES", "Game", "GameRegistry"]
