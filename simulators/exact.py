"""Exact expectation of the next blackjack round for any shoe composition.

``analyse(rules, counts, play)`` returns the player's expectation per initial bet of one box
playing the next round from a shoe holding exactly ``counts`` (cards by value, aces first, tens
last), under either

* ``play="basic"``: the project's own basic strategy for the profile
  (``simulators.strategy.BasicStrategy.decide``, the tables the simulator plays), or
* ``play="optimal"``: composition-dependent optimal play: every stand / hit / double / split /
  surrender decision is taken on the exact cards left in the shoe at that moment (hit or stand
  on every card; the split hands' plays chosen the same way, each on its own cards).

Every rule of blackjack's options (``simulators.blackjack_terms.BlackjackTerms``) that changes the expectation is followed: the
dealer's soft 17, peek (ace, or ace and ten) or no hole card with a blackjack made after play
taking every stake (``dealer_bj_takes = all``) or the one original bet (``original``), the
double rules, double after split, splits to ``max_hands`` with or without resplitting aces,
pairs by value or rank, split aces one card, every surrender rule (a surrendered hand keeps half
whatever the dealer then makes; early surrender not against an ace for ``early_vs_2_10``), the
blackjack payout and the three-sevens bonus (paid at once on an original 7-7 drawing a seven,
with the suited odds of a full shoe of the profile's decks: the counts do not say suits).
Insurance and even money are never taken. The figures equal
``simulators.strategy_edge.house_edge`` off the top (the pinned figures in docs/house-edge.md).

Exact means: every initial deal with its exact probability from ``counts``, the player's draws
depleting the shoe card by card, the dealer's outcome drawn from the shoe left after the
player's hand, his own draws depleting it too, and a peek conditioned exactly on "no blackjack".

The one approximation: splits
------------------------------
As in the published combinatorial analysers that compute a split in closed form (the Wizard of
Odds' calculator; Eric Farmer's analyser in its fast mode), each split hand is played as if it
were the first: it sees the shoe less the pair and the up card (the other split hands' cards
are not removed), and the number of hands the pair becomes comes from the pair card's share of
that shoe (a small recursion over resplits to ``max_hands``). The value of a split is then
``E[hands ending on a non-pair card] * V(non-pair) + E[hands left as an unsplit pair] * V(pair)``.
Farmer's exact mode removes the other hands' cards too (for a post-split strategy that looks
only at the hand's own cards); the two differ by a few 0.001 % of the edge with resplits to four
in six decks (0.40675 % here against the Wizard's 0.40622 %), 0.00001 % with one split
in eight decks. With no split (``max_hands = 1``) the figure is exact.

How it is fast
--------------
The work is split in two: what depends only on the rules and the play, built once and cached,
and what depends on the cards, computed for all of a round's hands at once with numpy.

* **The hands** (``_hands``, cached per rules, play and the most cards of each value a shoe of
  the profile holds): every hand the player can hold against every up card, as the cards it
  took out of the shoe, with what the play does there (basic strategy's action, or every option
  for optimal play) and which hands it leads to. A depleted shoe uses the same hands: one it
  cannot deal has probability zero.
* **The dealer** (``_dealer_plan``, cached per soft-17 rule): each up card's drawing, as the
  multisets of cards he can hold. The chance of a multiset drawn from a shoe ``c`` of ``n``
  cards is (its orderings) × ∏ c_x (c_x − 1) … / (n (n − 1) …), so each state is one multiply
  of its parent state's product, the orderings are counted once in the plan, and the outcome
  bins are sums over the final multisets. This runs for every composition the player can stand
  on (thousands per up card) at once, as arrays of compositions.
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

Play = Literal["basic", "optimal"]
PLAYS: tuple[Play, ...] = ("basic", "optimal")

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
class _DealerStep:
    """The dealer's states and final hands with ``level`` cards drawn, each from a parent one card short.

    A state or final hand's product is its parent's times ``c_x - j`` (x the card added, j how many
    x the parent holds), ``factor`` indexing the table of those by ``x * width + j``.
    """

    level: int
    states: Ints
    parents: Ints
    factors: Ints
    end_parents: Ints
    end_factors: Ints
    end_ways: Floats  # orderings of each final hand that the dealer actually draws (a column)
    end_starts: Ints  # final hands sorted by outcome bin: where each bin's run starts
    end_bins: Ints


@dataclass(frozen=True)
class _DealerPlan:
    """One up card's drawing: states (multisets of drawn cards, 0 = none yet), level by level."""

    states: int
    width: int
    steps: tuple[_DealerStep, ...]


