"""club-21-36 on the box displays (the registry's ``display`` part): the club games' displays, the bank beside the
banker's."""

from ..club.display import ClubDisplay

DISPLAY = ClubDisplay()
