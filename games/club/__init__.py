"""What the two club games of 003 share: the club round, box and hand (`game`), their snapshot and rules.

Not a game (the registry has no line for it): club-21 and club-21-36 are built on it."""

# Its hot modules, compiled with the engine (tablectl/compiled_engine.py reads this line, importing nothing).
COMPILED = ("game.py", "simulate.py", "outcomes.py", "actions.py")
