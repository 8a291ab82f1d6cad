"""Rule profiles: every way one table's game differs from another's, as data.

The built-in profiles restate ``shared/rules.md``; every point marked
"(decided)" there is an option here, so a casino can set it the other way.
Option names are public (session files, config, ``--set``) and snake_case.
"""

from __future__ import annotations

from decimal import Decimal
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any, Iterable, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator

from .cards import PACK_RANKS, pack_members, pack_values
from .explain import Fault, explain


class DoubleRule(str, Enum):
    """Which two-card hands may double."""

    ANY = "any"
    NINE_TO_ELEVEN = "9-11"
    TEN_OR_ELEVEN = "10-11"
    ELEVEN = "11"
    NONE = "none"


class SurrenderRule(str, Enum):
    """When a hand may be given up for half its bet."""

    NONE = "none"
    BEFORE_FIRST_HIT = "before_first_hit"  # table-wide window after the deal (001)
    ON_TURN = "on_turn"  # first action on the box's turn
    LATE = "late"  # on the box's turn, after the dealer peeked (002)
    EARLY_VS_2_10 = "early_vs_2_10"  # first action, never against an ace (004)


class Peek(str, Enum):
    """When a hole-card dealer checks for blackjack before the players act."""

    NONE = "none"
    ACE = "ace"
    ACE_TEN = "ace_ten"


class DealerBlackjackTakes(str, Enum):
    """What a dealer blackjack made after play (no hole card) takes from a hand."""

    ALL = "all"  # European: doubles and splits lose too
    ORIGINAL = "original"  # only the original bet is lost


class InsuranceAmount(str, Enum):
    """How much a box insures: any amount up to half its bet, or exactly half."""

    UP_TO_HALF = "up_to_half"  # ru profiles (000: "не может превышать половину")
    HALF = "half"  # us-holecard and single-deck-enhc (002, 004: "равна половине")


class SplitBy(str, Enum):
    """What makes a pair: equal value (any two tens) or equal rank (K-K only)."""

    VALUE = "value"
    RANK = "rank"


def _ratio(text: str) -> Decimal:
    a, b = text.split(":")
    return Decimal(a) / Decimal(b)


CENT = Decimal("0.01")


def _parts(text: str) -> tuple[int, int]:
    a, b = text.split(":")
    return int(a), int(b)


