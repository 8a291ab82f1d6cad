"""The wire format between a table and the floor: topics, the ledger row, its MAC, masking.

Topics, under a prefix (default ``tablectl``):

- ``{prefix}/{table}/ledger``: one message per journal row, QoS 1, not retained;
- ``{prefix}/{table}/state``: retained, the table as a viewer sees it, with its figures;
- ``{prefix}/{table}/status``: retained ``online`` / ``offline`` (the last will);
- ``{prefix}/{table}/rating``: one message per player's session once it has ended, QoS 1, not retained: the
  rating slip, the export's line (docs/ratings.md), sent again after a restart (the floor keeps it once).

A ledger message is the row exactly as journalled, ``body`` the canonical JSON
text byte for byte, so the floor recomputes the MAC. A row that is not final
yet is published with ``masked: true`` and ``mac: null``: the row holding the
closed card (the dealer's hole card, a club game's closed card: its card shown as
``XX``, controller.closed's marker) and every row after it until the card is turned. The MAC is withheld, not only the card, because whoever holds
the table's key could otherwise try the 52 possible cards against it (or
against the next row's MAC, chained on it). Once final, the row is published
again, unmasked, and replaces the masked one on the floor.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, Collection, Iterable, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue, ValidationError

from controller.closed import mask_event
from controller.explain import explain
from controller.journal import JournalKey, JournalKeyError, LedgerRow, row_mac

# (The patterns live in the package, where the table's config reads them without this module's models.)
from . import MAX_PIT, PREFIX as PREFIX, TABLE_ID as TABLE_ID, BadMessage, check_pit

__all__ = ["LedgerRow", "row_mac", "read_key", "WireRow", "ledger_payload", "published_form", "parse_ledger",
           "TableState",
           "parse_state", "topic", "BadMessage", "RatingSlip", "parse_rating", "rating_payload"]

_TABLE_ID_RE = re.compile(TABLE_ID)

# Bounds on what the floor accepts from the broker: anything larger is dropped and reported.
MAX_LEDGER_BYTES = 16 * 1024
MAX_STATE_BYTES = 256 * 1024
MAX_STATUS_BYTES = 16
MAX_BODY_CHARS = 8 * 1024
MAX_RATING_BYTES = 4 * 1024  # a slip is about 700 bytes; a name is at most 64 characters


def _finite(value: JsonValue) -> JsonValue:
    """Refuse NaN and the infinities anywhere in a JSON value: not JSON, and no API could serve them back."""
    stack = [value]
    while stack:  # a loop, not recursion: the parser already bounds the depth, this adds no limit of its own
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError("not a finite number")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


# Any JSON value, finite: what the floor accepts where it only passes a table's data on.
Json = Annotated[JsonValue, AfterValidator(_finite)]


def read_key(path: str) -> bytes:
    """A table's key from its file (the journal's own format); ValueError if it is not one."""
    try:
        return JournalKey.load(path).secret
    except JournalKeyError as exc:
        raise ValueError(str(exc)) from None


def body_json(data: dict[str, Any]) -> str:
    """A session-format event as the journal's canonical JSON text (sorted keys, no spaces)."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


