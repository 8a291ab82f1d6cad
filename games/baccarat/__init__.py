"""Baccarat (punto banco and EZ Baccarat) on the same shoe: `game.Baccarat`, its tableau, settlement, options,
snapshot, exact analysis and scoreboard.

``ENTRY`` is what the registry knows of it (`controller.registry`; its line is in pyproject.toml).
"""

from controller.registry import GameEntry

from .profiles import PROFILES

# Its hot modules, compiled with the engine (tablectl/compiled_engine.py reads this line, importing nothing): its
# game and its coup extend compiled classes (Game, Round, Hand, GameAction), which interpreted code cannot.
COMPILED = ("game.py", "coup.py")

ENTRY = GameEntry("games.baccarat.game:Baccarat", PROFILES, name="baccarat", parts={
    "view": "games.baccarat.view:VIEW",
    "static": "games.baccarat.view:STATIC",
    "display": "games.baccarat.display:DISPLAY",
    "console": "games.baccarat.console:CONSOLE",
    "terminal": "games.baccarat.terminal:TERMINAL",
    "replay": "games.baccarat.terminal:TERMINAL",
    "dealer": "games.baccarat.dealer:DEALER",
    "simulate": "games.baccarat.simulate:SIMULATE",
    "public": "games.baccarat.scoreboard:PUBLIC",
    "tile": "games.baccarat.scoreboard:TILE",
    "spot_odds": "games.baccarat.odds:SPOT_ODDS",
})
