"""club-21's rule options (003): ties, a natural against a natural, the payouts."""

from __future__ import annotations

from enum import Enum
from functools import cached_property
from typing import Any, Literal
from pydantic import Field, field_validator, model_validator

from controller.rule_parts import parts

from ..club.rules import ClubRulesBase


class Ties(str, Enum):
    """Equal totals in club-21: the box takes its stake back, or the banker wins (003: "в некоторых компаниях")."""

    PUSH = "push"
    BANKER = "banker"


class NaturalAgainstNatural(str, Enum):
    """A box's two-card 21 when the banker shows one too: lost like every bet (003's game), or a push."""

    LOSE = "lose"
    PUSH = "push"  # the 3:2 variant: "если у банкомёта нет равноценной комбинации"


class Club21Rules(ClubRulesBase):
    """`club-21`, 003's club "ochko": the croupier deals, banks and plays every box; the players' cards are closed."""

    game: Literal["club-21"] = Field("club-21", description="the game played: a controller.games name")
    natural_pays: str = Field("2:1", pattern=r"^\d+:\d+$", description="a box's two-card 21, paid at once")
    natural_against_natural: NaturalAgainstNatural = Field(
        NaturalAgainstNatural.LOSE, description="a box's two-card 21 when the banker shows one too")
    banker_bust_pays: str = Field("2:1", pattern=r"^\d+:\d+$",
                                  description="what a box at 21 or less is paid when the banker passes 21")
    ties: Ties = Field(Ties.PUSH, description="equal totals: push, or the banker wins")
    pairs: bool = Field(False, description="a first-two-card pair may be split (a second stake) or doubled")
    contra: bool = Field(False, description="after the first cards the banker may double every stake (contra), "
                                            "then each box its own (recontra)")
    two_aces_split: bool = Field(False, description="two aces may be split into two hands with a second stake")
    surrender: bool = Field(False, description="after the first two cards a box may give up half its stake")
    banker_advice: bool = Field(False, description="in the banker's turn the dealer's display advises him to draw "
                                                   "or stand (his best play from what he sees: "
                                                   "games.club_21.banker); the decision stays his")

    @model_validator(mode="before")
    @classmethod
    def _three_to_two_variant(cls, data: Any) -> Any:
        # rules.md, club-21, Variants: natural_pays=3:2 is 003's variant, "3:2 on a two-card 21 unless the
        # banker has one too, then a push": one option. natural_against_natural given explicitly still wins.
        if isinstance(data, dict) and data.get("natural_pays") == "3:2" and "natural_against_natural" not in data:
            return {**data, "natural_against_natural": NaturalAgainstNatural.PUSH}
        return data

    @field_validator("natural_pays", "banker_bust_pays")
    @classmethod
    def _nonzero_ratio(cls, v: str) -> str:
        if int(v.split(":")[1]) == 0:
            raise ValueError("the second number of a payout ratio cannot be 0")
        return v

    def _payouts(self) -> list[tuple[str, str]]:
        out = [("natural_pays", self.natural_pays), ("banker_bust_pays", self.banker_bust_pays)]
        if self.surrender:
            out.append(("surrender (half back)", "1:2"))
        return out

    @cached_property
    def natural_parts(self) -> tuple[int, int]:
        """A box's two-card 21 payout as (numerator, denominator)."""
        return parts(self.natural_pays)

    @cached_property
    def banker_bust_parts(self) -> tuple[int, int]:
        """The payout on a banker over 21 as (numerator, denominator)."""
        return parts(self.banker_bust_pays)
