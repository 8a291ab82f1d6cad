"""Exact expectation of the next blackjack round for any shoe composition.

``analyse(rules, counts, play)`` returns the player's expectation per initial bet of one box
playing the next round from a shoe holding exactly ``counts`` (cards by value, aces first, tens
last), under

* ``play="basic"``: the project's own basic strategy for the profile
  (``simulators.strategy.BasicStrategy.decide``, the tables the simulator plays; the live table's
  figure);
* ``play="cdp1"`` (also ``"optimal"``): composition-dependent optimal play: every stand / hit /
  double / split / surrender decision taken on the exact cards left at that moment (hit or stand
  on every card), a split hand playing the first split hand's best, the pair's other card out and
  no further pair card (Eric Farmer's CDP1);
* ``play="cdz-"``: the same, but a split hand plays as the same cards would be played unsplit
  (Farmer's CDZ-).

CDP1 and CDZ- resplit to ``max_hands`` whenever they split; basic strategy resplits as its table
says. Every rule of blackjack's options (``simulators.blackjack_terms.BlackjackTerms``) that changes the expectation is followed: the
dealer's soft 17, peek (ace, or ace and ten) or no hole card with a blackjack made after play
taking every stake (``dealer_bj_takes = all``) or the one original bet (``original``), the
double rules, double after split, splits to ``max_hands`` with or without resplitting aces,
pairs by value or rank, split aces one card, every surrender rule (a surrendered hand keeps half
whatever the dealer then makes; early surrender not against an ace for ``early_vs_2_10``), the
blackjack payout and the three-sevens bonus (paid at once on an original 7-7 drawing a seven,
with the suited odds of a full shoe of the profile's decks: the counts do not say suits).
Insurance and even money are never taken.

Exact means: every initial deal with its exact probability from ``counts``, the player's draws
depleting the shoe card by card, the dealer's outcome drawn from the shoe left after the
player's hand, his own draws depleting it too, a peek conditioned exactly on "no blackjack", and
splits with resplits valued exactly (Farmer's method: ``_Round.split``). It equals Farmer's v7.6
engine to 1e-16 (``benchmarks/exact.py``) and brute-force enumerators on small shoes
(``tests/strategy/test_exact_brute_force.py``). A shoe where a round could run out of cards raises
ShoeError.

How it is fast
--------------
The work is split in two: what depends only on the rules and the play, built once and cached,
and what depends on the cards, computed for all of a round's hands at once with numpy.

* **The hands** (``_hands``, cached per rules, play and the most cards of each value a shoe of
  the profile holds): every hand the player can hold against every up card, as the cards it
  took out of the shoe, with what the play does there and which hands it leads to; each split
  hand once for every count of further pair cards out. A depleted shoe uses the same hands: one
  it cannot deal has probability zero.
* **The dealer** (``_dealer_plan``, cached per soft-17 rule): his hands held with the up card in
  them, so one product serves every up card it can start from, for every composition the player
  can stand on at once, as arrays of compositions.
* **The values**, hand by hand from the most cards to the fewest, again as arrays: a hand's hit
  value is its children's values weighted by the chance of each card.
* The initial deals, doubles, splits and surrender (some 550 deals) are then plain arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, Sequence

import numpy as np
from numpy.typing import NDArray

from controller.legality import Action
from .blackjack_terms import BlackjackTerms

from .strategy import DOUBLE, HIT, SPLIT, STAND, SURRENDER, strategy_for
from .strategy_model import BlackjackLoss, HouseRules

Play = Literal["basic", "cdp1", "cdz-", "optimal"]
PLAYS: tuple[Play, ...] = ("basic", "cdp1", "cdz-")  # "optimal" is CDP1's other name

BUST = 5  # dealer outcome bins: 0..4 = final 17..21, 5 = bust, 6 = blackjack
BJ = 6

Floats = NDArray[np.float64]
Ints = NDArray[np.intp]
Flags = NDArray[np.bool_]


class ShoeError(ValueError):
    """A composition the analysis cannot play: wrong length, negative counts, or too few cards."""


def _total(hard: int, ace: bool) -> int:
    # The playing total: an ace counts 11 where that does not pass 21.
    return hard + 10 if ace and hard <= 11 else hard


def full_shoe(decks: int) -> tuple[int, ...]:
    """The counts by value (aces first, tens last) of a full shoe of ``decks`` 52-card decks."""
    return (4 * decks,) * 9 + (16 * decks,)


# ---------------------------------------------------------------------------------- the dealer
@dataclass(frozen=True)
class _DealerPlan:
    """The dealer's drawing for every up card at once, as multisets of the cards he holds (up card included).

    A multiset's chance from a shoe ``c`` of ``n`` cards is (its orderings the dealer follows) × ∏ c_x (c_x − 1) …
    / (n (n − 1) …). Held with the up card, one multiset serves every up card it can start from (2-5-10 is the
    same product for an up card of 2, 5 or 10; only the orderings differ), so each is computed once for all ten
    up cards: 599 drawing states and 1,677 final hands, where the up cards one by one have 6,068. A state's
    product is its parent's times one ``c_x − j`` (``factors`` index x · width + j), kept divided by
    n (n − 1) … down to the next card's denominator; a final hand is its parent's times its last card's count.
    """

    width: int
    levels: tuple[tuple[int, int, int], ...]  # (cards held L, first state, end) for L = 1, 2, ...
    parents: Ints  # per state (-1: an up card alone)
    factors: Ints
    final_parents: Ints  # per final hand, sorted by total (17 ... 21)
    final_factors: Ints
    ways: tuple[tuple[int, int, int, Floats], ...]  # (total - 17, first, end, (10, end - first) orderings by up card)
    draws: Floats  # (10, states): 1 where the dealer holding this state after that up card draws again
    held: Floats  # per state: cards held


# Finals a block of the orderings' matrix product: ten rows times _BLOCK columns times _CHUNK compositions stays
# under OpenBLAS's threshold for threads, which on a busy machine (a Pi between rounds, this one under load)
# spin and spend several times the CPU of one thread.
_BLOCK = 128
_CHUNK = 128  # compositions a pass: one level's arrays stay in the processor's cache


@lru_cache(maxsize=4)
def _dealer_plan(hits_soft17: bool) -> _DealerPlan:
    """The plan of the dealer's drawing under this soft-17 rule."""
    zero = (0,) * 11
    states: dict[tuple[int, ...], int] = {}
    draws: set[tuple[tuple[int, ...], int]] = set()
    finals: dict[tuple[int, ...], int] = {}  # final hand -> its total - 17
    ways: dict[tuple[tuple[int, ...], int], int] = {}  # (final hand, up card) -> orderings
    for up in range(1, 11):
        first = zero[:up] + (1,) + zero[up + 1:]
        states.setdefault(first, 0)
        frontier = {first: 1}
        while frontier:
            more_states: dict[tuple[int, ...], int] = {}
            for held, w in frontier.items():
                draws.add((held, up))
                hard = sum(v * k for v, k in enumerate(held))
                for x in range(1, 11):
                    if sum(held) == 1 and {up, x} == {1, 10}:
                        continue  # a blackjack: its chance comes from the counts directly
                    h, ace = hard + x, held[1] > 0 or x == 1
                    if h > 21:
                        continue  # bust: by complement
                    more = held[:x] + (held[x] + 1,) + held[x + 1:]
                    total = _total(h, ace)
                    if total > 17 or (total == 17 and not (hits_soft17 and ace and h == 7)):
                        finals[more] = total - 17
                        ways[(more, up)] = ways.get((more, up), 0) + w
                    else:
                        states.setdefault(more, 0)
                        more_states[more] = more_states.get(more, 0) + w
            frontier = more_states
    order = sorted(states, key=sum)
    index = {s: i for i, s in enumerate(order)}
    width = 1 + max(max(s[1:]) for s in [*order, *finals])

    def parent(held: tuple[int, ...]) -> tuple[int, int]:
        for x in range(1, 11):
            if held[x]:
                less = held[:x] + (held[x] - 1,) + held[x + 1:]
                if less in index:
                    return index[less], x * width + less[x]
        raise AssertionError(held)

    parents, factors = [], []
    for s in order:
        if sum(s) == 1:
            parents.append(-1)
            factors.append(s.index(1) * width)
        else:
            got = parent(s)
            parents.append(got[0])
            factors.append(got[1])
    sizes = [sum(s) for s in order]
    levels = tuple((size, sizes.index(size), len(sizes) - sizes[::-1].index(size)) for size in sorted(set(sizes)))
    ends = sorted(finals, key=lambda f: finals[f])
    links = [parent(f) for f in ends]
    blocks = []
    for b in range(5):
        run = [k for k, f in enumerate(ends) if finals[f] == b]
        for lo in range(run[0], run[-1] + 1, _BLOCK):
            hi = min(lo + _BLOCK, run[-1] + 1)
            matrix = np.array([[float(ways.get((ends[k], up), 0)) for k in range(lo, hi)] for up in range(1, 11)])
            blocks.append((b, lo, hi, matrix))
    drawing = np.zeros((10, len(order)))
    for held, up in draws:
        drawing[up - 1, index[held]] = 1.0
    return _DealerPlan(
        width=width, levels=levels, parents=np.array(parents, dtype=np.intp),
        factors=np.array(factors, dtype=np.intp), final_parents=np.array([p for p, _ in links], dtype=np.intp),
        final_factors=np.array([f for _, f in links], dtype=np.intp), ways=tuple(blocks), draws=drawing,
        held=np.array(sizes, dtype=np.float64))


