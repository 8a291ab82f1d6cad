"""Baccarat's rule options (punto banco and EZ Baccarat), as validated data: docs/rules.md, Baccarat, cites each.

One options model serves both profiles (`profiles.py`): EZ Baccarat is punto banco with no commission, a
Banker win on a three-card 7 pushing the Banker bets, and the Dragon 7 and Panda 8 side bets.
"""

from __future__ import annotations

from decimal import Decimal
from enum import Enum
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from controller.rule_parts import Rules, fractions_of_a_cent


class CommissionRounding(str, Enum):
    """How the Banker bet's commission is rounded (decided: docs/rules.md, Baccarat)."""

    CENT = "cent"
    """To the cent, rounded down: the fraction of a cent is the player's."""
    CHIP = "chip"
    """Up to the table's chip: what a dealer collects with chips (never a fraction of the smallest chip)."""


class CommissionCollect(str, Enum):
    """When the commission on a won Banker bet is taken."""

    PER_COUP = "per_coup"
    """Taken from the winnings at once: the bet is paid 19:20 (5 %)."""
    END_OF_SHOE = "end_of_shoe"
    """Paid even money; the commission is kept owed in the box's commission tally and collected at the shoe's end
    or when the player leaves (``collect_commission``)."""


class LastCoup(str, Enum):
    """What is dealt once the cut card comes out."""

    ONE_MORE = "one_more"
    """The coup in progress is finished and one more coup is dealt (most casinos: decided default)."""
    FINISH = "finish"
    """Only the coup in progress is finished."""


