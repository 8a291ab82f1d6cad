"""Explicit snapshots of the table: plain JSON-ready data out, strictly validated data in.

`dump_table` writes every part of a `Table`'s state as str/int/bool/None/lists/dicts with a
``format`` number; `validate` checks such data against pydantic models (strict types, no
unknown keys, cards that exist, indices that point somewhere) and `load_table` rebuilds the
objects from the checked models. Nothing in the data is ever executed or imported: it only
fills constructors. Amounts are decimal strings (as in round records), times ISO-8601.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal, Protocol, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from .alerts import Alert, AlertKind
from .cards import BadCard, Card, parse_card
from .errors import SnapshotError
from .explain import explain
from .money import money, to_cents
from .phase import IN_ROUND, Phase
from .protection.live import ShoeWatch
from .round import Round, VoidReason
from .inventory import Slip, Watch
from .seats import Seated
from .shoe import ShoeTracker

from .game import Bets, PlayingTable


class SnapshotTable(PlayingTable, Protocol):
    """What a snapshot writes of a table and fills in again: `Table` has it all. Named here, not the engine, so
    that this module stays below the engine even for the type checker (tests/test_layers.py)."""

    shoes_loaded: int
    last_round_players: int
    held: list[Card]
    alerts: list[Alert]
    next_alert_id: int
    now: datetime | None
    locked: bool
    gate_held: bool
    link_up: bool
    shoe_watch: ShoeWatch
    dealer_on_duty: str | None
    dealer_since: datetime | None
    imported: dict[str, Any] | None
    seated: dict[int, Seated]
    mtl_day: str | None
    cash_today: dict[str, int]
    slips: dict[int, Slip]
    next_slip: int
    inventory: Watch | None
    inventory_closed: Watch | None


FORMAT = 4  # bump when the layout below changes; from_snapshot refuses any number but these
FORMATS = (3, 4)  # what this build reads: 3 is 4 without bets' spots (every bet on the game's main spot)


# ---------------------------------------------------------------------------- field types
def _card(code: str) -> str:
    try:
        return parse_card(code).code
    except BadCard as exc:
        raise ValueError(str(exc)) from None


def _amount(text: str) -> str:
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"{text!r} is not an amount") from None
    if not d.is_finite() or d != d.quantize(Decimal("0.01")):
        raise ValueError(f"{text!r} is not an amount in whole cents")
    return text


def _time(text: str) -> str:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO-8601 time") from None
    return text


CardCode = Annotated[str, AfterValidator(_card)]
Amount = Annotated[str, AfterValidator(_amount)]
Time = Annotated[str, AfterValidator(_time)]
Count = Annotated[int, Field(ge=0)]
# Why a round was voided: written only for a voided round, absent from older snapshots (then unknown).
VoidReasonState = Annotated[VoidReason | None, Field(strict=False)]


class StrictModel(BaseModel):
    # Strict: an int is an int (not "3", not true), no key may be missing or unknown.
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class RulesState(StrictModel):
    """The rules in force: a profile name and every option."""

    name: str
    options: dict[str, Any]


class ShoeState(StrictModel):
    """The shoe tracker: what has left the shuffled shoe (or pack), and the pack's bottom card."""

    shoe_id: str
    decks: Annotated[int, Field(ge=1, le=8)]
    pack: Literal[52, 36]
    size: Annotated[int, Field(ge=1, le=416)]
    dealt: Count
    burned: Count
    by_code: dict[CardCode, Annotated[int, Field(ge=1)]]
    cut_card_out: bool
    cut_card_position: int | None
    repeats: Count
    last_position: Annotated[int, Field(ge=1)] | None
    bottom: CardCode | None
    bottom_due: bool
    must_shuffle: bool

    @model_validator(mode="after")
    def _counts(self) -> ShoeState:
        if sum(self.by_code.values()) != self.dealt or self.burned > self.dealt:
            raise ValueError("the shoe's card counts do not add up to its dealt and burned cards")
        return self