def _dealer_outcomes(plan: _DealerPlan, shoes: NDArray[np.int64]) -> tuple[Floats, Flags]:
    """The dealer's outcome bins after each up card, (7 bins, 10 up cards, k) for each shoe (a column of 11
    counts, the up card still in it); and, (10, k), where he would need a card from an empty shoe."""
    count = shoes.shape[1]
    out = np.zeros((7, 10, count))
    short = np.zeros((10, count), dtype=np.bool_)
    shifts = np.arange(plan.width, dtype=np.float64)[None, :, None]
    deepest = plan.levels[-1][0]
    for lo in range(0, count, _CHUNK):
        c = shoes[:, lo:lo + _CHUNK].astype(np.float64)
        k = c.shape[1]
        n = c.sum(axis=0)
        factor = (c[:, None, :] - shifts).reshape(11 * plan.width, k)
        product = np.empty((len(plan.parents), k))
        for held, first, end in plan.levels:
            # Divided down to the next card's denominator; a shoe too short for it is caught below.
            below = 1.0 / np.maximum(n - held, 1.0)
            if held == 1:
                np.multiply(factor[plan.factors[first:end]], below / np.maximum(n, 1.0), out=product[first:end])
            else:
                np.multiply(product[plan.parents[first:end]], factor[plan.factors[first:end]], out=product[first:end])
                product[first:end] *= below
        ended = product[plan.final_parents]
        ended *= factor[plan.final_factors]
        bins = out[:, :, lo:lo + k]
        for b, first, end, ways in plan.ways:
            bins[b] += ways @ ended[first:end]
        up = c[1:]
        # The joint chance of the up card and the dealer's hand, over the up card's own chance.
        bins[:5] *= np.divide(n, up, out=np.zeros_like(up), where=up > 0)
        after = np.maximum(n - 1.0, 1.0)
        bins[BJ, 0] = np.where(up[0] > 0, c[10] / after, 0.0)
        bins[BJ, 9] = np.where(up[9] > 0, c[1] / after, 0.0)
        bins[BUST] = np.where(up > 0, 1.0 - bins.sum(axis=0), 0.0)
        if n.min() <= deepest:
            empty = (n[None, :] - plan.held[:, None] <= 0) & (product != 0.0)
            short[:, lo:lo + k] = (plan.draws @ empty.astype(np.float64)) > 0
    return out, short


# ---------------------------------------------------------------------------------- the hands
# What a hand's value is, for the hands that lead to it (roots: the deal decides, not a parent).
_NONE, _STAND, _HIT, _BEST, _FOLLOW = 0, 1, 2, 3, 4
_DEAL, _SPLIT_HAND = 0, 1  # the two ways a hand is settled: an original hand, a split hand