@lru_cache(maxsize=4)
def _dealer_plan(hits_soft17: bool) -> tuple[_DealerPlan, ...]:
    """Each up card's plan (index 0 unused)."""
    plans = [_DealerPlan(0, 0, ())]
    for up in range(1, 11):
        zero = (0,) * 11
        index: dict[tuple[int, ...], int] = {zero: 0}
        states: list[tuple[tuple[int, ...], int, bool]] = [(zero, up, up == 1)]
        ways = [1]
        first: list[tuple[int, int, int]] = [(0, 0, 0)]  # (parent, x, j) that first reached each state
        finals: dict[tuple[int, ...], list[int]] = {}  # multiset -> [bin, ways, parent, x, j]
        i = 0
        while i < len(states):
            drawn, hard, ace = states[i]
            for x in range(1, 11):
                more = drawn[:x] + (drawn[x] + 1,) + drawn[x + 1:]
                if i == 0 and ((up == 1 and x == 10) or (up == 10 and x == 1)):
                    finals[more] = [BJ, 1, 0, x, 0]
                    continue
                h, a = hard + x, ace or x == 1
                if h > 21:
                    continue  # bust: by complement
                total = _total(h, a)
                if total > 17 or (total == 17 and not (hits_soft17 and a and h == 7)):
                    got = finals.get(more)
                    if got is None:
                        finals[more] = [total - 17, ways[i], i, x, drawn[x]]
                    else:
                        got[1] += ways[i]
                    continue
                j = index.get(more)
                if j is None:
                    j = index[more] = len(states)
                    states.append((more, h, a))
                    ways.append(0)
                    first.append((i, x, drawn[x]))
                ways[j] += ways[i]  # states are visited level by level: a state's ways are complete when visited
            i += 1
        width = 1 + max(max(d[1:]) for d in [s[0] for s in states] + list(finals))
        by_level: dict[int, list[int]] = {}
        for s in range(1, len(states)):
            by_level.setdefault(sum(states[s][0]), []).append(s)
        ends_by_level: dict[int, list[tuple[tuple[int, ...], list[int]]]] = {}
        for drawn, end in finals.items():
            ends_by_level.setdefault(sum(drawn), []).append((drawn, end))
        steps = []
        for level in range(1, max(max(by_level, default=0), max(ends_by_level)) + 1):
            ids = by_level.get(level, [])
            ends = sorted(ends_by_level.get(level, []), key=lambda e: e[1][0])
            bins = [e[1][0] for e in ends]
            starts = [k for k in range(len(bins)) if k == 0 or bins[k] != bins[k - 1]]
            steps.append(_DealerStep(
                level=level,
                states=np.array(ids, dtype=np.intp),
                parents=np.array([first[s][0] for s in ids], dtype=np.intp),
                factors=np.array([first[s][1] * width + first[s][2] for s in ids], dtype=np.intp),
                end_parents=np.array([e[1][2] for e in ends], dtype=np.intp),
                end_factors=np.array([e[1][3] * width + e[1][4] for e in ends], dtype=np.intp),
                end_ways=np.array([float(e[1][1]) for e in ends]).reshape(-1, 1),
                end_starts=np.array(starts, dtype=np.intp),
                end_bins=np.array([bins[k] for k in starts], dtype=np.intp),
            ))
        plans.append(_DealerPlan(len(states), width, tuple(steps)))
    return tuple(plans)


_CHUNK = 512  # compositions a pass: the arrays of one level stay in the processor's cache


