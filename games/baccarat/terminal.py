"""Baccarat's settled coup in one line, for the demo's terminal (the registry's ``terminal`` part).

``coup 7: player 2S KD 5D (7) banker 3H 4C (7): TIE; box 1 banker 100 push; box 3 tie 10 pays 80; house -80``.
"""

from __future__ import annotations

from controller.money import dealer_words, house_text, money
from controller.round import VOID_REASON_TEXT, Round

from .coup import Coup, SpotHand
from .tableau import points


class BaccaratTerminal:
    """Baccarat's coup lines."""

    def round_line(self, r: Round, dealer_title: str = "Banker") -> str:
        """One line for a settled coup: both hands and their points, the result, every bet, the house's result."""
        assert isinstance(r, Coup)
        void = ""
        if r.voided:
            void = f" (VOID: {VOID_REASON_TEXT[r.void_reason]})" if r.void_reason is not None else " (VOID)"
        p, b = r.punto.cards, r.banco.cards
        result = r.record.get("result")
        parts = [f"coup {r.number}{void}: player {' '.join(c.code for c in p)} ({points([c.value for c in p])}) "
                 f"banker {' '.join(c.code for c in b)} ({points([c.value for c in b])})"
                 + (f": {str(result).upper()}" if result else "")]
        for box in r.boxes:
            for h in box.hands:
                assert isinstance(h, SpotHand)
                words = f"box {box.number} {h.spot} {money(h.stake)} {dealer_words(h.net or 0)}"
                if h.commission:
                    words += f" (commission {money(h.commission)}{' owed' if h.owed else ''})"
                parts.append(words)
        parts.append(f"house {house_text(-r.net())}")
        return "; ".join(parts)


TERMINAL = BaccaratTerminal()