class BetState(StrictModel):
    """One player's chips on a box."""

    player: str
    amount: Amount


class AlertState(StrictModel):
    """One alert on the board."""

    id: Annotated[int, Field(ge=1)]
    kind: Annotated[AlertKind, Field(strict=False)]
    message: str
    raised_at: Time | None
    active: bool
    acknowledged: bool
    acknowledged_by: str | None
    # Written only once acknowledged: a snapshot from before the field (or of no acknowledgement) reads as before.
    acknowledged_at: Time | None = None
    secret: str | None
    count: Annotated[int, Field(ge=1)] = 1  # written only when repeated: a snapshot without repeats reads as before


class PendingBet(BetState):
    """One player's chips on one spot of a box, for the next round."""

    spot: Annotated[str, Field(min_length=1, max_length=64)] | None = None  # none: the game's main spot (format 3)


class PendingBox(StrictModel):
    """Bets placed on a box for the next round, in the order the players came."""

    box: Annotated[int, Field(ge=1, le=9)]
    bets: list[PendingBet] = Field(min_length=1)


class Reservation(StrictModel):
    """A box marker: for whom, since when."""

    box: Annotated[int, Field(ge=1, le=9)]
    player: str | None
    since: Time | None


class WatchedShoe(StrictModel):
    """One shoe the protection watch keeps (controller.protection.live)."""

    shoe: str
    shuffled_at: Time | None
    decks: Annotated[int, Field(ge=1, le=8)]
    pack: Annotated[int, Field(ge=1, le=52)]
    cut_card_at: int
    dealt: list[CardCode]
    burnt: list[CardCode]
    bottom: CardCode | None
    rounds: list[list[list[CardCode]]]
    boxes: list[list[Annotated[int, Field(ge=0, le=9)]]] = Field(default_factory=list)  # each hand's box (issue 38)
    round_ends: list[Count]
    cut_card_out: bool


class WatchedHand(StrictModel):
    """A hand of the round in play, as the protection watch books it."""

    box: Annotated[int, Field(ge=1, le=9)]
    hand: Count
    cards: list[CardCode]


class HeldAlarm(StrictModel):
    """A slug alarm waiting for the table's closed cards to be turned."""

    key: Literal["rank and suit", "rank", "value"]
    # the order's kind: dealt, or the pick-up the discards were gathered in ("discards": the table's own, before issue 38)
    reference: Literal["dealt", "discards", "third-base-first", "first-base-first", "dealer-then-third-base",
                       "dealer-then-first-base"]
    turned: bool = False
    split_as_played: bool = False
    length: Count
    new_start: Count
    previous_start: Count
    at_card: Count


class WatchState(StrictModel):
    """The protection watch: the shoe in play and the one before it, the round's hands so far, held alarms."""

    shoes: list[WatchedShoe] = Field(max_length=2)
    hands: list[WatchedHand]
    dealer: list[CardCode]
    held: list[HeldAlarm]


class ImportedState(StrictModel):
    """Where an imported journal's record came from (events.Imported)."""

    source: Annotated[str, Field(max_length=500)]
    format: Literal["session", "recorded-shoes"]
    sha256: Annotated[str, Field(pattern="^[0-9a-f]{64}$")]
    at: Time | None


class OnDuty(StrictModel):
    """The dealer on duty (dealer_in) and since when."""

    dealer: Annotated[str, Field(min_length=1, max_length=64)]
    since: Time | None


class SeatedState(StrictModel):
    """A player seated on a box (events.Seat, or a named player's first bet on an empty box)."""

    box: Annotated[int, Field(ge=1, le=9)]
    player: Annotated[str, Field(min_length=1, max_length=64)] | None
    card: Annotated[str, Field(min_length=1, max_length=64)] | None
    since: Time | None
    paused_at: Time | None


class MtlState(StrictModel):
    """The multiple transaction log's running sums: the gaming day and each person's cash bought in that day."""

    day: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
    cash: Annotated[dict[Annotated[str, Field(min_length=1, max_length=64)], Annotated[int, Field(ge=0, le=10**14)]],
                    Field(max_length=10_000)]