class BaccaratRules(Rules, BaseModel):
    """`baccarat`: punto banco on an 8-deck shoe, and its EZ Baccarat variant (docs/rules.md, Baccarat)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)

    name: str = Field("custom", description="profile the options started from")
    game: Literal["baccarat"] = Field("baccarat", description="the game played: a registered game's name")
    # --- the shoe
    decks: int = Field(8, ge=1, le=8, description="52-card decks in the shoe (8; 6 an option)")
    reshuffle_every_round: bool = Field(False, description="shuffle before every coup (not baccarat's way)")
    repeat_shuffles: int = Field(0, ge=0, le=5, description="repeated shuffles players may ask for")
    dealer_may_shuffle: bool = Field(False, description="the dealer may shuffle between any two coups")
    burn: str = Field("face_value", description="after the shuffle: face_value (the first card is turned and that "
                                                "many cards burnt, tens and faces 10), none, or fixed:N")
    cut_card_from_end_min: int = Field(14, ge=1, le=104, description="the cut card lies at least this many cards "
                                                                     "before the end of the shoe")
    cut_card_from_end_max: int = Field(16, ge=1, le=104, description="and at most this many")
    last_coup: LastCoup = Field(LastCoup.ONE_MORE, description="when the cut card comes out: one_more (the coup "
                                                              "in progress, then one more) or finish")
    squeeze: bool = Field(False, description="cards dealt face down and turned by the players: nothing below "
                                             "supervisor tells the result before the dealer marks them turned")
    # --- the payouts
    tie_pays: int = Field(8, ge=8, le=9, description="a Tie bet pays this to 1 (8; 9 an option)")
    pair_pays: int = Field(11, ge=1, le=25, description="Player pair and Banker pair pay this to 1")
    commission_pct: Decimal = Field(Decimal(5), ge=0, le=10, max_digits=4, decimal_places=2,
                                    description="commission on a won Banker bet, per cent (5; 0 for EZ Baccarat)")
    commission_rounding: CommissionRounding = Field(CommissionRounding.CENT, description="cent (down, to the "
                                                    "player) or chip (up, to the table's chip)")
    commission_collect: CommissionCollect = Field(CommissionCollect.PER_COUP, description="per_coup or "
                                                  "end_of_shoe (kept owed in the box's tally)")
    ez_push_banker_three_card_seven: bool = Field(False, description="EZ Baccarat: a Banker win with a three-card "
                                                                     "7 pushes the Banker bets")
    dragon7: bool = Field(False, description="the Dragon 7 side bet is offered (a Banker win on a three-card 7)")
    dragon7_pays: int = Field(40, ge=1, le=100, description="Dragon 7 pays this to 1")
    panda8: bool = Field(False, description="the Panda 8 side bet is offered (a Player win on a three-card 8)")
    panda8_pays: int = Field(25, ge=1, le=100, description="Panda 8 pays this to 1")
    # --- the table
    boxes: int = Field(7, ge=1, le=9, description="player positions on the layout (the table's box numbers go to 9)")
    players_per_box: int = Field(1, ge=1, le=7, description="players who may bet on one box")
    chip_unit: Decimal = Field(Decimal(1), gt=0, max_digits=12, decimal_places=2,
                               description="the smallest chip: every stake is a whole number of them")
    table_min: Decimal = Field(Decimal(25), gt=0, description="least stake on the Player or Banker spot")
    table_max: Decimal = Field(Decimal(5000), gt=0, description="greatest stake on the Player or Banker spot")
    side_min: Decimal = Field(Decimal(5), gt=0, description="least stake on a side bet (tie, pairs, dragon, panda)")
    tie_max: Decimal = Field(Decimal(500), gt=0, description="greatest stake on the Tie spot")
    pair_max: Decimal = Field(Decimal(250), gt=0, description="greatest stake on each pair spot")
    dragon7_max: Decimal = Field(Decimal(100), gt=0, description="greatest stake on Dragon 7")
    panda8_max: Decimal = Field(Decimal(100), gt=0, description="greatest stake on Panda 8")
    reservation_minutes: int = Field(20, ge=1, le=240, description="how long a box marker holds a box")

    @field_validator("burn")
    @classmethod
    def _known_burn(cls, v: str) -> str:
        if v in ("face_value", "none"):
            return v
        head, _, n = v.partition(":")
        if head != "fixed" or not n.isdigit() or not 0 <= int(n) <= 20:
            raise ValueError("burn is face_value, none, or fixed:N (N from 0 to 20)")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> BaccaratRules:
        if self.table_min > self.table_max:
            raise ValueError("table_min must not exceed table_max")
        if self.cut_card_from_end_min > self.cut_card_from_end_max:
            raise ValueError("cut_card_from_end_min must not exceed cut_card_from_end_max")
        if self.cut_card_from_end_max >= self.shoe_size // 2:
            raise ValueError(f"cut_card_from_end_max must lie in the last half of a {self.shoe_size}-card shoe")
        for name in ("side_min", "tie_max", "pair_max", "dragon7_max", "panda8_max"):
            if getattr(self, name) < self.side_min:
                raise ValueError(f"{name} must not be under side_min")
        fractions = fractions_of_a_cent(self.chip_unit, [
            ("Player", "1:1"), ("Tie", f"{self.tie_pays}:1"), ("pair", f"{self.pair_pays}:1"),
            ("Dragon 7", f"{self.dragon7_pays}:1"), ("Panda 8", f"{self.panda8_pays}:1")])
        if fractions:
            raise ValueError("these options could pay a fraction of a cent: " + "; ".join(fractions))
        return self

    # Values the table's shared machinery reads.
    @property
    def pack(self) -> int:
        """Cards in one deck: 52."""
        return 52

    @property
    def shoe_size(self) -> int:
        """Cards in the whole shoe."""
        return 52 * self.decks

    @property
    def burn_cards(self) -> int:
        """Cards burnt after each shuffle as the table first counts them: with ``face_value`` the first card is
        turned (one), and its value then says how many more (`games.baccarat.game`)."""
        if self.burn == "none":
            return 0
        if self.burn == "face_value":
            return 1
        return int(self.burn.partition(":")[2])

    def cut_card_zone(self, size: int) -> list[int]:
        """The cut card lies ``cut_card_from_end_max``..``cut_card_from_end_min`` cards before the shoe's end."""
        return [size - self.cut_card_from_end_max, size - self.cut_card_from_end_min]

    @cached_property
    def commission_rate(self) -> Decimal:
        """The commission as a fraction (0.05)."""
        return self.commission_pct / 100

    def cents(self, name: str) -> int:
        """A money option in whole cents (side_min, tie_max, ...)."""
        return int(Decimal(getattr(self, name)) * 100)

    def options(self) -> dict[str, Any]:
        """Every option as JSON-ready data (what a session's ``rules`` line carries)."""
        return self.model_dump(mode="json", exclude={"name"})