@dataclass(frozen=True)
class _Level:
    """Hands of one size (cards taken out of the shoe) whose hit or double value is needed."""

    nodes: Ints
    offset: Floats  # (len, 10): minus each card's count out of the shoe (the up card's included), beside the shoe's
    size: Floats  # cards out of the shoe, the up card included
    kids: Ints  # (len, 10): the hand each card 1..10 makes; a bust the hands' count, no such card the count + 1
    bj_rows: Ints  # rows where a bust loses only if the dealer's next card does not make a blackjack
    bj_card: Ints  # ... the card that makes it (ace up: a ten; ten up: an ace)
    bj_busts: Floats  # ... (rows, 10): 1 where the card busts the hand
    hits: Flags  # (len,): the hand's value as played is its hit
    best: Flags  # (len,): ... the better of hit and stand
    follow: Flags  # (len,): ... its hit where its ``ref``'s hit beats its ``ref``'s stand, else its stand
    ref: Ints
    original: Flags  # (len,): an original hand (a split hand's shoe running out is the split's to find)

    @classmethod
    def of(cls, nodes: Ints, children: NDArray[np.int32], rule: Ints, up: Ints, removed: NDArray[np.int8],
           no_bj_only: Flags, ref: Ints, split_hand: Flags) -> "_Level":
        """The level of ``nodes`` (indices into the hands' arrays)."""
        count = len(up)
        mine = up[nodes]
        out = removed[nodes].astype(np.float64)
        out[np.arange(len(nodes)), mine] += 1.0
        kids = children[nodes].astype(np.intp)
        bj_rows = np.flatnonzero(no_bj_only[nodes] & ((mine == 1) | (mine == 10)))
        return cls(nodes=nodes, offset=-out[:, 1:], size=out.sum(axis=1),
                   kids=np.where(kids >= 0, kids, np.where(kids == -1, count, count + 1)),
                   bj_rows=bj_rows, bj_card=np.where(mine[bj_rows] == 1, 10, 1),
                   bj_busts=(kids[bj_rows] == -1).astype(np.float64), hits=rule[nodes] == _HIT,
                   best=rule[nodes] == _BEST, follow=rule[nodes] == _FOLLOW, ref=ref[nodes],
                   original=~split_hand[nodes])


@dataclass(frozen=True)
class _Hands:
    """Every hand the player can hold in a round, for one set of rules and one way of playing."""

    up: Ints
    rule: Ints  # what the hand's value is where another hand leads to it (_STAND, _HIT, _BEST, _FOLLOW; roots _NONE)
    net_row: Ints  # row of _stand_values for the hand's total
    need_stand: Flags
    bj_weight1: Floats  # what a dealer blackjack after play takes from a one-bet hand (0: peeked or not counted)
    bj_weight2: Floats  # ... from a doubled hand
    levels: tuple[_Level, ...]  # the hands that play by their own values, most cards first; then those that follow
    doubles: _Level  # the hands that may double, and the hands they end on
    shoe_of: Ints  # column of the hand's cards out of the shoe in ``shoes``; -1 none
    shoes: NDArray[np.int64]  # (11, k): the cards out of the shoe of each column (the up card not among them)
    deal_shoe: Flags  # (10, k): a column an original hand stands on against that up card
    roots: dict[tuple[int, int, int], int]  # (up, a, b) -> the original hand a-b
    split_roots: dict[tuple[int, int, int, int], int]  # (up, pair, pair cards out beyond two, second card)
    deal_act: dict[tuple[int, int, int], Action]  # basic strategy's action on an original a-b against up
    split_act: dict[tuple[int, int, int], Action]  # ... on a split hand's first two cards (up, pair, second card)
    split_hands: dict[tuple[int, int], int]  # (up, pair) -> the most hands the box splits it into
    sevens_child: dict[int, int]  # an original 7-7 (that hits) -> the hand it makes on a third seven
    round_nodes: Ints  # the hands whose values the round reads: original and split hands' first two cards


_BITS = 5  # a hand's cards out of the shoe as one int: 5 bits per value (a hand never holds 32 of one)
_SHIFT = [_BITS * x for x in range(11)]
_MASK = (1 << _BITS) - 1


def _most_hands(house: HouseRules, pair: int) -> int:
    """The most hands a pair can become: ``max_hands``, or two for aces that may not be split again."""
    return house.max_hands if pair != 1 or house.resplit_aces else 2


