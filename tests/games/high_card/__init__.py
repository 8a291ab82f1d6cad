"""High card, the test game: a whole game in one folder, known to the table by one registry line.

Each box with a bet and the dealer get one card, face up; the higher card (ace high) wins even money, equal cards
push. The folder holds what every game holds (docs/games.md): the engine (`game`), its view model (`view`), its
box displays (`display`), console (`console`), terminal line (`terminal`) and virtual dealer (`dealer`). It has no
renderer of its own for the dashboard (its view kind is the generic one), no section of its own in the dispute
record, and no simulation: those parts are optional. An installed game's registry line is an entry point in
pyproject.toml; the tests add this one at run time, with one line: ``registered(ENTRY)``.
"""

from controller.registry import GameEntry

from .game import HighCard

ENTRY = GameEntry(HighCard(), {"high-card": {"decks": 1, "burn_cards": 0}}, parts={
    "view": "tests.games.high_card.view:VIEW",
    "display": "tests.games.high_card.display:DISPLAY",
    "console": "tests.games.high_card.console:CONSOLE",
    "terminal": "tests.games.high_card.terminal:TERMINAL",
    "dealer": "tests.games.high_card.dealer:DEALER",
})
