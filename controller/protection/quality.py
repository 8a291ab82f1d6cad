"""Shuffle quality: statistics of one shoe's dealt order with known distributions under a fair shuffle.

Each statistic is given as a z-score and a p-value; they work on the cards a shoe actually dealt
(a shoe is cut, so the cards behind the cut card are never read): under a fair shuffle the dealt
cards are the first ``m`` cards of a uniformly random order of the shoe's known composition.

* ``adjacent_pairs``: two cards of the same rank next to each other (clumps left by a poor mix);
  exact mean and variance for ``m`` cards of the composition.
* ``hi_lo_runs``: the Wald–Wolfowitz runs test over the Hi-Lo high and low cards (neutral cards
  left out): exact mean and variance given how many of each were dealt.
* ``guessing``: a card-guessing score against the previous shoe (after Diaconis, Fulman and Holmes):
  after each card, guess that the next is the card that followed it in the previous shoe. Under a
  fair shuffle each guess is right with probability (copies left of the guess) / (cards left),
  whatever the guesser did before, so the hits' mean is exactly the sum of those chances.
* ``zone_persistence``: whether cards stay in their zone (one deck's worth of cards) from the
  previous shoe to this one, the weakness shuffle trackers play; a linear permutation statistic
  with exact mean 0 and exact variance.
* ``rising``: the rising sequences a riffle leaves (``rising.py``): a forecaster's likelihood ratio
  against a fair shuffle, whose p-value holds exactly by Ville's inequality.

``shuffle_quality`` combines them (Fisher's method) into one p-value per shoe; below
``WEAK_SHUFFLE_P`` the shoe raises a ``WeakShuffle`` notice. docs/protection.md gives the nulls.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from controller.cards import RANKS, Card, pack_members
from controller.protection.findings import WeakShuffle
from controller.protection.rising import rising_sequences

# The combined p-value below which a shoe is a weak shuffle. Fisher's 1 in 100,000, not the aim's
# 1 in 10,000: adjacent pairs and Hi/Lo runs are dependent and their normal tails light, so fair shoes
# fall below a level more often than Fisher says (measured: docs/protection.md); one to three riffles
# fall far below it all the same (the rising sequences' p is tens of decimal digits small).
WEAK_SHUFFLE_P = 1e-5

HIGH_RANKS = "TJQKA"  # Hi-Lo: counted -1
LOW_RANKS = "23456"  # Hi-Lo: counted +1 (7, 8 and 9 are neutral)


@dataclass(frozen=True, slots=True)
class Statistic:
    """One statistic of a shoe: what was seen, its mean and sd under a fair shuffle, z and p.

    ``p`` is two-sided unless ``one_sided`` (then it is the chance of a value at least as high).
    """

    name: str
    observed: float
    expected: float
    sd: float
    z: float
    p: float
    one_sided: bool = False


@dataclass(frozen=True, slots=True)
class ShuffleQuality:
    """A shoe's shuffle-quality statistics and their combined p-value."""

    cards: int
    statistics: tuple[Statistic, ...]
    p: float  # combined (Fisher); 1.0 when no statistic could be computed
    threshold: float = WEAK_SHUFFLE_P

    @property
    def weak(self) -> bool:
        """True when the combined p-value is below the weak-shuffle threshold."""
        return self.p < self.threshold

    def finding(self) -> WeakShuffle | None:
        """The notice for the pit when the shuffle was weak, else None."""
        if not self.weak:
            return None
        worst = min(self.statistics, key=lambda s: s.p)
        return WeakShuffle(self.cards, self.p, worst.name)


def composition(decks: int = 6, pack: int = 52) -> list[int]:
    """How many copies of each card (by Card.index) a shoe of ``decks`` packs of ``pack`` cards holds."""
    return [decks if member else 0 for member in pack_members(pack)]


def _normal_p(z: float, one_sided: bool = False) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2)) if one_sided else math.erfc(abs(z) / math.sqrt(2))


