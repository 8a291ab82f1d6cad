"""Blackjack's view and round record as the readers validate them (the registry's ``view`` part).

Each model extends the table's shared one (`controller.view_model`) with blackjack's marks; every key is
declared, so a key the game adds and forgets here is an error in the tests, never silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from controller.view_model import (BoxModel, DealerModel, GameView, HandModel, RoundRecord, SettledBoxModel,
                                   SettledRoundModel)


class BlackjackHand(HandModel):
    """A blackjack hand and its marks."""

    doubled: bool
    split: bool
    blackjack: bool
    bust: bool


class BlackjackSettledHand(BlackjackHand):
    """A hand of the settled round, as it lies on the felt."""

    surrendered: bool = False


class BlackjackBox(BoxModel):
    """A betting box in the round (or with bets for the next one)."""

    hands: list[BlackjackHand]


class BlackjackDealer(DealerModel):
    """The dealer's hand; a hole card not yet turned shows as XX (except to a supervisor)."""

    blackjack: bool = Field(False, description="a two-card 21 (never told while the hole card is face down)")
    bust: bool = False


class BlackjackSettledBox(SettledBoxModel):
    """A box of the settled round: its hands, its insurance, and its net (the player's)."""

    hands: list[BlackjackSettledHand]


class BlackjackSettledRound(SettledRoundModel):
    """The last settled round, kept until the next round's first card."""

    dealer: BlackjackDealer
    boxes: list[BlackjackSettledBox]


class BlackjackRecord(RoundRecord):
    """A settled blackjack round (the record has no ``game``: the first game's records never had one)."""


class BlackjackView(GameView):
    """A blackjack table's round: its boxes and hands, the dealer, the settled round on show."""

    game: Literal["blackjack"]
    view_kind: Literal["blackjack"]
    boxes: list[BlackjackBox]
    dealer: BlackjackDealer
    settled: BlackjackSettledRound | None = None
    last_round: BlackjackRecord | None


@dataclass(frozen=True)
class BlackjackViewPart:
    """Blackjack's models for the readers (`tablectl.parts.ViewPart`)."""

    model: type[GameView] = BlackjackView
    record: type[RoundRecord] = BlackjackRecord


VIEW = BlackjackViewPart()
STATIC = Path(__file__).with_name("static")  # the dashboard's renderer of blackjack's felt (the ``static`` part)
