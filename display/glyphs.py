"""The 7-segment glyph table: every character a display may show, and its segments.

Bit order is the MAX7219's no-decode mode: bit 7 = DP, then A B C D E F G down to
bit 0. Segments::

     -A-
    F   B
     -G-
    E   C
     -D-  .DP

A ``.`` in a text is not a character of its own: it lights the decimal point of the
cell before it (a ``.`` with no character before it, or after another ``.``, takes a
blank cell with only its DP lit). Lower- and upper-case letters are distinct glyphs
(``b`` and ``B`` cannot both be drawn; only the forms listed here exist).
"""

from __future__ import annotations

import enum


class Segment(enum.IntFlag):
    """One segment's bit in a MAX7219 no-decode digit register."""

    G = 0x01
    F = 0x02
    E = 0x04
    D = 0x08
    C = 0x10
    B = 0x20
    A = 0x40
    DP = 0x80


_A, _B, _C, _D, _E, _F, _G = (Segment.A, Segment.B, Segment.C, Segment.D, Segment.E, Segment.F, Segment.G)

#: char -> segments. The only characters rendering may emit (besides ".", see above).
GLYPHS: dict[str, int] = {
    " ": 0,
    "0": int(_A | _B | _C | _D | _E | _F),
    "1": int(_B | _C),
    "2": int(_A | _B | _D | _E | _G),
    "3": int(_A | _B | _C | _D | _G),
    "4": int(_B | _C | _F | _G),
    "5": int(_A | _C | _D | _F | _G),
    "6": int(_A | _C | _D | _E | _F | _G),
    "7": int(_A | _B | _C),
    "8": int(_A | _B | _C | _D | _E | _F | _G),
    "9": int(_A | _B | _C | _D | _F | _G),
    "-": int(_G),
    "_": int(_D),
    "A": int(_A | _B | _C | _E | _F | _G),
    "b": int(_C | _D | _E | _F | _G),
    "C": int(_A | _D | _E | _F),
    "d": int(_B | _C | _D | _E | _G),
    "E": int(_A | _D | _E | _F | _G),
    "F": int(_A | _E | _F | _G),
    "H": int(_B | _C | _E | _F | _G),
    "h": int(_C | _E | _F | _G),
    "I": int(_E | _F),  # left-hand bar, so it is not read as "1"
    "J": int(_B | _C | _D | _E),
    "L": int(_D | _E | _F),
    "n": int(_C | _E | _G),
    "O": int(_A | _B | _C | _D | _E | _F),  # same segments as 0
    "o": int(_C | _D | _E | _G),
    "P": int(_A | _B | _E | _F | _G),
    "r": int(_E | _G),
    "S": int(_A | _C | _D | _F | _G),  # same segments as 5
    "t": int(_D | _E | _F | _G),
    "U": int(_B | _C | _D | _E | _F),
    "u": int(_C | _D | _E),
}

DP = int(Segment.DP)

#: segments -> char, for decoding what a display shows. Where two characters share
#: segments (0/O, 5/S) the digit wins; tests compare against :func:`canonical`.
_DECODE: dict[int, str] = {}
for _char, _bits in GLYPHS.items():
    _DECODE.setdefault(_bits, _char)


class GlyphError(ValueError):
    """A text holds a character no 7-segment digit can draw."""


def is_drawable(text: str) -> bool:
    """True when every character of ``text`` is in the glyph table or is a ``.``."""
    return all(ch == "." or ch in GLYPHS for ch in text)


def encode(text: str) -> list[int]:
    """Turn a text into cell bytes, left to right, folding each ``.`` into a DP bit."""
    cells: list[int] = []
    dot_allowed = False
    for ch in text:
        if ch == ".":
            if dot_allowed:
                cells[-1] |= DP
                dot_allowed = False
            else:
                cells.append(DP)
            continue
        try:
            cells.append(GLYPHS[ch])
        except KeyError:
            raise GlyphError(f"{ch!r} cannot be drawn on 7 segments (in {text!r})") from None
        dot_allowed = True
    return cells


def cell_count(text: str) -> int:
    """How many digits ``text`` occupies (a ``.`` after a character takes none)."""
    return len(encode(text))


def decode(cells: list[int]) -> str:
    """The inverse of :func:`encode` (up to :func:`canonical`); unknown patterns read ``?``."""
    out = []
    for bits in cells:
        out.append(_DECODE.get(bits & ~DP, "?"))
        if bits & DP:
            out.append(".")
    return "".join(out)


def canonical(text: str) -> str:
    """``text`` as :func:`decode` reads it back from the segments (O -> 0, S -> 5)."""
    return decode(encode(text))
