"""Blackjack, as the five casino documents play it: `game.Blackjack` and its rules, legality, settlement and snapshot.

Kept empty so that importing a game's rules never loads the games (see `controller.rules`)."""
