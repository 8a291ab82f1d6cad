"""Baccarat's view and coup record as the readers validate them (the registry's ``view`` part)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from controller.view_model import (BoxModel, DealerModel, GameView, HandModel, HandRecord, RoundRecord,
                                   SettledBoxModel, SettledRoundModel, ViewModel)


class SpotBet(HandModel):
    """One player's bet on one spot of a box (it holds no cards: both hands are the table's)."""

    spot: str = Field(description="player, banker, tie, player_pair, banker_pair, dragon7 or panda8")
    player: str
    commission: str | None = Field(None, description="the commission on a won Banker bet (taken, or owed)")


class BaccaratBox(BoxModel):
    """A box in the coup (or with bets for the next one): its bets by spot."""

    hands: list[SpotBet]


class BaccaratHand(ViewModel):
    """The Player's or the Banker's hand: a card face down (the squeeze) is XX below supervisor, and then the
    hand shows no points."""

    cards: list[str]
    totals: list[int] = Field(description="the hand's points (one number), or none while a card is face down")
    hidden: bool = Field(description="a card of the hand lies face down")


class BaccaratSettledBox(SettledBoxModel):
    """A box of the settled coup."""

    hands: list[SpotBet]


class BaccaratSettledCoup(SettledRoundModel):
    """The last settled coup, kept until the next coup's first card."""

    boxes: list[BaccaratSettledBox]
    player_hand: BaccaratHand
    result: Literal["player", "banker", "tie"] | None


class HandPoints(ViewModel):
    """A hand's cards and points in a coup record."""

    cards: list[str]
    total: int


class SpotRecord(HandRecord):
    """A player's bet on a spot in a coup record."""

    player: str
    spot: str
    commission: str | None = None
    commission_owed: bool | None = None


class BaccaratRecord(RoundRecord):
    """A settled coup: the Banker's hand is ``dealer``, the Player's ``player_hand``."""

    game: Literal["baccarat"]
    hands: list[SpotRecord]
    player_hand: HandPoints
    result: Literal["player", "banker", "tie"] | None
    commission: str = Field(description="commission taken or owed on the coup's won Banker bets")


class BaccaratView(GameView):
    """A baccarat table's coup: the boxes' spots, the Player's and the Banker's hands, the coup on show."""

    game: Literal["baccarat"]
    view_kind: Literal["baccarat"]
    boxes: list[BaccaratBox]
    dealer: DealerModel
    settled: BaccaratSettledCoup | None = None
    last_round: BaccaratRecord | None
    player_hand: BaccaratHand
    banker_hand: BaccaratHand
    waiting: list[str] = Field(description="cards dealt face down for no hand yet (the squeeze): XX below "
                                           "supervisor")
    decided: bool | None = Field(None, description="the tableau calls for no more cards (null while a card is "
                                                   "face down, or between coups)")
    squeeze: bool
    commission_owed: dict[str, dict[str, str]] = Field(description="box -> player -> commission owed")
    scoreboard_coups: int = Field(description="coups of the shoe on the scoreboard (GET /api/scoreboard)")


@dataclass(frozen=True)
class BaccaratViewPart:
    """Baccarat's models for the readers (`tablectl.parts.ViewPart`)."""

    model: type[GameView] = BaccaratView
    record: type[RoundRecord] = BaccaratRecord


VIEW = BaccaratViewPart()
STATIC = Path(__file__).with_name("static")  # the dashboard's renderer of baccarat's felt (the ``static`` part)
