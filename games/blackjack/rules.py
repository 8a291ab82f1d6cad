"""Blackjack's rule options (the ru, us-holecard and single-deck-enhc profiles), as validated data.

The built-in profiles restate ``shared/rules.md`` (``profiles.py``); every point marked "(decided)" there
is an option here, so a casino can set it the other way. The options' own words (`DoubleRule`,
`SurrenderRule`, ...) are `simulators.blackjack_terms`', where the analysis below the games reads them too.
"""

from __future__ import annotations

from decimal import Decimal
from functools import cached_property
from typing import Any, Literal
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from controller.rule_parts import Rules, fractions_of_a_cent, parts, ratio
from simulators.blackjack_terms import (DealerBlackjackTakes, DoubleRule, InsuranceAmount, Peek, SplitBy,
                                        SurrenderRule)

__all__ = ["DealerBlackjackTakes", "DoubleRule", "InsuranceAmount", "Peek", "RuleProfile", "SplitBy", "SurrenderRule"]


class RuleProfile(Rules, BaseModel):
    """One table's rules. Built-in profiles are in PROFILES; override any option by name."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)

    name: str = Field("custom", description="profile the options started from")
    game: Literal["blackjack"] = Field("blackjack", description="the game played: a controller.games name")
    # --- the shoe
    decks: int = Field(6, ge=1, le=8, description="decks in the shoe")
    cut_card_min: float = Field(
        0.64, gt=0, lt=1, description="least fraction of the shoe dealt before the cut card"
    )
    cut_card_max: float = Field(
        0.705, gt=0, lt=1, description="greatest fraction of the shoe dealt before the cut card"
    )
    reshuffle_every_round: bool = Field(False, description="shuffle before every round")
    burn_cards: int = Field(
        0, ge=0, le=10, description="cards burnt through the shoe's reader after each shuffle"
    )
    repeat_shuffles: int = Field(1, ge=0, le=5, description="repeated shuffles players may ask for")
    dealer_may_shuffle: bool = Field(False, description="the dealer may shuffle between any two rounds")
    # --- the dealer
    hole_card: bool = Field(False, description="the dealer takes a face-down second card in the deal")
    peek: Peek = Field(Peek.NONE, description="when a hole-card dealer checks for blackjack")
    dealer_hits_soft17: bool = Field(False, description="the dealer draws to a soft 17")
    dealer_bj_takes: DealerBlackjackTakes = Field(
        DealerBlackjackTakes.ALL, description="what a dealer blackjack made after play takes"
    )
    # --- the players' options
    double: DoubleRule = Field(DoubleRule.ANY, description="which two-card hands may double")
    double_after_split: bool = Field(True, description="a split hand may double")
    max_hands: int = Field(4, ge=1, le=8, description="most hands a box may split into (1: no split)")
    resplit_aces: bool = Field(True, description="split aces that draw an ace may split again")
    split_by: SplitBy = Field(SplitBy.VALUE, description="pairs by value or by rank")
    surrender: SurrenderRule = Field(SurrenderRule.NONE, description="when surrender is allowed")
    insurance: bool = Field(True, description="insurance is offered against a dealer ace")
    even_money: bool = Field(True, description="a blackjack may take even money against a dealer ace")
    insurance_amount: InsuranceAmount = Field(
        InsuranceAmount.UP_TO_HALF, description="insurance is any amount up to half the bet, or exactly half"
    )
    # --- payouts
    blackjack_pays: str = Field("3:2", pattern=r"^\d+:\d+$", description="blackjack payout ratio")
    three_sevens: bool = Field(False, description="three sevens bonus on a box's first three cards")
    three_sevens_pays: str = Field("3:1", pattern=r"^\d+:\d+$", description="three sevens payout")
    three_sevens_suited_pays: str = Field(
        "5:1", pattern=r"^\d+:\d+$", description="three sevens of one suit payout"
    )
    # --- the table
    boxes: int = Field(7, ge=1, le=9, description="betting boxes on the layout")
    players_per_box: int = Field(3, ge=1, le=7, description="players who may bet on one box")
    chip_unit: Decimal = Field(Decimal(1), gt=0, max_digits=12, decimal_places=2,
                               description="the smallest chip: every bet is a whole number of them")
    table_min: Decimal = Field(Decimal(10), gt=0, description="least total bet on a box")
    table_max: Decimal = Field(Decimal(1000), gt=0, description="greatest total bet on a box")
    reservation_minutes: int = Field(20, ge=1, le=240, description="how long a box marker holds a box")

    @field_validator("blackjack_pays", "three_sevens_pays", "three_sevens_suited_pays")
    @classmethod
    def _nonzero_ratio(cls, v: str) -> str:
        if int(v.split(":")[1]) == 0:
            raise ValueError("the second number of a payout ratio cannot be 0")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "RuleProfile":
        if self.cut_card_min > self.cut_card_max:
            raise ValueError("cut_card_min must not exceed cut_card_max")
        if self.table_min > self.table_max:
            raise ValueError("table_min must not exceed table_max")
        if self.peek is not Peek.NONE and not self.hole_card:
            raise ValueError("peek needs hole_card = true")
        if self.surrender is SurrenderRule.LATE and not self.hole_card:
            raise ValueError("surrender = late needs hole_card = true (late means after the peek)")
        fractions = self.fractions_of_a_cent()
        if fractions:
            raise ValueError("these options could pay a fraction of a cent: " + "; ".join(fractions)
                             + " (every payout times chip_unit must be a whole number of cents)")
        return self

    def fractions_of_a_cent(self) -> list[str]:
        """rules.md, Money, to the cent (decided): each payout ratio the options allow, times the chip."""
        chip = self.chip_unit
        ratios = [("blackjack_pays", self.blackjack_pays)]
        if self.three_sevens:
            ratios += [("three_sevens_pays", self.three_sevens_pays),
                       ("three_sevens_suited_pays", self.three_sevens_suited_pays)]
        if self.surrender is not SurrenderRule.NONE:
            ratios.append(("surrender (half back)", "1:2"))
        if self.insurance and self.insurance_amount is InsuranceAmount.HALF:
            ratios.append(("insurance_amount = half", "1:2"))
        return fractions_of_a_cent(chip, ratios)

    # Derived values the engine reads on its hot path.
    @property
    def shoe_size(self) -> int:
        """Cards in a full shoe."""
        return 52 * self.decks

    @property
    def pack(self) -> int:
        """Cards in one deck of the shoe (blackjack is played with 52-card decks)."""
        return 52

    def cut_card_zone(self, size: int) -> list[int]:
        """Where the rules may place the cut card in a shoe of ``size`` cards: [first, last] position."""
        return [round(size * self.cut_card_min), round(size * self.cut_card_max)]

    @property
    def blackjack_ratio(self) -> Decimal:
        """Blackjack payout as a multiple of the bet (3:2 -> 1.5)."""
        return ratio(self.blackjack_pays)

    @property
    def three_sevens_ratio(self) -> Decimal:
        """Three sevens payout as a multiple of the bet."""
        return ratio(self.three_sevens_pays)

    @property
    def three_sevens_suited_ratio(self) -> Decimal:
        """Suited three sevens payout as a multiple of the bet."""
        return ratio(self.three_sevens_suited_pays)

    # The same values in whole cents and whole-number ratios, as the engine counts them
    # (the limits' cents: TableLimits).
    @cached_property
    def blackjack_parts(self) -> tuple[int, int]:
        """Blackjack payout as (numerator, denominator)."""
        return parts(self.blackjack_pays)

    @cached_property
    def three_sevens_parts(self) -> tuple[int, int]:
        """Three sevens payout as (numerator, denominator)."""
        return parts(self.three_sevens_pays)

    @cached_property
    def three_sevens_suited_parts(self) -> tuple[int, int]:
        """Suited three sevens payout as (numerator, denominator)."""
        return parts(self.three_sevens_suited_pays)

    def options(self) -> dict[str, Any]:
        """Every option as JSON-ready data (what a session's `rules` line carries)."""
        return self.model_dump(mode="json", exclude={"name"})
