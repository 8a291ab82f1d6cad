"""The preferential-shuffle audit: does the house shuffle early when the count favours the players?

Every round that ends before the cut card is an *opportunity*: the dealer may deal on or shuffle
early. A fair house shuffles early for reasons that have nothing to do with the count (a break,
a new dealer, a player's request); a preferential one shuffles away the shoes whose true count
has turned positive. The audit sorts the opportunities into a 2 x 2 table, the true count
positive or not against shuffled early or dealt on, and tests it with Fisher's exact test,
one-sided (more early shuffles at positive counts than chance). Under the fair null, where every
opportunity has the same chance of an early shuffle whatever the count, the shuffled
opportunities are, given the table's margins, a uniformly random subset of them, so the
hypergeometric tail is the exact p-value. It is reported per table and shift, and per table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ShuffleRecord:
    """A shuffle, as journalled: where it came and the count at that moment.

    ``cards_before_cut`` is how many cards were left in front of the cut card (0 or less: the
    cut card was out, a shuffle on time); ``shoe`` names the shoe the shuffle ended.
    """

    table: str
    shift: str
    shoe: str
    cards_before_cut: int
    running_count: int
    true_count: float


@dataclass(frozen=True, slots=True)
class RoundCount:
    """The count when a round ended: an opportunity to shuffle early if the cut card was not out."""

    table: str
    shift: str
    shoe: str
    cards_before_cut: int
    running_count: int
    true_count: float


@dataclass(frozen=True, slots=True)
class PreferentialAudit:
    """One table's (and shift's, unless ``shift`` is None) 2 x 2 table and its p-value.

    ``shuffled_positive``: early shuffles at a positive true count; ``shuffled_other`` at zero or
    below; ``dealt_positive`` / ``dealt_other``: rounds before the cut card after which the dealer
    dealt on. ``p``: Fisher's exact test, one-sided (early shuffles follow positive counts).
    """

    table: str
    shift: str | None
    shuffled_positive: int
    shuffled_other: int
    dealt_positive: int
    dealt_other: int
    mean_true_count_at_early_shuffles: float | None
    p: float

    @property
    def early_shuffles(self) -> int:
        """Shuffles before the cut card came out."""
        return self.shuffled_positive + self.shuffled_other


def fisher_exact_greater(a: int, b: int, c: int, d: int) -> float:
    """P(X >= a) for X hypergeometric with the margins of the table [[a, b], [c, d]]: Fisher's one-sided test."""
    row, col, n = a + b, a + c, a + b + c + d

    def log_choose(n_: int, k: int) -> float:
        return math.lgamma(n_ + 1) - math.lgamma(k + 1) - math.lgamma(n_ - k + 1)

    low, high = max(0, row + col - n), min(row, col)
    if a <= low:
        return 1.0
    denominator = log_choose(n, col)
    return min(1.0, sum(math.exp(log_choose(row, x) + log_choose(n - row, col - x) - denominator)
                        for x in range(a, high + 1)))


def _audit(table: str, shift: str | None, shuffles: list[ShuffleRecord], rounds: list[RoundCount]) -> PreferentialAudit:
    early = {s.shoe: s for s in shuffles if s.cards_before_cut > 0}
    last_round: dict[str, RoundCount] = {}
    for r in rounds:
        if r.shoe not in last_round or r.cards_before_cut < last_round[r.shoe].cards_before_cut:
            last_round[r.shoe] = r
    dealt_positive = dealt_other = 0
    for r in rounds:
        if r.cards_before_cut <= 0 or (r.shoe in early and r is last_round[r.shoe]):
            continue  # after the cut card: no choice; the last round of an early-shuffled shoe: it was shuffled
        if r.true_count > 0:
            dealt_positive += 1
        else:
            dealt_other += 1
    shuffled_positive = sum(1 for s in early.values() if s.true_count > 0)
    shuffled_other = len(early) - shuffled_positive
    mean = sum(s.true_count for s in early.values()) / len(early) if early else None
    p = fisher_exact_greater(shuffled_positive, shuffled_other, dealt_positive, dealt_other)
    return PreferentialAudit(table, shift, shuffled_positive, shuffled_other, dealt_positive, dealt_other, mean, p)


def audit(shuffles: Iterable[ShuffleRecord], rounds: Iterable[RoundCount]) -> list[PreferentialAudit]:
    """The audit of each table and shift, then of each table over all its shifts (``shift`` None).

    ``rounds`` holds the count at the end of every round (those after the cut card are ignored);
    ``shuffles`` every shuffle. Sorted by table, then shift, the table's whole line last.
    """
    shuffles = list(shuffles)
    rounds = list(rounds)
    out: list[PreferentialAudit] = []
    for table in sorted({s.table for s in shuffles} | {r.table for r in rounds}):
        table_shuffles = [s for s in shuffles if s.table == table]
        table_rounds = [r for r in rounds if r.table == table]
        for shift in sorted({s.shift for s in table_shuffles} | {r.shift for r in table_rounds}):
            out.append(_audit(table, shift, [s for s in table_shuffles if s.shift == shift],
                              [r for r in table_rounds if r.shift == shift]))
        out.append(_audit(table, None, table_shuffles, table_rounds))
    return out