def _statistic(name: str, observed: float, expected: float, variance: float, one_sided: bool = False) -> Statistic:
    sd = math.sqrt(variance) if variance > 0 else 0.0
    z = (observed - expected) / sd if sd > 0 else 0.0
    return Statistic(name, observed, expected, sd, z, _normal_p(z, one_sided), one_sided)


def falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1)."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


def adjacent_pairs_null(cards: int, rank_counts: Sequence[int]) -> tuple[float, float]:
    """Exact mean and variance of the adjacent same-rank pairs among the first ``cards`` of a random order.

    ``rank_counts`` holds how many cards of each rank the whole shoe has. With ``k = cards - 1``
    neighbouring pairs, each of the same rank with chance p2, two overlapping pairs (three in a
    row) with p3, two disjoint pairs with p4: mean k p2, variance k p2 + 2 (k-1) p3 + (k-1)(k-2) p4 - (k p2)^2.
    """
    n = sum(rank_counts)
    k = cards - 1
    if k < 1 or n < 4:
        return 0.0, 0.0
    p2 = sum(falling(c, 2) for c in rank_counts) / falling(n, 2)
    p3 = sum(falling(c, 3) for c in rank_counts) / falling(n, 3)
    same = sum(falling(c, 4) for c in rank_counts)
    pairs = sum(falling(c, 2) for c in rank_counts)
    other = pairs * pairs - sum(falling(c, 2) ** 2 for c in rank_counts)
    p4 = (same + other) / falling(n, 4)
    mean = k * p2
    variance = k * p2 + 2 * (k - 1) * p3 + (k - 1) * (k - 2) * p4 - mean * mean
    return mean, variance


def adjacent_pairs(dealt: Sequence[Card], counts: Sequence[int]) -> Statistic:
    """Adjacent same-rank pairs in the dealt cards against their exact null (``counts``: ``composition``)."""
    rank_counts = [sum(counts[i] for i in range(52) if i // 4 == r) for r in range(len(RANKS))]
    observed = sum(1 for a, b in zip(dealt, dealt[1:]) if a.rank == b.rank)
    mean, variance = adjacent_pairs_null(len(dealt), [c for c in rank_counts if c])
    return _statistic("adjacent same-rank pairs", observed, mean, variance)


def hi_lo_runs(dealt: Sequence[Card]) -> Statistic | None:
    """Wald–Wolfowitz runs of high and low cards (Hi-Lo, neutral cards left out); None under two of either."""
    signs = [card.rank in HIGH_RANKS for card in dealt if card.rank in HIGH_RANKS or card.rank in LOW_RANKS]
    n1 = sum(signs)
    n2 = len(signs) - n1
    n = n1 + n2
    if n1 < 2 or n2 < 2:
        return None
    runs = 1 + sum(1 for a, b in zip(signs, signs[1:]) if a != b)
    mean = 1 + 2 * n1 * n2 / n
    variance = 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1))
    return _statistic("Hi/Lo runs", runs, mean, variance)


def _poisson_binomial_tail(chances: Sequence[float], hits: int) -> float:
    """P(at least ``hits`` successes) among independent trials with these chances (exact, by convolution)."""
    if hits <= 0:
        return 1.0
    below = [1.0] + [0.0] * (hits - 1)  # P(s successes so far), s < hits
    for q in chances:
        for s in range(hits - 1, 0, -1):
            below[s] = below[s] * (1 - q) + below[s - 1] * q
        below[0] *= 1 - q
    return max(0.0, 1.0 - sum(below))


