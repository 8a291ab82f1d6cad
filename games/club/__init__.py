"""What the two club games of 003 share: the club round, box and hand (`game`), their snapshot and rules.

Kept empty so that importing a game's rules never loads the games (see `controller.rules`)."""
