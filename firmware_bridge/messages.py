"""Typed messages the bridge hands to its owner (and the link-state messages).

The bridge knows nothing of blackjack: a card code is an opaque two-character
string such as ``"AS"``, ``"TD"`` or ``"7H"``; only its shape is checked.
Every message is a frozen dataclass with slots; :func:`to_json` turns one into
a JSON-ready dict (the monitor prints those).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass
from typing import Any, Union

_CODE_RE = re.compile(r"[0-9A-Z]{2}")


def is_card_code(code: str) -> bool:
    """True if ``code`` has the shape of a card code: two characters from 0-9 and A-Z."""
    return _CODE_RE.fullmatch(code) is not None


class FaultKind(str, enum.Enum):
    """What went wrong at the shoe (or, for BAD_DATA, on the line)."""

    JAM = "jam"
    UNREADABLE = "unreadable"
    LID_OPEN = "lid_open"
    OTHER = "other"
    BAD_DATA = "bad_data"


@dataclass(frozen=True, slots=True)
class StoredPosition:
    """The last card event the owner has safely stored: card ``position`` of shoe ``shoe_id``."""

    shoe_id: str
    position: int


@dataclass(frozen=True, slots=True)
class HelloInfo:
    """What the shoe said about itself when the link came up."""

    codec: str
    protocol_version: int
    firmware: str
    serial: str
    boot_id: int
    can_lock: bool
    acks: bool


@dataclass(frozen=True, slots=True)
class LinkUp:
    """The link to the shoe is working (again); cards flow from the resume point."""

    hello: HelloInfo


@dataclass(frozen=True, slots=True)
class LinkDown:
    """The link is lost (port error, unplugged, missed heartbeats...); the bridge keeps retrying.

    ``reason`` is short and human, for the pit ("the shoe's cable is unplugged", "the shoe
    does not answer"); ``detail`` is the technician's (the OS error, the device path, the
    timer), which the bridge also logs.
    """

    reason: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ShoeLoaded:
    """A freshly shuffled shoe: positions of its cards start again at 1.

    ``card_count`` is the shoe's size if it says (the owner checks its count against it);
    ``pack`` the cards in one of its packs: 52, or 36 for six to ace (an old shoe: 52).
    """

    shoe_id: str
    card_count: int | None
    pack: int = 52


@dataclass(frozen=True, slots=True)
class Card:
    """A card left the shoe: ``code`` at ``position`` (1, 2, 3 ...) of shoe ``shoe_id``.

    Acknowledge it with ``link.ack(shoe_id, position)`` once it is stored.
    """

    shoe_id: str
    position: int
    code: str


@dataclass(frozen=True, slots=True)
class CutCard:
    """The cut card came out: card ``position`` of shoe ``shoe_id`` is the next to come."""

    shoe_id: str
    position: int


@dataclass(frozen=True, slots=True)
class Button:
    """The dealer pressed one of the shoe's own buttons."""

    name: str


@dataclass(frozen=True, slots=True)
class Fault:
    """Something the owner must hear about.

    An UNREADABLE fault carries the ``position`` the unread card took: it is a
    card event, to be acknowledged with ``ack(shoe_id, position)`` like a Card.
    Other faults have ``position`` None.
    """

    kind: FaultKind
    shoe_id: str
    position: int | None
    detail: str

    @property
    def is_card_event(self) -> bool:
        """True if this fault stands for a card that left the shoe (and needs an ack)."""
        return self.position is not None


@dataclass(frozen=True, slots=True)
class Status:
    """The shoe's periodic heartbeat: its current state."""

    shoe_id: str
    position: int
    cards_left: int | None
    locked: bool
    cut_card_out: bool
    jammed: bool
    lid_open: bool
    unacked: int


ShoeMessage = Union[LinkUp, LinkDown, ShoeLoaded, Card, CutCard, Button, Fault, Status]

_TYPE_NAMES: dict[type, str] = {
    LinkUp: "link_up",
    LinkDown: "link_down",
    ShoeLoaded: "shoe_loaded",
    Card: "card",
    CutCard: "cut_card",
    Button: "button",
    Fault: "fault",
    Status: "status",
}


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def to_json(msg: ShoeMessage) -> dict[str, Any]:
    """Return ``msg`` as a JSON-ready dict with a ``"type"`` key first."""
    out: dict[str, Any] = {"type": _TYPE_NAMES[type(msg)]}
    out.update(_plain(msg))
    return out