def guessing(dealt: Sequence[Card], reference: Sequence[Card], counts: Sequence[int]) -> Statistic | None:
    """The card-guessing score of the dealt cards against the previous shoe's ``reference`` order.

    The guesser follows the previous order the way a riffle leaves it (in rising sequences,
    after Diaconis, Fulman and Holmes): it places each card shown at a copy of it in the
    reference, preferring a copy right after a placed card (the most recently placed first: it
    continues a rising sequence), else the first copy not yet placed; it then guesses the card
    that follows, in the reference, the most recently placed card that continued a sequence and
    whose follower is not placed yet (then one placed on its own, which may be the wrong copy),
    else the card with the most copies left. Under a fair shuffle each guess is
    right with probability (copies left of the guess) / (cards left), whatever the guesser did
    before, so the hits' mean is exactly the sum of those chances. The p-value treats the hits
    as independent trials with those chances (the Poisson-binomial law), one-sided: more hits
    than chance means the previous order survived the shuffle. None with no reference.
    """
    if not reference or not dealt:
        return None
    copies: dict[int, list[int]] = {}
    for j, card in enumerate(reference):
        copies.setdefault(card.index, []).append(j)
    placed = [False] * len(reference)
    # reference position just placed -> (its run was continued, when): the next guess is the follower of the
    # last one whose run was continued (a rising sequence), before a card placed on its own (maybe the wrong copy)
    heads: dict[int, tuple[bool, int]] = {}
    left = list(counts)
    cards_left = sum(left)
    hits = 0
    chances: list[float] = []
    for t, card in enumerate(dealt):
        guess = -1
        spent = []
        for wanted in (True, False):  # heads are kept in the order they were placed: the latest last
            for j in reversed(heads):
                if heads[j][0] is not wanted:
                    continue
                if j + 1 >= len(reference) or placed[j + 1]:
                    spent.append(j)  # its follower is placed: it can never be guessed from again
                elif left[reference[j + 1].index] > 0:
                    guess = reference[j + 1].index
                    break
            if guess >= 0:
                break
        for j in spent:
            heads.pop(j, None)
        if guess < 0:
            guess = max(range(52), key=lambda c: (left[c], -c))
        if cards_left <= 0 or left[card.index] <= 0:
            break  # more cards than the composition holds: not a shoe of this make-up
        chances.append(left[guess] / cards_left)
        hits += card.index == guess
        left[card.index] -= 1
        cards_left -= 1
        free = [j for j in copies.get(card.index, ()) if not placed[j]]
        if free:
            after = [j for j in free if j > 0 and j - 1 in heads]
            j = max(after, key=lambda k: heads[k - 1]) if after else free[0]
            placed[j] = True
            heads.pop(j - 1, None)
            heads[j] = (bool(after), t)
    expected = sum(chances)
    variance = sum(q * (1 - q) for q in chances)
    stat = _statistic("card guessing", hits, expected, variance, one_sided=True)
    if hits <= 80:  # beyond, the normal tail is already far below any threshold and the exact sum is slow
        stat = Statistic(stat.name, stat.observed, stat.expected, stat.sd, stat.z,
                         _poisson_binomial_tail(chances, hits), True)
    return stat