class _Builder:
    """Builds ``_Hands`` by walking every line of play once (rules and play only: no card counts).

    A hand is known by its up card, its kind (original or split hand, and the pair split), its hard
    total and the cards it took out of the shoe, these packed in one int (``_BITS`` per value). A split
    hand's cards out of the shoe are its own, the pair's other card and every further pair card the
    exact value of resplits removes (0 ... 2 (most hands - 2) of them).

    Under CDP1 and CDZ- a split hand plays by the values of another hand, its ``ref``: CDP1 the same
    cards with no further pair card out (the first split hand's own best play), CDZ- the same cards as an
    original hand.
    """

    def __init__(self, rules: BlackjackTerms, play: Play, caps: tuple[int, ...]) -> None:
        self.house = HouseRules.of(rules)
        self.play = play
        self.optimal = play != "basic"
        self.strategy = strategy_for(rules)
        self.caps = caps
        self.index: dict[int, int] = {}
        self.up: list[int] = []
        self.kind: list[int] = []
        self.code: list[int] = []
        self.hard: list[int] = []
        self.need_stand: list[bool] = []
        self.need_hit: list[bool] = []
        self.need_double: list[bool] = []
        self.rule: list[int] = []
        self.ref: list[int] = []
        self.children: list[list[int] | None] = []
        self.multi: dict[tuple[int, bool, int], int] = {}  # basic strategy on 3+ cards: (hard, ace, up) -> rule
        self.roots: dict[tuple[int, int, int], int] = {}
        self.split_roots: dict[tuple[int, int, int, int], int] = {}
        self.deal_act: dict[tuple[int, int, int], Action] = {}
        self.split_act: dict[tuple[int, int, int], Action] = {}
        self.split_hands: dict[tuple[int, int], int] = {}

    def node(self, up: int, kind: int, pair: int, code: int, hard: int) -> int:
        """The index of a hand (made on first sight)."""
        key = (((code << 6 | hard) << 4 | pair) << 1 | kind) << 4 | up
        got = self.index.get(key)
        if got is None:
            got = self.index[key] = len(self.up)
            self.up.append(up)
            self.kind.append(kind * 16 + pair)
            self.code.append(code)
            self.hard.append(hard)
            self.need_stand.append(False)
            self.need_hit.append(False)
            self.need_double.append(False)
            self.rule.append(_NONE)
            self.ref.append(-1)
            self.children.append(None)
        return got

    def dealt(self, up: int, code: int, x: int) -> bool:
        """Whether a shoe of the caps holds one more x beside the up card and the cards ``code``."""
        return (code >> _SHIFT[x] & _MASK) + (x == up) < self.caps[x]

    def grow(self, i: int) -> list[int]:
        """The hands ``i`` becomes on each card 1..10 (−1: bust, −2: no such card left), made on first need."""
        got = self.children[i]
        if got is not None:
            return got
        up, kind, code, hard = self.up[i], self.kind[i], self.code[i], self.hard[i]
        kids = []
        for x in range(1, 11):
            if not self.dealt(up, code, x):
                kids.append(-2)
            elif hard + x > 21:
                kids.append(-1)
            else:
                kids.append(self.node(up, kind >> 4, kind & 15, code + (1 << _SHIFT[x]), hard + x))
        self.children[i] = kids
        return kids

    def _aces(self, i: int) -> bool:
        """Whether the hand's own cards hold an ace (every ace out of the shoe is its own, but for split aces)."""
        kind = self.kind[i]
        return kind == _SPLIT_HAND * 16 + 1 or (self.code[i] >> _SHIFT[1] & _MASK) > 0

    def hand(self, i: int) -> None:
        """A hand that has drawn at least once, playing by its own values: hit or stand from here, and below."""
        if self.rule[i] != _NONE:
            return
        up, hard, ace = self.up[i], self.hard[i], self._aces(i)
        if _total(hard, ace) == 21:
            rule = _STAND
        elif self.optimal:
            # No card busts a hard 11 or less and each raises it: a hit is worth at least standing.
            rule = _HIT if hard <= 11 and not ace else _BEST
        else:
            got = self.multi.get((hard, ace, up))
            if got is None:
                cards = [1, hard - 1, 0] if ace else [hard, 0, 0]  # the table of 3+ cards reads the total and ace
                got = self.multi[(hard, ace, up)] = _STAND if self.strategy.decide(
                    cards, up, can_double=False, can_split=False, can_surrender=False) is STAND else _HIT
            rule = got
        self.rule[i] = rule
        if rule != _HIT:
            self.need_stand[i] = True
        if rule != _STAND:
            self.hit(i)

    def follow(self, i: int, ref: int) -> None:
        """A split hand that has drawn at least once, playing as ``ref`` plays (CDP1, CDZ-)."""
        if self.rule[i] != _NONE:
            return
        self.hand(ref)
        rule = self.rule[ref] if self.rule[ref] != _BEST else _FOLLOW
        self.rule[i] = rule
        self.ref[i] = ref
        if rule != _HIT:
            self.need_stand[i] = True
        if rule != _STAND:
            self.hit(i)

    def hit(self, i: int) -> None:
        """The hand's hit value is needed: every hand it can become, played on."""
        self.need_hit[i] = True
        ref = self.ref[i]
        ref_kids = self.grow(ref) if ref >= 0 else None
        for x, kid in enumerate(self.grow(i)):
            if kid < 0:
                continue
            if ref_kids is None:
                self.hand(kid)
            else:
                self.follow(kid, ref_kids[x])

    def double(self, i: int) -> None:
        """The hand's double value is needed: it stands on each card it can draw."""
        self.need_double[i] = True
        for kid in self.grow(i):
            if kid >= 0:
                self.need_stand[kid] = True

    def deal(self, up: int, a: int, b: int) -> None:
        """The original hand a-b against ``up``: its actions and the hands they lead to (splits: ``split``)."""
        house = self.house
        i = self.roots[(up, a, b)] = self.node(up, _DEAL, 0, (1 << _SHIFT[a]) + (1 << _SHIFT[b]), a + b)
        may_double = house.may_double(a + b, a == 1)
        if self.optimal:
            self.need_stand[i] = True
            self.hit(i)
            if may_double:
                self.double(i)
            return
        pair_ok = a == b and house.max_hands >= 2 and not (house.split_by_rank and a == 10)
        act = self.deal_act[(up, a, b)] = self.strategy.decide(
            [a, b], up, can_double=may_double, can_split=pair_ok, can_surrender=house.may_surrender(up))
        if act is STAND:
            self.need_stand[i] = True
        elif act is HIT:
            self.hit(i)
        elif act is DOUBLE:
            self.double(i)

    def split(self, up: int, pair: int) -> None:
        """The split hands of ``pair`` against ``up``: each second card, with 0 ... 2 (hands - 2) more pair cards out."""
        house, strategy = self.house, self.strategy
        hands = _most_hands(house, pair)
        if not self.optimal:
            # Basic strategy's resplits depend only on the hands in the box: it resplits up to the first count
            # at which it would not (the counts beyond are never reached).
            for h in range(2, hands):
                if strategy.decide([pair, pair], up, can_double=False, can_split=True, can_surrender=False,
                                   hands_in_box=h, is_split_hand=True) is not SPLIT:
                    hands = h
                    break
        self.split_hands[(up, pair)] = hands
        for extra in range(2 * (hands - 2) + 1):
            two = (2 + extra) << _SHIFT[pair]
            if (pair == up) + 2 + extra > self.caps[pair]:
                break
            for x in range(1, 11):
                if not self.dealt(up, two, x):
                    continue
                i = self.split_roots[(up, pair, extra, x)] = self.node(
                    up, _SPLIT_HAND, pair, two + (1 << _SHIFT[x]), pair + x)
                self.need_stand[i] = True
                if pair == 1:  # split aces: one card
                    continue
                hard, ace = pair + x, x == 1
                may_double = house.das and house.may_double(hard, ace)
                if self.optimal:
                    if _total(hard, ace) < 21:
                        self.ref[i] = self._split_ref(up, pair, extra, x)
                        self.hit(i)
                    if may_double:
                        self.double(i)
                    continue
                act = self.split_act.get((up, pair, x))
                if act is None:
                    act = self.split_act[(up, pair, x)] = strategy.decide(
                        [pair, x], up, can_double=may_double, can_split=False, can_surrender=False, hands_in_box=2,
                        is_split_hand=True)
                if act is DOUBLE:
                    self.double(i)
                elif act is HIT:
                    self.hit(i)

    def _split_ref(self, up: int, pair: int, extra: int, x: int) -> int:
        """The hand a split hand's draws follow: none (its own values: CDP1's first split hand), CDP1's first
        split hand with these cards, or CDZ-'s original hand with these cards."""
        if self.play == "cdz-":
            return self.roots[(up, min(pair, x), max(pair, x))]
        return -1 if extra == 0 else self.split_roots[(up, pair, 0, x)]

    def build(self) -> _Hands:
        """Every original hand against every up card the caps can deal, every split, and all they lead to.

        Optimal play takes the same options against every up card: its hands are walked once, for
        no particular up card (``up`` 0, so a hand may hold every card of the up card's value: against
        that up card it has chance 0), and copied for each.
        """
        house = self.house
        ups = [up for up in range(1, 11) if self.caps[up]]
        for up in [0] if self.optimal else ups:
            for a in range(1, 11):
                if not self.dealt(up, 0, a):
                    continue
                for b in range(a, 11):
                    if self.dealt(up, 1 << _SHIFT[a], b) and not (a == 1 and b == 10):
                        self.deal(up, a, b)
            for pair in range(1, 11):
                if (house.max_hands >= 2 and not (house.split_by_rank and pair == 10) and (up, pair, pair) in self.roots
                        and (self.optimal or self.deal_act[(up, pair, pair)] is SPLIT)):
                    self.split(up, pair)
        return self.arrays(ups if self.optimal else [])

    def arrays(self, copies: list[int]) -> _Hands:
        """The hands as arrays, for evaluating all of them at once; with ``copies``, the walk's hands
        (made for up card 0) once for each of these up cards."""
        house = self.house
        count = len(self.up)
        up = np.array(self.up, dtype=np.intp)
        code = np.array(self.code, dtype=np.int64)
        hard = np.array(self.hard, dtype=np.intp)
        kind = np.array(self.kind, dtype=np.intp) >> 4
        need_stand = np.array(self.need_stand, dtype=np.bool_)
        need_hit = np.array(self.need_hit, dtype=np.bool_)
        need_double = np.array(self.need_double, dtype=np.bool_)
        rule = np.array(self.rule, dtype=np.intp)
        ref = np.array(self.ref, dtype=np.intp)
        aces = np.array([self._aces(i) for i in range(count)], dtype=np.bool_)
        blank = [-2] * 10
        children = np.array([k if k is not None else blank for k in self.children],
                            dtype=np.int32).reshape(count, 10)
        roots, split_roots = self.roots, self.split_roots
        sevens_child = {i: kids[6] for (u, a, b), i in roots.items() if a == b == 7 and (kids := self.children[i])}
        split_hands = self.split_hands
        if copies:
            up = np.repeat(np.array(copies, dtype=np.intp), count)
            times = len(copies)
            code, hard, kind, rule = np.tile(code, times), np.tile(hard, times), np.tile(kind, times), np.tile(rule, times)
            need_stand, need_hit = np.tile(need_stand, times), np.tile(need_hit, times)
            need_double, aces = np.tile(need_double, times), np.tile(aces, times)
            ref = np.concatenate([np.where(ref >= 0, ref + k * count, ref) for k in range(times)])
            children = np.concatenate([np.where(children >= 0, children + k * count, children)
                                       for k in range(times)]).astype(np.int32)
            roots = {(u, a, b): i + k * count for k, u in enumerate(copies) for (_, a, b), i in self.roots.items()}
            split_roots = {(u, pair, extra, x): i + k * count for k, u in enumerate(copies)
                           for (_, pair, extra, x), i in self.split_roots.items()}
            sevens_child = {i + k * count: j + k * count for k in range(times) for i, j in sevens_child.items()}
            split_hands = {(u, pair): h for u in copies for (_, pair), h in self.split_hands.items()}
            count *= times
        removed = ((code[:, None] >> np.array(_SHIFT, dtype=np.int64)[None, :]) & _MASK).astype(np.int8)
        removed[:, 0] = 0
        soft = aces & (hard <= 11)
        net_row = np.maximum(np.where(soft, hard + 10, hard) - 16, 0).astype(np.intp)
        peeked = np.array([u in house.peek_ups for u in range(11)])
        stake_loss = np.array([house.blackjack_loss(u) is BlackjackLoss.STAKE for u in range(11)])
        split_hand = kind == _SPLIT_HAND
        # As strategy_edge settles a hand: an original hand where the dealer peeked, and a split hand unless a
        # later blackjack takes every stake (then the box's one bet is charged at the split), are valued on the
        # dealer's outcomes without a blackjack only.
        no_bj_only = peeked[up] | (split_hand & ~stake_loss[up])
        counted = (~no_bj_only).astype(np.float64)
        levels = []
        for group in (need_hit & ~(ref >= 0), need_hit & (ref >= 0)):
            for s in sorted(set(removed[group].sum(axis=1).tolist()), reverse=True):
                nodes = np.flatnonzero(group & (removed.sum(axis=1) == s))
                levels.append(_Level.of(nodes, children, rule, up, removed, no_bj_only, ref, split_hand))
        doubling = np.flatnonzero(need_double)
        distinct, shoe_of_standing = np.unique(code[need_stand], return_inverse=True)
        shoe_of = np.full(count, -1, dtype=np.intp)
        shoe_of[need_stand] = shoe_of_standing.reshape(-1)
        shoes = (distinct[None, :] >> np.array(_SHIFT, dtype=np.int64)[:, None]) & _MASK
        shoes[0] = 0
        deal_shoe = np.zeros((10, len(distinct)), dtype=np.bool_)
        original = need_stand & ~split_hand
        deal_shoe[up[original] - 1, shoe_of[original]] = True
        return _Hands(
            up=up, rule=rule, net_row=net_row, need_stand=need_stand, bj_weight1=counted,
            bj_weight2=counted * np.where(split_hand | stake_loss[up], 2.0, 1.0), levels=tuple(levels),
            doubles=_Level.of(doubling, children, rule, up, removed, no_bj_only, ref, split_hand), shoe_of=shoe_of,
            shoes=np.ascontiguousarray(shoes), deal_shoe=deal_shoe, roots=roots, split_roots=split_roots,
            deal_act=self.deal_act, split_act=self.split_act, split_hands=split_hands, sevens_child=sevens_child,
            round_nodes=np.array(sorted({*roots.values(), *split_roots.values(), *sevens_child.values()}),
                                 dtype=np.intp))


