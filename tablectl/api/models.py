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
    outcome: str | None = Field(None, description="blackjack win lose bust push surrender even_money three_sevens void; "
                                "the club games: natural banker_bust fold withdrawn returned")
    net: str | None = Field(None, description="what the player won (+) or lost (-)")
    # The club games (003): a box's cards are face down until turned (XX, no total, below supervisor).
    closed: bool | None = Field(None, description="club games: a card of the hand is still face down")
    card_count: int | None = Field(None, description="club games: the cards the hand holds (closed ones too)")
    dark: bool | None = Field(None, description="club-21-36: the box has drawn dark")


class BoxModel(BaseModel):
    """A betting box in the round (or with bets for the next one)."""

    box: int
    owner: str | None
    bets: dict[str, str] = Field(description="each player's stake on the box")
    insurance: str | None
    hands: list[HandModel]
    next_round: bool = False
    recontra: bool | None = Field(None, description="club-21: the box redoubled after the banker's contra")
    choice: str | None = Field(None, description="club-21, on a spent pack: double or fold (null: not chosen)")
    bank_after: str | None = Field(None, description="club-21-36: the bank's balance after this box's duel")


class DealerModel(BaseModel):
    """The dealer's hand; a hole card not yet turned shows as XX (except to a supervisor)."""

    cards: list[str]
    totals: list[int]
    hole_hidden: bool
    blackjack: bool = Field(False, description="a two-card 21 (never told while the hole card is face down)")
    bust: bool = False
    done: bool = Field(False, description="the dealer's hand is over (a settled round)")
    closed: bool | None = Field(None, description="club games: the banker's cards are face down")
    card_count: int | None = Field(None, description="club games: the cards the banker holds")


class SettledHandModel(HandModel):
    """A hand of the settled round, as it lies on the felt."""

    surrendered: bool = False


class SettledBoxModel(BaseModel):
    """A box of the settled round: its hands, its insurance, and its net (the player's)."""

    box: int
    owner: str | None
    bets: dict[str, str]
    insurance: str | None
    insurance_net: str | None
    hands: list[SettledHandModel]
    net: str = Field(description="what the box's players won (+) or lost (-), insurance included")
    banker: DealerModel | None = Field(None, description="club-21-36: the banker's hand in this box's duel")
    bank_after: str | None = Field(None, description="club-21-36: the bank's balance after this box's duel")


class SettledRoundModel(BaseModel):
    """The last settled round, kept until the next round's first card."""

    number: int
    void: bool
    void_reason: str | None = Field(None, description="why a void round was voided: supervisor, pack_ran_out "
                                                       "(club-21), bottom_ace (club-21-36)")
    dealer: DealerModel
    boxes: list[SettledBoxModel]
    net: str = Field(description="what the players won (+) or lost (-): the house's result is the opposite")


class LimitsModel(BaseModel):
    """The table's bet limits per box."""

    min: str
    max: str


class ShoeDeviceModel(BaseModel):
    """What the shoe itself reports (its STATUS heartbeat), beside what the table decided."""

    link_up: bool
    gate_locked: bool | None = Field(None, description="the shoe's gate is shut (None before the first STATUS)")
    jammed: bool = False
    lid_open: bool = False

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
    cut_card_zone: list[int] = Field(description="the positions between which the rules place the cut card")
    remaining_by_rank: dict[str, int]


class AlertModel(BaseModel):
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


class HandRecord(BaseModel):
    """A settled hand in a round record."""

    box: int
    cards: list[str]
    bet: str
    outcome: str | None
    net: str
    total: int | None = Field(None, description="club games: the hand's total, by the pack's values")
    dark: bool | None = Field(None, description="club-21-36: the box drew dark in its duel")
    banker: list[str] | None = Field(None, description="club-21-36: the banker's cards in this box's duel")
    banker_total: int | None = Field(None, description="club-21-36: the banker's total in this box's duel")
    kept: bool | None = Field(None, description="club-21-36: the duel began with the card the banker kept")
    bank_after: str | None = Field(None, description="club-21-36: the bank's balance after the duel")
    stake_cut_from: str | None = Field(None, description="club-21-36: the stake placed before the deal, when the "
                                                         "bank no longer covered it at the duel (bet: what played)")


class InsuranceRecord(BaseModel):
    """An insurance bet in a round record."""

    box: int
    amount: str
    net: str


class DealerRecord(BaseModel):
    """The dealer's cards in a round record."""

    cards: list[str]
    total: int


class RoundBankRecord(BaseModel):
    """club-21-36: the bank over one round of duels."""

    before: str
    after: str
    closed: bool = Field(description="the bank emptied in this round (never the supervisor's close_bank, which "
                                     "comes between rounds); kept as it was: read state")
    state: str | None = Field(None, description="the bank at the end of the round: open or emptied (absent from "
                                                "older records)")


