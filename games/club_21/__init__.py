"""club-21 (003's ochko): `game.Club21`, its round, rules and snapshot.

Kept empty so that importing a game's rules never loads the games (see `controller.rules`)."""