Cents = Annotated[int, Field(ge=-10**15, le=10**15)]


class PendingSlipState(StrictModel):
    """A fill or credit asked for in the period, still to be signed: its number and signed value (+ credit)."""

    slip: Annotated[int, Field(ge=1, le=2**31)]
    value: Cents


class InventoryWatchState(StrictModel):
    """An inventory period the engine watches for its difference (controller.inventory.Watch), in cents."""

    opener: Cents
    table_win: Cents
    slips_net: Cents
    # A list, not an object by slip: a JSON object's keys are strings.
    pending: Annotated[list[PendingSlipState], Field(max_length=10_000)]
    closer: Cents | None
    drop: Cents | None


class SlipState(StrictModel):
    """A fill or credit slip waiting for its signatures (controller.inventory.Slip)."""

    id: Annotated[int, Field(ge=1, le=2**31 - 1)]
    kind: Literal["fill", "credit"]
    chips: Annotated[dict[Annotated[str, Field(min_length=1, max_length=12)], Annotated[int, Field(ge=0, le=1_000_000)]],
                     Field(max_length=40)]
    requested_at: Time | None
    signed: Annotated[dict[Literal["dealer", "supervisor"], Annotated[str, Field(min_length=1, max_length=120)]],
                      Field(max_length=2)]


class TableState(StrictModel):
    """The whole table."""

    format: Literal[3, 4]
    rules: RulesState
    phase: Annotated[Phase, Field(strict=False)]
    resume_phase: Annotated[Phase | None, Field(strict=False)]
    shoe: ShoeState | None
    shoes_loaded: Count
    burn_left: Count
    pending: list[PendingBox]
    reservations: list[Reservation]
    # The game's own layout (its module validates it): e.g. RoundState for blackjack.
    round: dict[str, Any] | None
    previous: dict[str, Any] | None
    game_state: Any
    rounds_played: Count
    last_round_players: Count
    right_to_cut: str | None
    held: list[CardCode]
    alerts: list[AlertState]
    next_alert_id: Annotated[int, Field(ge=1)]
    now: Time | None
    locked: bool
    gate_held: bool
    link_up: bool
    # Added within format 3: a snapshot from before it starts a fresh watch (the next shoe is watched).
    protection: WatchState | None = None
    on_duty: OnDuty | None = None  # added within format 3: older snapshots had no dealer on duty
    imported: ImportedState | None = None  # added within format 3 (issue 38): a journal brought in from elsewhere
    seated: list[SeatedState] | None = None  # added within format 4 (issue 41): older snapshots had nobody seated
    mtl: MtlState | None = None  # added within format 4 (issue 41): the gaming day's cash by person
    slips: list[SlipState] | None = None  # added within format 4 (issue 41): fill and credit slips being signed
    next_slip: Annotated[int, Field(ge=1, le=2**31)] = 1
    # Added within format 4 (issue 41): the inventory period open, and the last closed waiting for its drop.
    inventory: InventoryWatchState | None = None
    inventory_closed: InventoryWatchState | None = None

    @model_validator(mode="after")
    def _consistent(self) -> TableState:
        if (self.round is not None) != (self.phase in IN_ROUND or (
                self.phase is Phase.ATTENTION and self.resume_phase in IN_ROUND)):
            raise ValueError(f"phase {self.phase.value} does not match whether a round is in play")
        if (self.phase is Phase.ATTENTION) != (self.resume_phase is not None) or self.resume_phase is Phase.ATTENTION:
            raise ValueError("resume_phase is set exactly while the table is in attention")
        if (self.phase is Phase.ATTENTION) != bool(self.held):
            raise ValueError("cards are held exactly while the table is in attention")
        ids = [a.id for a in self.alerts]
        if len(set(ids)) != len(ids) or any(i >= self.next_alert_id for i in ids):
            raise ValueError("alert ids must be distinct and below next_alert_id")
        boxes = [p.box for p in self.pending]
        if len(set(boxes)) != len(boxes) or len({r.box for r in self.reservations}) != len(self.reservations):
            raise ValueError("a box appears twice among the bets or the reservations")
        return self


