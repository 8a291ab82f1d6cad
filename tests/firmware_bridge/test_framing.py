"""Framing and CRC: pure functions, checked exhaustively and with hypothesis."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.crc import CRC_CHECK_VALUE, crc16_ccitt, crc16_ccitt_reference
from firmware_bridge.framing import MAX_FRAME, FrameDecoder, encode_frame, unescape

bodies = st.binary(min_size=1, max_size=MAX_FRAME - 2)


def test_crc_matches_the_catalogue_check_value() -> None:
    assert crc16_ccitt(b"123456789") == CRC_CHECK_VALUE == 0x29B1
    assert crc16_ccitt_reference(b"123456789") == CRC_CHECK_VALUE


@given(st.binary(max_size=300))
def test_fast_crc_equals_the_reference_definition(data: bytes) -> None:
    assert crc16_ccitt(data) == crc16_ccitt_reference(data)


def test_flag_and_escape_bytes_are_stuffed() -> None:
    frame = encode_frame(b"\x7e\x7d\x11")
    assert frame[0] == 0x7E and frame[-1] == 0x7E
    assert 0x7E not in frame[1:-1]
    assert frame[1:5] == b"\x7d\x5e\x7d\x5d"
    assert unescape(frame[1:-1])[:3] == b"\x7e\x7d\x11"


@given(st.lists(bodies, max_size=8))
def test_round_trip(frames: list[bytes]) -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"".join(encode_frame(b) for b in frames)) == frames
    assert decoder.stats.bad_crc == 0


@settings(max_examples=300)
@given(st.binary(max_size=2000), st.lists(st.integers(1, 64), max_size=40))
def test_decoder_never_raises_on_arbitrary_bytes(noise: bytes, chunks: list[int]) -> None:
    decoder = FrameDecoder()
    pos = 0
    for size in chunks:
        decoder.feed(noise[pos : pos + size])
        pos += size
    out = decoder.feed(noise[pos:])
    assert all(isinstance(b, bytes) for b in out)
    # Whatever the noise was, a good frame after it is still found.
    assert decoder.feed(encode_frame(b"\x11after")) == [b"\x11after"]


def test_frames_split_at_every_byte_boundary_decode_the_same() -> None:
    stream = b"".join(encode_frame(b) for b in [b"\x11\x7e\x7d card", b"\x02status", b"\x13\x7d\x7d\x7e\x7e"])
    expected = FrameDecoder().feed(stream)
    assert len(expected) == 3
    for cut in range(len(stream) + 1):
        decoder = FrameDecoder()
        assert decoder.feed(stream[:cut]) + decoder.feed(stream[cut:]) == expected, cut
    for cut1 in range(len(stream) + 1):
        for cut2 in range(cut1, len(stream) + 1):
            decoder = FrameDecoder()
            parts = decoder.feed(stream[:cut1]) + decoder.feed(stream[cut1:cut2]) + decoder.feed(stream[cut2:])
            assert parts == expected, (cut1, cut2)


@given(st.lists(bodies, min_size=1, max_size=5), st.data())
def test_arbitrary_chunking_decodes_the_same(frames: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(b) for b in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=20)))
    decoder = FrameDecoder()
    out: list[bytes] = []
    last = 0
    for cut in cuts + [len(stream)]:
        out += decoder.feed(stream[last:cut])
        last = cut
    assert out == frames


def test_every_single_byte_corruption_is_rejected_and_the_next_frame_survives() -> None:
    good = encode_frame(b"\x11\x00\x00\x00\x05\x00\x0c7H\x04S001")
    following = encode_frame(b"\x02next")
    for i in range(1, len(good) - 1):
        for xor in (0x01, 0x80, 0xFF, 0x7E ^ good[i], 0x7D ^ good[i]):
            if xor == 0:
                continue
            spoilt = bytearray(good)
            spoilt[i] ^= xor
            decoder = FrameDecoder()
            out = decoder.feed(bytes(spoilt) + following)
            assert out == [b"\x02next"], (i, xor, out)


def test_resynchronises_after_a_partial_frame_and_noise() -> None:
    frame = encode_frame(b"\x11hello")
    decoder = FrameDecoder()
    assert decoder.feed(frame[5:] + b"\x00\xff\x13garbage" + frame + frame[:4]) == [b"\x11hello"]
    assert decoder.stats.bad_crc >= 1


def test_overlong_noise_is_bounded_and_counted() -> None:
    decoder = FrameDecoder()
    for _ in range(10):
        assert decoder.feed(b"\x55" * 200) == []
    assert decoder.stats.overlong >= 1
    assert decoder.feed(encode_frame(b"\x02ok")) == [b"\x02ok"]


def test_idle_flags_are_not_errors() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"\x7e\x7e\x7e" + encode_frame(b"\x02x") + b"\x7e\x7e") == [b"\x02x"]
    assert decoder.stats.bad_crc == decoder.stats.too_short == 0
