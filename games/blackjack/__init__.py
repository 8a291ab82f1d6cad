"""Blackjack, as the five casino documents play it: `game.Blackjack` and its rules, legality, settlement and snapshot.

``ENTRY`` is what the registry knows of it (`controller.registry`; its line is in pyproject.toml).
"""

from controller.registry import GameEntry

from .profiles import PROFILES

# Its hot modules, compiled with the engine (tablectl/compiled_engine.py reads this line, importing nothing).
COMPILED = ("game.py", "legality.py", "settlement.py", "simulate.py", "outcomes.py", "actions.py")

# The parts of the table that play it, each loaded when first asked for (a table never loads its simulation).
ENTRY = GameEntry("games.blackjack.game:Blackjack", PROFILES, name="blackjack", parts={
    "view": "games.blackjack.view:VIEW",
    "static": "games.blackjack.view:STATIC",
    "display": "games.blackjack.display:DISPLAY",
    "console": "games.blackjack.console:CONSOLE",
    "terminal": "games.blackjack.terminal:TERMINAL",
    "dispute": "games.blackjack.dispute:DISPUTE",
    "edge": "games.blackjack.edge:EDGE",
    "dealer": "games.blackjack.dealer:DEALER",
    "simulate": "games.blackjack.simulate_cli:SIMULATE",
})
