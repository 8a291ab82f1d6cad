"""Packets of the framed shoe protocol and their byte layout (pure, no I/O).

A frame body is ``type (1 byte) | payload``; all integers are big-endian and
unsigned; a string is ``length (1 byte) | UTF-8 bytes``. The layouts below are
the normative reference for docs/shoe-protocol.md.

Shoe -> host packets with a ``seq`` (0x10-0x3F) are *events*: they form one
ordered stream that the shoe keeps until acknowledged. HELLO and STATUS are
link-level and carry no ``seq``.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from typing import Union

PROTOCOL_VERSION = 1
NO_POSITION = 0
UNKNOWN_COUNT = 0xFFFF
MAX_STRING = 64
STANDARD_PACK = 52  # a SHOE_LOADED without a pack byte (an old shoe's) is of 52-card packs


class PacketType(enum.IntEnum):
    """Packet type byte; 0x01-0x7F travel shoe -> host, 0x80-0xFF host -> shoe."""

    HELLO = 0x01
    STATUS = 0x02
    SHOE_LOADED = 0x10
    CARD = 0x11
    CUT_CARD = 0x12
    BUTTON = 0x13
    FAULT = 0x14
    RESUME = 0x81
    ACK = 0x82
    NAK = 0x83
    LOCK = 0x84
    UNLOCK = 0x85


class WireFaultKind(enum.IntEnum):
    """FAULT kind byte."""

    JAM = 1
    UNREADABLE = 2
    LID_OPEN = 3
    OTHER = 4


class StatusFlags(enum.IntFlag):
    """STATUS flag bits."""

    NONE = 0
    LOCKED = 0x01
    CUT_CARD_OUT = 0x02
    JAMMED = 0x04
    LID_OPEN = 0x08


EVENT_TYPES = range(0x10, 0x40)


class WireError(ValueError):
    """A frame passed its CRC but its payload does not parse."""


# --- shoe -> host --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """Answer to RESUME: who the shoe is, and the seq of the first event it will (re)send."""

    token: int
    version: int
    boot_id: int
    next_seq: int
    firmware: str
    serial: str


@dataclass(frozen=True, slots=True)
class StatusPacket:
    """Heartbeat, sent every second or so whatever else happens."""

    boot_id: int
    flags: StatusFlags
    position: int
    cards_left: int
    unacked: int
    next_seq: int
    shoe_id: str


@dataclass(frozen=True, slots=True)
class ShoeLoadedEvent:
    """A new shoe: the next CARD is its position 1.

    ``pack`` is the cards in one of its packs (52, or 36 for a six-to-ace pack); it travels
    as one byte after the shoe id, appended in a backward-compatible way: a frame without it
    (an old shoe's) is a 52-card pack, and an old host ignores the byte.
    """

    seq: int
    card_count: int
    shoe_id: str
    pack: int = STANDARD_PACK


@dataclass(frozen=True, slots=True)
class CardEvent:
    """A card left the shoe."""

    seq: int
    position: int
    code: str
    shoe_id: str


@dataclass(frozen=True, slots=True)
class CutCardEvent:
    """The cut card came out; ``position`` is the next card's."""

    seq: int
    position: int
    shoe_id: str


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    """A shoe button was pressed."""

    seq: int
    name: str


@dataclass(frozen=True, slots=True)
class FaultEvent:
    """A fault; UNREADABLE carries the position the unread card took, others 0."""

    seq: int
    kind: int
    position: int
    shoe_id: str
    detail: str


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """An event type this version does not know (0x10-0x3F): its seq still counts."""

    type: int
    seq: int
    payload: bytes


# --- host -> shoe --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Resume:
    """Sent at every (re)connect: "I have stored everything up to ``position`` of ``shoe_id``"."""

    token: int
    position: int
    shoe_id: str


@dataclass(frozen=True, slots=True)
class Ack:
    """Cumulative: events up to ``received`` arrived, events up to ``stored`` may be forgotten."""

    received: int
    stored: int


@dataclass(frozen=True, slots=True)
class Nak:
    """Event ``seq`` is missing: resend from it."""

    seq: int


@dataclass(frozen=True, slots=True)
class Lock:
    """Hold the card gate shut."""


@dataclass(frozen=True, slots=True)
class Unlock:
    """Release the card gate."""


Event = Union[ShoeLoadedEvent, CardEvent, CutCardEvent, ButtonEvent, FaultEvent, UnknownEvent]
ShoePacket = Union[Hello, StatusPacket, ShoeLoadedEvent, CardEvent, CutCardEvent, ButtonEvent, FaultEvent, UnknownEvent]
HostPacket = Union[Resume, Ack, Nak, Lock, Unlock]
Packet = Union[ShoePacket, HostPacket]

_HELLO = struct.Struct(">BHBII")
_STATUS = struct.Struct(">BIBHHHI")
_LOADED = struct.Struct(">BIH")
_CARD = struct.Struct(">BIH2s")
_CUT = struct.Struct(">BIH")
_BUTTON = struct.Struct(">BI")
_FAULT = struct.Struct(">BIBH")
_RESUME = struct.Struct(">BHH")
_ACK = struct.Struct(">BII")
_NAK = struct.Struct(">BI")


def _str(value: str) -> bytes:
    raw = value.encode("utf-8")
    if len(raw) > MAX_STRING:
        raise ValueError(f"string too long for the wire ({len(raw)} > {MAX_STRING} bytes): {value!r}")
    return bytes((len(raw),)) + raw


def _read_str(body: bytes, offset: int) -> tuple[str, int]:
    if offset >= len(body):
        raise WireError("string length missing")
    n = body[offset]
    end = offset + 1 + n
    if end > len(body):
        raise WireError("string runs past the end of the frame")
    return body[offset + 1 : end].decode("utf-8", errors="replace"), end


def encode_packet(packet: Packet) -> bytes:
    """Return the frame body (type byte + payload) of ``packet``."""
    match packet:
        case CardEvent(seq, position, code, shoe_id):
            raw = code.encode("ascii")
            if len(raw) != 2:
                raise ValueError(f"card code must be 2 ASCII characters: {code!r}")
            return _CARD.pack(PacketType.CARD, seq, position, raw) + _str(shoe_id)
        case Ack(received, stored):
            return _ACK.pack(PacketType.ACK, received, stored)
        case StatusPacket(boot_id, flags, position, cards_left, unacked, next_seq, shoe_id):
            head = _STATUS.pack(PacketType.STATUS, boot_id, int(flags), position, cards_left, unacked, next_seq)
            return head + _str(shoe_id)
        case Hello(token, version, boot_id, next_seq, firmware, serial):
            return _HELLO.pack(PacketType.HELLO, token, version, boot_id, next_seq) + _str(firmware) + _str(serial)
        case ShoeLoadedEvent(seq, card_count, shoe_id, pack):
            if not 1 <= pack <= 0xFF:
                raise ValueError(f"a pack has 1 to 255 cards on the wire, got {pack}")
            return _LOADED.pack(PacketType.SHOE_LOADED, seq, card_count) + _str(shoe_id) + bytes((pack,))
        case CutCardEvent(seq, position, shoe_id):
            return _CUT.pack(PacketType.CUT_CARD, seq, position) + _str(shoe_id)
        case ButtonEvent(seq, name):
            return _BUTTON.pack(PacketType.BUTTON, seq) + _str(name)
        case FaultEvent(seq, kind, position, shoe_id, detail):
            return _FAULT.pack(PacketType.FAULT, seq, kind, position) + _str(shoe_id) + _str(detail)
        case Resume(token, position, shoe_id):
            return _RESUME.pack(PacketType.RESUME, token, position) + _str(shoe_id)
        case Nak(seq):
            return _NAK.pack(PacketType.NAK, seq)
        case UnknownEvent(type_, seq, payload):
            return _BUTTON.pack(type_, seq) + payload
        case Lock():
            return bytes((PacketType.LOCK,))
        case Unlock():
            return bytes((PacketType.UNLOCK,))
    raise TypeError(f"not a packet: {packet!r}")


def decode_packet(body: bytes) -> Packet:
    """Parse a frame body; raises :class:`WireError` (only) if it is malformed."""
    try:
        return _decode(body)
    except struct.error as exc:
        raise WireError(f"payload too short: {exc}") from None


def _decode(body: bytes) -> Packet:
    if not body:
        raise WireError("empty frame")
    t = body[0]
    if t == PacketType.CARD:
        _, seq, pos, code = _CARD.unpack_from(body)
        shoe_id, _ = _read_str(body, _CARD.size)
        return CardEvent(seq, pos, code.decode("ascii", errors="replace"), shoe_id)
    if t == PacketType.STATUS:
        _, boot, flags, pos, left, unacked, next_seq = _STATUS.unpack_from(body)
        shoe_id, _ = _read_str(body, _STATUS.size)
        return StatusPacket(boot, StatusFlags(flags & 0x0F), pos, left, unacked, next_seq, shoe_id)
    if t == PacketType.ACK:
        _, received, stored = _ACK.unpack_from(body)
        return Ack(received, stored)
    if t == PacketType.HELLO:
        _, token, version, boot, next_seq = _HELLO.unpack_from(body)
        firmware, off = _read_str(body, _HELLO.size)
        serial, _ = _read_str(body, off)
        return Hello(token, version, boot, next_seq, firmware, serial)
    if t == PacketType.SHOE_LOADED:
        _, seq, count = _LOADED.unpack_from(body)
        shoe_id, end = _read_str(body, _LOADED.size)
        # No pack byte (an old shoe), or 0 (a shoe that does not say): the 52-card pack.
        pack = body[end] if end < len(body) and body[end] else STANDARD_PACK
        return ShoeLoadedEvent(seq, count, shoe_id, pack)
    if t == PacketType.CUT_CARD:
        _, seq, pos = _CUT.unpack_from(body)
        shoe_id, _ = _read_str(body, _CUT.size)
        return CutCardEvent(seq, pos, shoe_id)
    if t == PacketType.BUTTON:
        _, seq = _BUTTON.unpack_from(body)
        name, _ = _read_str(body, _BUTTON.size)
        return ButtonEvent(seq, name)
    if t == PacketType.FAULT:
        _, seq, kind, pos = _FAULT.unpack_from(body)
        shoe_id, off = _read_str(body, _FAULT.size)
        detail, _ = _read_str(body, off)
        return FaultEvent(seq, kind, pos, shoe_id, detail)
    if t == PacketType.RESUME:
        _, token, pos = _RESUME.unpack_from(body)
        shoe_id, _ = _read_str(body, _RESUME.size)
        return Resume(token, pos, shoe_id)
    if t == PacketType.NAK:
        _, seq = _NAK.unpack_from(body)
        return Nak(seq)
    if t == PacketType.LOCK:
        return Lock()
    if t == PacketType.UNLOCK:
        return Unlock()
    if t in EVENT_TYPES:
        # A newer shoe's event: keep the stream in order and let the owner know.
        _, seq = _BUTTON.unpack_from(body)
        return UnknownEvent(t, seq, body[_BUTTON.size :])
    raise WireError(f"unknown packet type 0x{t:02X}")