def _dealer_outcomes(plan: _DealerPlan, shoes: NDArray[np.int64]) -> Floats:
    """The dealer's outcome bins (7 rows) for each shoe (a column of 11 counts) he draws from."""
    count = shoes.shape[1]
    out = np.zeros((7, count))
    shifts = np.arange(plan.width, dtype=np.float64)[None, :, None]
    for lo in range(0, count, _CHUNK):
        c = shoes[:, lo:lo + _CHUNK].astype(np.float64)
        n = c.sum(axis=0)
        # c_x - j for every card x and every count j already drawn, one row each.
        factor = (c[:, None, :] - shifts).reshape(11 * plan.width, c.shape[1])
        product = np.empty((plan.states, c.shape[1]))
        product[0] = 1.0
        if (n <= 0).any():
            raise ShoeError("the shoe runs out before the dealer's hand is complete")
        bins = out[:, lo:lo + _CHUNK]
        falling = np.ones(c.shape[1])  # n (n - 1) ... over the cards drawn so far
        for step in plan.steps:
            falling *= np.maximum(n - (step.level - 1), 1.0)
            if len(step.states):
                grown = factor[step.factors]
                grown *= product[step.parents]
                product[step.states] = grown
                short = n <= step.level
                if short.any() and (grown[:, short] != 0.0).any():
                    raise ShoeError("the shoe runs out before the dealer's hand is complete")
            if len(step.end_parents):
                ended = factor[step.end_factors]
                ended *= product[step.end_parents]
                ended *= step.end_ways
                bins[step.end_bins] += np.add.reduceat(ended, step.end_starts, axis=0) / falling
        # Every path ends in one bin: the bust takes what the others leave.
        bins[BUST] = 1.0 - bins.sum(axis=0)
    return out


# ---------------------------------------------------------------------------------- the hands
# What a hand's value is, for the hands that lead to it (roots: the deal decides, not a parent).
_NONE, _STAND, _HIT, _BEST = 0, 1, 2, 3
_DEAL, _SPLIT_HAND = 0, 1  # the two ways a hand is settled: an original hand, a split hand


@dataclass(frozen=True)
class _Level:
    """The hands of one size (cards taken out of the shoe) whose hit or double value is needed."""

    nodes: Ints
    up: Ints
    removed: NDArray[np.int8]  # (len, 11)
    size: Ints
    kids: NDArray[np.int32]  # (len, 10): the hand each card 1..10 makes; -1: it busts; -2: the shoe has no such card
    bj_bust: Flags  # (len,): a bust loses only where the dealer's next card does not make a blackjack
    hits: Flags  # (len,): the hand's value as played is its hit
    best: Flags  # (len,): ... the better of hit and stand (else: its stand, or none for a root)

    @classmethod
    def of(cls, nodes: Ints, children: NDArray[np.int32], rule: Ints, up: Ints, removed: NDArray[np.int8],
           size: Ints, no_bj_only: Flags) -> "_Level":
        """The level of ``nodes`` (indices into the hands' arrays)."""
        mine = up[nodes]
        return cls(nodes=nodes, up=mine, removed=removed[nodes], size=size[nodes], kids=children[nodes],
                   bj_bust=no_bj_only[nodes] & ((mine == 1) | (mine == 10)), hits=rule[nodes] == _HIT,
                   best=rule[nodes] == _BEST)


@dataclass(frozen=True)
class _Hands:
    """Every hand the player can hold in a round, for one set of rules and one way of playing."""

    up: Ints
    net_row: Ints  # row of _stand_values for the hand's total
    rule: Ints  # what the hand's value is where another hand leads to it (_STAND, _HIT, _BEST; roots _NONE)
    need_stand: Flags
    bj_weight1: Floats  # what a dealer blackjack after play takes from a one-bet hand (0: peeked or not counted)
    bj_weight2: Floats  # ... from a doubled hand
    levels: tuple[_Level, ...]  # most cards first
    doubles: _Level  # the hands that may double, and the hands they end on
    shoe_of: Ints  # column of the hand's composition in the dealer's outcomes (all up cards in turn); -1 none
    shoes: tuple[NDArray[np.int64], ...]  # per up card: (11, k) the cards out of the shoe of each composition
    roots: dict[tuple[int, int, int], int]  # (up, a, b) -> the original hand a-b
    split_roots: dict[tuple[int, int, int], int]  # (up, pair, second card) -> the split hand
    deal_act: dict[tuple[int, int, int], Action]  # basic strategy's action on an original a-b against up
    split_act: dict[tuple[int, int, int], Action]  # ... on a split hand's first two cards (up, pair, second card)
    resplit_at: dict[tuple[int, int], frozenset[int]]  # basic strategy: hands in the box at which a pair resplits
    sevens_child: dict[int, int]  # an original 7-7 (that hits) -> the hand it makes on a third seven


