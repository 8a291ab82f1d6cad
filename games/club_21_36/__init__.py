"""club-21-36 (003's ochko with a 36-card pack and a bank): `game.Club2136`, its round of duels, the bank, rules and
snapshot.

``ENTRY`` is what the registry knows of it (`controller.registry`; its line is in pyproject.toml).
"""

from controller.registry import GameEntry

# Its hot modules, compiled with the engine (tablectl/compiled_engine.py reads this line, importing nothing).
COMPILED = ("game.py",)

# 003's 36-card game as the document plays it: the defaults of its options (see rules.Club2136Rules).
ENTRY = GameEntry("games.club_21_36.game:Club2136", {"club-21-36": {}}, name="club-21-36", parts={
    "view": "games.club_21_36.view:VIEW",
    "static": "games.club.view:STATIC",
    "display": "games.club_21_36.display:DISPLAY",
    "console": "games.club_21_36.console:CONSOLE",
    "terminal": "games.club.terminal:TERMINAL",
    "dealer": "games.club_21_36.dealer:DEALER",
    "simulate": "games.club_21_36.simulate:SIMULATE",
})
