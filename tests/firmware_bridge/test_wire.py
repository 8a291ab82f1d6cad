"""Packet layouts: every packet survives a round trip, and bad payloads raise WireError only."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.wire import (
    Ack,
    ButtonEvent,
    CardEvent,
    CutCardEvent,
    FaultEvent,
    Hello,
    Lock,
    Nak,
    PacketType,
    Resume,
    ShoeLoadedEvent,
    StatusFlags,
    StatusPacket,
    Unlock,
    WireError,
    decode_packet,
    encode_packet,
)

u8 = st.integers(0, 0xFF)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
text = st.text(max_size=20)
code = st.text(alphabet="23456789TJQKASHDC", min_size=2, max_size=2)

packets = st.one_of(
    st.builds(Hello, u16, u8, u32, u32, text, text),
    st.builds(StatusPacket, u32, st.sampled_from(list(StatusFlags)), u16, u16, u16, u32, text),
    st.builds(ShoeLoadedEvent, u32, u16, text),
    st.builds(CardEvent, u32, u16, code, text),
    st.builds(CutCardEvent, u32, u16, text),
    st.builds(ButtonEvent, u32, text),
    st.builds(FaultEvent, u32, u8, u16, text, text),
    st.builds(Resume, u16, u16, text),
    st.builds(Ack, u32, u32),
    st.builds(Nak, u32),
    st.just(Lock()),
    st.just(Unlock()),
)


@given(packets)
def test_round_trip(packet: object) -> None:
    assert decode_packet(encode_packet(packet)) == packet  # type: ignore[arg-type]


@given(st.binary(max_size=80))
def test_arbitrary_bodies_parse_or_raise_wire_error(body: bytes) -> None:
    try:
        decode_packet(body)
    except WireError:
        pass


def test_truncated_payload_is_a_wire_error() -> None:
    body = encode_packet(CardEvent(1, 2, "AS", "shoe"))
    for cut in range(len(body)):
        with pytest.raises(WireError):
            decode_packet(body[:cut])


def test_unknown_type_is_a_wire_error() -> None:
    with pytest.raises(WireError, match="unknown packet type 0x7F"):
        decode_packet(b"\x7f")


def test_card_layout_is_as_documented() -> None:
    body = encode_packet(CardEvent(0x01020304, 0x0105, "7H", "S1"))
    assert body == bytes([PacketType.CARD, 1, 2, 3, 4, 1, 5]) + b"7H" + b"\x02S1"


def test_strings_longer_than_the_limit_are_refused() -> None:
    with pytest.raises(ValueError, match="too long"):
        encode_packet(ButtonEvent(1, "x" * 65))
