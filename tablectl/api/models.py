"""The API's response models: what the read endpoints return, documented in the OpenAPI schema.

They mirror `controller.view.table_view` and the engine's round records; the API validates its
answers against them, so the schema cannot drift from what is sent. The table's view and a round's
record are each game's own (its registry part ``view``: `tablectl.parts.ViewPart`): the API's models
are a union of them, of the games loaded (a table loads the game its rules name, and its rules change only while
the service is stopped: `tablectl journal rules`), built when the app is made (`table_model`, `record_model`,
`rounds_page_model`),
each game's view with the table's shared keys (`TableFields`) and the API's own; every key is declared,
so one a game adds and does not declare is an error, never silently dropped.
"""

from __future__ import annotations

from typing import Annotated, Any, Union, cast

from pydantic import BaseModel, Discriminator, Field, Tag, create_model

from controller import registry
from controller.rules import DEFAULT_GAME
from controller.view_model import LimitsModel, ViewModel

from tablectl.parts import view_part


class ShoeDeviceModel(ViewModel):
    """What the shoe itself reports (its STATUS heartbeat), beside what the table decided."""

    link_up: bool
    gate_locked: bool | None = Field(None, description="the shoe's gate is shut (None before the first STATUS)")
    jammed: bool = False
    lid_open: bool = False

class ShoeModel(ViewModel):
    """The shoe in play."""

    id: str
    decks: int
    size: int
    dealt: int
    burned: int
    penetration: float
    cut_card_out: bool
    cut_card_position: int | None
    cut_card_zone: list[int] = Field(description="the positions between which the rules place the cut card")
    remaining_by_rank: dict[str, int]


class AlertModel(ViewModel):
    """A latched alert."""

    id: int
    kind: str
    level: str = Field(description="notice (shown, no bell), action (the table waits for the dealer "
                                             "or the pit) or alarm (the pit must come): controller/alerts.py ALERT_LEVEL")
    message: str
    raised_at: str | None
    active: bool
    acknowledged: bool
    acknowledged_by: str | None
    acknowledged_at: str | None = Field(None, description="when the acknowledgement was journalled (null until "
                                                         "acknowledged): with raised_at, how long it waited for a look")
    detail: str | None = Field(None, description="what only a supervisor may read (e.g. which face-down card)")
    count: int = Field(1, description="times raised while on the board: a repeat (call_pit again) is counted here, "
                                      "and the last alert of a kind past the board's bound counts the rest")


class TurnModel(ViewModel):
    """Whose turn it is."""

    box: int | None = None
    hand: int | None = None
    dealer: bool | None = None


class HeadModel(ViewModel):
    """The journal's last row: a copy of the journal taken later shows whether rows were cut after it."""

    seq: int
    mac: str | None = Field(description="HMAC-SHA256 of the last row, chained over every row before it; null below "
                                        "supervisor while a card is face down (the MAC is chained over it)")


class OnDutyModel(ViewModel):
    """The dealer on duty: the id the pit signed in (dealer_in), and since when."""

    dealer: str
    since: str | None
    break_due_at: str | None = Field(None, description="dealer rotation: when the dealer on duty is due for a break, "
                                                       "`since` plus `[table] dealer_break_minutes` (null: no interval "
                                                       "configured, or no sign-in time)")


class TableFields(ViewModel):
    """The table now: what every game's view has besides its own part (`controller.view_model.GameView`)."""

    table: str
    phase: str
    rules: str
    round: int | None
    rounds_played: int
    dealer_on_duty: OnDutyModel | None = Field(None, description="the person dealing (dealer_in), not the dealer's "
                                                                 "hand; null when nobody is signed in")
    turn: TurnModel | None
    legal_actions: list[str]
    next_card: str | None
    shoe: ShoeModel | None
    shuffle_due: bool
    right_to_cut: str | None
    shoe_figures: list[str] = Field(description="the shoe figures the game has (show only these), in this order: dealt, left (cards left in the "
                                     "pack), burned, bottom_card, penetration, cut_card, right_to_cut, count (Hi-Lo), "
                                     "ranks_left; controller/game.py ShoeFigure; each game says which it has")
    dealer_title: str = Field(description="who deals and plays the boxes, as the felt names him (the game's: "
                                          "Dealer, Banker)")
    locked: bool
    gate_held: bool = Field(description="a supervisor holds the shoe's gate shut")
    lock_reasons: list[str] = Field(description="why the shoe's gate is shut, in words (empty when open)")
    held_cards: list[str]
    alerts: list[AlertModel]
    reservations: dict[str, str | None]
    limits: LimitsModel
    shoe_device: ShoeDeviceModel
    last_seq: int
    head: HeadModel
    demo_pace: str | None = Field(None, description="`tablectl demo`'s virtual dealer's pace (fast, live): faster "
                                                    "than a real table's, so the dashboard says so; null at a real "
                                                    "table")
    language: str = Field("en", description="the pit's language (`[table] language`: en, ru): the dashboard's "
                                            "words, numbers, money and times, unless a browser chose its own")


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("-", "_").split("_"))