# ---------------------------------------------------------------------------- out
def time_out(at: datetime | None) -> str | None:
    """A time as a snapshot writes it (ISO-8601), or None."""
    return at.isoformat() if at is not None else None


def bets_out(bets: dict[str, int]) -> list[dict[str, Any]]:
    """A box's bets as a snapshot writes them, in the order the players came."""
    return [{"player": p, "amount": money(a)} for p, a in bets.items()]


def pending_out(bets: Bets, main: str) -> list[dict[str, Any]]:
    """A box's bets for the next round as a snapshot writes them: by player, then spot (the main spot's unnamed)."""
    return [{"player": p, "amount": money(a), **({"spot": s} if s != main else {})}
            for p, spots in bets.items() for s, a in spots.items()]


def money_or_none(amount: int | None) -> str | None:
    """An amount in cents as a snapshot writes it (a decimal string), or None."""
    return money(amount) if amount is not None else None


def dump_void_reason(r: Round) -> dict[str, Any]:
    """``void_reason`` of a voided round, or nothing: a round's snapshot is as before unless it was voided."""
    return {"void_reason": r.void_reason.value} if r.void_reason is not None else {}


def dump_shoe(shoe: ShoeTracker) -> dict[str, Any]:
    """The shoe tracker as plain data (card counts by code, in card order)."""
    return {
        "shoe_id": shoe.shoe_id,
        "decks": shoe.decks,
        "pack": shoe.pack,
        "size": shoe.size,
        "dealt": shoe.dealt,
        "burned": shoe.burned,
        "by_code": shoe.by_code,
        "cut_card_out": shoe.cut_card_out,
        "cut_card_position": shoe.cut_card_position,
        "repeats": shoe.repeats,
        "last_position": shoe.last_position,
        "bottom": shoe.bottom.code if shoe.bottom is not None else None,
        "bottom_due": shoe.bottom_due,
        "must_shuffle": shoe.must_shuffle,
    }


def dump_alert(alert: Alert) -> dict[str, Any]:
    """An alert as plain data."""
    return {
        "id": alert.id,
        "kind": alert.kind.value,
        "message": alert.message,
        "raised_at": time_out(alert.raised_at),
        "active": alert.active,
        "acknowledged": alert.acknowledged,
        "acknowledged_by": alert.acknowledged_by,
        "secret": alert.secret,
        **({"acknowledged_at": time_out(alert.acknowledged_at)} if alert.acknowledged_at is not None else {}),
        # Only when repeated: a snapshot without repeats is the same as before counts (an older build reads it).
        **({"count": alert.count} if alert.count > 1 else {}),
    }


