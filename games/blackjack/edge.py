"""Blackjack's exact edge of the next round (the registry's ``edge`` part): the exact analyser over the cards left.

The live table's surveillance figure (`tablectl.edge`) and the protection report's edge at each shuffle
(`tablectl protect report`) ask a game's ``edge`` part; blackjack's is `simulators.exact.analyse`, loaded when
first asked for (numpy and the analyser's tables stay out of a table that never asks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BlackjackEdge:
    """`tablectl.parts.EdgePart` for blackjack."""

    def player_edge(self, rules: Any, counts: Sequence[int], play: str) -> float:
        """The player's expectation of the next round per unit of initial bet, playing ``play`` ("basic", "cdp1",
        "cdz-"), from ``counts`` (aces first, tens last); `simulators.exact.ShoeError` for a shoe too short."""
        from simulators.exact import analyse

        return analyse(rules, counts, play).ev  # type: ignore[arg-type]  # (play: one the analyser names)


EDGE = BlackjackEdge()
