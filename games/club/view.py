"""What the club games' views and round records share, as the readers validate them (each club game's ``view.py``
adds its own keys: club-21's contra and spent pack, club-21-36's bank and duels)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from controller.view_model import DealerModel, HandModel, HandRecord, SettledBoxModel, SettledRoundModel


STATIC = Path(__file__).with_name("static")  # the dashboard's renderer of the club games' felt (the ``static`` part)


class ClubHand(HandModel):
    """A club hand: a box's cards are face down until turned (XX, no total, below supervisor)."""

    doubled: bool
    split: bool
    blackjack: bool
    bust: bool
    closed: bool = Field(description="a card of the hand is still face down")
    card_count: int = Field(description="the cards the hand holds (closed ones too)")
    dark: bool = Field(description="club-21-36: the box has drawn dark")


class ClubSettledHand(ClubHand):
    """A hand of the settled round, as it lies on the felt."""

    surrendered: bool = False


class ClubDealer(DealerModel):
    """The banker's hand: his cards face down until he draws face up."""

    blackjack: bool = False
    bust: bool = False
    closed: bool = Field(False, description="the banker's cards are face down")
    card_count: int = Field(0, description="the cards the banker holds")


class ClubSettledBox(SettledBoxModel):
    """A box of the settled round."""

    hands: list[ClubSettledHand]


class ClubSettledRound(SettledRoundModel):
    """The last settled round (every card shown: a settled round keeps no secret)."""

    dealer: ClubDealer
    boxes: Sequence[ClubSettledBox]


class ClubHandRecord(HandRecord):
    """A settled club hand in a round record: its total by the pack's values."""

    total: int = Field(description="the hand's total, by the pack's values")
