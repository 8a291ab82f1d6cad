"""What both club games of 003 share in their rule options: the pack, its bottom card, the banker, the table."""

from __future__ import annotations

from decimal import Decimal
from functools import cached_property
from typing import Annotated, Any
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from controller.cards import PACK_RANKS, pack_members, pack_values
from controller.rule_parts import Rules, fractions_of_a_cent, none_word


class ClubRulesBase(Rules, BaseModel):
    """What both club games of 003 share: the pack and its bottom card, the banker's drawing, the table."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)

    name: str = Field("custom", description="profile the options started from")
    # --- the pack
    decks: int = Field(2, ge=1, le=2, description="packs shuffled together (003: one or two)")
    pack: int = Field(52, description="cards in one pack: 52 (2 to ace) or 36 (6 to ace; king 4, queen 3, jack 2)")
    bottom_card: bool = Field(True, description="the first card read after a shuffle is the bottom card, dealt to "
                                                "nobody (an ace: shuffle again)")
    reshuffle_every_round: bool = Field(False, description="shuffle before every round (not 003's way)")
    repeat_shuffles: int = Field(1, ge=0, le=5, description="repeated shuffles players may ask for")
    dealer_may_shuffle: bool = Field(False, description="the croupier may shuffle between any two rounds")
    # --- the banker
    banker_draws_to: Annotated[int | None, BeforeValidator(none_word)] = Field(
        None, ge=2, le=22, description="the banker must draw below this total (none: the croupier chooses)")
    banker_stands_on: Annotated[int | None, BeforeValidator(none_word)] = Field(
        None, ge=2, le=22, description="the banker may not draw at or above this total (none: he chooses)")
    # --- the table
    boxes: int = Field(7, ge=1, le=9, description="betting boxes on the layout")
    players_per_box: int = Field(1, ge=1, le=7, description="players who may bet on one box")
    chip_unit: Decimal = Field(Decimal(1), gt=0, max_digits=12, decimal_places=2,
                               description="the smallest chip: every stake is a whole number of them")
    table_min: Decimal = Field(Decimal(10), gt=0, description="least stake on a box")
    table_max: Decimal = Field(Decimal(1000), gt=0, description="greatest stake on a box before the deal")
    reservation_minutes: int = Field(20, ge=1, le=240, description="how long a box marker holds a box")

    @field_validator("pack")
    @classmethod
    def _known_pack(cls, v: int) -> int:
        if v not in PACK_RANKS:
            raise ValueError("a pack has 52 cards (2 to ace) or 36 (6 to ace)")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "ClubRulesBase":
        if self.table_min > self.table_max:
            raise ValueError("table_min must not exceed table_max")
        draws, stands = self.banker_draws_to, self.banker_stands_on
        if draws is not None and stands is not None and draws > stands:
            raise ValueError("banker_draws_to must not exceed banker_stands_on")
        fractions = fractions_of_a_cent(self.chip_unit, self._payouts())
        if fractions:
            raise ValueError("these options could pay a fraction of a cent: " + "; ".join(fractions)
                             + " (every payout times chip_unit must be a whole number of cents)")
        return self

    def _payouts(self) -> list[tuple[str, str]]:
        return [("a win", "1:1")]

    # Values the table's shared machinery reads, as it reads blackjack's.
    @property
    def shoe_size(self) -> int:
        """Cards in the whole pack (every pack shuffled together)."""
        return self.pack * self.decks

    @property
    def burn_cards(self) -> int:
        """No burn: the bottom card is the club games' guard (see ``bottom_card``)."""
        return 0

    def cut_card_zone(self, size: int) -> list[int]:
        """No cut card: the pack is dealt to its bottom card."""
        return []

    @cached_property
    def values(self) -> tuple[int, ...]:
        """Each card's value in this pack, by Card.index (ace 1: it may count 11)."""
        return pack_values(self.pack)

    @cached_property
    def members(self) -> tuple[bool, ...]:
        """Whether each card (by Card.index) belongs to this pack."""
        return pack_members(self.pack)

    def options(self) -> dict[str, Any]:
        """Every option as JSON-ready data (what a session's `rules` line carries)."""
        return self.model_dump(mode="json", exclude={"name"})