@lru_cache(maxsize=4)
def _hands(rules: BlackjackTerms, play: Play, caps: tuple[int, ...]) -> _Hands:
    """The hands of a round for these rules and play, in shoes of at most ``caps`` cards of each value."""
    return _Builder(rules, play, caps).build()


# ---------------------------------------------------------------------------------- the values
@dataclass(frozen=True)
class _Values:
    """Each hand's values in one composition: standing (one bet), hitting, doubling, and as played."""

    stand: Floats
    hit: Floats
    double: Floats
    played: Floats


def _stand_values(bins: Floats) -> Floats:
    """Net result of standing on 16 or less, 17, ..., 21 (rows) against the dealer's bins, no blackjack counted."""
    below = np.cumsum(bins[:5], axis=0)  # the dealer's 17..t
    made = below[4]
    net = np.empty((6,) + bins.shape[1:])
    net[0] = bins[BUST] - made
    net[1] = bins[BUST] - (made - below[0])
    # Standing on 17 + i: win where he ends below it or busts, lose where he ends above it.
    net[2:] = below[:4] + below[1:] + bins[BUST] - made
    return net


def _values(hands: _Hands, shoe: list[int], hits_soft17: bool) -> _Values:
    """Every hand's values drawing from ``shoe`` (index 0 unused): the dealer, then hands by size."""
    count = len(hands.up)
    base = np.array(shoe, dtype=np.int64)
    total = float(base.sum())
    shoes = base[:, None] - hands.shoes
    dealt = (shoes >= 0).all(axis=0)  # a composition this shoe cannot make has chance 0
    bins = np.zeros((7, 10, shoes.shape[1]))
    short = np.zeros((10, shoes.shape[1]), dtype=np.bool_)
    if dealt.all():
        bins, short = _dealer_outcomes(_dealer_plan(hits_soft17), shoes)
    elif dealt.any():
        bins[:, :, dealt], short[:, dealt] = _dealer_outcomes(_dealer_plan(hits_soft17), shoes[:, dealt])
    if (short & hands.deal_shoe).any():
        raise ShoeError("the shoe runs out before the dealer's hand is complete")
    net = _stand_values(bins)  # (6 rows, 10 up cards, k)
    # Each hand's values, with two more places: a bust (-1, -2 doubled) and no such card (0).
    stand = np.zeros(count + 2)
    stand2 = np.zeros(count + 2)
    stand[count], stand2[count] = -1.0, -2.0
    standing = np.flatnonzero(hands.need_stand)
    column = hands.shoe_of[standing]
    ups = hands.up[standing] - 1
    mine = net[hands.net_row[standing], ups, column]
    bj = bins[BJ, ups, column]
    stand[standing] = mine - bj * hands.bj_weight1[standing]
    stand2[standing] = 2.0 * mine - bj * hands.bj_weight2[standing]
    fresh = base[1:].astype(np.float64)

    def chances(level: _Level) -> tuple[Floats, Floats | None]:
        # Each card's chance; and for the rows where only no-blackjack outcomes count, the chance of each
        # busting card times the chance that the dealer's next card then makes a blackjack (the bust not lost).
        left = fresh + level.offset
        n = total - level.size
        if (n <= 0).any() and ((left >= 0).all(axis=1) & (n <= 0) & level.original).any():
            raise ShoeError("the shoe runs out before the player's hand is complete")
        # A hand this shoe cannot deal gets nonsense values, always weighted by a chance of 0.
        chance = left / np.maximum(n, 1.0)[:, None]
        if not len(level.bj_rows):
            return chance, None
        rows = level.bj_rows
        after = np.maximum(n[rows] - 1.0, 1.0)
        card = level.bj_card
        bj_left = left[rows, card - 1][:, None] - (np.arange(1, 11) == card[:, None])
        return chance, chance[rows] * level.bj_busts * (bj_left / after[:, None])

    played = np.where(hands.rule == _STAND, stand[:count], 0.0)  # hands that stand need no hit
    played = np.concatenate([played, [-1.0, 0.0]])
    hit = np.zeros(count)
    for level in hands.levels:
        chance, kept = chances(level)
        value = np.einsum("ij,ij->i", chance, played[level.kids])
        if kept is not None:
            value[level.bj_rows] += kept.sum(axis=1)
        hit[level.nodes] = value
        mine = stand[level.nodes]
        chosen = np.where(level.hits, value, np.where(level.best, np.maximum(mine, value), mine))
        if level.follow.any():
            refs = np.maximum(level.ref, 0)
            chosen = np.where(level.follow & (hit[refs] > stand[refs]), value, chosen)
        played[level.nodes] = chosen
    double = np.zeros(count)
    if len(hands.doubles.nodes):
        chance, kept = chances(hands.doubles)
        value = np.einsum("ij,ij->i", chance, stand2[hands.doubles.kids])
        if kept is not None:
            value[hands.doubles.bj_rows] += 2.0 * kept.sum(axis=1)
        double[hands.doubles.nodes] = value
    return _Values(stand[:count], hit, double, played[:count])


