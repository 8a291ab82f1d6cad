"""Baccarat's own events: under the squeeze, the dealer marks the cards turned; the commission collected."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controller.events import BoxNumber, Event, PersonId


@dataclass(slots=True, kw_only=True)
class Reveal(Event):
    """The dealer marks every card of the coup dealt face down so far as turned (the squeeze is over for them).

    One event for all of them: the coup's cards are turned at the table before the dealer presses it, and a
    reveal per hand would tell, by the order of presses and the third card that follows, nothing the room has
    not seen; one press keeps the dealer's work to one button. A coup under the squeeze settles only after it.
    """

    type: Literal["reveal"] = "reveal"


@dataclass(slots=True, kw_only=True)
class CollectCommission(Event):
    """The commission a box's player owes (``commission_collect = end_of_shoe``) is collected now (the shoe's
    end, or the player leaving); ``player`` None: every player of the box."""

    type: Literal["collect_commission"] = "collect_commission"
    box: BoxNumber
    player: PersonId | None = None
