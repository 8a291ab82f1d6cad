"""The rising-sequences statistic: its null exactly (every order of a small shoe), fair shoes, three riffles caught."""

from __future__ import annotations

import itertools
import math
import random
import statistics

import pytest

from controller.cards import ALL_CARDS, Card
from controller.protection.discards import PickUp, discard_order, other_discard_orders
from controller.protection.quality import WEAK_SHUFFLE_P, composition, rising, shuffle_quality
from controller.protection.rising import rising_sequences
from simulators.shuffles import ShuffleKind, ShuffleSpec, play_rounds, shuffle

from tests.protection.conftest import dealt_and_discards, fresh_shoe

A, B, C, D = ALL_CARDS[0], ALL_CARDS[5], ALL_CARDS[10], ALL_CARDS[20]


def _counts(cards: list[Card]) -> list[int]:
    counts = [0] * 52
    for card in cards:
        counts[card.index] += 1
    return counts


@pytest.mark.parametrize("references", [
    [[B, A, C, D, A, C, B]],
    [[B, A, C, D, A, C, B], [C, C, A, B, D, B, A]],
])
@pytest.mark.parametrize("dealt", [7, 4])
def test_the_ratio_is_a_fair_bet_under_a_fair_shuffle(references: list[list[Card]], dealt: int) -> None:
    """Every order of a 7-card shoe with copies (each equally likely under a fair shuffle): the likelihood
    ratio averages exactly 1, whole or dealt in part, one reference or two; and p = 1 / its highest value
    is at most x with chance at most x (Ville), for every x."""
    shoe = [A, A, B, B, C, C, D]
    orders = sorted(set(itertools.permutations(shoe)), key=lambda o: [c.index for c in o])
    assert len(orders) == 630  # 7! / (2! 2! 2!)
    found = [rising_sequences(list(order[:dealt]), references, _counts(shoe)) for order in orders]
    ratios = [10 ** e.log10_final for e in found if e is not None]
    assert len(ratios) == 630
    assert statistics.fmean(ratios) == pytest.approx(1.0, rel=1e-9)
    ps = [e.p for e in found if e is not None]
    for level in set(ps):
        assert sum(p <= level for p in ps) / len(ps) <= level + 1e-12  # P(p <= x) <= x at every p seen
    assert min(ps) < 0.5  # the statistic is not a constant 1


def test_no_reference_or_no_card_gives_nothing() -> None:
    counts = composition(1)
    assert rising_sequences([A, B], [], counts) is None
    assert rising_sequences([], [[A, B]], counts) is None
    assert rising([A, B], [], counts) is None


def test_a_card_the_make_up_has_no_copy_of_ends_the_forecast() -> None:
    counts = _counts([A, B, C])
    evidence = rising_sequences([A, B, B, C], [[A, B, C]], counts)
    assert evidence is not None and evidence.cards == 2


def test_fair_shoes_rarely_look_riffled() -> None:
    """200 fair 6-deck shoes dealt to the cut card: p never small, its tail below the diagonal (super-uniform)."""
    rng = random.Random(31)
    ps = []
    for _ in range(200):
        dealt, discards = dealt_and_discards(fresh_shoe(rng))
        new, _ = dealt_and_discards(fresh_shoe(rng))
        stat = rising(new, [discards, dealt, discards[::-1], dealt[::-1]], composition())
        assert stat is not None and stat.name == "rising sequences" and stat.one_sided
        ps.append(stat.p)
    assert min(ps) > 1e-4
    assert sum(p <= 0.1 for p in ps) <= 20 + 13  # at most 10 %, with room for chance (binomial sd 4.2)
    assert sum(p <= 0.01 for p in ps) <= 2 + 5


Riffled = tuple[list[Card], list[Card], list[Card], list[list[Card]]]


def _riffled(rng: random.Random, riffles: int, pile_from: str) -> Riffled:
    """A shoe dealt to its cut card, the pile gathered as ``pile_from`` says and riffled.

    Returns the new shoe's dealt cards and what the table knows of the previous shoe: its dealt order,
    its discard order (the default pick-up, third base first) and the other pick-ups' orders.
    """
    shoe = fresh_shoe(rng)
    rounds, count = play_rounds(shoe, 5, 234)
    dealt, discards = shoe[:count], discard_order(rounds)
    gathered = {"discards": discards, "dealt": dealt,
                "first-base-first discards": discard_order(rounds, PickUp.FIRST_BASE_FIRST)}
    pile = gathered[pile_from.removesuffix(" turned")] + shoe[count:]
    if pile_from.endswith("turned"):
        pile = pile[::-1]
    new = shuffle(ShuffleSpec(ShuffleKind.RIFFLE, riffles), pile, rng)
    _, new_count = play_rounds(new, 5, 234)
    return new[:new_count], dealt, discards, other_discard_orders(rounds)


@pytest.mark.parametrize("pile_from", ["discards", "dealt", "discards turned", "first-base-first discards"])
def test_three_riffles_are_a_weak_shuffle(pile_from: str) -> None:
    """Three riffles of the discards (the benchmark's pile), of the dealt order (the virtual shoe's), of
    the stack turned over, or of discards gathered otherwise than the table's pick-up says: every shoe of
    12 is weak, mostly by its rising sequences, far below the threshold."""
    rng = random.Random(f"three riffles of the {pile_from}")
    for _ in range(12):
        new, dealt, discards, others = _riffled(rng, 3, pile_from)
        quality = shuffle_quality(new, previous_dealt=dealt, previous_discards=discards, other_discards=others)
        found = {s.name: s for s in quality.statistics}
        assert found["rising sequences"].p < 1e-10 and found["rising sequences"].observed > 10
        finding = quality.finding()
        assert quality.weak and finding is not None and finding.worst == "rising sequences"
        assert quality.p < WEAK_SHUFFLE_P * 1e-5


def test_the_same_shoe_fairly_shuffled_is_not_weak() -> None:
    """The control for the test above: the pile shuffled fairly instead of riffled is not flagged."""
    rng = random.Random("the control")
    for _ in range(12):
        _, dealt, discards, others = _riffled(rng, 3, "discards")
        new, _ = dealt_and_discards(fresh_shoe(rng))
        quality = shuffle_quality(new, previous_dealt=dealt, previous_discards=discards, other_discards=others)
        assert not quality.weak


@pytest.mark.slow
def test_fair_shoes_null_and_three_riffles_at_scale() -> None:
    """2,000 fair shoes: no weak shuffle, the rising p's tail at most its level (Ville); 200 three-riffle shoes all weak."""
    rng = random.Random(2500)
    ps, weak = [], 0
    for _ in range(2000):
        shoe = fresh_shoe(rng)
        rounds, count = play_rounds(shoe, 5, 234)
        new, _ = dealt_and_discards(fresh_shoe(rng))
        quality = shuffle_quality(new, previous_dealt=shoe[:count], previous_discards=discard_order(rounds),
                                  other_discards=other_discard_orders(rounds))
        weak += quality.weak
        ps.append(next(s.p for s in quality.statistics if s.name == "rising sequences"))
    assert weak == 0
    for level, room in ((0.1, 60), (0.01, 12), (0.001, 4)):
        assert sum(p <= level for p in ps) <= 2000 * level + room, level
    assert statistics.fmean(math.log10(p) for p in ps) > -0.5
    caught = sum(shuffle_quality(new, previous_dealt=dealt, previous_discards=discards, other_discards=others).weak
                 for new, dealt, discards, others in (_riffled(rng, 3, "discards") for _ in range(200)))
    assert caught == 200
