"""The wire format between a table and the floor: topics, the ledger row, its MAC, masking.

Topics, under a prefix (default ``tablectl``):

- ``{prefix}/{table}/ledger``: one message per journal row, QoS 1, not retained;
- ``{prefix}/{table}/state``: retained, the table as a viewer sees it, with its figures;
- ``{prefix}/{table}/status``: retained ``online`` / ``offline`` (the last will).

A ledger message is the row exactly as journalled, ``body`` the canonical JSON
text byte for byte, so the floor recomputes the MAC. A row that is not final
yet is published with ``masked: true`` and ``mac: null``: the row holding the
dealer's hole card (its card shown as ``XX``) and every row after it until the
card is turned. The MAC is withheld, not only the card, because whoever holds
the table's key could otherwise try the 52 possible cards against it (or
against the next row's MAC, chained on it). Once final, the row is published
again, unmasked, and replaces the masked one on the floor.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from controller.journal import JournalKey, JournalKeyError, LedgerRow, row_mac

from . import BadMessage

__all__ = ["LedgerRow", "row_mac", "read_key", "WireRow", "ledger_payload", "parse_ledger", "parse_state",
           "topic", "BadMessage"]

TABLE_ID = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
PREFIX = r"^[A-Za-z0-9_-]{1,64}(/[A-Za-z0-9_-]{1,64}){0,3}$"
_TABLE_ID_RE = re.compile(TABLE_ID)
HIDDEN_CARD = "XX"

# Bounds on what the floor accepts from the broker: anything larger is dropped and reported.
MAX_LEDGER_BYTES = 16 * 1024
MAX_STATE_BYTES = 256 * 1024
MAX_STATUS_BYTES = 16
MAX_BODY_CHARS = 8 * 1024


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
        data = json.loads(body)
        if "card" in data:
            data["card"] = HIDDEN_CARD
        body = body_json(data)
    masked = mask_card or withhold_mac
    return json.dumps({"table": table, "seq": row.seq, "kind": row.kind, "received_at": row.received_at,
                       "body": body, "shoe_id": row.shoe_id, "position": row.position, "code": row.code,
                       "message": row.message, "mac": None if masked else row.mac, "masked": masked},
                      separators=(",", ":"), ensure_ascii=True).encode()


def _explain(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "message"
    return f"{where}: {err['msg']}"


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
    try:
        body = json.loads(row.body)
    except ValueError:
        raise BadMessage("ledger body is not JSON") from None
    if not isinstance(body, dict) or not isinstance(body.get("type"), str):
        raise BadMessage("ledger body is not a session-format event")
    return row


def parse_state(payload: bytes) -> dict[str, Any]:
    """Check and decode a retained state message; BadMessage if it is too large or not a JSON object."""
    if len(payload) > MAX_STATE_BYTES:
        raise BadMessage(f"state message of {len(payload)} bytes (limit {MAX_STATE_BYTES})")
    try:
        data = json.loads(payload)
    except ValueError:
        raise BadMessage("state message is not JSON") from None
    if not isinstance(data, dict):
        raise BadMessage("state message is not a JSON object")
    return data


def parse_status(payload: bytes) -> str:
    """``online`` or ``offline``; BadMessage otherwise."""
    if payload in (b"online", b"offline"):
        return payload.decode()
    raise BadMessage(f"status message {payload[:MAX_STATUS_BYTES]!r} is neither online nor offline")


def topic(prefix: str, table: str, leaf: str) -> str:
    """``{prefix}/{table}/{leaf}``."""
    return f"{prefix}/{table}/{leaf}"


def split_topic(prefix: str, name: str) -> tuple[str, str]:
    """(table, leaf) of a topic under `prefix`; BadMessage for anything else."""
    head = prefix + "/"
    if not name.startswith(head):
        raise BadMessage(f"topic {name[:200]!r} is not under {prefix!r}")
    parts = name[len(head):].split("/")
    if len(parts) != 2 or not _TABLE_ID_RE.match(parts[0]) or parts[1] not in ("ledger", "state", "status"):
        raise BadMessage(f"topic {name[:200]!r} is not a table's ledger, state or status")
    return parts[0], parts[1]
