"""club-21-36 (003's ochko with a 36-card pack and a bank): `game.Club2136`, its round of duels, the bank, rules and snapshot.

Kept empty so that importing a game's rules never loads the games (see `controller.rules`)."""
