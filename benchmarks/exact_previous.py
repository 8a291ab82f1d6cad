"""The exact analyser as it was before it was made fast (simulators/exact.py at commit 436e37e), kept
unchanged but for its imports so that benchmarks/exact.py times it beside the new one in the same run.
Pure Python: the dealer's drawing walked once per composition, ~60 µs each. Not used by the project.

Its own docstring follows.

Exact expectation of the next blackjack round for any shoe composition.

``analyse(rules, counts, play)`` returns the player's expectation per initial bet of one box
playing the next round from a shoe holding exactly ``counts`` (cards by value, aces first, tens
last), under either

* ``play="basic"``: the project's own basic strategy for the profile
  (``simulators.strategy.BasicStrategy.decide``, the tables the simulator plays), or
* ``play="optimal"``: composition-dependent optimal play: every stand / hit / double / split /
  surrender decision is taken on the exact cards left in the shoe at that moment (hit or stand
  on every card; the split hands' plays chosen the same way, each on its own cards).

Every rule of ``controller.rules.RuleProfile`` that changes the expectation is followed: the
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
The dealer's outcome for a composition is needed for every distinct hand the player can stand
on (some 1,600 per up card off the top of six decks). Each up card's drawing is compiled once
into a flat list of the dealer's drawing states (the multiset of his drawn cards), in order of
the number of cards; the probabilities of a composition then flow through that list in one pass,
the bust probability by complement. Results are memoised per (up card, remaining composition),
the composition a tuple of eleven counts. Hands are memoised per (composition, hand).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, Sequence

from games.blackjack.rules import RuleProfile

from simulators.strategy import DOUBLE, HIT, SPLIT, STAND, SURRENDER, BasicStrategy, strategy_for
from simulators.strategy_model import BlackjackLoss, HouseRules

Play = Literal["basic", "optimal"]
PLAYS: tuple[Play, ...] = ("basic", "optimal")

BUST = 5  # dealer outcome bins: 0..4 = final 17..21, 5 = bust, 6 = blackjack
BJ = 6


class ShoeError(ValueError):
    """A composition the analysis cannot play: wrong length, negative counts, or too few cards."""


def _total(hard: int, ace: bool) -> int:
    # The playing total: an ace counts 11 where that does not pass 21.
    return hard + 10 if ace and hard <= 11 else hard


def full_shoe(decks: int) -> tuple[int, ...]:
    """The counts by value (aces first, tens last) of a full shoe of ``decks`` 52-card decks."""
    return (4 * decks,) * 9 + (16 * decks,)


# ---------------------------------------------------------------------------------- the dealer
# One dealer drawing state: (cards drawn so far, edges ending his hand as (value, how many of
# that value he already drew, outcome bin), edges to further states as (value, drawn, state)).
_Node = tuple[int, tuple[tuple[int, int, int], ...], tuple[tuple[int, int, int], ...]]


@lru_cache(maxsize=4)
def _dealer_program(hits_soft17: bool) -> tuple[tuple[_Node, ...], ...]:
    """Each up card's drawing states, parents before children; index 0 is the up card alone."""
    programs: list[tuple[_Node, ...]] = [()]
    for up in range(1, 11):
        index: dict[tuple[int, ...], int] = {(0,) * 11: 0}
        states: list[tuple[tuple[int, ...], int, bool]] = [((0,) * 11, up, up == 1)]
        nodes: list[_Node] = []
        i = 0
        while i < len(states):
            drawn, hard, ace = states[i]
            ends: list[tuple[int, int, int]] = []
            kids: list[tuple[int, int, int]] = []
            for x in range(1, 11):
                if i == 0 and ((up == 1 and x == 10) or (up == 10 and x == 1)):
                    ends.append((x, 0, BJ))
                    continue
                h, a = hard + x, ace or x == 1
                if h > 21:
                    continue  # bust: by complement
                total = _total(h, a)
                if total > 17 or (total == 17 and not (hits_soft17 and a and h == 7)):
                    ends.append((x, drawn[x], total - 17))
                    continue
                more = list(drawn)
                more[x] += 1
                key = tuple(more)
                j = index.get(key)
                if j is None:
                    j = index[key] = len(states)
                    states.append((key, h, a))
                kids.append((x, drawn[x], j))
            nodes.append((sum(drawn), tuple(ends), tuple(kids)))
            i += 1
        programs.append(tuple(nodes))
    return tuple(programs)


