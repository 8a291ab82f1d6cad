"""The table's input events, in every game: the session format, the journal and the API all carry these.

Each event is a plain slotted dataclass, cheap enough for the simulator to
build by the hundred thousand; pydantic validates them only where they cross
a boundary (a session file, the journal, an API request) through
`controller.event_codec`'s ``parse_event`` / ``dump_event``, which know every
registered game's own events too (each in its folder's ``events.py``). ``type``
names the event on the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, cast, get_args

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, PlainSerializer, ValidationInfo, WithJsonSchema

from .cards import BadCard, Card, parse_card
from .ids import person_id
from .money import wire_amount


def _to_card(value: Any) -> Card:
    if isinstance(value, Card):
        return value
    if not isinstance(value, str):
        raise ValueError("a card is a code such as AS, TD or 7H")
    try:
        return parse_card(value)
    except BadCard as exc:
        raise ValueError(str(exc)) from None


CardField = Annotated[
    Card,
    BeforeValidator(_to_card),
    PlainSerializer(lambda c: c.code, return_type=str),
    WithJsonSchema({"type": "string", "pattern": "^(10|[A2-9TJQK])[SHDC]$", "examples": ["AS", "TD", "7H"]}),
]
# How far the inventory's win may differ from the table's own figure before the board says so (issue 41).
Tolerance = Annotated[Decimal, Field(ge=0, max_digits=12, decimal_places=2),
                      PlainSerializer(lambda d: wire_amount(Decimal(str(d))), return_type=Any)]
Money = Annotated[Decimal, Field(gt=0, max_digits=12, decimal_places=2), PlainSerializer(lambda d: wire_amount(Decimal(str(d))), return_type=Any)]
BoxNumber = Annotated[int, Field(ge=1, le=9)]
# Bounded so that no number out of range reaches the engine, the journal or SQLite (the API answers 422).
ShoePosition = Annotated[int, Field(ge=1, le=65_535)]
AlertId = Annotated[int, Field(ge=1, le=2**31 - 1)]


def _unicode(value: str) -> str:
    # A lone surrogate ("\ud800") is a str in Python but not text: it could not be written
    # as UTF-8 later (a table view, a log line), so it never gets in.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (no lone surrogates)") from None
    return value


# Every string an event carries is bounded and valid Unicode: names and ids short, details longer.
Name = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_unicode)]


def _person(value: str, info: ValidationInfo) -> str:
    # A person's id entering the table is judged by the one rule (controller.ids); a row read back from a journal
    # (or a recorded session) is taken as it was written: its MAC covers it, and a replay must rebuild that table.
    if info.context is not None and info.context.get("recorded"):
        return value
    return person_id(value, "a dealer's id or a player's name")


# A dealer's badge id or a player's name: a Name that also passes controller.ids.person_id where it enters.
PersonId = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_unicode), AfterValidator(_person)]
Detail = Annotated[str, Field(max_length=500), AfterValidator(_unicode)]
Actor = Annotated[str, Field(max_length=120), AfterValidator(_unicode)]


@dataclass(slots=True, kw_only=True)
class Event:
    """Fields every event may carry: when it happened and who made it."""

    # A misspelt field must be an error, not silently dropped (e.g. "bx" for "box").
    __pydantic_config__ = ConfigDict(extra="forbid")

    at: datetime | None = None
    actor: Actor | None = None

    if TYPE_CHECKING:
        # Every event class declares `type`, its literal in the session format; said here for
        # the type checker only, so the base class gets no field of that name at run time.
        type: str


@dataclass(slots=True, kw_only=True)
class SetRules(Event):
    """Choose the rule profile and options (first line of a session)."""

    type: Literal["rules"] = "rules"
    profile: Name = "ru-standard"
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, kw_only=True)
class Shuffle(Event):
    """A freshly shuffled shoe is in play (``card_count``: the cards the shoe reports loading, if it says)."""

    type: Literal["shuffle"] = "shuffle"
    shoe_id: Name | None = None
    card_count: Annotated[int, Field(ge=1, le=65_535)] | None = None


@dataclass(slots=True, kw_only=True)
class PlaceBet(Event):
    """A player puts chips on a box for the next round, on one of the game's spots (``spot``; none: its main)."""

    type: Literal["bet"] = "bet"
    box: BoxNumber
    amount: Money
    player: PersonId | None = None
    spot: Name | None = None  # where on the box (the game's ``spots``); none: the game's main spot


@dataclass(slots=True, kw_only=True)
class Reserve(Event):
    """A marker holds a box for a player who stepped away."""

    type: Literal["reserve"] = "reserve"
    box: BoxNumber
    player: PersonId | None = None