class WireRow(BaseModel):
    """A ledger message as it travels: the row, which table it is from, and whether it is final."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    table: str = Field(pattern=TABLE_ID)
    seq: int = Field(ge=1, le=2**62)
    kind: Literal["event", "refusal"]
    received_at: str = Field(min_length=10, max_length=40)
    body: str = Field(min_length=2, max_length=MAX_BODY_CHARS)
    shoe_id: str | None = Field(max_length=64)
    position: int | None = Field(ge=0, le=10_000)
    code: str | None = Field(max_length=64)
    message: str | None = Field(max_length=1000)
    mac: str | None = Field(pattern=r"^[0-9a-f]{64}$")
    masked: bool


def ledger_payload(table: str, row: LedgerRow, *, mask_card: bool = False, withhold_mac: bool = False) -> bytes:
    """The ledger message for `row`: final, or masked (card hidden and/or MAC withheld)."""
    body = row.body
    if mask_card:
        body = body_json(mask_event(json.loads(body)))
    masked = mask_card or withhold_mac
    return json.dumps({"table": table, "seq": row.seq, "kind": row.kind, "received_at": row.received_at,
                       "body": body, "shoe_id": row.shoe_id, "position": row.position, "code": row.code,
                       "message": row.message, "mac": None if masked else row.mac, "masked": masked},
                      separators=(",", ":"), ensure_ascii=True).encode()


def published_form(table: str, rows: Iterable[LedgerRow], masked: Collection[int]) -> list[bytes]:
    """The ledger messages of `rows` as the table gives them out while `masked` holds a card face down.

    The one rule for the publisher and the table's `GET /api/ledger`: a row in `masked` goes with its card
    hidden (``XX``), and from the first masked row on every row goes without its MAC (each is chained over the
    card). `masked` must be read at the same instant as the rows' head, so no row is given out final
    that was not final then.
    """
    low = min(masked) if masked else None
    return [ledger_payload(table, r, mask_card=r.seq in masked, withhold_mac=low is not None and r.seq >= low)
            for r in rows]


class _EventBody(BaseModel):
    """What the floor checks of a row's body: a JSON object with a type (the engine's parser does the rest)."""

    model_config = ConfigDict(extra="allow", strict=True)
    __pydantic_extra__: dict[str, Json] = Field(init=False)

    type: str = Field(max_length=64)


def _explain(exc: ValidationError) -> str:
    """The first few things wrong, each with where (never the input itself: it may be huge)."""
    return explain(exc, "message", first=3, inputs=False)


def parse_ledger(payload: bytes, topic_table: str) -> WireRow:
    """Check and decode a ledger message from `topic_table`'s topic; BadMessage says what is wrong."""
    if len(payload) > MAX_LEDGER_BYTES:
        raise BadMessage(f"ledger message of {len(payload)} bytes (limit {MAX_LEDGER_BYTES})")
    try:
        row = WireRow.model_validate_json(payload)
    except ValidationError as exc:
        raise BadMessage(f"malformed ledger message: {_explain(exc)}") from None
    if row.table != topic_table:
        raise BadMessage(f"ledger message names table {row.table!r} on the topic of {topic_table!r}")
    if row.masked != (row.mac is None):
        raise BadMessage("a ledger message has a MAC exactly when it is not masked")
    try:  # through pydantic's parser: nesting too deep is a ValidationError, where json.loads would recurse
        _EventBody.model_validate_json(row.body)
    except ValidationError as exc:
        raise BadMessage(f"ledger body is not a session-format event: {_explain(exc)}") from None
    return row


# ----------------------------------------------------------------------------- the retained state
# Typed where the floor reads it (the tile), and checked to be plain JSON where it only passes it on (a newer
# table's fields, the view's boxes and cards): anything else refuses the whole message, which the floor then
# reports as an incident on that table and does not store.

_WORD = r"^[a-z][a-z0-9_]{0,39}$"
_GAME = r"^[a-z0-9][a-z0-9-]{0,31}$"


def _iso_time(value: str) -> str:
    """An ISO 8601 time, kept as the table wrote it."""
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("not an ISO 8601 time") from None
    return value


