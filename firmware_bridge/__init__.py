"""The serial link to the smart shoe: framing, codecs, and the ShoeLink the service uses.

Knows nothing of blackjack; card codes are opaque two-character strings.
The protocol is specified in docs/shoe-protocol.md.
"""

from firmware_bridge.codecs import LinkStats, LinkTiming, UnknownCodec, codec_names, register_codec
from firmware_bridge.link import LinkStopped, ShoeLink
from firmware_bridge.messages import (
    Button,
    Card,
    CutCard,
    Fault,
    FaultKind,
    HelloInfo,
    LinkDown,
    LinkUp,
    ShoeLoaded,
    ShoeMessage,
    Status,
    StoredPosition,
    to_json,
)

__all__ = [
    "Button",
    "Card",
    "CutCard",
    "Fault",
    "FaultKind",
    "HelloInfo",
    "LinkDown",
    "LinkStats",
    "LinkStopped",
    "LinkTiming",
    "LinkUp",
    "ShoeLink",
    "ShoeLoaded",
    "ShoeMessage",
    "Status",
    "StoredPosition",
    "UnknownCodec",
    "codec_names",
    "register_codec",
    "to_json",
]