def dump_table(t: SnapshotTable) -> dict[str, Any]:
    """The whole table as plain data."""
    return {
        "format": FORMAT,
        "rules": {"name": t.rules.name, "options": t.rules.options()},
        "phase": t.phase.value,
        "resume_phase": t.resume_phase.value if t.resume_phase is not None else None,
        "shoe": dump_shoe(t.shoe) if t.shoe is not None else None,
        "shoes_loaded": t.shoes_loaded,
        "burn_left": t.burn_left,
        "pending": [{"box": box, "bets": pending_out(bets, t.game.spots[0].name)} for box, bets in t.pending.items()],
        "reservations": [{"box": box, "player": player, "since": time_out(since)}
                         for box, (player, since) in t.reservations.items()],
        "round": t.game.dump_round(t.round) if t.round is not None else None,
        "previous": t.game.dump_round(t.previous) if t.previous is not None else None,
        "game_state": t.game.dump_state(t),
        "rounds_played": t.rounds_played,
        "last_round_players": t.last_round_players,
        "right_to_cut": t.right_to_cut,
        "held": [c.code for c in t.held],
        "alerts": [dump_alert(a) for a in t.alerts],
        "next_alert_id": t.next_alert_id,
        "now": time_out(t.now),
        "locked": t.locked,
        "gate_held": t.gate_held,
        "link_up": t.link_up,
        **({"imported": dict(t.imported)} if t.imported is not None else {}),
        "protection": t.shoe_watch.state(),
        "on_duty": None if t.dealer_on_duty is None else {"dealer": t.dealer_on_duty, "since": time_out(t.dealer_since)},
        **({"seated": [{"box": box, "player": s.player, "card": s.card, "since": time_out(s.since),
                        "paused_at": time_out(s.paused_at)} for box, s in sorted(t.seated.items())]}
           if t.seated else {}),
        **({"mtl": {"day": t.mtl_day, "cash": dict(t.cash_today)}} if t.mtl_day is not None else {}),
        **({"slips": [{"id": s.id, "kind": s.kind, "chips": dict(s.chips), "requested_at": time_out(s.requested_at),
                       "signed": dict(s.signed)} for s in t.slips.values()]} if t.slips else {}),
        **({"next_slip": t.next_slip} if t.next_slip != 1 else {}),
        **({"inventory": _watch_out(t.inventory)} if t.inventory is not None else {}),
        **({"inventory_closed": _watch_out(t.inventory_closed)} if t.inventory_closed is not None else {}),
    }


# ---------------------------------------------------------------------------- in
def _explain(exc: ValidationError, prefix: tuple[str, ...]) -> str:
    return explain(exc, "snapshot", prefix=prefix, first=3, more=" (and {} more)")


def validate(data: Any) -> TableState:
    """Check snapshot data strictly; SnapshotError says what is wrong.

    The round's own layout is the game's: `Table.from_snapshot` has the game check it
    (`check`) once the rules, and so the game, are known.
    """
    if not isinstance(data, dict):
        raise SnapshotError("a table snapshot is a JSON object")
    fmt = data.get("format")
    if type(fmt) is not int or fmt not in FORMATS:
        raise SnapshotError(f"snapshot format {fmt!r} is not a format this build reads ({', '.join(map(str, FORMATS))})")
    try:
        return TableState.model_validate(data)
    except ValidationError as exc:
        raise SnapshotError(f"malformed table snapshot: {_explain(exc, ())}") from None


M = TypeVar("M", bound=BaseModel)


def check(model: type[M], data: Any, where: str) -> M:
    """Check one part of a snapshot (``where``: its key, e.g. ``round``) against its model strictly."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise SnapshotError(f"malformed table snapshot: {_explain(exc, (where,))}") from None


def cards_of(codes: list[str]) -> list[Card]:
    """Checked card codes as cards."""
    return [parse_card(c) for c in codes]


def time_of(text: str | None) -> datetime | None:
    """A checked ISO-8601 time, or None."""
    return datetime.fromisoformat(text) if text is not None else None


def cents_of(text: str) -> int:
    """A checked amount in cents."""
    cents = to_cents(Decimal(text))
    assert cents is not None  # the model checked it is whole cents
    return cents


def bets_of(bets: list[BetState]) -> dict[str, int]:
    """A box's checked bets by player (a player twice on one box is a malformed snapshot)."""
    out: dict[str, int] = {}
    for bet in bets:
        if bet.player in out:
            raise SnapshotError(f"malformed table snapshot: player {bet.player!r} bets twice on one box")
        out[bet.player] = cents_of(bet.amount)
    return out


def pending_of(bets: list[PendingBet], main: str) -> Bets:
    """A box's checked bets for the next round, by player and spot (a bet naming no spot is on ``main``; a player
    twice on one spot is a malformed snapshot)."""
    out: Bets = {}
    for bet in bets:
        spots = out.setdefault(bet.player, {})
        spot = bet.spot or main
        if spot in spots:
            raise SnapshotError(f"malformed table snapshot: player {bet.player!r} bets twice on one spot of a box")
        spots[spot] = cents_of(bet.amount)
    return out


