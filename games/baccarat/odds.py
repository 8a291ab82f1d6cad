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
from typing import TYPE_CHECKING, Any

from controller.money import money
from controller.snapshot import cents_of

from . import settlement as pay
from .events import SpotOdds

if TYPE_CHECKING:  # (the protection book's signal: loaded by the evidence only, not by the table's engine)
    from controller.protection.advantage import Signal

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

    def signals(self, rules: Any, coups: Sequence[tuple[Mapping[str, int], Mapping[str, Any]]]) -> dict[str, list[Signal]]:
        """The players' side-bet evidence from the settled coups (`side_bet_signals`)."""
        return side_bet_signals(rules, coups)


SPOT_ODDS = BaccaratSpotOdds()


# ---------------------------------------------------------------- the evidence (`tablectl protect players`)
def side_bet_signals(rules: Any, coups: Sequence[tuple[Mapping[str, int], Mapping[str, Any]]]) -> dict[str, list[Signal]]:
    """Per player, one signal per side spot they bet: are their bets above their own usual size (their median bet on
    the spot) on the coups whose exact expectation was positive more than chance would put them there?

    ``coups``: each settled coup's cards left before its first card (by rank) and its record, oldest first. The
    test is Fisher's exact test, one-sided, on the 2 x 2 table (above the usual or not) x (positive or not)
    (`side_bets.side_bet_evidence`); null: the size of the bet is independent of the expectation. No positive coup,
    or no bet above the usual: nothing to test (p none, left out of the player's Bonferroni factor)."""
    from controller.protection.advantage import Signal

    from .exact import expectations
    from .side_bets import Moment, side_bet_evidence

    moments: list[Moment] = []
    for left, rec in coups:
        if rec.get("void"):
            continue
        stakes = [(h["player"], h["spot"], h["bet"]) for h in rec["hands"] if h.get("spot") not in MAIN_SPOTS]
        if not stakes:
            continue
        exps = expectations(dict(left), rules)  # (only a coup with a side bet pays for the enumeration)
        moments += [Moment(rec["number"], p, spot, cents_of(bet), exps[spot])
                    for p, spot, bet in stakes if spot in exps]
    out: dict[str, list[Signal]] = {}
    for e in side_bet_evidence(moments):
        mine = [m for m in moments if m.player == e.player and m.spot == e.spot]
        at_plus = [m.stake for m in mine if m.expectation > 0]
        other = [m.stake for m in mine if m.expectation <= 0]
        large = sum(1 for m in mine if m.stake > e.usual)
        testable = e.positive > 0 and 0 < large
        text = (f"{e.spot} at a positive expectation: {len(at_plus)} bet(s), median {_median_money(at_plus)}; "
                f"otherwise {len(other)}, median {_median_money(other)}; above their usual {money(round(e.usual))}: "
                f"{e.large_at_positive} at positive coups (expected {e.expected:.1f}) of {large}; "
                f"alert moments {len(e.alerts)} (Fisher exact, one-sided)")
        out.setdefault(e.player, []).append(Signal(f"side bet {e.spot}", float(e.large_at_positive), e.bets,
                                                   e.p_value if testable else None, text))
    return out


def _median_money(stakes: Sequence[int]) -> str:
    return money(round(statistics.median(stakes))) if stakes else "-"

