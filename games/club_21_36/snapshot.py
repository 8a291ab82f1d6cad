"""club-21-36's snapshot layouts: strict pydantic models of its round of duels and of the bank.

Kept apart from the game module so that it compiles (tablectl/compiled_engine.py) while these
stay plain pydantic, as controller.snapshot's own models do.
"""

from __future__ import annotations

from typing import Annotated, Literal
from pydantic import Field

from controller.snapshot import Amount, CardCode, Count, StrictModel, Time, VoidReasonState

from ..club.snapshot import ClubBoxState


class Club2136RoundState(StrictModel):
    """A round of duels (club-21-36), in play or settled."""

    number: Annotated[int, Field(ge=1)]
    shoe_id: str | None
    boxes: list[ClubBoxState] = Field(min_length=1)
    plan: list[int]
    dealt: Count
    box_i: Count
    started_at: Time | None
    voided: bool
    void_reason: VoidReasonState = None
    duel_open: bool
    banker_card_due: bool
    bottom: CardCode | None
    bank_before: Amount
    bank_closed: bool
    banker_of: Count
    # box number -> the stake placed before the deal that the bank no longer covered at its duel (absent: none cut)
    cut_from: dict[str, Amount] = Field(default_factory=dict)


class BankState(StrictModel):
    """The bank of a club-21-36 table, in the snapshot's ``game_state``."""

    open: bool
    opened_with: Amount
    balance: Amount
    rounds: Count
    duels: Count
    # How the last bank ended (a snapshot kept before this key existed has none: the bank never ended, or how is
    # not known).
    ended: Literal["emptied", "closed"] | None = None
    kept: CardCode | None = None  # the banker's kept card, carried into the next round (absent in older snapshots)
