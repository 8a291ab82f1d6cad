"""club-21-36's view and round record as the readers validate them (the registry's ``view`` part): the bank, the
duel in play, each duel's banker's hand."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from controller.view_model import BoxModel, GameView, LimitsModel, RoundRecord, ViewModel

from ..club.view import ClubDealer, ClubHand, ClubHandRecord, ClubSettledBox, ClubSettledRound


class Club2136Box(BoxModel):
    """A betting box in a round of duels (or with bets for the next one)."""

    hands: list[ClubHand]
    bank_after: str | None = Field(None, description="the bank's balance after this box's duel")


class Club2136SettledBox(ClubSettledBox):
    """A box of the settled round of duels."""

    banker: ClubDealer | None = Field(None, description="the banker's hand in this box's duel")
    bank_after: str | None = Field(None, description="the bank's balance after this box's duel")


class Club2136SettledRound(ClubSettledRound):
    """The last settled round of duels."""

    boxes: list[Club2136SettledBox]


class DuelHandRecord(ClubHandRecord):
    """A duel in a round record: the box's hand against the banker's."""

    dark: bool = Field(description="the box drew dark in its duel")
    banker: list[str] = Field(description="the banker's cards in this box's duel")
    banker_total: int | None = Field(None, description="the banker's total in this box's duel")
    kept: bool = Field(description="the duel began with the card the banker kept")
    bank_after: str | None = Field(None, description="the bank's balance after the duel")
    stake_cut_from: str | None = Field(None, description="the stake placed before the deal, when the bank no longer "
                                                         "covered it at the duel (bet: what played)")


class RoundBankRecord(ViewModel):
    """The bank over one round of duels."""

    before: str
    after: str
    closed: bool = Field(description="the bank emptied in this round (never the supervisor's close_bank, which "
                                     "comes between rounds); kept as it was: read state")
    state: str | None = Field(None, description="the bank at the end of the round: open or emptied (absent from "
                                                "older records)")


class Club2136Record(RoundRecord):
    """A settled round of duels."""

    game: Literal["club-21-36"]
    hands: list[DuelHandRecord]
    bottom_card: str | None = Field(None, description="the pack's bottom card")
    bank: RoundBankRecord | None = Field(None, description="the bank before and after the round")


class DuelModel(ViewModel):
    """The duel in play (or the next, while the banker takes his card)."""

    box: int
    stake: str
    dark: bool
    banker_kept_card: bool
    cut_from: str | None = Field(None, description="the stake placed before the deal, when the bank no longer "
                                                   "covered it at this duel and cut it to all it held")


class BankModel(ViewModel):
    """The banker's bank (public: every key sees it)."""

    open: bool
    state: str | None = Field(None, description="open, emptied (the boxes won it all), closed (by the supervisor), "
                                                "or none (never opened)")
    balance: str
    opened_with: str
    limits: LimitsModel = Field(description="what a bank may be opened with")
    duel: DuelModel | None = None
    duels_played: int
    rounds_played: int = Field(description="rounds of duels since the bank was opened")
    may_close: bool
    close_after_rounds: int
    close_multiple: int


class Club2136View(GameView):
    """A club-21-36 table's round of duels: closed boxes, the banker, the bank and the duel in play."""

    game: Literal["club-21-36"]
    view_kind: Literal["club"]
    boxes: list[Club2136Box]
    dealer: ClubDealer
    settled: Club2136SettledRound | None = None
    last_round: Club2136Record | None
    bottom_card: str | None = Field(None, description="the pack's bottom card, shown face up")
    bank: BankModel = Field(description="the bank, its balance and the duel in play")


@dataclass(frozen=True)
class Club2136ViewPart:
    """club-21-36's models for the readers (`tablectl.parts.ViewPart`)."""

    model: type[GameView] = Club2136View
    record: type[RoundRecord] = Club2136Record


VIEW = Club2136ViewPart()