@dataclass(slots=True, kw_only=True)
class CardDrawn(Event):
    """A card left the shoe (physical: it cannot be refused)."""

    type: Literal["card"] = "card"
    card: CardField
    position: ShoePosition | None = None


@dataclass(slots=True, kw_only=True)
class CutCardOut(Event):
    """The cut card came out of the shoe."""

    type: Literal["cut_card"] = "cut_card"
    position: ShoePosition | None = None


@dataclass(slots=True, kw_only=True)
class Stand(Event):
    """The hand in play takes no more cards (``box``, if given, must be the box in turn: ``not_your_turn``)."""

    type: Literal["stand"] = "stand"
    box: BoxNumber | None = None


@dataclass(slots=True, kw_only=True)
class Double(Event):
    """The hand in play doubles its bet and takes exactly one more card.

    ``box``, if given, must be the box in turn; on a spent pack (club-21) it names the box that
    doubles its stake and stands.
    """

    type: Literal["double"] = "double"
    box: BoxNumber | None = None


@dataclass(slots=True, kw_only=True)
class Split(Event):
    """The pair in play becomes two hands, each with a bet equal to the original (``box``, if given, must be
    the box in turn: ``not_your_turn``)."""

    type: Literal["split"] = "split"
    box: BoxNumber | None = None


@dataclass(slots=True, kw_only=True)
class Surrender(Event):
    """A hand is given up for half its bet (``box`` in a table-wide window)."""

    type: Literal["surrender"] = "surrender"
    box: BoxNumber | None = None


@dataclass(slots=True, kw_only=True)
class DiscardCard(Event):
    """Supervisor: the held card goes to the discards and play resumes."""

    type: Literal["discard_card"] = "discard_card"


@dataclass(slots=True, kw_only=True)
class VoidRound(Event):
    """Supervisor: misdeal; every bet on the round is returned."""

    type: Literal["void_round"] = "void_round"


@dataclass(slots=True, kw_only=True)
class Tick(Event):
    """The clock moved (the service journals ticks so time-driven rules replay)."""

    type: Literal["tick"] = "tick"


@dataclass(slots=True, kw_only=True)
class ShoeFault(Event):
    """The shoe reported a fault (jam, unreadable card, lid open)."""

    type: Literal["shoe_fault"] = "shoe_fault"
    kind: Name
    detail: Detail | None = None


@dataclass(slots=True, kw_only=True)
class ShoeFaultCleared(Event):
    """The shoe reports a fault's cause gone (its jam cleared, its lid closed), from its heartbeat."""

    type: Literal["shoe_fault_cleared"] = "shoe_fault_cleared"
    kind: Name


@dataclass(slots=True, kw_only=True)
class LinkDown(Event):
    """The shoe link was lost."""

    type: Literal["link_down"] = "link_down"
    reason: Detail | None = None


@dataclass(slots=True, kw_only=True)
class LinkUp(Event):
    """The shoe link is back."""

    type: Literal["link_up"] = "link_up"
    reason: str | None = None


@dataclass(slots=True, kw_only=True)
class CallPit(Event):
    """The dealer calls the pit supervisor (the bell)."""

    type: Literal["call_pit"] = "call_pit"


@dataclass(slots=True, kw_only=True)
class AcknowledgeAlert(Event):
    """Supervisor: an alert has been seen and handled."""

    type: Literal["ack_alert"] = "ack_alert"
    alert_id: AlertId


@dataclass(slots=True, kw_only=True)
class ShoeGate(Event):
    """Supervisor: hold the shoe's card gate shut (``locked``), or release that hold."""

    type: Literal["shoe_gate"] = "shoe_gate"
    locked: bool


@dataclass(slots=True, kw_only=True)
class ShoeCount(Event):
    """The shoe's own count disagrees with the table's: it has released ``position`` cards of ``shoe_id``,
    ``unacked`` of them not yet acknowledged (the service journals this when a STATUS shows cards missing)."""

    type: Literal["shoe_count"] = "shoe_count"
    shoe_id: Name
    position: Annotated[int, Field(ge=0, le=65_535)]
    unacked: Annotated[int, Field(ge=0, le=65_535)] = 0


@dataclass(slots=True, kw_only=True)
class Imported(Event):
    """This journal was brought in from elsewhere by `tablectl journal import` (issue 38): a session file or a
    recorded shoe sequence, not a table's own record. ``at`` is when it was imported; ``source`` what from (the
    file's name and whatever the person said of it), ``sha256`` the file's digest. Accepted only before any shoe,
    once: a table's own journal is never marked imported, and an imported one never passes for a table's own."""

    type: Literal["imported"] = "imported"
    source: Detail
    format: Literal["session", "recorded-shoes"]
    sha256: Annotated[str, Field(pattern="^[0-9a-f]{64}$")]


