"""club-21's view and round record as the readers validate them (the registry's ``view`` part)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from controller.view_model import BoxModel, GameView, RoundRecord

from ..club.view import ClubDealer, ClubHand, ClubHandRecord, ClubSettledRound


class Club21Box(BoxModel):
    """A betting box in a club-21 round (or with bets for the next one)."""

    hands: list[ClubHand]
    recontra: bool | None = Field(None, description="the box redoubled after the banker's contra")
    choice: str | None = Field(None, description="on a spent pack: double or fold (null: not chosen)")


class Club21Record(RoundRecord):
    """A settled club-21 round."""

    game: Literal["club-21"]
    hands: list[ClubHandRecord]
    bottom_card: str | None = Field(None, description="the pack's bottom card")
    contra: bool | None = Field(None, description="the banker doubled every stake")
    pack_out: bool | None = Field(None, description="the pack ran out while the boxes played")


class Club21View(GameView):
    """A club-21 table's round: closed boxes, the banker, contra and the spent pack."""

    game: Literal["club-21"]
    view_kind: Literal["club"]
    boxes: list[Club21Box]
    dealer: ClubDealer
    settled: ClubSettledRound | None = None
    last_round: Club21Record | None
    bottom_card: str | None = Field(None, description="the pack's bottom card, shown face up")
    contra: bool = Field(False, description="the banker has doubled the stakes this round")
    pack_out: bool = Field(False, description="the pack ran out this round")


@dataclass(frozen=True)
class Club21ViewPart:
    """club-21's models for the readers (`tablectl.parts.ViewPart`)."""

    model: type[GameView] = Club21View
    record: type[RoundRecord] = Club21Record


VIEW = Club21ViewPart()