class _Limits:
    """The table's limits in whole cents, as the engine counts them: one definition for every game's rules.

    A plain mixin, not a model: the fields (``chip_unit``, ``table_min``, ``table_max``) stay where
    each game's rules declare them, so the rules' JSON keeps its order.
    """

    if TYPE_CHECKING:  # declared by each game's rules: annotations here would make them fields first
        chip_unit: Decimal
        table_min: Decimal
        table_max: Decimal

    @cached_property
    def chip_cents(self) -> int:
        """The chip unit in cents."""
        return int(self.chip_unit * 100)

    @cached_property
    def table_min_cents(self) -> int:
        """The table minimum, the least stake, in cents (rounded up to a whole cent)."""
        return -int(-self.table_min * 100 // 1)

    @cached_property
    def table_max_cents(self) -> int:
        """The table maximum, the greatest stake, in cents (rounded down to a whole cent)."""
        return int(self.table_max * 100 // 1)


class RuleProfile(_Limits, BaseModel):
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
        fractions = self._fractions_of_a_cent()
        if fractions:
            raise ValueError("these options could pay a fraction of a cent: " + "; ".join(fractions)
                             + " (every payout times chip_unit must be a whole number of cents)")
        return self

    def _fractions_of_a_cent(self) -> list[str]:
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
        out = []
        for name, text in ratios:
            paid = chip * _ratio(text)
            if paid != paid.quantize(CENT):
                out.append(f"chip_unit {chip} x {name} {text} = {paid.normalize()}")
        return out

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
        return _ratio(self.blackjack_pays)

    @property
    def three_sevens_ratio(self) -> Decimal:
        """Three sevens payout as a multiple of the bet."""
        return _ratio(self.three_sevens_pays)

    @property
    def three_sevens_suited_ratio(self) -> Decimal:
        """Suited three sevens payout as a multiple of the bet."""
        return _ratio(self.three_sevens_suited_pays)

    # The same values in whole cents and whole-number ratios, as the engine counts them
    # (the limits' cents: _Limits).
    @cached_property
    def blackjack_parts(self) -> tuple[int, int]:
        """Blackjack payout as (numerator, denominator)."""
        return _parts(self.blackjack_pays)

    @cached_property
    def three_sevens_parts(self) -> tuple[int, int]:
        """Three sevens payout as (numerator, denominator)."""
        return _parts(self.three_sevens_pays)

    @cached_property
    def three_sevens_suited_parts(self) -> tuple[int, int]:
        """Suited three sevens payout as (numerator, denominator)."""
        return _parts(self.three_sevens_suited_pays)

    def options(self) -> dict[str, Any]:
        """Every option as JSON-ready data (what a session's `rules` line carries)."""
        return self.model_dump(mode="json", exclude={"name"})


# ---------------------------------------------------------------------------- the club games (003)
class Ties(str, Enum):
    """Equal totals in club-21: the box takes its stake back, or the banker wins (003: "в некоторых компаниях")."""

    PUSH = "push"
    BANKER = "banker"


class NaturalAgainstNatural(str, Enum):
    """A box's two-card 21 when the banker shows one too: lost like every bet (003's game), or a push."""

    LOSE = "lose"
    PUSH = "push"  # the 3:2 variant: "если у банкомёта нет равноценной комбинации"


class DarkBothBust(str, Enum):
    """Who wins when a box that drew dark and the banker both pass 21 (003: agreed before the game)."""

    PLAYER = "player"
    BANKER = "banker"


def _none_word(value: Any) -> Any:
    # ``--set banker_draws_to=none`` arrives as a word: it means the option does not bind.
    if isinstance(value, str) and value.strip().lower() in ("", "none", "null"):
        return None
    return value


class _ClubRules(_Limits, BaseModel):
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
    banker_draws_to: Annotated[int | None, BeforeValidator(_none_word)] = Field(
        None, ge=2, le=22, description="the banker must draw below this total (none: the croupier chooses)")
    banker_stands_on: Annotated[int | None, BeforeValidator(_none_word)] = Field(
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
    def _consistent(self) -> "_ClubRules":
        if self.table_min > self.table_max:
            raise ValueError("table_min must not exceed table_max")
        draws, stands = self.banker_draws_to, self.banker_stands_on
        if draws is not None and stands is not None and draws > stands:
            raise ValueError("banker_draws_to must not exceed banker_stands_on")
        fractions = _fractions_of_a_cent(self.chip_unit, self._payouts())
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


class Club21Rules(_ClubRules):
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
        return _parts(self.natural_pays)

    @cached_property
    def banker_bust_parts(self) -> tuple[int, int]:
        """The payout on a banker over 21 as (numerator, denominator)."""
        return _parts(self.banker_bust_pays)


class Club36Rules(_ClubRules):
    """`club-21-36`, 003's 36-card game: the banker puts up a bank and plays each box in turn, one duel each."""

    game: Literal["club-21-36"] = Field("club-21-36", description="the game played: a controller.games name")
    decks: int = Field(1, ge=1, le=2, description="packs shuffled together (003: one or two)")
    pack: int = Field(36, description="cards in one pack: 36 (6 to ace; king 4, queen 3, jack 2) or 52")
    banker_draws_to: Annotated[int | None, BeforeValidator(_none_word)] = Field(
        16, ge=2, le=22, description="the banker must draw below this total (003: on 15)")
    banker_stands_on: Annotated[int | None, BeforeValidator(_none_word)] = Field(
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
    def _bank_limits(self) -> "Club36Rules":
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


def _fractions_of_a_cent(chip: Decimal, ratios: list[tuple[str, str]]) -> list[str]:
    """rules.md, Money, to the cent (decided): each payout ratio the options allow, times the chip."""
    out = []
    for name, text in ratios:
        paid = chip * _ratio(text)
        if paid != paid.quantize(CENT):
            out.append(f"chip_unit {chip} x {name} {text} = {paid.normalize()}")
    return out


Rules = Union[RuleProfile, Club21Rules, Club36Rules]  # the rules of any game a table can play
ClubRules = Union[Club21Rules, Club36Rules]
# Each game's options model, by the ``game`` option's value.
RULE_MODELS: dict[str, type[RuleProfile] | type[Club21Rules] | type[Club36Rules]] = {
    "blackjack": RuleProfile, "club-21": Club21Rules, "club-21-36": Club36Rules,
}


class RuleError(ValueError):
    """A profile name or option value that cannot be used; the message names it."""


_RU_STANDARD: dict[str, Any] = dict(
    name="ru-standard",
    decks=6,
    cut_card_min=200 / 312,
    cut_card_max=220 / 312,
    hole_card=False,
    dealer_hits_soft17=False,
    double="any",
    double_after_split=True,
    max_hands=4,
    resplit_aces=True,
    split_by="value",
    surrender="none",
    dealer_bj_takes="all",
    insurance=True,
    even_money=True,
    three_sevens=True,
    boxes=7,
    players_per_box=3,
)

PROFILES: dict[str, dict[str, Any]] = {
    "ru-standard": _RU_STANDARD,
    "ru-surrender": {**_RU_STANDARD, "name": "ru-surrender", "surrender": "before_first_hit"},
    "us-holecard": dict(
        name="us-holecard",
        decks=1,
        cut_card_min=0.5,
        cut_card_max=0.75,
        dealer_may_shuffle=True,
        hole_card=True,
        peek="ace_ten",
        dealer_hits_soft17=False,
        double="any",
        double_after_split=False,
        max_hands=4,
        resplit_aces=False,
        split_by="rank",
        surrender="none",
        dealer_bj_takes="original",
        insurance=True,
        even_money=True,
        insurance_amount="half",
        three_sevens=False,
        boxes=7,
        players_per_box=1,
    ),
    "single-deck-enhc": dict(
        name="single-deck-enhc",
        decks=1,
        reshuffle_every_round=True,
        hole_card=False,
        dealer_hits_soft17=False,
        double="11",
        double_after_split=False,
        max_hands=2,
        resplit_aces=False,
        split_by="value",
        surrender="early_vs_2_10",
        dealer_bj_takes="all",
        insurance=True,
        even_money=False,
        insurance_amount="half",
        three_sevens=False,
        boxes=3,
        players_per_box=1,
        table_min=1,
        table_max=200,
    ),
    # The club games of 003: defaults are the options' own (see Club21Rules, Club36Rules).
    "club-21": dict(name="club-21", game="club-21"),
    "club-21-36": dict(name="club-21-36", game="club-21-36"),
}


def profiles(game: str | None = None) -> list[str]:
    """The built-in profiles, or those that play ``game`` (e.g. the blackjack ones)."""
    return [name for name, data in PROFILES.items() if game is None or data.get("game", "blackjack") == game]


def _explain(exc: ValidationError, game: str) -> str:
    def say(fault: Fault) -> str:
        if fault.kind == "extra_forbidden":
            return f"unknown rule option '{fault.where}' (known: {', '.join(option_names(game))})"
        if fault.kind in ("enum", "literal_error"):
            return f"rule option '{fault.where}' = {fault.input!r} is not allowed; use {fault.ctx.get('expected', '')}"
        return f"rule option '{fault.where}' = {fault.input!r}: {fault.message}" if fault.loc else fault.message
    return explain(exc, "options", say=say)


def option_names(game: str = "blackjack") -> list[str]:
    """The public names of every rule option of a game (blackjack's by default)."""
    return [n for n in RULE_MODELS[game].model_fields if n != "name"]


def build_rules(profile: str = "ru-standard", options: dict[str, Any] | None = None) -> Rules:
    """Return a built-in profile with `options` overriding it; RuleError names a bad option.

    The profile's ``game`` picks the options model (blackjack's, club-21's or club-21-36's); an
    option ``game`` naming another game is refused: a profile of that game is chosen instead.
    """
    if profile not in PROFILES:
        raise RuleError(f"unknown rule profile '{profile}' (built in: {', '.join(PROFILES)})")
    base = PROFILES[profile]
    game = base.get("game", "blackjack")
    data = {**base, **(options or {})}
    if data.get("game", game) != game:
        others = ", ".join(profiles(data["game"])) if isinstance(data["game"], str) else ""
        raise RuleError(f"rule option 'game' = {data['game']!r}: profile '{profile}' plays {game}"
                        + (f"; choose the profile {others}" if others else f" (games: {', '.join(RULE_MODELS)})"))
    data["name"] = profile
    data["game"] = game
    try:
        return RULE_MODELS[game](**data)
    except ValidationError as exc:
        raise RuleError(_explain(exc, game)) from None
    except TypeError as exc:  # e.g. a non-string key
        raise RuleError(f"rule options are not valid: {exc}") from None


def load_rules(name: str, options: dict[str, Any]) -> Rules:
    """The rules a session or snapshot recorded: the profile's name and every option (``game`` among them)."""
    game = options.get("game", "blackjack")
    model = RULE_MODELS.get(game) if isinstance(game, str) else None
    if model is None:
        raise RuleError(f"rule option 'game' = {game!r} is not a game (games: {', '.join(RULE_MODELS)})")
    try:
        return model.model_validate({**options, "name": name, "game": game})
    except ValidationError as exc:
        raise RuleError(_explain(exc, game)) from None


def parse_set_options(pairs: Iterable[str]) -> dict[str, str]:
    """Turn ``--set OPTION=VALUE`` strings into an options dict (values checked by build_rules)."""
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise RuleError(f"--set takes OPTION=VALUE, got '{pair}'")
        options[name.strip()] = value.strip()
    return options


def non_default_options(rules: Rules) -> dict[str, Any]:
    """The options of `rules` that differ from its profile's defaults (what a rules row carries)."""
    base = build_rules(rules.name).options()
    return {k: v for k, v in rules.options().items() if base.get(k) != v}