def _run_dealer(program: tuple[_Node, ...], c: tuple[int, ...], n: int) -> list[float]:
    """The dealer's outcome probabilities (17..21, bust, blackjack) drawing from ``c`` (n cards)."""
    probs = [0.0] * len(program)
    probs[0] = 1.0
    out = [0.0] * 7
    i = 0
    for k, ends, kids in program:
        p = probs[i]
        i += 1
        if p == 0.0:
            continue
        if k >= n:
            raise ShoeError("the shoe runs out before the dealer's hand is complete")
        f = p / (n - k)
        for x, j, b in ends:
            out[b] += f * (c[x] - j)
        for x, j, t in kids:
            probs[t] += f * (c[x] - j)
    # Every path ends in one bin: the bust takes what the others leave (saves its edges).
    out[BUST] = 1.0 - sum(out)
    return out


# ---------------------------------------------------------------------------------- results
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


@dataclass(frozen=True, slots=True)
class _Kind:
    """How a hand is settled against a dealer blackjack made after play (as strategy_edge's)."""

    split: bool
    no_bj_only: bool  # value only the outcomes without a dealer blackjack (peek; "original" split hands)
    takes_stake: bool  # a later dealer blackjack takes the hand's whole stake (else one bet)


class _Analysis:
    """One composition and one way of playing: dealer outcomes and hand values memoised."""

    def __init__(self, rules: RuleProfile, play: Play) -> None:
        self.house = HouseRules.of(rules)
        self.optimal = play == "optimal"
        self.strategy: BasicStrategy | None = None if self.optimal else strategy_for(rules)
        self.program = _dealer_program(rules.dealer_hits_soft17)
        self._dealer: dict[tuple[tuple[int, ...], int], list[float]] = {}
        self._hands: dict[tuple[tuple[int, ...], int, int, bool, _Kind], float] = {}
        self._hit_or_stand: dict[tuple[int, bool, int, bool], bool] = {}
        self._sevens = [0.0] + [self.house.sevens_bonus(up) for up in range(1, 11)]

    # ------------------------------------------------------------------ the dealer
    def dealer(self, c: tuple[int, ...], n: int, up: int) -> list[float]:
        """Probabilities of the dealer's 17..21, bust and blackjack drawing from ``c`` (n cards)."""
        key = (c, up)
        got = self._dealer.get(key)
        if got is None:
            got = self._dealer[key] = _run_dealer(self.program[up], c, n)
        return got

    @staticmethod
    def bj_chance(c: Sequence[int], n: int, up: int) -> float:
        """The chance the dealer's next card makes a blackjack."""
        if up == 1:
            return c[10] / n
        if up == 10:
            return c[1] / n
        return 0.0

    def stand(self, c: tuple[int, ...], n: int, up: int, total: int, stake: float, kind: _Kind) -> float:
        """Value of standing on ``total`` with ``stake`` bets at risk."""
        d = self.dealer(c, n, up)
        win = d[BUST]
        lose = 0.0
        for i in range(5):
            if 17 + i < total:
                win += d[i]
            elif 17 + i > total:
                lose += d[i]
        ev = stake * (win - lose)
        if kind.no_bj_only:
            return ev
        return ev - d[BJ] * (stake if kind.takes_stake else 1.0)

    def bust(self, c: Sequence[int], n: int, up: int, stake: float, kind: _Kind) -> float:
        """Value of a hand over 21 (with a peek, only where the dealer had no blackjack)."""
        if kind.no_bj_only:
            return -stake * (1.0 - self.bj_chance(c, n, up))
        return -stake

    # ------------------------------------------------------------------ hit or stand
    def _basic_hits(self, hard: int, ace: bool, up: int, split: bool, cards: list[int]) -> bool:
        key = (hard, ace, up, split)
        got = self._hit_or_stand.get(key)
        if got is None:
            assert self.strategy is not None
            got = self.strategy.decide(cards, up, can_double=False, can_split=False, can_surrender=False,
                                       hands_in_box=2 if split else 1, is_split_hand=split) is not STAND
            self._hit_or_stand[key] = got
        return got

    def hand(self, c: list[int], n: int, up: int, hard: int, ace: bool, cards: list[int], kind: _Kind) -> float:
        """Value of a hand that has drawn at least once: hit or stand from here."""
        total = _total(hard, ace)
        key_c = tuple(c)
        if total == 21:
            return self.stand(key_c, n, up, 21, 1.0, kind)
        key = (key_c, up, hard, ace, kind)
        got = self._hands.get(key)
        if got is not None:
            return got
        if self.optimal:
            if hard <= 11 and not ace:
                # No card busts it and every card raises its total: on average over the card drawn the
                # dealer's odds are unchanged (the card is a random one of the shoe), so a hit is worth
                # at least standing.
                ev = self.draw(c, n, up, hard, ace, cards, kind)
            else:
                standing = self.stand(key_c, n, up, total, 1.0, kind)
                # A hit can win at most one bet where it does not bust: when standing is worth that
                # much, the hit need not be looked at.
                ev = standing if standing >= self._hit_bound(c, n, up, hard, kind) else max(
                    standing, self.draw(c, n, up, hard, ace, cards, kind))
        elif self._basic_hits(hard, ace, up, kind.split, cards):
            ev = self.draw(c, n, up, hard, ace, cards, kind)
        else:
            ev = self.stand(key_c, n, up, total, 1.0, kind)
        self._hands[key] = ev
        return ev

    def _hit_bound(self, c: list[int], n: int, up: int, hard: int, kind: _Kind) -> float:
        # The most a hit can be worth: +1 on every card that does not bust, the bust's exact value on the rest.
        bound = 0.0
        for x in range(1, 11):
            k = c[x]
            if not k:
                continue
            if hard + x <= 21:
                bound += k / n
            else:
                c[x] = k - 1
                bound += k / n * self.bust(c, n - 1, up, 1.0, kind)
                c[x] = k
        return bound

    def draw(self, c: list[int], n: int, up: int, hard: int, ace: bool, cards: list[int], kind: _Kind,
             sevens: bool = False) -> float:
        """Value of hitting once and playing on; ``sevens``: the hand is an original 7-7."""
        if n <= 0:
            raise ShoeError("the shoe runs out before the player's hand is complete")
        ev = 0.0
        m = n - 1
        for x in range(1, 11):
            k = c[x]
            if not k:
                continue
            p = k / n
            c[x] = k - 1
            h = hard + x
            if h > 21:
                ev += p * self.bust(c, m, up, 1.0, kind)
            elif sevens and x == 7:
                paid = self._sevens[up]
                ev += p * paid * ((1.0 - self.bj_chance(c, m, up)) if kind.no_bj_only else 1.0)
            else:
                cards.append(x)
                ev += p * self.hand(c, m, up, h, ace or x == 1, cards, kind)
                cards.pop()
            c[x] = k
        return ev

    def double(self, c: list[int], n: int, up: int, hard: int, ace: bool, kind: _Kind) -> float:
        """Value of doubling: one card, then stand, with two bets at risk."""
        if n <= 0:
            raise ShoeError("the shoe runs out before the player's hand is complete")
        ev = 0.0
        m = n - 1
        for x in range(1, 11):
            k = c[x]
            if not k:
                continue
            p = k / n
            c[x] = k - 1
            h = hard + x
            if h > 21:
                ev += p * self.bust(c, m, up, 2.0, kind)
            else:
                ev += p * self.stand(tuple(c), m, up, _total(h, ace or x == 1), 2.0, kind)
            c[x] = k
        return ev

    # ------------------------------------------------------------------ splits
    def split_hand(self, c: list[int], n: int, up: int, a: int, b: int, kind: _Kind) -> float:
        """A split hand's value on its first two cards (``a`` the pair card), no further split."""
        house = self.house
        hard, ace = a + b, a == 1 or b == 1
        total = _total(hard, ace)
        if a == 1:  # split aces: one card
            return self.stand(tuple(c), n, up, total, 1.0, kind)
        may_double = house.das and house.may_double(hard, ace)
        if self.optimal:
            best = self.stand(tuple(c), n, up, total, 1.0, kind)
            if total < 21:
                best = max(best, self.draw(c, n, up, hard, ace, [a, b], kind))
            if may_double:
                best = max(best, self.double(c, n, up, hard, ace, kind))
            return best
        assert self.strategy is not None
        act = self.strategy.decide([a, b], up, can_double=may_double, can_split=False, can_surrender=False,
                                   hands_in_box=2, is_split_hand=True)
        if act is DOUBLE:
            return self.double(c, n, up, hard, ace, kind)
        if act is STAND:
            return self.stand(tuple(c), n, up, total, 1.0, kind)
        return self.draw(c, n, up, hard, ace, [a, b], kind)

    def split(self, rest: list[int], n: int, up: int, pair: int, peeked: bool) -> float:
        """Value of splitting ``pair`` on an original hand; ``rest`` excludes the pair and the up card."""
        house = self.house
        kind = _Kind(split=True, no_bj_only=peeked or house.blackjack_loss(up) is not BlackjackLoss.STAKE,
                     takes_stake=True)
        values = [0.0] * 11
        for x in range(1, 11):
            if rest[x]:
                rest[x] -= 1
                values[x] = self.split_hand(rest, n - 1, up, pair, x, kind)
                rest[x] += 1
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
            assert self.strategy is not None
            strategy = self.strategy
            policy = frozenset(h for h in levels if strategy.decide(
                [pair, pair], up, can_double=False, can_split=True, can_surrender=False, hands_in_box=h,
                is_split_hand=True) is SPLIT)
            ev = _split_value(p, other, values[pair], policy)
        if not peeked and house.blackjack_loss(up) is BlackjackLoss.ORIGINAL:
            ev -= self.bj_chance(rest, n, up)  # the box's one bet
        return ev

    # ------------------------------------------------------------------ one deal
    def deal(self, rest: list[int], n: int, up: int, a: int, b: int) -> float:
        """Expectation of an original hand a-b against ``up``; ``rest`` (n cards) is the shoe without them."""
        house = self.house
        p_bj = self.bj_chance(rest, n, up)
        if a + b == 11 and (a == 1 or b == 1):
            return house.bj_pays * (1.0 - p_bj)
        peeked = up in house.peek_ups
        loss = house.blackjack_loss(up)
        kind = _Kind(split=False, no_bj_only=peeked, takes_stake=loss is BlackjackLoss.STAKE)
        top = -p_bj if peeked else 0.0
        hard, ace = a + b, a == 1 or b == 1
        total = _total(hard, ace)
        pair_ok = a == b and house.max_hands >= 2 and not (house.split_by_rank and a == 10)
        may_double = house.may_double(hard, ace)
        may_surrender = house.may_surrender(up)
        sevens = house.three_sevens and a == b == 7
        surrender = -0.5 * (1.0 - p_bj) if peeked else -0.5
        if self.optimal:
            best = max(self.stand(tuple(rest), n, up, total, 1.0, kind),
                       self.draw(rest, n, up, hard, ace, [a, b], kind, sevens=sevens))
            if may_double:
                best = max(best, self.double(rest, n, up, hard, ace, kind))
            if pair_ok:
                best = max(best, self.split(rest, n, up, a, peeked))
            if may_surrender:
                best = max(best, surrender)
            return top + best
        assert self.strategy is not None
        act = self.strategy.decide([a, b], up, can_double=may_double, can_split=pair_ok, can_surrender=may_surrender)
        if act is SURRENDER:
            return top + surrender
        if act is STAND:
            return top + self.stand(tuple(rest), n, up, total, 1.0, kind)
        if act is DOUBLE:
            return top + self.double(rest, n, up, hard, ace, kind)
        if act is SPLIT:
            return top + self.split(rest, n, up, a, peeked)
        assert act is HIT
        return top + self.draw(rest, n, up, hard, ace, [a, b], kind, sevens=sevens)


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


def analyse(rules: RuleProfile, counts: Sequence[int], play: Play = "basic") -> ExactResult:
    """The exact expectation of the next round drawn from ``counts`` (aces first, tens last).

    ``play``: ``"basic"`` (the profile's basic strategy) or ``"optimal"`` (composition-dependent
    optimal play). Raises ShoeError for a composition that cannot be played out.
    """
    if play not in PLAYS:
        raise ValueError(f"play is one of {', '.join(PLAYS)}, got {play!r}")
    shoe = _counts(counts)
    run = _Analysis(rules, play)
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
