"""Blackjack's rules in the words the analysis reasons in: the options' values and what it reads of a table's rules.

The analysis of blackjack (basic strategy, its expectation model, the exact analyser, the simulated
advantage players) sits below the games (tests/test_layers.py), so it cannot import blackjack's options
model (``games/blackjack/rules.py``). It reads the rules through `BlackjackTerms`, the options it needs,
which the model has; the options' own values are defined here, once, and the model takes them from here.
"""

from __future__ import annotations

from collections.abc import Hashable
from decimal import Decimal
from enum import Enum
from typing import Protocol


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


class BlackjackTerms(Hashable, Protocol):
    """What the analysis reads of a blackjack table's rules (blackjack's options model has it all; hashable, so the
    strategy built for a set of rules is cached)."""

    @property
    def name(self) -> str:
        """The profile the options started from."""

    @property
    def decks(self) -> int:
        """Decks in the shoe."""

    @property
    def cut_card_min(self) -> float:
        """Least fraction of the shoe dealt before the cut card."""

    @property
    def cut_card_max(self) -> float:
        """Greatest fraction of the shoe dealt before the cut card."""

    @property
    def reshuffle_every_round(self) -> bool:
        """A shuffle before every round."""

    @property
    def hole_card(self) -> bool:
        """The dealer takes a face-down second card in the deal."""

    @property
    def peek(self) -> Peek:
        """When a hole-card dealer checks for blackjack."""

    @property
    def dealer_hits_soft17(self) -> bool:
        """The dealer draws to a soft 17."""

    @property
    def dealer_bj_takes(self) -> DealerBlackjackTakes:
        """What a dealer blackjack made after play takes."""

    @property
    def double(self) -> DoubleRule:
        """Which two-card hands may double."""

    @property
    def double_after_split(self) -> bool:
        """A split hand may double."""

    @property
    def max_hands(self) -> int:
        """Most hands a box may split into."""

    @property
    def resplit_aces(self) -> bool:
        """Split aces that draw an ace may split again."""

    @property
    def split_by(self) -> SplitBy:
        """Pairs by value or by rank."""

    @property
    def surrender(self) -> SurrenderRule:
        """When surrender is allowed."""

    @property
    def insurance(self) -> bool:
        """Insurance is offered against a dealer ace."""

    @property
    def even_money(self) -> bool:
        """A blackjack may take even money against a dealer ace."""

    @property
    def three_sevens(self) -> bool:
        """The three sevens bonus is paid."""

    @property
    def table_max(self) -> Decimal:
        """The greatest total bet on a box."""

    @property
    def blackjack_ratio(self) -> Decimal:
        """Blackjack's payout as a multiple of the bet."""

    @property
    def three_sevens_ratio(self) -> Decimal:
        """Three sevens' payout as a multiple of the bet."""

    @property
    def three_sevens_suited_ratio(self) -> Decimal:
        """Suited three sevens' payout as a multiple of the bet."""
