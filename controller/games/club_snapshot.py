"""The club games' snapshot layouts: strict pydantic models of their rounds and of the bank.

Kept apart from the game modules so that those compile (scripts/build_compiled.py) while these
stay plain pydantic, as controller.snapshot's own models do.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..hand import Outcome
from ..snapshot import Amount, BetState, CardCode, Count, Time, VoidReasonState, _Model


class ClubHandState(_Model):
    """A club hand: its cards, which of them are face up, and what has been decided."""

    cards: list[CardCode]
    up: list[bool]
    stake: Amount
    doubled: bool
    from_split: bool
    done: bool
    outcome: Annotated[Outcome | None, Field(strict=False)]
    net: Amount | None
    dark_from: Annotated[int, Field(ge=0)] | None
    drew: bool


class ClubBoxState(_Model):
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


class OchkoRoundState(_Model):
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


class DuelsRoundState(_Model):
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


class BankState(_Model):
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