def zone_persistence(dealt: Sequence[Card], reference: Sequence[Card], counts: Sequence[int],
                     zone: int = 52) -> Statistic | None:
    """Whether cards stay in their zone from the previous shoe's ``reference`` order to this shoe.

    Each card code scores the mean zone (0, 1, ...: ``zone`` cards each) of its copies in the
    reference; the statistic is the sum over the dealt cards of (their zone here - the mean zone)
    times their score. Under a fair shuffle the dealt cards are a sample without replacement of
    the composition's scores, so the mean is 0 and the variance sigma^2 * sum(c^2) * N / (N - 1)
    exactly (sigma^2: the scores' variance over the N cards). Two-sided: a zone kept in order
    scores high, zones restacked in reverse (a strip) low. None when it cannot be computed.
    """
    if not reference or len(dealt) <= zone:
        return None
    zones: dict[int, list[int]] = {}
    for j, card in enumerate(reference):
        zones.setdefault(card.index, []).append(j // zone)
    overall = sum(j // zone for j in range(len(reference))) / len(reference)
    score = [sum(zones[i]) / len(zones[i]) if i in zones else overall for i in range(52)]
    n = sum(counts)
    mu = sum(counts[i] * score[i] for i in range(52)) / n
    sigma2 = sum(counts[i] * (score[i] - mu) ** 2 for i in range(52)) / n
    here = [t // zone for t in range(len(dealt))]
    centre = sum(here) / len(here)
    weights = [h - centre for h in here]
    observed = sum(w * score[card.index] for w, card in zip(weights, dealt))
    variance = sigma2 * sum(w * w for w in weights) * n / (n - 1)
    return _statistic("zone persistence", observed, 0.0, variance)


def rising(dealt: Sequence[Card], references: Sequence[Sequence[Card]], counts: Sequence[int]) -> Statistic | None:
    """The rising sequences of a riffle, as a statistic (``rising.rising_sequences``); None with no reference.

    ``observed`` is the evidence, log10 of the forecaster's likelihood ratio at its highest; under a
    fair shuffle the ratio has mean 1 (``expected`` 0 in log10) and ``p`` = 1 / ratio is a valid p-value
    (Ville's inequality, no approximation). ``z`` is the one-sided normal z of that p, to compare.
    """
    evidence = rising_sequences(dealt, references, counts)
    if evidence is None:
        return None
    if evidence.p >= 1.0:
        z = 0.0
    elif evidence.p > 1e-300:
        z = -NormalDist().inv_cdf(evidence.p)
    else:  # beyond doubles: the normal tail's log is -z^2/2 to first order
        z = math.sqrt(2 * evidence.log10_ratio * math.log(10))
    return Statistic("rising sequences", evidence.log10_ratio, 0.0, 0.0, z, evidence.p, True)


def fisher_p(ps: Sequence[float]) -> float:
    """Fisher's combination of independent p-values: P(chi-square with 2k df > -2 sum ln p), exactly."""
    if not ps:
        return 1.0
    half = -sum(math.log(max(p, 1e-300)) for p in ps)  # x / 2
    term = total = math.exp(-half)
    for i in range(1, len(ps)):
        term *= half / i
        total += term
    return min(1.0, total)


def shuffle_quality(dealt: Sequence[Card], *, previous_dealt: Sequence[Card] = (),
                    previous_discards: Sequence[Card] = (), other_discards: Sequence[Sequence[Card]] = (),
                    decks: int = 6, pack: int = 52, threshold: float = WEAK_SHUFFLE_P) -> ShuffleQuality:
    """Every statistic of one shoe's dealt cards and their combined p-value.

    ``previous_dealt`` / ``previous_discards``: the previous shoe's dealt and discard orders
    (empty for the first shoe: then only the within-shoe statistics count). The guesser and the
    zone statistic use the discard order when it is known (it is what the dealer shuffled), else
    the dealt one. ``other_discards``: the previous shoe's cards as the other ``PickUp`` orders
    would have gathered them. The rising sequences follow every one of these orders, each as it
    lies and turned over: a pile that kept the dealt order (the virtual shoe's), a dealer who turns
    the stack over before riffling, or a house that gathers otherwise than its ``PickUp`` says is
    still followed, at a cost of a factor of the orders' number in the p-value (docs/protection.md).
    """
    counts = composition(decks, pack)
    references: list[list[Card]] = []
    for order in (previous_discards, previous_dealt, *other_discards):
        for way in (list(order), list(order)[::-1]):
            if way and way not in references:  # the same order twice gives the same ratio: follow it once
                references.append(way)
    found: list[Statistic | None] = [
        adjacent_pairs(dealt, counts),
        hi_lo_runs(dealt),
        guessing(dealt, previous_discards or previous_dealt, counts),
        zone_persistence(dealt, previous_discards or previous_dealt, counts),
        rising(dealt, references, counts),
    ]
    statistics = tuple(s for s in found if s is not None)
    return ShuffleQuality(len(dealt), statistics, fisher_p([s.p for s in statistics]), threshold)