@dataclass(slots=True, kw_only=True)
class DealerIn(Event):
    """The dealer ``dealer`` (a badge or staff id) takes the table: the rounds from now on are theirs.

    Between rounds only, so that every round has one dealer; a dealer already on duty is relieved.
    """

    type: Literal["dealer_in"] = "dealer_in"
    dealer: PersonId


@dataclass(slots=True, kw_only=True)
class DealerOut(Event):
    """The dealer on duty leaves the table (``dealer``, if given, must be the one on duty). Between rounds only."""

    type: Literal["dealer_out"] = "dealer_out"
    dealer: PersonId | None = None


@dataclass(slots=True, kw_only=True)
class Seat(Event):
    """A player sits down on ``box`` (issue 41): the rating slip opens. ``player`` is their name or card's id (none:
    anonymous, "Player on box N"); ``card`` the player card or badge read at the console, if one was."""

    type: Literal["seat"] = "seat"
    box: BoxNumber
    player: PersonId | None = None
    card: PersonId | None = None


@dataclass(slots=True, kw_only=True)
class Unseat(Event):
    """The player on ``box`` leaves (``player``, if given, must be the one seated there): the rating slip closes."""

    type: Literal["unseat"] = "unseat"
    box: BoxNumber
    player: PersonId | None = None


@dataclass(slots=True, kw_only=True)
class Pause(Event):
    """The player on ``box`` steps away without leaving: their time stops counting until `Resume`."""

    type: Literal["pause"] = "pause"
    box: BoxNumber


@dataclass(slots=True, kw_only=True)
class Resume(Event):
    """The player on ``box`` is back from a pause: their time counts again."""

    type: Literal["resume"] = "resume"
    box: BoxNumber


@dataclass(slots=True, kw_only=True)
class BuyIn(Event):
    """A player buys chips at the table (issue 41): ``amount`` in ``method`` (cash, a marker: credit the
    supervisor grants, or chips brought from another table), for ``player`` (none: the player seated on ``box``, or
    "Player on box N"). A marker needs a supervisor's key (the API's check).

    ``gaming_day``, ``mtl_notice`` and ``mtl_action`` are the service's to stamp, never a person's: the gaming day
    the buy-in falls in by the table's clock and ``[table] gaming_day_starts``, and the multiple transaction
    log's thresholds then in force (``[mtl]``). The engine adds the cash of a person's gaming day up and raises the
    notice or the action alert as it crosses one; the journal keeps the rule it was judged by.
    """

    type: Literal["buy_in"] = "buy_in"
    amount: Money
    method: Literal["cash", "marker", "chips"] = "cash"
    box: BoxNumber | None = None
    player: PersonId | None = None
    gaming_day: date | None = None
    mtl_notice: Money | None = None
    mtl_action: Money | None = None


def _chips(value: dict[str, int]) -> dict[str, int]:
    # A denomination is an amount in whole cents ("5", "25", "0.5"), written as the session format writes amounts.
    out: dict[str, int] = {}
    for name, count in value.items():
        try:
            amount = Decimal(name)
        except ArithmeticError:
            raise ValueError(f"a chip's denomination is an amount such as 5 or 0.5, got {name!r}") from None
        if not amount.is_finite() or amount <= 0 or amount != amount.quantize(Decimal("0.01")) or amount > 10**7:
            raise ValueError(f"a chip's denomination is an amount in whole cents above 0, got {name!r}")
        out[wire_text(amount)] = out.get(wire_text(amount), 0) + count
    return out


def wire_text(amount: Decimal) -> str:
    """A denomination as the session format names it: '5', '0.5', '2.5'."""
    text = format(amount.normalize(), "f")
    return text


# Chips by denomination: what a tray holds, a fill brings, a credit takes away (at most 40 denominations).
Chips = Annotated[dict[Annotated[str, Field(min_length=1, max_length=12)], Annotated[int, Field(ge=0, le=1_000_000)]],
                  Field(min_length=1, max_length=40), AfterValidator(_chips)]


@dataclass(slots=True, kw_only=True)
class Opener(Event):
    """The table opens its inventory: the chips in its tray by denomination (the opener slip)."""

    type: Literal["opener"] = "opener"
    chips: Chips


