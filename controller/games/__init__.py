"""The games a table can play: one folder per game, behind `controller.game.Game`.

``GAMES`` is the registry, as data: a rule profile's ``game`` option names one of these, and the
game's ``rules_model`` validates its options (`controller.rules`). A new game is a new folder here
(its round, legality, settlement, snapshot, view and rules) and one line below.
"""

from __future__ import annotations

from typing import Any

from controller.game import Game
from games.blackjack.game import Blackjack
from games.club_21.game import Club21
from games.club_21_36.game import Club2136

GAMES: dict[str, Game[Any, Any]] = {game.name: game for game in (
    Blackjack(),
    Club21(),
    Club2136(),
)}

__all__ = ["GAMES", "Game"]