# ---------------------------------------------------------------------------------- the round
@dataclass(frozen=True)
class ExactResult:
    """The expectation of the next round per unit of initial bet, and each up card's share of it."""

    rules_name: str
    play: Play
    ev: float
    by_up: dict[int, float] = field(default_factory=dict)

    @property
    def house_edge(self) -> float:
        """The house's edge as a fraction of the initial bet (positive favours the house)."""
        return -self.ev


def _bj_chance(c: Sequence[int], n: int, up: int) -> float:
    """The chance the dealer's next card makes a blackjack."""
    if up == 1:
        return c[10] / n
    if up == 10:
        return c[1] / n
    return 0.0


def _best(options: list[tuple[Action, float]]) -> Action:
    """The first option (stand, hit, double) no later one beats: a tie stands, as Farmer's engine chooses."""
    act, value = options[0]
    for other, more in options[1:]:
        if more > value:
            act, value = other, more
    return act


class _Round:
    """The initial deals of one composition, from the values of every hand."""

    def __init__(self, rules: BlackjackTerms, play: Play, hands: _Hands, values: _Values) -> None:
        self.house = house = HouseRules.of(rules)
        self.play = play
        self.optimal = play != "basic"
        self.hands = hands
        self.sevens = [0.0] + [house.sevens_bonus(up) for up in range(1, 11)]
        self.surrender = [False] + [house.may_surrender(up) for up in range(1, 11)]
        # The few values the round reads (original and split hands' first two cards), as Python floats.
        read = hands.round_nodes
        nodes: list[int] = read.tolist()
        self.stand: dict[int, float] = dict(zip(nodes, values.stand[read].tolist()))
        self.hit_of: dict[int, float] = dict(zip(nodes, values.hit[read].tolist()))
        self.double: dict[int, float] = dict(zip(nodes, values.double[read].tolist()))
        self.played: dict[int, float] = dict(zip(nodes, values.played[read].tolist()))

    def split_action(self, rest: list[int], n: int, up: int, pair: int, x: int, peeked: bool) -> Action:
        """How a split hand plays its first two cards (``pair`` and ``x``), whatever the pair cards out."""
        hard, ace = pair + x, x == 1
        if self.play == "basic":
            return self.hands.split_act[(up, pair, x)]
        may_double = self.house.das and self.house.may_double(hard, ace)
        if self.play == "cdz-":  # the play of an original hand of these two cards (ten-ace: a blackjack, stands)
            if _total(hard, ace) == 21:
                return STAND
            i = self.hands.roots[(up, min(pair, x), max(pair, x))]
            hit = self.hit(rest, n, up, pair, x, i, peeked) if pair == x else self.hit_of[i]
        else:  # CDP1: the first split hand's best, no further pair card out
            i = self.hands.split_roots[(up, pair, 0, x)]
            hit = self.hit_of[i]
        # A 21 never gains by a hit; doubling it can (split tens drawing an ace, tens rich, a weak up card).
        options = [(STAND, self.stand[i])] if _total(hard, ace) == 21 else [(STAND, self.stand[i]), (HIT, hit)]
        if may_double:
            options.append((DOUBLE, self.double[i]))
        return _best(options)

    def split(self, rest: list[int], n: int, up: int, pair: int, peeked: bool) -> float:
        """Value of splitting ``pair`` on an original hand; ``rest`` (n cards) excludes the pair and the up card.

        Exact with resplits (Farmer's method): by linearity the split is the sum of its hands' values; a
        hand's value depends on the other hands only through the cards they took, and a card taken out
        unseen changes no expectation, so each hand is valued with the pair cards known to be out
        (``extra`` beyond the two) and the other hands' non-pair second cards (``unknown``) removed by
        the recursion of ``_split_value``; the box's structure (how many hands, in what order their
        second cards came) is summed exactly over the draws of pair and non-pair cards.
        """
        house = self.house
        most = self.hands.split_hands[(up, pair)]
        if _may_run_out(rest, n, up, pair, most):
            raise ShoeError(f"the shoe ({n} cards after the deal) could run out in a split of {pair}s against "
                            f"{up}")
        pairs = rest[pair]
        acts: dict[int, Action] = {}
        anything, paired = [], []
        for extra in range(2 * (most - 2) + 1):
            if extra > pairs:  # more pair cards than the shoe holds: chance 0
                anything.append(0.0)
                paired.append(0.0)
                continue
            left = n - extra
            mix = pair_value = 0.0
            for x in range(1, 11):
                k = rest[x] - (extra if x == pair else 0)
                if k <= 0:
                    continue
                i = self.hands.split_roots[(up, pair, extra, x)]
                if pair == 1:  # split aces: one card
                    value = self.stand[i]
                else:
                    act = acts.get(x)
                    if act is None:
                        act = acts[x] = self.split_action(rest, n, up, pair, x, peeked)
                    value = self.double[i] if act is DOUBLE else self.hit_of[i] if act is HIT else self.stand[i]
                mix += k / left * value
                if x == pair:
                    pair_value = value
            anything.append(mix)
            paired.append(pair_value)
        ev = _split_value(most, n, pairs, anything, paired)
        if not peeked and house.blackjack_loss(up) is BlackjackLoss.ORIGINAL:
            ev -= _bj_chance(rest, n, up)  # the box's one bet
        return ev

    def deal(self, rest: list[int], n: int, up: int, a: int, b: int) -> float:
        """Expectation of an original hand a-b against ``up``; ``rest`` (n cards) is the shoe without them."""
        house = self.house
        p_bj = _bj_chance(rest, n, up)
        if a + b == 11 and (a == 1 or b == 1):
            return house.bj_pays * (1.0 - p_bj)
        peeked = up in house.peek_ups
        top = -p_bj if peeked else 0.0
        i = self.hands.roots[(up, a, b)]
        surrender = -0.5 * (1.0 - p_bj) if peeked else -0.5
        if self.optimal:
            best = max(self.stand[i], self.hit(rest, n, up, a, b, i, peeked))
            if house.may_double(a + b, a == 1):
                best = max(best, self.double[i])
            if a == b and (up, a) in self.hands.split_hands:
                best = max(best, self.split(rest, n, up, a, peeked))
            if self.surrender[up]:
                best = max(best, surrender)
            return top + best
        act = self.hands.deal_act[(up, a, b)]
        if act is SURRENDER:
            return top + surrender
        if act is STAND:
            return top + self.stand[i]
        if act is DOUBLE:
            return top + self.double[i]
        if act is SPLIT:
            return top + self.split(rest, n, up, a, peeked)
        assert act is HIT
        return top + self.hit(rest, n, up, a, b, i, peeked)

    def hit(self, rest: list[int], n: int, up: int, a: int, b: int, i: int, peeked: bool) -> float:
        """An original hand's hit value; a 7-7 drawing a seven is paid the three-sevens bonus at once."""
        value = self.hit_of[i]
        if not (self.house.three_sevens and a == b == 7 and rest[7]):
            return value
        p = rest[7] / n
        seven = self.hands.sevens_child[i]
        rest[7] -= 1
        paid = self.sevens[up] * ((1.0 - _bj_chance(rest, n - 1, up)) if peeked else 1.0)
        rest[7] += 1
        return value + p * (paid - self.played[seven])


