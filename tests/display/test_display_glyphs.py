"""The glyph table and the text <-> segments encoding."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from display.glyphs import DP, GLYPHS, GlyphError, Segment, canonical, cell_count, decode, encode, is_drawable


def test_digits_have_the_classic_segments() -> None:
    assert GLYPHS["8"] == 0x7F
    assert GLYPHS["1"] == Segment.B | Segment.C
    assert GLYPHS["7"] == Segment.A | Segment.B | Segment.C
    assert GLYPHS["-"] == Segment.G
    assert GLYPHS[" "] == 0


def test_no_glyph_uses_the_decimal_point_bit() -> None:
    assert all(bits & DP == 0 for bits in GLYPHS.values())


def test_dot_folds_into_previous_cell() -> None:
    assert encode("7.17") == [GLYPHS["7"] | DP, GLYPHS["1"], GLYPHS["7"]]
    assert cell_count("1.19 2.--") == 7


def test_leading_and_double_dots_take_their_own_cell() -> None:
    assert encode(".5") == [DP, GLYPHS["5"]]
    assert encode("5..") == [GLYPHS["5"] | DP, DP]


@pytest.mark.parametrize("bad", ["W", "M", "K", "X", "?", "17/7"])
def test_undrawable_characters_are_refused(bad: str) -> None:
    assert not is_drawable(bad)
    with pytest.raises(GlyphError):
        encode(bad)


@given(st.text(alphabet=sorted(GLYPHS) + ["."], max_size=12))
def test_decode_inverts_encode_up_to_shared_shapes(text: str) -> None:
    assert encode(decode(encode(text))) == encode(text)
    assert canonical(canonical(text)) == canonical(text)
