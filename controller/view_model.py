"""What every game's view and round record have, as pydantic models each game's own extends (its folder's ``view.py``).

`controller.view.table_view` gives the table's shared keys and the game's part of the view (`Game.view`);
`Round.record` gives a settled round's record. The readers (the API, its OpenAPI document, the
conformance tests) validate them against a model per game: the game's own models, which extend these
bases and declare every key the game adds. Every model forbids a key it does not declare, so a key a
game adds and forgets to declare is an error, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BoxModel", "DealerModel", "DealerRecord", "GameView", "HandModel", "HandRecord", "InsuranceRecord",
           "LimitsModel", "RoundRecord", "SettledBoxModel", "SettledRoundModel", "ViewModel"]


class ViewModel(BaseModel):
    """A part of the table's view or of a round record: every key declared (an undeclared one is an error)."""

    model_config = ConfigDict(extra="forbid")


class LimitsModel(ViewModel):
    """Least and greatest amounts (the table's bet limits per box; a bank's)."""

    min: str
    max: str


class HandModel(ViewModel):
    """One hand of a box, in any game (each game's hand adds its marks)."""

    cards: list[str] = Field(description="card codes in the order dealt; a card face down is XX below supervisor")
    totals: list[int] = Field(description="at most two totals (soft hands show both); none while a card is closed")
    bet: str = Field(description="total staked on the hand, a double counts twice")
    done: bool
    in_play: bool
    outcome: str | None = Field(None, description="how the hand ended: the table's own (win lose push void) or "
                                                  "the game's (docs/games.md)")
    net: str | None = Field(None, description="what the player won (+) or lost (-)")


class BoxModel(ViewModel):
    """A betting box in the round (or with bets for the next one), in any game."""

    box: int
    owner: str | None
    bets: dict[str, str] = Field(description="each player's stake on the box")
    insurance: str | None = Field(None, description="the box's insurance, where the game has it")
    hands: Sequence[HandModel]
    next_round: bool = False
    spots: dict[str, dict[str, str]] | None = Field(
        None, description="the bets for the next round by spot and player, when a bet is on another spot than the "
                          "game's main one")


class DealerModel(ViewModel):
    """The dealer's (the banker's) hand; a card face down shows as XX (except to a supervisor)."""

    cards: list[str]
    totals: list[int]
    hole_hidden: bool = Field(False, description="a card of the dealer's is face down")
    done: bool = Field(False, description="the dealer's hand is over (a settled round)")


class SettledBoxModel(ViewModel):
    """A box of the settled round: its hands and its net (the players')."""

    box: int
    owner: str | None
    bets: dict[str, str]
    insurance: str | None = None
    insurance_net: str | None = None
    hands: Sequence[HandModel]
    net: str = Field(description="what the box's players won (+) or lost (-), insurance included")


class SettledRoundModel(ViewModel):
    """The last settled round, kept on the felt until the next round's first card."""

    number: int
    void: bool
    void_reason: str | None = Field(None, description="why a void round was voided: supervisor, or the game's own "
                                                       "reason (docs/games.md)")
    dealer: DealerModel
    boxes: Sequence[SettledBoxModel]
    net: str = Field(description="what the players won (+) or lost (-): the house's result is the opposite")


class HandRecord(ViewModel):
    """A settled hand in a round record."""

    box: int
    cards: list[str]
    bet: str
    outcome: str | None
    net: str


class InsuranceRecord(ViewModel):
    """An insurance bet in a round record (blackjack's; the other games' records keep the list empty)."""

    box: int
    amount: str
    net: str


class DealerRecord(ViewModel):
    """The dealer's cards in a round record."""

    cards: list[str]
    total: int


class RoundRecord(ViewModel):
    """A settled round: every card and its settlement (the replay format), in any game."""

    number: int
    shoe_id: str | None
    dealer: DealerRecord
    hands: Sequence[HandRecord]
    insurance: list[InsuranceRecord]
    net: str
    void: bool | None = None
    void_reason: str | None = Field(None, description="why a void round was voided: supervisor, or the game's own "
                                                      "reason; absent from older records")
    settled_at: str | None = Field(None, description="when the round was settled (ISO 8601, UTC)")
    dealer_title: str | None = Field(None, description="who dealt it, as its game names him (Dealer, Banker); "
                                                       "given by /api/rounds")


class GameView(ViewModel):
    """The game's part of the table's view: its name and view kind, its boxes, dealer, settled round and record
    (each game's view model narrows these to its own and adds its own keys)."""

    game: str = Field(description="the game played: a registered game's name")
    view_kind: str = Field(description="how a reader draws the game's felt: the dashboard loads the renderer of "
                                       "this kind (docs/games.md)")
    boxes: Sequence[BoxModel]
    dealer: DealerModel
    settled: SettledRoundModel | None = None
    last_round: RoundRecord | None
