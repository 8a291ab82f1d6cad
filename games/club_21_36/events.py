"""club-21-36's own events: the bank, a box dealt in before it stakes, a box going dark (the wire names are the
session format's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controller.events import BoxNumber, Event, Money, PersonId


@dataclass(slots=True, kw_only=True)
class DealIn(Event):
    """club-21-36, between rounds: the box is dealt its card before it stakes (003: the box looks at its card and
    stakes); on its duel it stakes (``bet``) or passes (``fold``)."""

    type: Literal["deal_in"] = "deal_in"
    box: BoxNumber
    player: PersonId | None = None


@dataclass(slots=True, kw_only=True)
class Dark(Event):
    """The box in its duel takes its cards from now on without looking at them (club-21-36)."""

    type: Literal["dark"] = "dark"
    box: BoxNumber | None = None


@dataclass(slots=True, kw_only=True)
class OpenBank(Event):
    """The banker puts up a bank of ``amount`` (club-21-36), within the table's bank limits."""

    type: Literal["open_bank"] = "open_bank"
    amount: Money


@dataclass(slots=True, kw_only=True)
class CloseBank(Event):
    """The banker takes the bank off the table (club-21-36), when the rules allow it."""

    type: Literal["close_bank"] = "close_bank"
