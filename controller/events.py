"""The table's input events: the session format, the journal and the API all carry these.

Each event is a plain slotted dataclass, cheap enough for the simulator to
build by the hundred thousand; pydantic validates them only where they cross
a boundary (a session file, the journal, an API request) through
``parse_event`` / ``dump_event``. ``type`` names the event on the wire.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, cast, get_args

from pydantic import (AfterValidator, BeforeValidator, ConfigDict, Field, PlainSerializer, TypeAdapter, ValidationError,
                      WithJsonSchema)

from .cards import BadCard, Card, parse_card
from .explain import faults, plainly
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
    """A player puts chips on a box for the next round."""

    type: Literal["bet"] = "bet"
    box: BoxNumber
    amount: Money
    player: Name | None = None


@dataclass(slots=True, kw_only=True)
class Reserve(Event):
    """A marker holds a box for a player who stepped away."""

    type: Literal["reserve"] = "reserve"
    box: BoxNumber
    player: Name | None = None


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
class Insure(Event):
    """A box insures against a dealer blackjack (at most half its bet)."""

    type: Literal["insurance"] = "insurance"
    box: BoxNumber
    amount: Money


@dataclass(slots=True, kw_only=True)
class EvenMoney(Event):
    """A box with blackjack takes 1:1 at once against a dealer ace."""

    type: Literal["even_money"] = "even_money"
    box: BoxNumber


@dataclass(slots=True, kw_only=True)
class CloseInsurance(Event):
    """No more insurance: play goes on."""

    type: Literal["close_insurance"] = "close_insurance"


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
class DealerIn(Event):
    """The dealer ``dealer`` (a badge or staff id) takes the table: the rounds from now on are theirs.

    Between rounds only, so that every round has one dealer; a dealer already on duty is relieved.
    """

    type: Literal["dealer_in"] = "dealer_in"
    dealer: Name


@dataclass(slots=True, kw_only=True)
class DealerOut(Event):
    """The dealer on duty leaves the table (``dealer``, if given, must be the one on duty). Between rounds only."""

    type: Literal["dealer_out"] = "dealer_out"
    dealer: Name | None = None


# ---------------------------------------------------------------------------- the club games (003)
@dataclass(slots=True, kw_only=True)
class BankerStand(Event):
    """The croupier, who is the banker, stops drawing (club games)."""

    type: Literal["banker_stand"] = "banker_stand"


@dataclass(slots=True, kw_only=True)
class DealIn(Event):
    """club-21-36, between rounds: the box is dealt its card before it stakes (003: the box looks at its card and
    stakes); on its duel it stakes (``bet``) or passes (``fold``)."""

    type: Literal["deal_in"] = "deal_in"
    box: BoxNumber
    player: Name | None = None


@dataclass(slots=True, kw_only=True)
class Fold(Event):
    """On a spent pack (club-21), a box gives up its stake instead of doubling it; in club-21-36 a box dealt in
    without a stake passes after looking at its card."""

    type: Literal["fold"] = "fold"
    box: BoxNumber


@dataclass(slots=True, kw_only=True)
class Dark(Event):
    """The box in its duel takes its cards from now on without looking at them (club-21-36)."""

    type: Literal["dark"] = "dark"
    box: BoxNumber | None = None


@dataclass(slots=True, kw_only=True)
class Contra(Event):
    """After everyone's first card the banker doubles every stake (club-21, ``contra``)."""

    type: Literal["contra"] = "contra"


@dataclass(slots=True, kw_only=True)
class Recontra(Event):
    """After the banker's contra, a box doubles its own stake again (club-21, ``contra``)."""

    type: Literal["recontra"] = "recontra"
    box: BoxNumber


@dataclass(slots=True, kw_only=True)
class OpenBank(Event):
    """The banker puts up a bank of ``amount`` (club-21-36), within the table's bank limits."""

    type: Literal["open_bank"] = "open_bank"
    amount: Money


@dataclass(slots=True, kw_only=True)
class CloseBank(Event):
    """The banker takes the bank off the table (club-21-36), when the rules allow it."""

    type: Literal["close_bank"] = "close_bank"


@dataclass(slots=True, kw_only=True)
class Withdraw(Event):
    """Supervisor: a box's stake comes back and the box plays no more of the round (club games)."""

    type: Literal["withdraw"] = "withdraw"
    box: BoxNumber


AnyEvent = Annotated[
    Union[
        SetRules, Shuffle, PlaceBet, Reserve, CardDrawn, CutCardOut, Stand, Double, Split,
        Surrender, Insure, EvenMoney, CloseInsurance, DiscardCard, VoidRound, Tick,
        ShoeFault, ShoeFaultCleared, LinkDown, LinkUp, CallPit, AcknowledgeAlert, ShoeGate, ShoeCount,
        DealerIn, DealerOut,
        BankerStand, Fold, Dark, Contra, Recontra, OpenBank, CloseBank, Withdraw, DealIn,
    ],
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(AnyEvent)


def wire_type(cls: type) -> str:
    """An event class's ``type``: its name on the wire (every event declares it with its literal as default)."""
    return cast(str, cls.__dataclass_fields__["type"].default)  # type: ignore[attr-defined]


CORE_EVENTS: frozenset[type[Event]] = frozenset(get_args(get_args(AnyEvent)[0]))
"""The table's own events, which every game plays (a game brings its own besides: `controller.registry`)."""
EVENT_TYPES: tuple[str, ...] = tuple(wire_type(cls) for cls in Event.__subclasses__())


class BadEvent(ValueError):
    """An input that is not a valid event; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _explain(exc: ValidationError) -> BadEvent:
    fault = faults(exc, "event", skip=1)[0]  # where: inside the event, past its type (the union's tag)
    if fault.kind == "union_tag_invalid":
        tag = fault.ctx.get("tag")
        known = ", ".join(dict.fromkeys(EVENT_TYPES))  # each once: a slots dataclass's first class may linger there
        return BadEvent("unknown_event", f"'{tag}' is not a table event (known: {known})")
    if fault.kind == "union_tag_not_found":
        return BadEvent("unknown_event", "the event has no 'type'")
    if fault.kind == "missing":
        return BadEvent("missing_field", f"'{fault.loc[0]}' needs '{fault.where}'")
    if fault.kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return BadEvent("unknown_field", f"'{fault.where}' is not a field of '{fault.loc[0]}'")
    return BadEvent("bad_field", plainly(fault))


def parse_event(data: Any) -> Event:
    """Validate one decoded JSON object into an event; BadEvent names what is wrong."""
    if not isinstance(data, dict):
        raise BadEvent("not_an_event", "each line must be a JSON object with a 'type'")
    try:
        return EVENT_ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise _explain(exc) from None


def parse_event_line(line: str) -> Event:
    """Decode and validate one JSON Lines entry."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadEvent("bad_json", f"not valid JSON: {exc.msg} at column {exc.colno}") from None
    except (RecursionError, ValueError):  # nested too deep, or an integer too long to convert
        raise BadEvent("bad_json", "not valid JSON: nested too deeply or a number too long") from None
    return parse_event(data)


def dump_event(event: Event) -> dict[str, Any]:
    """The event as JSON-ready data, without empty fields (the session format)."""
    data: dict[str, Any] = EVENT_ADAPTER.dump_python(event, mode="json", exclude_none=True)
    if not data.get("options", True):
        data.pop("options", None)
    return data
