"""The API's response models: what the read endpoints return, documented in the OpenAPI schema.

They mirror `controller.view.table_view` and the engine's round records; the API validates its
answers against them, so the schema cannot drift from what is sent.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class HandModel(BaseModel):
    """One hand of a box."""

    cards: list[str] = Field(description="card codes in the order dealt")
    totals: list[int] = Field(description="at most two totals (soft hands show both)")
    bet: str = Field(description="total staked on the hand, a double counts twice")
    doubled: bool
    split: bool
    blackjack: bool
    bust: bool
    done: bool
    in_play: bool
    outcome: str | None = Field(None, description="blackjack win lose bust push surrender even_money three_sevens void")
    net: str | None = Field(None, description="what the player won (+) or lost (-)")


class BoxModel(BaseModel):
    """A betting box in the round (or with bets for the next one)."""

    box: int
    owner: str | None
    bets: dict[str, str] = Field(description="each player's stake on the box")
    insurance: str | None
    hands: list[HandModel]
    next_round: bool = False


class DealerModel(BaseModel):
    """The dealer's hand; a hole card not yet turned shows as XX (except to a supervisor)."""

    cards: list[str]
    totals: list[int]
    hole_hidden: bool


class ShoeModel(BaseModel):
    """The shoe in play."""

    id: str
    decks: int
    size: int
    dealt: int
    burned: int
    penetration: float
    cut_card_out: bool
    cut_card_position: int | None
    remaining_by_rank: dict[str, int]


class AlertModel(BaseModel):
    """A latched alert."""

    id: int
    kind: str
    message: str
    raised_at: str | None
    active: bool
    acknowledged: bool
    acknowledged_by: str | None
    detail: str | None = Field(None, description="what only a supervisor may read (e.g. which face-down card)")


class HandRecord(BaseModel):
    """A settled hand in a round record."""

    box: int
    cards: list[str]
    bet: str
    outcome: str | None
    net: str


class InsuranceRecord(BaseModel):
    """An insurance bet in a round record."""

    box: int
    amount: str
    net: str


class DealerRecord(BaseModel):
    """The dealer's cards in a round record."""

    cards: list[str]
    total: int


class RoundRecord(BaseModel):
    """A settled round: every card and its settlement (the replay format)."""

    number: int
    shoe_id: str | None
    dealer: DealerRecord
    hands: list[HandRecord]
    insurance: list[InsuranceRecord]
    net: str
    void: bool | None = None


class TurnModel(BaseModel):
    """Whose turn it is."""

    box: int | None = None
    hand: int | None = None
    dealer: bool | None = None


class HeadModel(BaseModel):
    """The journal's last row: a copy of the journal taken later shows whether rows were cut after it."""

    seq: int
    mac: str = Field(description="HMAC-SHA256 of the last row, chained over every row before it")


class TableModel(BaseModel):
    """The table now."""

    table: str
    phase: str
    rules: str
    round: int | None
    rounds_played: int
    boxes: list[BoxModel]
    dealer: DealerModel
    turn: TurnModel | None
    legal_actions: list[str]
    next_card: str | None
    shoe: ShoeModel | None
    shuffle_due: bool
    right_to_cut: str | None
    locked: bool
    gate_held: bool = Field(description="a supervisor holds the shoe's gate shut")
    lock_reasons: list[str] = Field(description="why the shoe's gate is shut, in words (empty when open)")
    held_cards: list[str]
    alerts: list[AlertModel]
    reservations: dict[str, str | None]
    last_round: RoundRecord | None
    last_seq: int
    head: HeadModel


class RoundsPage(BaseModel):
    """A page of settled rounds, newest first."""

    page: int
    size: int
    total: int
    rounds: list[RoundRecord]


class RulesModel(BaseModel):
    """The rule profile in force."""

    profile: str
    options: dict[str, object]


class ShoeStatus(BaseModel):
    """The shoe and what is due."""

    shoe: ShoeModel | None
    shuffle_due: bool
    right_to_cut: str | None
    locked: bool
