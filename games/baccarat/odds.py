"""The live side-bet watch (issue 40, item 6): the exact expectation of each spot on the next coup, computed off the
card path, and the surveillance alert when a side bet above its spot's usual size meets a positive expectation.

Two halves, on either side of the table's one writer:

* **Off the card path** (`SPOT_ODDS`, the registry's ``spot_odds`` part, run by `tablectl.edge`'s worker process):
  between coups, the cards left by rank -> `exact.expectations` (0.2-0.7 s on this machine: too slow for the
  engine's path) -> a `SpotOdds` event, which the service journals like any other input.
* **On the writer's path** (`Baccarat`, pure): `SpotOdds` for the coup about to be dealt (or just started) is kept,
  and every bet on a side spot of that coup is checked against it, now and as more bets come (`over_usual`).

The spot's **usual size** (`usual_size`): the median of the last `USUAL_WINDOW` bets on that spot at the table (any
box, any player, every shoe since the journal began; each player's bet on the spot in a settled coup is one), or the
spot's table minimum while fewer than `USUAL_MIN_BETS` have been made. A bet *above* it (strictly) on a spot whose
expectation is positive (strictly) raises ``side_bet_edge``, once per box, player and spot as the bet crosses it.

The squeeze: the expectation is taken from the cards left after the last coup settled, and a coup under the squeeze
settles only once its cards are turned, so it holds only cards the room has seen; the alert names the coup's box,
spot and bet, never a card of it, and it is raised when the odds or the bet arrive, not when a card does.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.money import money

from . import settlement as pay
from .events import SpotOdds

USUAL_WINDOW = 100
"""Bets on a spot its usual size is the median of (the newest)."""
USUAL_MIN_BETS = 5
"""Fewer bets on a spot than this: its usual size is its table minimum."""
MAIN_SPOTS = frozenset({pay.PLAYER, pay.BANKER})
"""The spots the watch does not watch: the main bets (their expectation turns positive too rarely to matter, and a
large main bet is the game itself)."""


def usual_size(history: Sequence[int], minimum: int) -> float:
    """A spot's usual bet in cents: the median of ``history`` (its newest bets), or ``minimum`` while it is short."""
    if len(history) < USUAL_MIN_BETS:
        return float(minimum)
    return float(statistics.median(history[-USUAL_WINDOW:]))


def over_usual(expectation: float | None, before: int, after: int, usual: float) -> bool:
    """Whether a bet that went from ``before`` to ``after`` cents on a spot of ``expectation`` crosses its usual size
    now: the alert is raised once, as the bet goes above it, not again for every chip added after."""
    return expectation is not None and expectation > 0 and before <= usual < after


def alert_text(box: int) -> str:
    """The board's words, for every role: the box only (the player and the figures are the supervisor's detail,
    `alert_detail`: a dealer's screen must not tell the player they are watched)."""
    return f"side bet at box {box}: surveillance"


def alert_detail(player: str, spot: str, stake: int, usual: float, expectation: float, shoe_id: str,
                 cards_out: int) -> str:
    """The supervisor's detail: who, how much against the usual, the exact expectation and what it was taken from."""
    return (f"{player}: {money(stake)} on {spot} (usual {money(round(usual))}); its exact expectation "
            f"{100 * expectation:+.2f} % on the coup after {cards_out} cards of shoe {shoe_id}")


@dataclass(frozen=True)
class BaccaratSpotOdds:
    """`tablectl.parts.SpotOddsPart` for baccarat: the exact expectation of every spot the table offers."""

    def expectations(self, rules: Any, ranks_left: Mapping[str, int]) -> dict[str, float]:
        """Each spot's expectation per unit staked on the next coup (`exact.expectations`), to six places;
        ValueError when fewer than six cards are left."""
        from .exact import expectations

        return {spot: round(x, 6) for spot, x in expectations(dict(ranks_left), rules).items()}

    def event(self, shoe_id: str, cards_out: int, expectations: Mapping[str, float]) -> SpotOdds:
        """The journalled input that carries them to the table."""
        return SpotOdds(shoe_id=shoe_id, cards_out=cards_out, expectations=dict(expectations))


SPOT_ODDS = BaccaratSpotOdds()