def table_model() -> Any:
    """The table now, as the API answers it: the union, on ``game``, of each registered game's view with the
    table's shared keys."""
    members = []
    for name, part in _views():
        members.append(Annotated[create_model(f"{_camel(name)}Table", __base__=(TableFields, part.model),
                                              __doc__=f"The table now: a {name} table."), Tag(name)])
    return Annotated[cast(Any, Union)[tuple(members)], Discriminator(_game_of)] if len(members) > 1 \
        else members[0]


def record_model() -> Any:
    """A settled round's record, as the API answers it: the union of each registered game's record (a record
    without ``game`` is the first game's, as every record was before the game was written in it)."""
    members = [Annotated[part.record, Tag(name)] for name, part in _views()]
    return Annotated[cast(Any, Union)[tuple(members)], Discriminator(_game_of)] if len(members) > 1 \
        else members[0]


def rounds_page_model() -> type[BaseModel]:
    """A page of settled rounds, newest first (each round its game's record)."""
    rounds: Any = list[record_model()]  # type: ignore[misc]  # (a type built from the registry)
    return create_model("RoundsPage", __base__=ViewModel, __doc__="A page of settled rounds, newest first.",
                        page=(int, ...), size=(int, ...), total=(int, ...), rounds=(rounds, ...))


def _views() -> list[tuple[str, Any]]:
    """(game, its view part) for every loaded game (the table's own, and any it played or another table of this
    process plays: `controller.registry.loaded`), in the registry's order."""
    return [(e.name, view_part(e.name)) for e in registry.loaded()]


def _game_of(value: Any) -> str:
    """Which game's model reads ``value``: its ``game`` (a record without one is the first game's)."""
    game = value.get("game", DEFAULT_GAME) if isinstance(value, dict) else getattr(value, "game", DEFAULT_GAME)
    return game if isinstance(game, str) else DEFAULT_GAME


class BoxFigures(BaseModel):
    """One box over the shift, from the house's side."""

    box: int
    rounds: int
    hands: int
    house: str = Field(description="the house's result on the box (+ the house won)")


class PlayerFigures(BaseModel):
    """One player over the shift, from the house's side (a shared box's result split by stake)."""

    player: str
    rounds: int
    bets: str
    house: str
    commission_paid: str | None = Field(None, description="at a table that takes commission (punto banco's Banker "
                                        "bets): taken at settlement, or collected from the commission box")
    commission_owed: str | None = Field(None, description="kept in the commission box, not yet collected")


class SeriesPoint(BaseModel):
    """One slice of the shift."""

    end: str
    rounds: int
    hands: int
    house: str


class FiguresModel(BaseModel):
    """The shift's figures: pace, result (house side), per box and per player, a series for a chart."""

    hours: float
    rounds: int
    hands: int
    bets: str
    house_result: str
    rounds_per_hour: float
    hands_per_hour: float
    rounds_last_hour: int
    hands_last_hour: int
    boxes: list[BoxFigures]
    players: list[PlayerFigures]
    series: list[SeriesPoint]


class Per100Rounds(BaseModel):
    """A dealer's corrections per 100 rounds dealt."""

    refused: float | None
    held_cards: float | None
    voids: float | None


