"""The club games' own events, shared by club-21 and club-21-36 (each game declares them in its dispatch).

The wire names (``type``) are the session format's: a session or journal of today decodes to the same events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controller.events import BoxNumber, Event


@dataclass(slots=True, kw_only=True)
class BankerStand(Event):
    """The croupier, who is the banker, stops drawing (club games)."""

    type: Literal["banker_stand"] = "banker_stand"


@dataclass(slots=True, kw_only=True)
class Fold(Event):
    """On a spent pack (club-21), a box gives up its stake instead of doubling it; in club-21-36 a box dealt in
    without a stake passes after looking at its card."""

    type: Literal["fold"] = "fold"
    box: BoxNumber


@dataclass(slots=True, kw_only=True)
class Withdraw(Event):
    """Supervisor: a box's stake comes back and the box plays no more of the round (club games)."""

    type: Literal["withdraw"] = "withdraw"
    box: BoxNumber
