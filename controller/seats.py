"""Who sits on each box (issue 41): the table's part of a player's rating slip.

A player is seated by ``seat`` (a player card or badge at the console, the pit's dashboard, or nobody named: the
anonymous "Player on box N"), leaves by ``unseat``, and steps away by ``pause`` / ``resume``. A named player's
bet on a box nobody sits on seats them (decided: the table never refuses play for want of a rating, and the
slip opens at the first bet). The slip itself, its time, rounds and theoretical win, is made from the journal
(`controller.ratings`): this is only what the table needs now, to refuse an unseat of nobody.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(slots=True)
class Seated:
    """A player seated on a box: their name (None: anonymous), the card or badge read, since when, paused since."""

    player: str | None
    card: str | None
    since: datetime | None
    paused_at: datetime | None = None


def seated_name(box: int, player: str | None) -> str:
    """How a seated player is named: their name, or "Player on box N" for an anonymous one."""
    return player if player is not None else f"Player on box {box}"