_BITS = 5  # a hand's cards out of the shoe as one int: 5 bits per value (a hand never holds 32 of one)
_SHIFT = [_BITS * x for x in range(11)]
_MASK = (1 << _BITS) - 1


class _Builder:
    """Builds ``_Hands`` by walking every line of play once (rules and play only: no card counts).

    A hand is known by its up card, its kind (original or split hand), its hard total and the
    cards it took out of the shoe, these packed in one int (``_BITS`` per value).
    """

    def __init__(self, rules: BlackjackTerms, play: Play, caps: tuple[int, ...]) -> None:
        self.house = HouseRules.of(rules)
        self.optimal = play == "optimal"
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
        self.children: list[list[int] | None] = []
        self.multi: dict[tuple[int, bool, int], int] = {}  # basic strategy on 3+ cards: (hard, ace, up) -> rule
        self.roots: dict[tuple[int, int, int], int] = {}
        self.split_roots: dict[tuple[int, int, int], int] = {}
        self.deal_act: dict[tuple[int, int, int], Action] = {}
        self.split_act: dict[tuple[int, int, int], Action] = {}
        self.resplit_at: dict[tuple[int, int], frozenset[int]] = {}

    def node(self, up: int, kind: int, code: int, hard: int) -> int:
        """The index of a hand (made on first sight)."""
        key = ((code << 6 | hard) << 1 | kind) << 4 | up
        got = self.index.get(key)
        if got is None:
            got = self.index[key] = len(self.up)
            self.up.append(up)
            self.kind.append(kind)
            self.code.append(code)
            self.hard.append(hard)
            self.need_stand.append(False)
            self.need_hit.append(False)
            self.need_double.append(False)
            self.rule.append(_NONE)
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
        caps = self.caps
        index = self.index
        kids = []
        for x in range(1, 11):
            shift = _SHIFT[x]
            if (code >> shift & _MASK) + (x == up) >= caps[x]:
                kids.append(-2)
            elif hard + x > 21:
                kids.append(-1)
            else:
                more = code + (1 << shift)
                kid = index.get(((more << 6 | hard + x) << 1 | kind) << 4 | up)
                kids.append(self.node(up, kind, more, hard + x) if kid is None else kid)
        self.children[i] = kids
        return kids

    def hand(self, i: int) -> None:
        """A hand that has drawn at least once: hit or stand from here, and every line below it."""
        if self.rule[i] != _NONE:
            return
        up, hard, ace = self.up[i], self.hard[i], self.code[i] >> _SHIFT[1] & _MASK > 0
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

    def hit(self, i: int) -> None:
        """The hand's hit value is needed: every hand it can become, played on."""
        self.need_hit[i] = True
        for kid in self.grow(i):
            if kid >= 0:
                self.hand(kid)

    def double(self, i: int) -> None:
        """The hand's double value is needed: it stands on each card it can draw."""
        self.need_double[i] = True
        for kid in self.grow(i):
            if kid >= 0:
                self.need_stand[kid] = True

    def deal(self, up: int, a: int, b: int) -> None:
        """The original hand a-b against ``up``: its actions and the hands they lead to."""
        house = self.house
        i = self.roots[(up, a, b)] = self.node(up, _DEAL, (1 << _SHIFT[a]) + (1 << _SHIFT[b]), a + b)
        pair_ok = a == b and house.max_hands >= 2 and not (house.split_by_rank and a == 10)
        may_double = house.may_double(a + b, a == 1)
        if self.optimal:
            self.need_stand[i] = True
            self.hit(i)
            if may_double:
                self.double(i)
            if pair_ok:
                self.split(up, a)
            return
        act = self.deal_act[(up, a, b)] = self.strategy.decide(
            [a, b], up, can_double=may_double, can_split=pair_ok, can_surrender=house.may_surrender(up))
        if act is STAND:
            self.need_stand[i] = True
        elif act is HIT:
            self.hit(i)
        elif act is DOUBLE:
            self.double(i)
        elif act is SPLIT:
            self.split(up, a)

    def split(self, up: int, pair: int) -> None:
        """The split hands of ``pair`` against ``up``: the pair card and each second card."""
        if (up, pair) in self.resplit_at:
            return
        house, strategy = self.house, self.strategy
        levels = range(2, house.max_hands) if (pair != 1 or house.resplit_aces) and not self.optimal else range(0)
        self.resplit_at[(up, pair)] = frozenset(h for h in levels if strategy.decide(
            [pair, pair], up, can_double=False, can_split=True, can_surrender=False, hands_in_box=h,
            is_split_hand=True) is SPLIT)
        two = 2 << _SHIFT[pair]
        for x in range(1, 11):
            if not self.dealt(up, two, x):
                continue
            i = self.split_roots[(up, pair, x)] = self.node(up, _SPLIT_HAND, two + (1 << _SHIFT[x]), pair + x)
            if pair == 1:  # split aces: one card
                self.need_stand[i] = True
                continue
            hard, ace = pair + x, x == 1
            may_double = house.das and house.may_double(hard, ace)
            if self.optimal:
                self.need_stand[i] = True
                if _total(hard, ace) < 21:
                    self.hit(i)
                if may_double:
                    self.double(i)
                continue
            act = self.split_act[(up, pair, x)] = strategy.decide(
                [pair, x], up, can_double=may_double, can_split=False, can_surrender=False, hands_in_box=2,
                is_split_hand=True)
            if act is DOUBLE:
                self.double(i)
            elif act is STAND:
                self.need_stand[i] = True
            else:
                self.hit(i)

    def build(self) -> _Hands:
        """Every original hand against every up card the caps can deal, and all they lead to.

        Optimal play takes the same options against every up card: its hands are walked once, for
        no particular up card (``up`` 0, so a hand may hold every card of the up card's value: against
        that up card it has chance 0), and copied for each.
        """
        ups = [up for up in range(1, 11) if self.caps[up]]
        for up in [0] if self.optimal else ups:
            for a in range(1, 11):
                if not self.dealt(up, 0, a):
                    continue
                for b in range(a, 11):
                    if self.dealt(up, 1 << _SHIFT[a], b) and not (a == 1 and b == 10):
                        self.deal(up, a, b)
        return self.arrays(ups if self.optimal else [])

    def arrays(self, copies: list[int]) -> _Hands:
        """The hands as arrays, for evaluating all of them at once; with ``copies``, the walk's hands
        (made for up card 0) once for each of these up cards."""
        house = self.house
        count = len(self.up)
        up = np.array(self.up, dtype=np.intp)
        code = np.array(self.code, dtype=np.int64)
        hard = np.array(self.hard, dtype=np.intp)
        kind = np.array(self.kind, dtype=np.intp)
        need_stand = np.array(self.need_stand, dtype=np.bool_)
        need_hit = np.array(self.need_hit, dtype=np.bool_)
        need_double = np.array(self.need_double, dtype=np.bool_)
        rule = np.array(self.rule, dtype=np.intp)
        blank = [-2] * 10
        children = np.array([k if k is not None else blank for k in self.children],
                            dtype=np.int32).reshape(count, 10)
        roots, split_roots = self.roots, self.split_roots
        sevens_child = {i: kids[6] for (u, a, b), i in roots.items() if a == b == 7 and (kids := self.children[i])}
        resplit_at = self.resplit_at
        if copies:
            up = np.repeat(np.array(copies, dtype=np.intp), count)
            times = len(copies)
            code, hard, kind, rule = np.tile(code, times), np.tile(hard, times), np.tile(kind, times), np.tile(rule, times)
            need_stand, need_hit = np.tile(need_stand, times), np.tile(need_hit, times)
            need_double = np.tile(need_double, times)
            children = np.concatenate([np.where(children >= 0, children + k * count, children)
                                       for k in range(len(copies))]).astype(np.int32)
            roots = {(u, a, b): i + k * count for k, u in enumerate(copies) for (_, a, b), i in self.roots.items()}
            split_roots = {(u, pair, x): i + k * count
                           for k, u in enumerate(copies) for (_, pair, x), i in self.split_roots.items()}
            sevens_child = {i + k * count: j + k * count for k in range(len(copies)) for i, j in sevens_child.items()}
            resplit_at = {(u, pair): frozenset() for u in copies for (_, pair) in self.resplit_at}
            count *= len(copies)
        removed = ((code[:, None] >> np.array(_SHIFT, dtype=np.int64)[None, :]) & _MASK).astype(np.int8)
        removed[:, 0] = 0
        size = removed.sum(axis=1, dtype=np.intp)
        soft = (removed[:, 1] > 0) & (hard <= 11)
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
        for s in sorted(set(size[need_hit].tolist()), reverse=True):
            nodes = np.flatnonzero(need_hit & (size == s))
            levels.append(_Level.of(nodes, children, rule, up, removed, size, no_bj_only))
        doubling = np.flatnonzero(need_double)
        shoe_of = np.full(count, -1, dtype=np.intp)
        shoes = [np.zeros((11, 0), dtype=np.int64)]
        offset = 0
        for u in range(1, 11):
            mine = np.flatnonzero(need_stand & (up == u))
            distinct, inverse = np.unique(code[mine], return_inverse=True)
            shoe_of[mine] = offset + inverse.reshape(-1)
            offset += len(distinct)
            cards = (distinct[None, :] >> np.array(_SHIFT, dtype=np.int64)[:, None]) & _MASK
            cards[0] = 0
            shoes.append(np.ascontiguousarray(cards))
        return _Hands(
            up=up, net_row=net_row, rule=rule, need_stand=need_stand, bj_weight1=counted,
            bj_weight2=counted * np.where(split_hand | stake_loss[up], 2.0, 1.0), levels=tuple(levels),
            doubles=_Level.of(doubling, children, rule, up, removed, size, no_bj_only), shoe_of=shoe_of,
            shoes=tuple(shoes), roots=roots, split_roots=split_roots, deal_act=self.deal_act,
            split_act=self.split_act, resplit_at=resplit_at, sevens_child=sevens_child)


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
    net = np.empty((6, bins.shape[1]))
    net[0] = bins[BUST] - made
    net[1] = bins[BUST] - (made - below[0])
    # Standing on 17 + i: win where he ends below it or busts, lose where he ends above it.
    net[2:] = below[:4] + below[1:] + bins[BUST] - made
    return net