def _split_value(most: int, n: int, pairs: int, anything: list[float], paired: list[float]) -> float:
    """The sum of a split's hands' values, splitting to ``most`` hands.

    ``n``: cards left after the deal, ``pairs`` of them the pair's value; ``anything[a]``: a split
    hand's value over every second card, ``a`` further pair cards known out; ``paired[a]``: its value
    when that card pairs it and it plays on unsplit (the box is full).

    A hand's value with ``b`` other hands' non-pair second cards out unseen follows from one card
    fewer unseen: that card was a pair card with chance w, so V(a, b - 1) = w V(a + 1, b - 1) +
    (1 - w) V(a, b). A hand whose own second card is known not to pair (it ended the splitting)
    sees that card out too.
    """
    memo: dict[tuple[int, int, int], float] = {}

    def value(a: int, b: int, own: int) -> float:
        # own = 1: the hand's second card is known not to pair (N); 0: any card (X)
        got = memo.get((a, b, own))
        if got is not None:
            return got
        left = n - a - b - own + 1 if b else n - a
        w = (pairs - a) / left if left > 0 else 1.0
        if b == 0:
            got = anything[a] if not own else ((anything[a] - w * paired[a]) / (1.0 - w) if w < 1.0 else 0.0)
        elif w <= 0.0:
            got = value(a, b - 1, own)
        elif w >= 1.0:
            got = 0.0  # no card that is not the pair's is left: chance 0
        else:
            got = (value(a, b - 1, own) - w * value(a + 1, b - 1, own)) / (1.0 - w)
        memo[(a, b, own)] = got
        return got

    ev = 0.0
    box: dict[tuple[int, int], float] = {(0, 0): 1.0}  # (pair cards drawn, hands done) -> chance
    for step in range(2 * most):
        ahead: dict[tuple[int, int], float] = {}
        for (a, done), chance in box.items():
            hands = 2 + a
            if hands == most:  # the box is full: the hands still to draw take any card
                ev += chance * ((done * value(a, done - 1, 1) if done else 0.0) + (most - done) * value(a, done, 0))
                continue
            if done == hands:  # every hand ended on a card that does not pair it
                ev += chance * hands * value(a, hands - 1, 1)
                continue
            left = n - a - done
            q = (pairs - a) / left if left > 0 else 0.0
            if q > 0.0:
                ahead[(a + 1, done)] = ahead.get((a + 1, done), 0.0) + chance * q
            if q < 1.0:
                ahead[(a, done + 1)] = ahead.get((a, done + 1), 0.0) + chance * (1.0 - q)
        box = ahead
        if not box:
            break
    return ev