def _web_link(value: str) -> str:
    """Empty, or an http(s) address with a host: the floor's dashboard makes it a link."""
    if not value:
        return value
    try:
        parts = urlsplit(value)
    except ValueError:
        raise ValueError("not a URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("only http:// and https:// links with a host")
    return value


IsoTime = Annotated[str, Field(max_length=40), AfterValidator(_iso_time)]
IsoTimeRequired = Annotated[str, Field(min_length=10, max_length=40), AfterValidator(_iso_time)]


class _Passed(BaseModel):
    """A part of the state: typed fields, and whatever else the table sends, kept if it is finite JSON."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True, allow_inf_nan=False)
    __pydantic_extra__: dict[str, Json] = Field(init=False)


class AlertState(_Passed):
    """An open alert as a viewer sees it (controller.alerts.Alert.as_dict)."""

    id: int = Field(ge=0, le=2**62)
    kind: str = Field(pattern=_WORD)
    message: str = Field(max_length=1000)
    raised_at: IsoTime | None = None
    active: bool = True
    acknowledged: bool = False
    acknowledged_by: str | None = Field(None, max_length=200)


class ShoeState(_Passed):
    """The shoe as a viewer sees it."""

    id: str | None = Field(None, max_length=64)
    penetration: float | None = Field(None, ge=0, le=1)


class OnDutyState(_Passed):
    """The dealer on duty (dealer_in)."""

    dealer: str = Field(min_length=1, max_length=64)
    since: IsoTime | None = None


class ViewState(_Passed):
    """The table as a viewer sees it (controller.view.table_view), as far as the floor reads it."""

    phase: str | None = Field(None, pattern=_WORD)
    round: int | None = Field(None, ge=0, le=2**62)
    rounds_played: int | None = Field(None, ge=0, le=2**62)
    alerts: list[AlertState] = Field(default_factory=list, max_length=1000)
    shoe: ShoeState | None = None
    dealer_on_duty: OnDutyState | None = None


class FiguresState(_Passed):
    """The shift's figures (tablectl.figures)."""

    rounds_per_hour: float | None = Field(None, ge=0)
    hands_per_hour: float | None = Field(None, ge=0)
    house_result: str | None = Field(None, max_length=40)


class HeadState(_Passed):
    """The table's last journal row: its seq, and its MAC (null while a hole card is down)."""

    seq: int = Field(ge=0, le=2**62)
    mac: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")


class TileFact(_Passed):
    """One of the game's own facts on the table's tile (`tablectl.parts.TilePart`): a label and its text."""

    label: str = Field(min_length=1, max_length=40)
    text: str = Field(max_length=200)


class TableState(_Passed):
    """A table's retained state message, validated: what the floor shows of that table."""

    table: str = Field(pattern=TABLE_ID)
    name: str | None = Field(None, max_length=200)
    game: str | None = Field(None, pattern=_GAME)
    profile: str | None = Field(None, max_length=64)
    view: ViewState | None = None
    figures: FiguresState | None = None
    head: HeadState | None = None
    dashboard_url: Annotated[str, Field(max_length=300), AfterValidator(_web_link)] = ""
    pit: Annotated[str, Field(max_length=MAX_PIT), AfterValidator(check_pit)] | None = None  # [fleet] pit
    published_at: IsoTime | None = None
    tile: list[TileFact] = Field(default_factory=list, max_length=12)  # the game's own facts for the tile

    def as_published(self) -> dict[str, Any]:
        """The state as JSON, with the fields the table sent (and only those)."""
        return self.model_dump(mode="json", exclude_unset=True)


def load_state(text: str | bytes, table: str) -> TableState:
    """A state as JSON text, for `table`; BadMessage says what is wrong."""
    try:
        state = TableState.model_validate_json(text)
    except ValidationError as exc:
        raise BadMessage(f"malformed state message: {_explain(exc)}") from None
    if state.table != table:
        raise BadMessage(f"state message names table {state.table!r} on the topic of {table!r}")
    return state


def parse_state(payload: bytes, topic_table: str) -> TableState:
    """Check and decode a retained state message from `topic_table`'s topic; BadMessage says what is wrong."""
    if len(payload) > MAX_STATE_BYTES:
        raise BadMessage(f"state message of {len(payload)} bytes (limit {MAX_STATE_BYTES})")
    return load_state(payload, topic_table)


def parse_status(payload: bytes) -> str:
    """``online`` or ``offline``; BadMessage otherwise."""
    if payload in (b"online", b"offline"):
        return payload.decode()
    raise BadMessage(f"status message {payload[:MAX_STATUS_BYTES]!r} is neither online nor offline")


# ----------------------------------------------------------------------------- the rating slip (issue 41)
_MONEY = r"^-?[0-9]{1,15}\.[0-9]{2}$"  # cents as a decimal amount, the export's form ("12.35", "-4.00")
Money = Annotated[str, Field(pattern=_MONEY)]
Count = Annotated[int, Field(ge=0, le=2**62)]
Figure = Annotated[float, Field(ge=-1e12, le=1e12)]


class RatingSlip(BaseModel):
    """A rating message: one ended session, exactly the export's line (docs/ratings.md, format 1), ``table`` the
    table's fleet id. Every column typed and bounded; a column it does not know refuses it (a new column comes
    with a new ``format``, which this floor does not read)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)

    format: Literal[1]
    table: str = Field(pattern=TABLE_ID)
    player: str = Field(min_length=1, max_length=80)
    named: bool
    box: int = Field(ge=1, le=64)
    card: str | None = Field(max_length=64)
    start: IsoTimeRequired
    end: IsoTimeRequired
    open: Literal[False]  # only an ended session is pushed
    minutes: Figure
    paused_minutes: Figure
    rounds: Count
    hands: Count
    decisions: Count
    mistakes: Count
    decisions_per_hour: Figure | None
    average_bet: Money | None
    largest_bet: Money
    wagered: Money
    actual: Money
    edge_pct: Figure | None
    measured_edge_pct: Figure | None
    theo: Money | None
    thumb_theo: Money | None
    mistake_cost: Money


def parse_rating(payload: bytes, topic_table: str) -> RatingSlip:
    """Check and decode a rating message from `topic_table`'s topic; BadMessage says what is wrong."""
    if len(payload) > MAX_RATING_BYTES:
        raise BadMessage(f"rating message of {len(payload)} bytes (limit {MAX_RATING_BYTES})")
    try:
        slip = RatingSlip.model_validate_json(payload)
    except ValidationError as exc:
        raise BadMessage(f"malformed rating message: {_explain(exc)}") from None
    if slip.table != topic_table:
        raise BadMessage(f"rating message names table {slip.table!r} on the topic of {topic_table!r}")
    if any("\x00" in v for v in (slip.player, slip.card) if v is not None):
        raise BadMessage("rating message with a NUL character in a name")  # no store's text holds it
    return slip


def rating_payload(row: dict[str, Any]) -> bytes:
    """An export row (tablectl.ratings.session_row, an ended session) as the rating message."""
    return json.dumps(row, separators=(",", ":"), ensure_ascii=True).encode()


# ---------------------------------------------------------------- feeds by audience (docs/floor.md)
SURVEILLANCE = "surveillance"  # retained: the count, protection findings, the dealer on duty: surveillance only
PUBLIC_ROUND = "public/round"  # each round once settled, each box's result: player-facing displays
# The public round's shape. 1 (until issue 37): the round record whitelisted, every card, totals and outcomes.
# 2: no card, total or outcome name at all (those let a reader keep the count); each box's result only.
PUBLIC_ROUND_VERSION = 2


def public_round(record: dict[str, Any], settled_at: str | None) -> dict[str, Any]:
    """A settled round as a public results board shows it (version 2): each box won, lost or came out even (or
    the round was voided), with no card, no total, no outcome name, no money and no name.

    Built field by field, never by filtering the record: a field added to the round record later stays off the
    public feed until someone decides it belongs there. What is left off, and why (docs/floor.md, "Feeds by
    audience"): the cards, and the totals (a two-card 21 is an ace and a ten, a bust bounds the card drawn: a
    count is made of such small facts); the outcome names (blackjack, natural, three sevens, bust name cards);
    the hands of a box (a split names a pair); stakes, amounts and names (a player's money is not for a public
    screen). Insurance counts in its box's result: the box's result is what it won or lost on the round.
    """
    void = bool(record.get("void"))
    nets: dict[int, Decimal] = {}
    for part in (*record.get("hands", []), *record.get("insurance", [])):
        box = part.get("box")
        if isinstance(box, int) and not isinstance(box, bool):
            nets[box] = nets.get(box, Decimal(0)) + _amount(part.get("net"))
    boxes = [{"box": box, "result": "void" if void else "won" if net > 0 else "lost" if net < 0 else "even"}
             for box, net in sorted(nets.items())]
    out: dict[str, Any] = {"version": PUBLIC_ROUND_VERSION, "number": record.get("number"),
                           "shoe_id": record.get("shoe_id"), "boxes": boxes, "void": void, "settled_at": settled_at}
    if isinstance(record.get("game"), str):
        out["game"] = record["game"]
    if void and isinstance(record.get("void_reason"), str):
        out["void_reason"] = record["void_reason"]
    return out


def _amount(value: Any) -> Decimal:
    """A record's money (a decimal string) as a Decimal; anything else counts as nothing."""
    try:
        return Decimal(str(value)) if value is not None else Decimal(0)
    except ArithmeticError:
        return Decimal(0)


def topic(prefix: str, table: str, leaf: str) -> str:
    """``{prefix}/{table}/{leaf}``."""
    return f"{prefix}/{table}/{leaf}"


_LEAVES = ("ledger", "state", "status", "rating")  # what the floor takes of a table


def split_topic(prefix: str, name: str) -> tuple[str, str]:
    """(table, leaf) of a topic under `prefix`; BadMessage for anything else."""
    head = prefix + "/"
    if not name.startswith(head):
        raise BadMessage(f"topic {name[:200]!r} is not under {prefix!r}")
    parts = name[len(head):].split("/")
    if len(parts) != 2 or not _TABLE_ID_RE.match(parts[0]) or parts[1] not in _LEAVES:
        raise BadMessage(f"topic {name[:200]!r} is not a table's ledger, state, status or rating")
    return parts[0], parts[1]
