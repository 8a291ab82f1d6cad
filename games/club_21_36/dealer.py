"""club-21-36's croupier (the registry's ``dealer`` part): the club games' croupier; the bank is the pit's to open."""

from ..club.dealer import ClubDealer

DEALER = ClubDealer(needs_supervisor=True)