class RoundRecord(BaseModel):
    """A settled round: every card and its settlement (the replay format)."""

    number: int
    shoe_id: str | None
    dealer: DealerRecord
    hands: list[HandRecord]
    insurance: list[InsuranceRecord]
    net: str
    void: bool | None = None
    void_reason: str | None = Field(None, description="why a void round was voided: supervisor, pack_ran_out "
                                                      "(club-21: the pack ran out before everyone had two cards), "
                                                      "bottom_ace (club-21-36: an ace as the bottom card); absent "
                                                      "from older records")
    settled_at: str | None = Field(None, description="when the round was settled (ISO 8601, UTC)")
    dealer_title: str | None = Field(None, description="who dealt it, as its game names him: Dealer (blackjack) or "
                                                       "Banker (the club games); given by /api/rounds")
    game: str | None = Field(None, description="club games: club-21 or club-21-36 (blackjack records have none)")
    bottom_card: str | None = Field(None, description="club games: the pack's bottom card")
    contra: bool | None = Field(None, description="club-21: the banker doubled every stake")
    pack_out: bool | None = Field(None, description="club-21: the pack ran out while the boxes played")
    bank: RoundBankRecord | None = Field(None, description="club-21-36: the bank before and after the round")


class DuelModel(BaseModel):
    """club-21-36: the duel in play (or the next, while the banker takes his card)."""

    box: int
    stake: str
    dark: bool
    banker_kept_card: bool
    cut_from: str | None = Field(None, description="the stake placed before the deal, when the bank no longer "
                                                   "covered it at this duel and cut it to all it held")


class BankModel(BaseModel):
    """club-21-36: the banker's bank (public: every key sees it)."""

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


class TurnModel(BaseModel):
    """Whose turn it is."""

    box: int | None = None
    hand: int | None = None
    dealer: bool | None = None


class HeadModel(BaseModel):
    """The journal's last row: a copy of the journal taken later shows whether rows were cut after it."""

    seq: int
    mac: str | None = Field(description="HMAC-SHA256 of the last row, chained over every row before it; null below "
                                        "supervisor while a card is face down (the MAC is chained over it)")


class OnDutyModel(BaseModel):
    """The dealer on duty: the id the pit signed in (dealer_in), and since when."""

    dealer: str
    since: str | None


class TableModel(BaseModel):
    """The table now."""

    table: str
    phase: str
    rules: str
    round: int | None
    rounds_played: int
    boxes: list[BoxModel]
    dealer: DealerModel
    dealer_on_duty: OnDutyModel | None = Field(None, description="the person dealing (dealer_in), not the dealer's "
                                                                 "hand above; null when nobody is signed in")
    turn: TurnModel | None
    legal_actions: list[str]
    next_card: str | None
    shoe: ShoeModel | None
    shuffle_due: bool
    right_to_cut: str | None
    shoe_figures: list[str] = Field(description="the shoe figures the game has (show only these), in this order: dealt, left (cards left in the "
                                     "pack), burned, bottom_card, penetration, cut_card, right_to_cut, count (Hi-Lo), "
                                     "ranks_left; controller/games/base.py ShoeFigure. Blackjack: all but left and "
                                     "bottom_card; the club games: dealt, left, bottom_card, ranks_left")
    dealer_title: str = Field(description="who deals and plays the boxes, as the felt names him: Dealer (blackjack) "
                                          "or Banker (the club games)")
    locked: bool
    gate_held: bool = Field(description="a supervisor holds the shoe's gate shut")
    lock_reasons: list[str] = Field(description="why the shoe's gate is shut, in words (empty when open)")
    held_cards: list[str]
    alerts: list[AlertModel]
    reservations: dict[str, str | None]
    last_round: RoundRecord | None
    settled: SettledRoundModel | None = None
    limits: LimitsModel
    shoe_device: ShoeDeviceModel
    last_seq: int
    head: HeadModel
    # The club games (003); absent at a blackjack table.
    game: str | None = Field(None, description="club games: the game played (club-21, club-21-36)")
    bottom_card: str | None = Field(None, description="club games: the pack's bottom card, shown face up")
    contra: bool | None = Field(None, description="club-21: the banker has doubled the stakes this round")
    pack_out: bool | None = Field(None, description="club-21: the pack ran out this round")
    bank: BankModel | None = Field(None, description="club-21-36: the bank, its balance and the duel in play")


class RoundsPage(BaseModel):
    """A page of settled rounds, newest first."""

    page: int
    size: int
    total: int
    rounds: list[RoundRecord]


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
                                     "ranks_left; controller/games/base.py ShoeFigure. Blackjack: all but left and "
                                     "bottom_card; the club games: dealt, left, bottom_card, ranks_left")
    locked: bool
