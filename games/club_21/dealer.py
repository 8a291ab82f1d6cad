"""club-21's croupier (the registry's ``dealer`` part): the club games' croupier, with no bank to open."""

from ..club.dealer import ClubDealer

DEALER = ClubDealer(needs_supervisor=False)
