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
* ``zone_persistence``: whether cards stay together in zones from the previous shoe to this one,
  the weakness shuffle trackers play, whatever the cut and the zones' order: a table of blocks by
  zones whose covariance is exact, read as a chi-square.
* ``rising``: the rising sequences a riffle leaves (``rising.py``): a forecaster's likelihood ratio
  against a fair shuffle, whose p-value holds exactly by Ville's inequality.

``shuffle_quality`` combines them (Fisher's method) into one p-value per shoe; below
``WEAK_SHUFFLE_P`` the shoe raises a ``WeakShuffle`` notice. docs/protection.md gives the nulls.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
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
                     zone: int = 39) -> Statistic | None:
    """Whether the cards stay together in zones from the previous shoe's ``reference`` order to this shoe, however
    the pile was cut (the weakness shuffle trackers play; issue 38: a player's cut hid the zones from a linear
    statistic).

    The reference is cut into zones of ``zone`` cards (three quarters of a pack; a short last one joins the one
    before); the cards never read (behind the previous cut card) are one more zone, the *rest*. Each card code
    belongs to each zone by the share of its copies that lie there (``share[code][zone]``). Two statistics of the
    dealt cards, each exact in its mean and covariance under a fair shuffle (the dealt cards are the first ``m`` of
    a random order of the shoe: linear permutation statistics, Hoeffding's moments):

    * **zones in order, wherever the cut**: for every place the cut may have been (each of the shoe's ``N``
      rotations, the pile as it lies and turned over), the sum over the dealt cards of their share of the zone the
      uncut pile held at their place; its largest z-score, with Bonferroni's correction over the 2N places tried.
      A zone shuffle that keeps its zones in order and a strip (which turns them over) score here, cut or not;
    * **zones in any order**: the table of blocks of dealt cards (``zone`` each) by zones, read as a chi-square
      (its covariance is the Kronecker product of the blocks' and the zones' Gram matrices): blocks that each come
      from a few zones score, however the zones were moved (the A/B grab shuffle).

    ``p`` is twice the smaller of the two (Bonferroni): valid whatever their dependence. One-sided (more
    concentration than chance). ``observed`` is the larger z. None when it cannot be computed.
    """
    n = sum(counts)
    m = len(dealt)
    zones = max(1, round(len(reference) / zone))
    if not reference or m < 2 * zone or zones < 2 or len(reference) > n:
        return None
    where: dict[int, list[int]] = {}
    for j, card in enumerate(reference):
        where.setdefault(card.index, [0] * (zones + 1))[min(j // zone, zones - 1)] += 1
    share = {}
    for c in range(52):
        if counts[c]:
            its = where.get(c, [0] * (zones + 1))
            its[zones] = max(0, counts[c] - sum(its))  # the copies never read: the rest
            share[c] = [k / counts[c] for k in its]
    columns = zones + 1 if len(reference) < n else zones  # no rest: the whole shoe was read
    mean = [sum(counts[c] * share[c][z] for c in share) / n for z in range(columns)]
    centred = {c: [share[c][z] - mean[z] for z in range(columns)] for c in share}
    gram = [[sum(counts[c] * centred[c][z] * centred[c][y] for c in share) for y in range(columns)]
            for z in range(columns)]
    ordered = _zones_in_order(dealt, share, mean, gram, len(reference), zones, zone, n)
    table = _zones_in_any_order(dealt, share, mean, gram[:zones], zones, zone, n)
    found = [x for x in (ordered, table) if x is not None]
    if not found:
        return None
    p = min(1.0, len(found) * min(p for _, p in found))
    z = max(z for z, _ in found)
    return Statistic("zone persistence", z, 0.0, 1.0, z, p, True)


def _layouts(zone_at: list[int]) -> list[list[list[int]]]:
    """The ways the uncut new shoe's places map to the pile's zones, each a list of stacks (the zone of each new
    place in each): the pile as it lies and turned over, shuffled as one stack (a place came from the same place),
    or as two (the pile split in two, grabs from each riffled together, as most casinos' procedures do: place ``u``
    came from place ``u / 2`` of either half). Where the cards never read lie (on top of the pile or under it) is a
    rotation of the pile: for one stack a cut, for two the same pairs of places."""
    n = len(zone_at)
    half = n // 2
    out: list[list[list[int]]] = []
    for way in (zone_at, zone_at[::-1]):
        out.append([way])
        out.append([[way[u // 2] for u in range(n)], [way[min(half + u // 2, n - 1)] for u in range(n)]])
    return out


def _zones_in_order(dealt: Sequence[Card], share: dict[int, list[float]], mean: list[float],
                    gram: list[list[float]], known: int, zones: int, zone: int, n: int) -> tuple[float, float] | None:
    """The cut-searched statistic of ``zone_persistence``: (its largest z, its p with Bonferroni over every layout
    and place tried).

    For a layout (``_layouts``) and a cut, each dealt card scores its share of the zones its place held in the
    uncut pile; under a fair shuffle that sum is a linear permutation statistic with mean the window's zones'
    means and variance (Σ_u Σ_stacks² gram - κᵀ gram κ / n) / (n - 1), κ the window's zone counts (Hoeffding).
    The window is moved one place a cut, its terms kept up as one place leaves it and one joins."""
    m = len(dealt)
    columns = len(mean)
    # the pile's zone at each of its n places: the reference's zones, then the rest
    zone_at = [min(j // zone, zones - 1) if j < known else zones for j in range(n)]
    if columns == zones:
        zone_at = [min(z, zones - 1) for z in zone_at]
    prefix = [[0.0] * (m + 1) for _ in range(columns)]  # prefix[z][t]: the first t dealt cards' share of zone z
    for t, card in enumerate(dealt):
        its = share.get(card.index)
        for z in range(columns):
            prefix[z][t + 1] = prefix[z][t] + (its[z] if its is not None else mean[z])
    best = -math.inf
    layouts = _layouts(zone_at)
    step = max(1, zone // 4)  # the cuts tried: every few places (a zone's quarter), each a test Bonferroni counts
    for stacks in layouts:
        for total, expected, variance in _window_sums(prefix, stacks, gram, mean, m, step):
            if variance > 0:
                best = max(best, (total - expected) / math.sqrt(variance))
    if best == -math.inf:
        return None
    return best, min(1.0, len(layouts) * -(-n // step) * _normal_p(best, one_sided=True))


def _window_sums(prefix: list[list[float]], stacks: list[list[int]], gram: list[list[float]], mean: list[float],
                 m: int, step: int = 1) -> Iterator[tuple[float, float, float]]:
    """For each ``step``-th cut (0 to n - 1) of one layout: the dealt cards' summed share of the zones their places
    held, and its mean and variance under a fair shuffle (``_zones_in_order``)."""
    n = len(stacks[0])
    columns = len(mean)
    # runs of one zone along each stack's places: (start, end, zone), to cut the dealt window into few pieces
    runs: list[tuple[int, int, int]] = []
    for way in stacks:
        for j, z in enumerate(way):
            if runs and runs[-1][2] == z and runs[-1][1] == j:
                runs[-1] = (runs[-1][0], j + 1, z)
            else:
                runs.append((j, j + 1, z))
    own = [sum(gram[a[u]][b[u]] for a in stacks for b in stacks) for u in range(n)]  # a place's own variance
    counts = [0] * columns  # κ: the window's zones, over every stack
    for u in range(m):
        for way in stacks:
            counts[way[u % n]] += 1
    g_counts = [sum(gram[z][y] * counts[y] for y in range(columns)) for z in range(columns)]
    quad = sum(counts[z] * g_counts[z] for z in range(columns))
    linear = sum(own[u % n] for u in range(m))
    expected = sum(counts[z] * mean[z] for z in range(columns))
    for cut in range(n):  # dealt card t lay at place (t + cut) mod n of the uncut shoe
        if cut:  # the window moves one place: one leaves it, one joins
            gone, came = cut - 1, (cut - 1 + m) % n
            linear += own[came] - own[gone]
            for way in stacks:
                for z, sign in ((way[came], 1), (way[gone], -1)):
                    quad += sign * (2 * g_counts[z] + sign * gram[z][z])
                    for y in range(columns):
                        g_counts[y] += sign * gram[y][z]
                    counts[z] += sign
                    expected += sign * mean[z]
        if cut % step:
            continue
        total = 0.0
        for start, end, z in runs:
            for a, b in ((start - cut, end - cut), (start - cut + n, end - cut + n)):
                lo, hi = max(a, 0), min(b, m)
                if lo < hi:
                    total += prefix[z][hi] - prefix[z][lo]
        yield total, expected, (linear - quad / n) / (n - 1)


def _zones_in_any_order(dealt: Sequence[Card], share: dict[int, list[float]], mean: list[float],
                        gram: list[list[float]], zones: int, zone: int, n: int) -> tuple[float, float] | None:
    """The chi-square of blocks by zones of ``zone_persistence`` (the rest's column left out: the columns of a
    card sum to one): (its z, its p)."""
    m = len(dealt)
    blocks = max(1, round(m / zone))
    inverse = _inverse([row[:zones] for row in gram])
    if inverse is None:
        return None
    sizes = [0] * blocks
    table = [[0.0] * zones for _ in range(blocks)]
    for t, card in enumerate(dealt):
        b = min(t // zone, blocks - 1)
        sizes[b] += 1
        row, its = table[b], share.get(card.index)
        for z in range(zones):
            row[z] += its[z] if its is not None else mean[z]
    for b in range(blocks):
        for z in range(zones):
            table[b][z] -= sizes[b] * mean[z]
    rest = n - m
    if rest <= 0:  # the whole shoe dealt: the blocks' rows sum to zero, one is dropped
        blocks -= 1
        table, sizes, rest = table[:blocks], sizes[:blocks], sizes[blocks]
    if blocks < 1 or rest <= 0:
        return None
    # the blocks' Gram matrix is diag(sizes) - sizes sizesᵀ / n: its inverse, diag(1 / sizes) + 1 1ᵀ / rest
    weighted = [[sum(table[b][z] * inverse[z][y] for z in range(zones)) for y in range(zones)] for b in range(blocks)]
    cross = [[sum(weighted[b][y] * table[c][y] for y in range(zones)) for c in range(blocks)] for b in range(blocks)]
    q = (n - 1) * (sum(cross[b][b] / sizes[b] for b in range(blocks))
                   + sum(cross[b][c] for b in range(blocks) for c in range(blocks)) / rest)
    df = blocks * zones
    p = chi_square_tail(q, df)
    normal = -NormalDist().inv_cdf(p) if 1e-300 < p < 1.0 else (0.0 if p >= 1.0 else math.sqrt(q))
    return normal, p


def _inverse(matrix: Sequence[Sequence[float]]) -> list[list[float]] | None:
    """The inverse of a small square matrix (Gauss-Jordan with partial pivoting); None when it is singular."""
    size = len(matrix)
    rows = [list(row) + [1.0 if i == j else 0.0 for j in range(size)] for i, row in enumerate(matrix)]
    scale = max((abs(x) for row in matrix for x in row), default=0.0)
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) <= 1e-12 * scale:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [x / lead for x in rows[col]]
        for r in range(size):
            factor = rows[r][col]
            if r != col and factor:
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col])]
    return [row[size:] for row in rows]


def chi_square_tail(x: float, df: int) -> float:
    """P(chi-square with ``df`` degrees of freedom > x), exactly (the regularized upper gamma of df / 2, x / 2)."""
    if x <= 0 or df <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:
        term = total = math.exp(-half)
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, total)
    total = math.erfc(math.sqrt(half))  # one degree of freedom; each two more add a term of the series
    a = 0.5
    term = math.exp(a * math.log(half) - half - math.lgamma(a + 1))
    while a + 1 <= df / 2:
        total += term
        a += 1
        term *= half / a
    return min(1.0, total)


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