def _values(hands: _Hands, shoe: list[int], hits_soft17: bool) -> _Values:
    """Every hand's values drawing from ``shoe`` (index 0 unused): the dealer, then hands by size."""
    count = len(hands.up)
    base = np.array(shoe, dtype=np.int64)
    total = int(base.sum())
    start = base[None, :] - np.eye(11, dtype=np.int64)  # the shoe less each up card
    plans = _dealer_plan(hits_soft17)
    outcomes = []
    for u in range(1, 11):
        shoes = start[u][:, None] - hands.shoes[u]
        bins = np.zeros((7, shoes.shape[1]))
        dealt = (shoes >= 0).all(axis=0)  # a composition this shoe cannot make has chance 0
        if dealt.all():
            bins = _dealer_outcomes(plans[u], shoes)
        elif dealt.any():
            bins[:, dealt] = _dealer_outcomes(plans[u], shoes[:, dealt])
        outcomes.append(bins)
    outcome = np.concatenate(outcomes, axis=1)
    net = _stand_values(outcome)
    stand = np.zeros(count)
    stand2 = np.zeros(count)
    standing = np.flatnonzero(hands.need_stand)
    column = hands.shoe_of[standing]
    mine = net[hands.net_row[standing], column]
    bj = outcome[BJ, column]
    stand[standing] = mine - bj * hands.bj_weight1[standing]
    stand2[standing] = 2.0 * mine - bj * hands.bj_weight2[standing]

    def chances(level: _Level) -> tuple[Floats, Floats]:
        # Each card's chance, and the value of busting on it (where only no-blackjack outcomes count,
        # the bust is lost only where the dealer's next card does not make one).
        left = start[level.up] - level.removed
        n = (total - 1 - level.size).astype(np.float64)
        if (n <= 0).any() and ((left >= 0).all(axis=1) & (n <= 0)).any():
            raise ShoeError("the shoe runs out before the player's hand is complete")
        # A hand this shoe cannot deal gets nonsense values, always weighted by a chance of 0.
        chance = left[:, 1:] / np.maximum(n, 1.0)[:, None]
        bust_fill = np.where(level.kids == -1, -1.0, 0.0)
        if not level.bj_bust.any():
            return chance, bust_fill
        after = np.maximum(n - 1.0, 1.0)
        bj_card = np.where(level.up == 1, 10, 1)
        bj_left = left[np.arange(len(n)), bj_card][:, None] - (np.arange(1, 11) == bj_card[:, None])
        bj_next = np.where(level.bj_bust[:, None], bj_left / after[:, None], 0.0)
        return chance, bust_fill * (1.0 - bj_next)

    played = np.where(hands.rule == _STAND, stand, 0.0)  # hands that stand need no hit
    hit = np.zeros(count)
    for level in hands.levels:
        chance, bust = chances(level)
        value = np.einsum("ij,ij->i", chance, np.where(level.kids >= 0, played[np.maximum(level.kids, 0)], bust))
        hit[level.nodes] = value
        mine = stand[level.nodes]
        played[level.nodes] = np.where(level.hits, value, np.where(level.best, np.maximum(mine, value), mine))
    double = np.zeros(count)
    if len(hands.doubles.nodes):
        chance, bust = chances(hands.doubles)
        kids = hands.doubles.kids
        after = np.where(kids >= 0, stand2[np.maximum(kids, 0)], 2.0 * bust)
        double[hands.doubles.nodes] = np.einsum("ij,ij->i", chance, after)
    return _Values(stand, hit, double, played)


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


