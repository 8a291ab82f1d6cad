"""club-21 on the box displays (the registry's ``display`` part): the club games' displays, with the banker's advice
in his turn where the house turns it on (``banker_advice``: his best play from what he sees, `banker.advice`)."""

from controller.engine import Table

from ..club.display import ClubDisplay


def _advice(table: Table) -> bool | None:
    from .banker import advice  # (only a table that shows advice needs the model)

    return advice(table)


DISPLAY = ClubDisplay(advice=_advice)