@dataclass(slots=True, kw_only=True)
class Closer(Event):
    """The table closes its inventory: the chips left in its tray by denomination (the closer slip)."""

    type: Literal["closer"] = "closer"
    chips: Chips
    tolerance: Tolerance | None = None  # `[inventory] tolerance`: the service's to stamp, never a person's


@dataclass(slots=True, kw_only=True)
class FillRequest(Event):
    """Chips are asked from the cage for the tray (a fill): complete once a dealer and a supervisor have signed its
    slip (`SignSlip`), each with their own key."""

    type: Literal["fill_request"] = "fill_request"
    chips: Chips


@dataclass(slots=True, kw_only=True)
class CreditRequest(Event):
    """Chips go from the tray back to the cage (a credit): complete once signed as a fill is."""

    type: Literal["credit_request"] = "credit_request"
    chips: Chips


@dataclass(slots=True, kw_only=True)
class SignSlip(Event):
    """A signature on fill or credit slip ``slip`` (its number, as the request gave it): the signer is the event's
    actor, the key's role and name (``dealer:D-7``, ``supervisor:S-1``). Two are needed, a dealer's and a
    supervisor's, by two people."""

    type: Literal["sign_slip"] = "sign_slip"
    slip: Annotated[int, Field(ge=1, le=2**31 - 1)]


@dataclass(slots=True, kw_only=True)
class Drop(Event):
    """Supervisor: the drop box's count from the count room (cash and markers) for the last inventory closed."""

    type: Literal["drop"] = "drop"
    amount: Annotated[Decimal, Field(ge=0, max_digits=12, decimal_places=2),
                      PlainSerializer(lambda d: wire_amount(Decimal(str(d))), return_type=Any)]
    tolerance: Tolerance | None = None  # `[inventory] tolerance`: the service's to stamp, never a person's


@dataclass(slots=True, kw_only=True)
class SignShift(Event):
    """Supervisor: the shift ``start``..``end`` is reviewed and signed (issue 41). ``digest`` is the SHA-256 of the
    shift report's canonical JSON as the supervisor saw it (`tablectl shift report`); the signer is the event's
    actor, the supervisor's key, and the journal's MAC chain binds the signature to every row before it. `tablectl
    shift verify` makes the report again from the rows before this one and compares the digests."""

    type: Literal["sign_shift"] = "sign_shift"
    start: datetime
    end: datetime
    digest: Annotated[str, Field(pattern="^[0-9a-f]{64}$")]


AnyEvent = Annotated[
    Union[
        SetRules, Shuffle, PlaceBet, Reserve, CardDrawn, CutCardOut, Stand, Double, Split,
        Surrender, DiscardCard, VoidRound, Tick,
        ShoeFault, ShoeFaultCleared, LinkDown, LinkUp, CallPit, AcknowledgeAlert, ShoeGate, ShoeCount,
        DealerIn, DealerOut, Imported, Seat, Unseat, Pause, Resume, BuyIn, Opener, Closer, FillRequest,
        CreditRequest, SignSlip, Drop, SignShift,
    ],
    Field(discriminator="type"),
]
def wire_type(cls: type) -> str:
    """An event class's ``type``: its name on the wire (every event declares it with its literal as default)."""
    return cast(str, cls.__dataclass_fields__["type"].default)  # type: ignore[attr-defined]


CORE_EVENTS: tuple[type[Event], ...] = get_args(get_args(AnyEvent)[0])
"""The table's own events, in every game, in the order the session format lists them; each game brings its own
besides (its folder's ``events.py``, through the registry: `controller.event_codec` decodes them all)."""

PERSON_EVENTS: tuple[type[Event], ...] = (
    PlaceBet, Stand, Double, Split, Surrender, Shuffle, CallPit, Reserve, CutCardOut, VoidRound, DiscardCard,
    AcknowledgeAlert, DealerIn, DealerOut, Seat, Unseat, Pause, Resume, BuyIn, Opener, Closer, FillRequest,
    CreditRequest, SignSlip, Drop, SignShift,
)
"""The table's own events a person may send (the API's actions); cards, ticks and link events come only from the
shoe and the clock. Every game's own events are a person's decisions too."""

SUPERVISOR_EVENTS: frozenset[type[Event]] = frozenset({VoidRound, DiscardCard, AcknowledgeAlert, ShoeGate, DealerIn,
                                                        DealerOut, Drop, SignShift})
"""The table's own events only a supervisor may send, in every game (a game adds its own: `Game.supervisor_events`).
Who deals is the pit's to say (dealer_in/out): a dealer's key must not put another dealer's name on rounds."""


class BadEvent(ValueError):
    """An input that is not a valid event; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
