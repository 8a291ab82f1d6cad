"""High card's settled round in one line, for the demo's terminal."""

from __future__ import annotations

from controller.money import money
from controller.round import Round


class HighCardTerminal:
    """`tablectl.parts.TerminalPart` for high card."""

    def round_line(self, r: Round, dealer_title: str) -> str:
        boxes = "  ".join(f"box {b.number} {' '.join(c.code for c in h.cards)} "
                          f"{h.outcome.value if h.outcome is not None else ''}" for b in r.boxes for h in b.hands)
        return (f"#{r.number} {dealer_title} {' '.join(c.code for c in r.dealer.cards)}  {boxes}  "
                f"house {money(-r.net())}")


TERMINAL = HighCardTerminal()
