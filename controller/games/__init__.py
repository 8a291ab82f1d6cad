"""The games a table can play: one module per family, behind `controller.games.base.Game`.

``GAMES`` is the registry, as data: a rule profile's ``game`` option names one of these.
A new game is a new module here and one line below.
"""

from __future__ import annotations

from typing import Any

from .base import Game
from .blackjack import Blackjack
from .ochko import Ochko
from .ochko36 import Ochko36

GAMES: dict[str, Game[Any, Any]] = {
    "blackjack": Blackjack(),
    "club-21": Ochko(),
    "club-21-36": Ochko36(),
}

__all__ = ["GAMES", "Game"]