class _Round:
    """The initial deals of one composition, from the values of every hand."""

    def __init__(self, rules: BlackjackTerms, play: Play, hands: _Hands, values: _Values) -> None:
        self.house = HouseRules.of(rules)
        self.optimal = play == "optimal"
        self.hands = hands
        self.values = values
        self.sevens = [0.0] + [self.house.sevens_bonus(up) for up in range(1, 11)]

    def split_hand(self, up: int, pair: int, x: int) -> float:
        """A split hand's value on its first two cards (``pair`` and ``x``), no further split."""
        i = self.hands.split_roots[(up, pair, x)]
        v = self.values
        if pair == 1:  # split aces: one card
            return float(v.stand[i])
        hard, ace = pair + x, x == 1
        if self.optimal:
            best = float(v.stand[i])
            if _total(hard, ace) < 21:
                best = max(best, float(v.hit[i]))
            if self.house.das and self.house.may_double(hard, ace):
                best = max(best, float(v.double[i]))
            return best
        act = self.hands.split_act[(up, pair, x)]
        if act is DOUBLE:
            return float(v.double[i])
        if act is STAND:
            return float(v.stand[i])
        return float(v.hit[i])

    def split(self, rest: list[int], n: int, up: int, pair: int, peeked: bool) -> float:
        """Value of splitting ``pair`` on an original hand; ``rest`` excludes the pair and the up card."""
        house = self.house
        values = [0.0] * 11
        for x in range(1, 11):
            if rest[x]:
                values[x] = self.split_hand(up, pair, x)
        p = rest[pair] / n
        if house.split_by_rank and pair == 10:
            p /= 4
        mix = sum(rest[x] / n * values[x] for x in range(1, 11))
        other = (mix - p * values[pair]) / (1.0 - p) if p < 1.0 else 0.0
        may_resplit = pair != 1 or house.resplit_aces
        levels = range(2, house.max_hands) if may_resplit else range(0)
        if self.optimal:
            # Which numbers of hands resplit a pair: every choice, the best kept (at most 2**6).
            policies = [frozenset(h for i, h in enumerate(levels) if bits >> i & 1) for bits in range(1 << len(levels))]
            ev = max(_split_value(p, other, values[pair], policy) for policy in policies)
        else:
            ev = _split_value(p, other, values[pair], self.hands.resplit_at[(up, pair)])
        if not peeked and house.blackjack_loss(up) is BlackjackLoss.ORIGINAL:
            ev -= _bj_chance(rest, n, up)  # the box's one bet
        return ev

    def deal(self, rest: list[int], n: int, up: int, a: int, b: int) -> float:
        """Expectation of an original hand a-b against ``up``; ``rest`` (n cards) is the shoe without them."""
        house, v = self.house, self.values
        p_bj = _bj_chance(rest, n, up)
        if a + b == 11 and (a == 1 or b == 1):
            return house.bj_pays * (1.0 - p_bj)
        peeked = up in house.peek_ups
        top = -p_bj if peeked else 0.0
        i = self.hands.roots[(up, a, b)]
        surrender = -0.5 * (1.0 - p_bj) if peeked else -0.5
        if self.optimal:
            best = max(float(v.stand[i]), self.hit(rest, n, up, a, b, i, peeked))
            if house.may_double(a + b, a == 1):
                best = max(best, float(v.double[i]))
            if a == b and house.max_hands >= 2 and not (house.split_by_rank and a == 10):
                best = max(best, self.split(rest, n, up, a, peeked))
            if house.may_surrender(up):
                best = max(best, surrender)
            return top + best
        act = self.hands.deal_act[(up, a, b)]
        if act is SURRENDER:
            return top + surrender
        if act is STAND:
            return top + float(v.stand[i])
        if act is DOUBLE:
            return top + float(v.double[i])
        if act is SPLIT:
            return top + self.split(rest, n, up, a, peeked)
        assert act is HIT
        return top + self.hit(rest, n, up, a, b, i, peeked)

    def hit(self, rest: list[int], n: int, up: int, a: int, b: int, i: int, peeked: bool) -> float:
        """An original hand's hit value; a 7-7 drawing a seven is paid the three-sevens bonus at once."""
        value = float(self.values.hit[i])
        if not (self.house.three_sevens and a == b == 7 and rest[7]):
            return value
        p = rest[7] / n
        seven = self.hands.sevens_child[i]
        rest[7] -= 1
        paid = self.sevens[up] * ((1.0 - _bj_chance(rest, n - 1, up)) if peeked else 1.0)
        rest[7] += 1
        return value + p * (paid - float(self.values.played[seven]))


