"""Baccarat's own events: under the squeeze, the dealer marks the cards turned; the commission collected; the
exact expectation of each spot on the next coup, as the edge worker computed it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

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


SpotName = Annotated[str, Field(min_length=1, max_length=32)]
# A spot's expectation per unit staked: never below -1 (the stake lost), and no baccarat bet pays above 40:1.
Expectation = Annotated[float, Field(ge=-1.0, le=41.0, allow_inf_nan=False)]


@dataclass(slots=True, kw_only=True)
class SpotOdds(Event):
    """The exact expectation of each spot on the coup dealt after the shoe's first ``cards_out`` cards (shoe
    ``shoe_id``), computed off the card path (`tablectl.edge`'s worker, `games.baccarat.odds`) and sent through the
    table's one writer, so that the surveillance alert it may raise (`Baccarat`'s side-bet watch) is in the journal
    and a replay raises it again. Only cards already turned went into it: it says nothing of the coup it is for."""

    type: Literal["spot_odds"] = "spot_odds"
    shoe_id: Annotated[str, Field(min_length=1, max_length=64)]
    cards_out: Annotated[int, Field(ge=0, le=65_535)]
    expectations: Annotated[dict[SpotName, Expectation], Field(max_length=16)]
