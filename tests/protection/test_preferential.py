"""The preferential-shuffle audit: a small p for a house that shuffles at high counts, a uniform one for a fair house."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable

import pytest

from controller.protection.preferential import (
    RoundCount,
    ShuffleRecord,
    audit,
    fisher_exact_greater,
)
from simulators.shuffles import play_rounds

from tests.protection.conftest import fresh_shoe

HI_LO = {**{r: 1 for r in "23456"}, **{r: -1 for r in "TJQKA"}}


def casino(rng: random.Random, shoes: int, shuffles_early: Callable[[float], float], table: str = "BJ1",
           shift: str = "day") -> tuple[list[ShuffleRecord], list[RoundCount]]:
    """Deal ``shoes`` shoes; after each round before the cut card the house shuffles early with the chance
    ``shuffles_early(true count)``. Returns the journal's shuffles and round counts."""
    shuffles: list[ShuffleRecord] = []
    rounds: list[RoundCount] = []
    for number in range(shoes):
        shoe = fresh_shoe(rng)
        cut = 234
        played, _ = play_rounds(shoe, 5, cut)
        dealt = running = 0
        shoe_id = f"{table}.{shift}.{number}"
        record = None
        for hands in played:
            for hand in hands:
                for card in hand:
                    running += HI_LO.get(card.rank, 0)
                    dealt += 1
            true = running / ((312 - dealt) / 52)
            before_cut = cut - 1 - dealt
            rounds.append(RoundCount(table, shift, shoe_id, before_cut, running, true))
            if before_cut > 0 and rng.random() < shuffles_early(true):
                record = ShuffleRecord(table, shift, shoe_id, before_cut, running, true)
                break
        shuffles.append(record or ShuffleRecord(table, shift, shoe_id, cut - 1 - dealt, running, true))
    return shuffles, rounds


def test_a_house_that_shuffles_at_high_counts_is_caught() -> None:
    shuffles, rounds = casino(random.Random(11), 80, lambda true: 0.4 if true >= 2 else 0.01)
    table, = [a for a in audit(shuffles, rounds) if a.shift is None]
    assert table.early_shuffles > 10 and table.shuffled_positive > table.shuffled_other
    assert table.mean_true_count_at_early_shuffles is not None and table.mean_true_count_at_early_shuffles > 1
    assert table.p < 1e-4


def test_a_fair_house_gets_a_uniform_p() -> None:
    """30 fair houses (early shuffles whatever the count): p-values spread over [0, 1], few small ones."""
    rng = random.Random(12)
    ps = []
    for house in range(30):
        shuffles, rounds = casino(rng, 40, lambda true: 0.03, table=f"BJ{house}")
        ps += [a.p for a in audit(shuffles, rounds) if a.shift is None]
    assert 0.35 < statistics.fmean(ps) < 0.75  # Fisher's exact test is discrete, so a little conservative
    assert sum(p < 0.05 for p in ps) <= 4


def test_per_table_and_shift() -> None:
    rng = random.Random(13)
    day = casino(rng, 30, lambda true: 0.5 if true >= 2 else 0.0, shift="day")
    night = casino(rng, 30, lambda true: 0.03, shift="night")
    lines = audit(day[0] + night[0], day[1] + night[1])
    assert [(a.table, a.shift) for a in lines] == [("BJ1", "day"), ("BJ1", "night"), ("BJ1", None)]
    day_line, night_line, whole = lines
    assert day_line.p < 0.01 and night_line.p > day_line.p
    assert whole.early_shuffles == day_line.early_shuffles + night_line.early_shuffles


def test_fisher_exact_one_sided() -> None:
    # the lady tasting tea: 3 of 4 right, P = 17/70
    assert fisher_exact_greater(3, 1, 1, 3) == pytest.approx(17 / 70)
    assert fisher_exact_greater(0, 5, 5, 0) == 1.0
    assert audit([], []) == []