class DealerShiftModel(BaseModel):
    """One dealer's figures over one shift (docs/protection.md, "Dealers")."""

    dealer: str = Field(description="the id signed in with dealer_in; '(no dealer signed in)' for the rest")
    shift: str
    rounds: int
    hands: int = Field(description="every hand dealt, the dealer's own included")
    dealing_hours: float = Field(description="on duty, less shuffles and idle silences of over 5 minutes")
    shuffle_minutes: float
    idle_minutes: float
    rounds_per_hour: float | None
    hands_per_hour: float | None
    boxes_per_round: float | None
    published_rounds_per_hour: float | None = Field(description="418 / (boxes per round + 1): the operator tables' pace")
    per_100_rounds: Per100Rounds
    refused: int
    held_cards: int
    voids: int
    shoes: int = Field(description="shoes shuffled in while the dealer was on duty")
    weak_shoes: int
    median_shoe_p: float | None = Field(description="median shuffle-quality p-value of those shoes (about 0.5 if fair)")


class SpotEdgeModel(BaseModel):
    """One spot's exact expectation on the next round (a game with exact odds per spot: baccarat's)."""

    player_edge_pct: float = Field(description="the player's exact expectation per unit staked on the spot, per cent")
    house_edge_pct: float


class EdgeModel(BaseModel):
    """The exact edge of the next round (tablectl/edge.py), for surveillance."""

    available: bool
    reason: str | None = Field(None, description="why there is no figure (available false)")
    shoe: str | None = None
    next_round: int | None = Field(None, description="the round the figure is for")
    cards_left: int | None = None
    play: str | None = Field(None, description="the play the figure values: basic (the table's basic strategy; "
                                               "the analyser's optimal plays, cdp1 and cdz-, are not the table's)")
    player_edge_pct: float | None = Field(None, description="the player's exact expectation under the table's basic "
                                                            "strategy, per cent of the initial bet")
    house_edge_pct: float | None = None
    running_count: int | None = None
    true_count: float | None = None
    hi_lo_estimate_pct: float | None = Field(None, description="-0.36 % + 0.57 % x true count: the rule of thumb, "
                                                               "player's side, for comparison")
    cards_out: int | None = Field(None, description="spots: the shoe's cards dealt before the round the odds are for")
    spots: dict[str, SpotEdgeModel] | None = Field(None, description="a game with exact odds per spot (baccarat): "
                                                                    "spot -> its exact expectation on the next round")


class DealersModel(BaseModel):
    """Each dealer's figures per shift, from the table's journal."""

    hours: float
    dealers: list[DealerShiftModel]


class SignalModel(BaseModel):
    """One piece of advantage-play evidence: a statistic with its sample size and p-value under its null."""

    name: str = Field(description="bet_vs_true_count, first_bet_after_shuffle, bet_change_after_push, index_plays, "
                                  "wonging, first_card, hole_card (docs/protection.md, 'Advantage play')")
    statistic: float | None
    n: int = Field(description="the sample size the statistic is computed on")
    p: float | None = Field(description="p-value under the signal's null; None: too little to test")
    explanation: str


class PlayerEvidenceModel(BaseModel):
    """A player's (or a box's) advantage-play evidence: evidence, not a verdict."""

    subject: str = Field(description="the player named on the bets, or 'box N'")
    kind: str = Field(description="player or box")
    rounds: int
    tested: int = Field(description="signals with a p-value (the Bonferroni factor)")
    combined_p: float | None = Field(description="min(1, tested x the smallest p)")
    flagged: bool = Field(description="combined_p below flag_alpha")
    signals: list[SignalModel]


class PlayersModel(BaseModel):
    """Each player's and box's advantage-play evidence over the window, from the table's journal."""

    hours: float
    note: str
    flag_alpha: float
    players: list[PlayerEvidenceModel]


class RulesModel(BaseModel):
    """The rule profile in force."""

    profile: str
    options: dict[str, object]


class ShoeStatus(BaseModel):
    """The shoe and what is due."""

    shoe: ShoeModel | None
    shuffle_due: bool
    right_to_cut: str | None
    shoe_figures: list[str] = Field(description="the shoe figures the game has (show only these), in this order: dealt, left (cards left in the "
                                     "pack), burned, bottom_card, penetration, cut_card, right_to_cut, count (Hi-Lo), "
                                     "ranks_left; controller/game.py ShoeFigure; each game says which it has")
    locked: bool
