"""Side-bet advantage play at baccarat: a player who bets a side bet big when its exact expectation is positive
(the Dragon 7 turns positive as the 8s and 9s leave the shoe; Panda 8 likewise). Pure: coups in, evidence out.

`side_bet_moments` walks a shoe's settled coups (their cards, in order, and each player's bets) and gives, per
coup with a bet on the side spot, the spot's exact expectation before the coup (`exact.expectations` on the
cards left: burn and every earlier coup out). `side_bet_evidence` then asks, per player, whether their large
bets on the spot fall on the positive moments more than chance would put them there:

* a bet is *large* when it is above the player's own usual size on the spot (the median of their bets on it);
* the 2 x 2 table (large or not) x (positive expectation or not) is tested exactly, one-sided (Fisher: given the
  margins the count of large bets at positive moments is hypergeometric; `stratified_exact_greater` with one
  stratum). Null: the size of the bet is independent of the expectation.

``alerts`` lists the moments a surveillance alert is for: a positive expectation and a bet on the spot above its
usual size. This is the evidence `protect players` is to print beside blackjack's signals (docs/baccarat.md).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from controller.cards import RANKS
from controller.protection.advantage import stratified_exact_greater

from .exact import expectations
from .rules import BaccaratRules


@dataclass(frozen=True, slots=True)
class Moment:
    """One player's bet on a side spot in one coup, and the spot's exact expectation before that coup."""

    coup: int
    player: str
    spot: str
    stake: int
    expectation: float


@dataclass(frozen=True, slots=True)
class SideBetEvidence:
    """One player's side bets on one spot against the spot's expectation: the test and its sample."""

    player: str
    spot: str
    bets: int  # coups with a bet on the spot (the sample size)
    usual: float  # the median bet, cents
    positive: int  # coups of those where the spot's expectation was positive
    large_at_positive: int  # large bets at positive moments (the statistic)
    expected: float  # its expectation under the null
    p_value: float
    alerts: tuple[Moment, ...]  # positive moments with a bet above the usual size

    def as_dict(self) -> dict[str, Any]:
        """As plain data."""
        return {"player": self.player, "spot": self.spot, "n": self.bets, "usual_cents": self.usual,
                "positive_moments": self.positive, "large_at_positive": self.large_at_positive,
                "expected": round(self.expected, 3), "p_value": self.p_value,
                "alerts": [{"coup": m.coup, "stake_cents": m.stake, "expectation": m.expectation}
                           for m in self.alerts]}


def side_bet_moments(rules: BaccaratRules, records: Iterable[Mapping[str, Any]], burnt: Sequence[str] = (),
                     spot: str = "dragon7") -> list[Moment]:
    """Each bet on ``spot`` in a shoe's coup records (oldest first, as the journal keeps them), with the spot's
    exact expectation from the cards left before the coup (the burnt cards ``burnt`` out first)."""
    left = {r: 4 * rules.decks for r in RANKS}
    for code in burnt:
        left[code[0]] -= 1
    out: list[Moment] = []
    for rec in records:
        stakes = [(h["player"], h["bet"]) for h in rec["hands"] if h.get("spot") == spot]
        if stakes:
            ev = expectations(left, rules)[spot]
            out += [Moment(rec["number"], p, spot, _cents(b), ev) for p, b in stakes]
        for code in rec["player_hand"]["cards"] + rec["dealer"]["cards"]:
            left[code[0]] -= 1
    return out


def side_bet_evidence(moments: Iterable[Moment]) -> list[SideBetEvidence]:
    """Per player and spot: are their large bets on the positive moments? (see the module's docstring)"""
    by: dict[tuple[str, str], list[Moment]] = {}
    for m in moments:
        by.setdefault((m.player, m.spot), []).append(m)
    out = []
    for (player, spot), ms in sorted(by.items()):
        usual = statistics.median(m.stake for m in ms)
        a = sum(1 for m in ms if m.stake > usual and m.expectation > 0)
        b = sum(1 for m in ms if m.stake > usual and m.expectation <= 0)
        c = sum(1 for m in ms if m.stake <= usual and m.expectation > 0)
        d = len(ms) - a - b - c
        observed, expected, p = stratified_exact_greater([(a, b, c, d)])
        alerts = tuple(m for m in ms if m.expectation > 0 and m.stake > usual)
        out.append(SideBetEvidence(player, spot, len(ms), float(usual), a + c, observed, expected, p, alerts))
    return out


def _cents(text: str) -> int:
    whole, _, frac = text.partition(".")
    sign = -1 if whole.startswith("-") else 1
    return sign * (abs(int(whole)) * 100 + int((frac + "00")[:2]))