def amount_of(text: str | None) -> int | None:
    """A checked amount in cents, or None."""
    return cents_of(text) if text is not None else None


def load_shoe(state: ShoeState) -> ShoeTracker:
    """A ShoeTracker from checked data."""
    shoe = ShoeTracker(state.shoe_id, state.decks, state.repeats, pack=state.pack, size=state.size)
    shoe.dealt, shoe.burned = state.dealt, state.burned
    for code, n in state.by_code.items():
        shoe.counts[parse_card(code).index] += n
    shoe.cut_card_out, shoe.cut_card_position = state.cut_card_out, state.cut_card_position
    shoe.last_position = state.last_position
    shoe.bottom = parse_card(state.bottom) if state.bottom is not None else None
    shoe.bottom_due, shoe.must_shuffle = state.bottom_due, state.must_shuffle
    return shoe


def load_table(t: SnapshotTable, state: TableState) -> None:
    """Fill a fresh Table (built with the snapshot's rules) from checked data."""
    t.phase = state.phase
    t.resume_phase = state.resume_phase
    t.shoe = load_shoe(state.shoe) if state.shoe is not None else None
    t.shoes_loaded, t.burn_left = state.shoes_loaded, state.burn_left
    t.pending = {p.box: pending_of(p.bets, t.game.spots[0].name) for p in state.pending}
    t.reservations = {r.box: (r.player, time_of(r.since)) for r in state.reservations}
    game = t.game
    t.round = game.load_round(t, state.round) if state.round is not None else None
    t.previous = game.load_round(t, state.previous) if state.previous is not None else None
    game.load_state(t, state.game_state)
    t.rounds_played, t.last_round_players = state.rounds_played, state.last_round_players
    t.right_to_cut = state.right_to_cut
    t.held = cards_of(state.held)
    t.alerts = [Alert(a.id, a.kind, a.message, time_of(a.raised_at), a.active, a.acknowledged, a.acknowledged_by,
                      time_of(a.acknowledged_at), a.secret, a.count) for a in state.alerts]
    t.next_alert_id = state.next_alert_id
    t.now = time_of(state.now)
    t.locked = state.locked
    t.gate_held, t.link_up = state.gate_held, state.link_up
    if state.on_duty is not None:
        t.dealer_on_duty, t.dealer_since = state.on_duty.dealer, time_of(state.on_duty.since)
    if state.seated is not None:
        t.seated = {s.box: Seated(s.player, s.card, time_of(s.since), time_of(s.paused_at)) for s in state.seated}
    if state.slips is not None:
        t.slips = {s.id: Slip(s.id, s.kind, dict(s.chips), time_of(s.requested_at), {str(k): v for k, v in s.signed.items()})
                   for s in state.slips}
    t.next_slip = state.next_slip
    t.inventory = _watch(state.inventory)
    t.inventory_closed = _watch(state.inventory_closed)
    if state.mtl is not None:
        t.mtl_day, t.cash_today = state.mtl.day, dict(state.mtl.cash)
    if state.imported is not None:
        t.imported = {"source": state.imported.source, "format": state.imported.format,
                      "sha256": state.imported.sha256, "at": state.imported.at}
    if state.protection is not None:
        t.shoe_watch = ShoeWatch.from_state(state.protection.model_dump(), keep=t.shoe_watch.keep)


def _watch(state: InventoryWatchState | None) -> Watch | None:
    """An inventory watch from its snapshot."""
    if state is None:
        return None
    return Watch(state.opener, state.table_win, state.slips_net, {p.slip: p.value for p in state.pending}, state.closer, state.drop)


def _watch_out(watch: Watch) -> dict[str, Any]:
    """An inventory watch as its snapshot."""
    return {**asdict(watch), "pending": [{"slip": slip, "value": value}
                                            for slip, value in sorted(watch.pending.items())]}
