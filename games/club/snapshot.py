"""What both club games' snapshots share: strict pydantic models of a club box and hand.

Kept apart from the game modules so that those compile (tablectl/compiled_engine.py) while these
stay plain pydantic, as controller.snapshot's own models do.
"""

from __future__ import annotations

from typing import Annotated
from pydantic import Field, Strict

from controller.hand import Outcome
from controller.snapshot import Amount, BetState, CardCode, StrictModel

from .outcomes import ClubOutcome


class ClubHandState(StrictModel):
    """A club hand: its cards, which of them are face up, and what has been decided."""

    cards: list[CardCode]
    up: list[bool]
    stake: Amount
    doubled: bool
    from_split: bool
    done: bool
    # the table's own outcome, or the club games' (by its name: not strict)
    outcome: Annotated[Outcome, Strict(False)] | Annotated[ClubOutcome, Strict(False)] | None
    net: Amount | None
    dark_from: Annotated[int, Field(ge=0)] | None
    drew: bool


class ClubBoxState(StrictModel):
    """A box in a club round."""

    number: Annotated[int, Field(ge=1, le=9)]
    bets: list[BetState] = Field(min_length=1)
    owner: str | None
    hands: list[ClubHandState] = Field(min_length=1)
    recontra: bool
    choice: str | None
    banker: ClubHandState | None
    kept: bool
    bank_after: Amount | None
