"""club-21-36's rule options (003): the bank, its limits, a dark box against a bust banker."""

from __future__ import annotations

from decimal import Decimal
from enum import Enum
from functools import cached_property
from typing import Annotated, Literal
from pydantic import BeforeValidator, Field, model_validator

from controller.rule_parts import none_word

from ..club.rules import ClubRulesBase


class DarkBothBust(str, Enum):
    """Who wins when a box that drew dark and the banker both pass 21 (003: agreed before the game)."""

    PLAYER = "player"
    BANKER = "banker"


class Club2136Rules(ClubRulesBase):
    """`club-21-36`, 003's 36-card game: the banker puts up a bank and plays each box in turn, one duel each."""

    game: Literal["club-21-36"] = Field("club-21-36", description="the game played: a controller.games name")
    decks: int = Field(1, ge=1, le=2, description="packs shuffled together (003: one or two)")
    pack: int = Field(36, description="cards in one pack: 36 (6 to ace; king 4, queen 3, jack 2) or 52")
    banker_draws_to: Annotated[int | None, BeforeValidator(none_word)] = Field(
        16, ge=2, le=22, description="the banker must draw below this total (003: on 15)")
    banker_stands_on: Annotated[int | None, BeforeValidator(none_word)] = Field(
        17, ge=2, le=22, description="the banker may not draw at or above this total (003: at 17)")
    dark_both_bust: DarkBothBust = Field(DarkBothBust.PLAYER,
                                         description="a dark box and the banker both over 21: who wins")
    table_max: Decimal = Field(Decimal(10000), gt=0, description="greatest stake on a box (the bank binds first)")
    bank_min: Decimal = Field(Decimal(100), gt=0, description="least bank the banker may put up")
    bank_max: Decimal = Field(Decimal(10000), gt=0, description="greatest bank the banker may put up")
    bank_rounds: int = Field(4, ge=1, le=20, description="rounds of duels before the banker may close the bank")
    bank_multiple: int = Field(3, ge=2, le=10, description="the banker may close the bank once it holds this many "
                                                           "times what he put up")

    @model_validator(mode="after")
    def _bank_limits(self) -> "Club2136Rules":
        if self.bank_min > self.bank_max:
            raise ValueError("bank_min must not exceed bank_max")
        for name in ("bank_min", "bank_max"):
            amount = getattr(self, name)
            if amount * 100 % (self.chip_unit * 100):
                raise ValueError(f"{name} {amount} is not a whole number of chips of {self.chip_unit}")
        return self

    @cached_property
    def bank_min_cents(self) -> int:
        """The least bank in cents."""
        return int(self.bank_min * 100)

    @cached_property
    def bank_max_cents(self) -> int:
        """The greatest bank in cents."""
        return int(self.bank_max * 100)
