"""A terminal back end for the bench and the demo: each display's digits as the segments would light.

Two styles: ``"segments"`` draws every display as three rows of ASCII-art digits
(what a player would see; the demo's), ``"line"`` prints one line per update
(``box1[      17] ... dealer[   7-17]``), handy in logs. It writes to stderr (the
service's log) unless given a stream: stdout is where `tablectl run` prints its
``{"ready": ...}`` line for the programs that read it as JSON.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping, Sequence
from typing import TextIO

from display.drivers.base import check_brightness, check_texts
from display.glyphs import DP, Segment, encode


def draw_cells(cells: Sequence[int]) -> list[str]:
    """Three text rows drawing the cells' segments (3 columns per digit plus the DP)."""
    top, mid, bot = [], [], []
    for bits in cells:
        top.append(" " + ("_" if bits & Segment.A else " ") + "  ")
        mid.append(
            ("|" if bits & Segment.F else " ")
            + ("_" if bits & Segment.G else " ")
            + ("|" if bits & Segment.B else " ")
            + " "
        )
        bot.append(
            ("|" if bits & Segment.E else " ")
            + ("_" if bits & Segment.D else " ")
            + ("|" if bits & Segment.C else " ")
            + ("." if bits & DP else " ")
        )
    return ["".join(top), "".join(mid), "".join(bot)]


class TerminalDisplay:
    """Prints the displays to a text stream (stderr, the log, by default) on every change."""

    def __init__(
        self,
        display_ids: Sequence[str],
        digits: int = 8,
        *,
        stream: TextIO | None = None,
        style: str = "line",
        columns: int = 1,
    ) -> None:
        if style not in ("line", "segments"):
            raise ValueError(f"style must be 'line' or 'segments', got {style!r}")
        self.display_ids = list(display_ids)
        self.digits = digits
        self.style = style
        self.columns = max(1, columns)
        self._stream = stream if stream is not None else sys.stderr
        self._texts = {d: " " * digits for d in self.display_ids}
        self._brightness = 8
        self._blanked = False
        self._lock = threading.Lock()

    def frame(self) -> str:
        """The text the terminal shows for the current state."""
        texts = {d: (" " * self.digits if self._blanked else t) for d, t in self._texts.items()}
        if self.style == "line":
            return " ".join(f"{d}[{t}]" for d, t in texts.items())
        rows: list[str] = []
        items = list(texts.items())
        for start in range(0, len(items), self.columns):  # `columns` displays side by side
            line = [[], [], []]  # type: list[list[str]]
            for display_id, text in items[start:start + self.columns]:
                drawn = draw_cells(encode(text))
                for i, label in enumerate((display_id, "", "")):
                    line[i].append(f"{label:>7} {drawn[i]}")
            rows += ["  ".join(parts).rstrip() for parts in line]
        return "\n".join(rows)

    def _emit(self) -> None:
        with self._lock:
            self._stream.write(self.frame() + "\n")
            self._stream.flush()

    def write(self, texts: Mapping[str, str]) -> None:
        """Update and redraw."""
        check_texts(texts, self.display_ids)
        self._texts.update(texts)
        self._emit()

    def set_brightness(self, level: int) -> None:
        """A terminal has no brightness; the level is only checked."""
        self._brightness = check_brightness(level)

    def set_blanked(self, blanked: bool) -> None:
        """Redraw blank (or with the texts again)."""
        self._blanked = blanked
        self._emit()

    def reinitialise(self) -> None:
        """Redraw everything."""
        self._emit()

    def close(self) -> None:
        """Nothing to release (the stream belongs to the caller)."""
