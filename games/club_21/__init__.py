"""club-21 (003's ochko): `game.Ochko`, its round, rules and snapshot.

Kept empty so that importing a game's rules never loads the games (see `controller.rules`)."""