def _split_value(p: float, other: float, pair_value: float, resplit_at: frozenset[int]) -> float:
    """A split's value when a pair card drawn by a hand of a box of h hands resplits iff h in ``resplit_at``.

    ``p``: the pair card's chance; ``other``: a split hand's value given its second card is not
    the pair card; ``pair_value``: its value when it is and stays a pair.
    """
    memo: dict[tuple[int, int], tuple[float, float]] = {}

    def count(hands: int, pending: int) -> tuple[float, float]:
        # (expected hands ending on a non-pair card, expected hands left as an unsplit pair)
        if pending == 0:
            return 0.0, 0.0
        got = memo.get((hands, pending))
        if got is not None:
            return got
        a_done, p_done = count(hands, pending - 1)
        if hands in resplit_at:
            a_re, p_re = count(hands + 1, pending + 1)
            got = (1 - p) * (a_done + 1) + p * a_re, (1 - p) * p_done + p * p_re
        else:
            got = a_done + (1 - p), p_done + p
        memo[(hands, pending)] = got
        return got

    non_pair, pairs = count(2, 2)
    return non_pair * other + pairs * pair_value


def _counts(counts: Sequence[int]) -> list[int]:
    if len(counts) != 10:
        raise ShoeError(f"a composition is 10 counts (aces, twos ... nines, tens), got {len(counts)}")
    if any(not isinstance(k, int) or k < 0 for k in counts):
        raise ShoeError(f"card counts must be whole numbers of 0 or more, got {list(counts)}")
    if sum(counts) < 4:
        raise ShoeError(f"a round needs at least 4 cards, the shoe holds {sum(counts)}")
    return [0, *counts]


def analyse(rules: BlackjackTerms, counts: Sequence[int], play: Play = "basic") -> ExactResult:
    """The exact expectation of the next round drawn from ``counts`` (aces first, tens last).

    ``play``: ``"basic"`` (the profile's basic strategy) or ``"optimal"`` (composition-dependent
    optimal play). Raises ShoeError for a composition that cannot be played out. The first
    composition for a set of rules and a play also builds their hands (cached, 4 at a time).
    """
    if play not in PLAYS:
        raise ValueError(f"play is one of {', '.join(PLAYS)}, got {play!r}")
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
