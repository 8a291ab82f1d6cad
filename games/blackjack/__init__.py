"""Blackjack, as the five casino documents play it: `game.Blackjack` and its rules, legality, settlement and snapshot.

``ENTRY`` is what the registry knows of it (`controller.registry`; its line is in pyproject.toml).
"""

from controller.registry import GameEntry

from .game import Blackjack
from .profiles import PROFILES

ENTRY = GameEntry(Blackjack(), PROFILES)