def _may_run_out(rest: list[int], n: int, up: int, pair: int, most: int) -> bool:
    """Whether a split of ``pair`` to ``most`` hands could need a card the shoe (``rest``, n cards) no longer has.

    Before its last card a hand holds at most 20 (it draws only below 21) and the dealer at most 16, so
    the cards that are not a hand's or the dealer's last, nor a pair card that began a hand, sum to at
    most most · (20 − pair) + 16 − up (split aces take one card each: none of theirs). A shoe that runs
    out has used all n cards and holds more than that many of those: it is refused when n ≤ (2 most − 1)
    + the most cards of ``rest`` that fit that sum. Conservative: a shoe it refuses may not run out.
    """
    budget = (0 if pair == 1 else most * (20 - pair)) + 16 - up
    fit = 0
    for x in range(1, 11):
        take = min(rest[x], budget // x)
        fit += take
        budget -= take * x
        if take < rest[x]:
            break
    return n <= 2 * most - 1 + fit


def _counts(counts: Sequence[int]) -> list[int]:
    if len(counts) != 10:
        raise ShoeError(f"a composition is 10 counts (aces, twos ... nines, tens), got {len(counts)}")
    if any(not isinstance(k, int) or k < 0 for k in counts):
        raise ShoeError(f"card counts must be whole numbers of 0 or more, got {list(counts)}")
    if sum(counts) < 4:
        raise ShoeError(f"a round needs at least 4 cards, the shoe holds {sum(counts)}")
    return [0, *counts]


def play_of(play: str) -> Play:
    """The canonical name of a way of playing: ``optimal`` is CDP1."""
    if play == "optimal":
        return "cdp1"
    if play not in PLAYS:
        raise ValueError(f"play is one of {', '.join(PLAYS)} (optimal: cdp1), got {play!r}")
    return play


def analyse(rules: BlackjackTerms, counts: Sequence[int], play: Play = "basic") -> ExactResult:
    """The exact expectation of the next round drawn from ``counts`` (aces first, tens last).

    ``play``: ``"basic"`` (the profile's basic strategy), ``"cdp1"`` (composition-dependent optimal
    play, a split hand playing the first split hand's best; also ``"optimal"``) or ``"cdz-"`` (the
    same, a split hand playing as the same cards unsplit). Raises ShoeError for a composition that
    cannot be played out, or one where a round could run out of cards. The first composition for a
    set of rules and a play also builds their hands (cached, 4 at a time).
    """
    play = play_of(play)
    shoe = _counts(counts)
    # Hands for the most cards of each value a shoe of the profile holds (or these counts, if more): every
    # depleted shoe of the profile uses the same hands, those it cannot deal having chance 0.
    caps = tuple(max(k, full) for k, full in zip(shoe, (0, *full_shoe(rules.decks))))
    hands = _hands(rules, play, caps)
    run = _Round(rules, play, hands, _values(hands, shoe, rules.dealer_hits_soft17))
    total = sum(shoe)
    by_up: dict[int, float] = {}
    for up in range(1, 11):
        if not shoe[up]:
            continue
        p_up = shoe[up] / total
        rest = shoe.copy()
        rest[up] -= 1
        n = total - 1
        ev_up = 0.0
        for a in range(1, 11):
            for b in range(a, 11):
                if a == b:
                    p = rest[a] * (rest[a] - 1) / (n * (n - 1))
                else:
                    p = 2 * rest[a] * rest[b] / (n * (n - 1))
                if p <= 0:
                    continue
                rest[a] -= 1
                rest[b] -= 1
                ev_up += p * run.deal(rest, n - 2, up, a, b)
                rest[a] += 1
                rest[b] += 1
        by_up[up] = p_up * ev_up
    return ExactResult(rules.name, play, sum(by_up.values()), by_up)
