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
    UnknownEvent,
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
    st.builds(ShoeLoadedEvent, u32, u16, text, st.integers(1, 0xFF)),
    st.builds(CardEvent, u32, u16, code, text),
    st.builds(CutCardEvent, u32, u16, text),
    st.builds(ButtonEvent, u32, text),
    st.builds(FaultEvent, u32, u8, u16, text, text),
    st.builds(Resume, u16, u16, text),
    st.builds(Ack, u32, u32),
    st.builds(Nak, u32),
    st.builds(UnknownEvent, st.integers(0x15, 0x3F), u32, st.binary(max_size=10)),
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
    with pytest.raises(WireError):
        decode_packet(b"\x3f\x00")


def test_card_layout_is_as_documented() -> None:
    body = encode_packet(CardEvent(0x01020304, 0x0105, "7H", "S1"))
    assert body == bytes([PacketType.CARD, 1, 2, 3, 4, 1, 5]) + b"7H" + b"\x02S1"


def test_shoe_loaded_carries_the_pack_after_the_shoe_id() -> None:
    body = encode_packet(ShoeLoadedEvent(0x01020304, 72, "S1", 36))
    assert body == bytes([PacketType.SHOE_LOADED, 1, 2, 3, 4, 0, 72]) + b"\x02S1" + bytes([36])


def test_an_old_shoes_shoe_loaded_without_a_pack_is_a_52_card_pack() -> None:
    old = bytes([PacketType.SHOE_LOADED, 0, 0, 0, 5, 1, 56]) + b"\x02S1"  # 312 cards, no pack byte
    assert decode_packet(old) == ShoeLoadedEvent(5, 312, "S1", 52)
    assert decode_packet(old + b"\x00") == ShoeLoadedEvent(5, 312, "S1", 52)  # 0: the shoe does not say


def test_an_old_hosts_reading_ignores_the_pack_byte() -> None:
    # What a host of before the pack byte read: the fields up to the shoe id, the rest unread.
    body = encode_packet(ShoeLoadedEvent(9, 72, "S36", 36))
    assert body[1:7] == bytes([0, 0, 0, 9, 0, 72]) and body[7:11] == b"\x03S36" and len(body) == 12


def test_a_pack_that_does_not_fit_a_byte_is_refused() -> None:
    with pytest.raises(ValueError, match="1 to 255"):
        encode_packet(ShoeLoadedEvent(1, 52, "S1", 256))


def test_strings_longer_than_the_limit_are_refused() -> None:
    with pytest.raises(ValueError, match="too long"):
        encode_packet(ButtonEvent(1, "x" * 65))


def test_an_unknown_event_type_keeps_its_seq() -> None:
    assert decode_packet(b"\x3f\x00\x00\x00\x09extra") == UnknownEvent(0x3F, 9, b"extra")


@pytest.mark.parametrize(
    ("packet", "wire"),
    [
        (CardEvent(12, 12, "7H", "S1"), "7e 11 00 00 00 0c 00 0c 37 48 02 53 31 39 13 7e"),
        (CardEvent(126, 126, "AS", "S1"), "7e 11 00 00 00 7d 5e 00 7d 5e 41 53 02 53 31 1d de 7e"),
        (ShoeLoadedEvent(1, 72, "S1", 36), "7e 10 00 00 00 01 00 48 02 53 31 24 92 a2 7e"),
        (ShoeLoadedEvent(1, 104, "S1", 52), "7e 10 00 00 00 01 00 68 02 53 31 34 88 27 7e"),
        (Resume(1, 0, ""), "7e 81 00 01 00 00 00 e9 24 7e"),
        (Ack(12, 11), "7e 82 00 00 00 0c 00 00 00 0b 5b e7 7e"),
        (
            Hello(1, 1, 0x0A0B0C0D, 1, "fw1", "SN1"),
            "7e 01 00 01 01 0a 0b 0c 0d 00 00 00 01 03 66 77 31 03 53 4e 31 65 f6 7e",
        ),
    ],
)
def test_the_test_vectors_of_the_protocol_document(packet: object, wire: str) -> None:
    from firmware_bridge.framing import FrameDecoder, encode_frame

    assert encode_frame(encode_packet(packet)).hex(" ") == wire  # type: ignore[arg-type]
    assert [decode_packet(b) for b in FrameDecoder().feed(bytes.fromhex(wire))] == [packet]
    assert f"`{wire}`" in DOC or wire in DOC


DOC = (__import__("pathlib").Path(__file__).parents[2] / "docs" / "shoe-protocol.md").read_text()


def test_the_old_shoe_loaded_vector_of_the_document_parses_as_a_52_card_pack() -> None:
    from firmware_bridge.framing import FrameDecoder

    wire = "7e 10 00 00 00 01 01 38 02 53 31 20 8a 7e"
    assert [decode_packet(b) for b in FrameDecoder().feed(bytes.fromhex(wire))] == [ShoeLoadedEvent(1, 312, "S1", 52)]
    assert wire in DOC
