"""club-21 (003's ochko): `game.Club21`, its round, rules and snapshot.

``ENTRY`` is what the registry knows of it (`controller.registry`; its line is in pyproject.toml).
"""

from controller.registry import GameEntry

# Its hot modules, compiled with the engine (tablectl/compiled_engine.py reads this line, importing nothing).
COMPILED = ("game.py",)

# 003's club game as the document plays it: the defaults of its options (see rules.Club21Rules).
ENTRY = GameEntry("games.club_21.game:Club21", {"club-21": {}}, name="club-21", parts={
    "view": "games.club_21.view:VIEW",
    "static": "games.club.view:STATIC",
    "display": "games.club_21.display:DISPLAY",
    "console": "games.club_21.console:CONSOLE",
    "terminal": "games.club.terminal:TERMINAL",
    "dealer": "games.club_21.dealer:DEALER",
    "simulate": "games.club_21.simulate:SIMULATE",
})
