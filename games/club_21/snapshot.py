"""club-21's snapshot layout: a strict pydantic model of its round.

Kept apart from the game module so that it compiles (tablectl/compiled_engine.py) while these
stay plain pydantic, as controller.snapshot's own models do.
"""

from __future__ import annotations

from typing import Annotated
from pydantic import Field

from controller.snapshot import CardCode, Count, StrictModel, Time, VoidReasonState

from ..club.snapshot import ClubBoxState, ClubHandState


class Club21RoundState(StrictModel):
    """A club-21 round, in play or settled."""

    number: Annotated[int, Field(ge=1)]
    shoe_id: str | None
    boxes: list[ClubBoxState] = Field(min_length=1)
    banker: ClubHandState
    plan: list[int]
    dealt: Count
    box_i: Count
    hand_i: Count
    started_at: Time | None
    voided: bool
    void_reason: VoidReasonState = None
    contra: bool
    pack_out: bool
    bottom: CardCode | None
