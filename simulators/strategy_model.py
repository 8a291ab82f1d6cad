"""Blackjack expectation model behind the basic strategy (see ``simulators/strategy.py``).

Everything here works on plain floats and lists: it runs a few hundred times
while a strategy is built and must stay fast.

Conventions
-----------
* Card values 1..10 (ace = 1, every ten-card = 10); probability vectors ``q``
  are lists of 11 floats indexed by value (``q[0]`` unused).
* A hand state is ``(hard, ace)``: the hard total and whether the hand holds an
  ace; its playing total is ``hard + 10`` when that is soft and not over 21.
* Dealer outcomes are indexed ``0..4`` = final 17..21, ``5`` = bust, ``6`` = blackjack.
* A value pair ``(v_bj, v_nbj)`` is what an action is worth when the dealer
  turns out to have blackjack / not to have it. Keeping the two apart is what
  lets one model serve peek games (blackjack settled before play: only
  ``v_nbj`` matters) and no-hole-card games (a dealer blackjack made after play
  takes the whole stake, or only the original bet), because in the
  fixed-composition model the dealer's second card is independent of what the
  player draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from controller.cards import playing_total
from .blackjack_terms import BlackjackTerms, DealerBlackjackTakes, DoubleRule, Peek, SplitBy, SurrenderRule

BUST = 5
BJ = 6
VALUES = range(1, 11)


class BlackjackLoss(Enum):
    """What a dealer blackjack made after play costs a hand (no-hole-card games)."""

    NONE = "none"  # blackjack settled before play (peek) — nothing to account for
    STAKE = "stake"  # every hand loses its whole stake, doubles and splits included
    ORIGINAL = "original"  # the box loses one original bet in all


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The house rules the model plays by (the dealer's soft 17, doubles, splits, surrender, payouts...),
    copied off a BlackjackTerms into plain values for speed; not the table's game (`controller.game.Game`)."""

    decks: int
    hits_soft17: bool
    peek_ups: frozenset[int]
    bj_takes_all: bool
    double: DoubleRule
    das: bool
    max_hands: int
    resplit_aces: bool
    split_by_rank: bool
    surrender: SurrenderRule
    bj_pays: float
    three_sevens: bool
    sevens_pays: float
    sevens_suited_pays: float

    @classmethod
    def of(cls, rules: BlackjackTerms) -> "HouseRules":
        """Read the options that matter for play and payouts."""
        peek_ups: frozenset[int] = frozenset()
        if rules.hole_card and rules.peek is Peek.ACE:
            peek_ups = frozenset({1})
        elif rules.hole_card and rules.peek is Peek.ACE_TEN:
            peek_ups = frozenset({1, 10})
        return cls(
            decks=rules.decks,
            hits_soft17=rules.dealer_hits_soft17,
            peek_ups=peek_ups,
            bj_takes_all=rules.dealer_bj_takes is DealerBlackjackTakes.ALL,
            double=rules.double,
            das=rules.double_after_split,
            max_hands=rules.max_hands,
            resplit_aces=rules.resplit_aces,
            split_by_rank=rules.split_by is SplitBy.RANK,
            surrender=rules.surrender,
            bj_pays=float(rules.blackjack_ratio),
            three_sevens=rules.three_sevens,
            sevens_pays=float(rules.three_sevens_ratio),
            sevens_suited_pays=float(rules.three_sevens_suited_ratio),
        )

    def shoe(self) -> list[int]:
        """Card counts by value of a full shoe."""
        counts = [0] + [4 * self.decks] * 10
        counts[10] = 16 * self.decks
        return counts

    def may_double(self, hard: int, ace: bool) -> bool:
        """Whether the double rule lets a two-card hand double (restricted rules: hard totals only)."""
        rule = self.double
        if rule is DoubleRule.ANY:
            return True
        if rule is DoubleRule.NONE or (ace and hard <= 11):
            return False
        if rule is DoubleRule.NINE_TO_ELEVEN:
            return 9 <= hard <= 11
        if rule is DoubleRule.TEN_OR_ELEVEN:
            return 10 <= hard <= 11
        return hard == 11

    def may_surrender(self, up: int) -> bool:
        """Whether an original two-card hand may surrender against this up card."""
        if self.surrender is SurrenderRule.NONE:
            return False
        return not (self.surrender is SurrenderRule.EARLY_VS_2_10 and up == 1)

    def blackjack_loss(self, up: int) -> BlackjackLoss:
        """How a dealer blackjack is accounted for against this up card."""
        if up in self.peek_ups or up not in (1, 10):
            return BlackjackLoss.NONE
        return BlackjackLoss.STAKE if self.bj_takes_all else BlackjackLoss.ORIGINAL

    def sevens_bonus(self, up: int) -> float:
        """Expected three-sevens payout (per unit bet) given the first three cards are sevens.

        Suited pays more; the chance that three random sevens of the shoe share a
        suit is exact (the up card, when a seven, is of a random suit).
        """
        d = self.decks

        def c3(n: int) -> int:
            return n * (n - 1) * (n - 2) // 6

        if up == 7:
            suited = (c3(d - 1) + 3 * c3(d)) / c3(4 * d - 1)
        else:
            suited = 4 * c3(d) / c3(4 * d)
        return self.sevens_pays + (self.sevens_suited_pays - self.sevens_pays) * suited


def dealer_distribution(q: list[float], up: int, hits_soft17: bool) -> list[float]:
    """Dealer final outcomes (17..21, bust, blackjack) drawing with fixed probabilities ``q``."""
    memo: dict[tuple[int, bool], list[float]] = {}

    def after(hard: int, ace: bool) -> list[float]:
        key = (hard, ace)
        got = memo.get(key)
        if got is not None:
            return got
        out = [0.0] * 7
        if hard > 21:
            out[BUST] = 1.0
        else:
            total = playing_total(hard, ace)
            if total > 17 or (total == 17 and not (hits_soft17 and ace and hard == 7)):
                out[total - 17] = 1.0
            else:
                for x in VALUES:
                    p = q[x]
                    if p:
                        sub = after(hard + x, ace or x == 1)
                        for i in range(6):
                            out[i] += p * sub[i]
        memo[key] = out
        return out

    dist = [0.0] * 7
    for x in VALUES:
        p = q[x]
        if not p:
            continue
        if (up == 1 and x == 10) or (up == 10 and x == 1):
            dist[BJ] += p
            continue
        sub = after(up + x, up == 1 or x == 1)
        for i in range(6):
            dist[i] += p * sub[i]
    return dist


def stand_values(d: list[float]) -> list[float]:
    """Stand EV by player total 0..21 against a dealer distribution over 17..21 and bust."""
    bust = d[BUST]
    low = 2 * bust - 1  # totals under 17 win only when the dealer busts
    out = [low] * 22
    for t in range(17, 22):
        below = sum(d[: t - 17])
        above = sum(d[t - 16 : 5])
        out[t] = bust + below - above
    return out


@dataclass(slots=True)
class Tables:
    """Hit/stand expectations (dealer has no blackjack) under fixed draw probabilities.

    ``stand[t]`` by total; ``best[hard][ace]`` = optimal hit/stand value;
    ``hit[hard][ace]`` = hit once then play optimally; ``hit_better[hard][ace]``.
    """

    q: list[float]
    stand: list[float]
    best: list[list[float]]
    hit: list[list[float]]

    def double(self, hard: int, ace: bool) -> tuple[float, float]:
        """(EV per unit of the doubled stake given no dealer BJ, bust probability)."""
        q, stand = self.q, self.stand
        ev = 0.0
        bust = 0.0
        for x in VALUES:
            h = hard + x
            if h > 21:
                bust += q[x]
            else:
                ev += q[x] * stand[playing_total(h, ace or x == 1)]
        return 2 * (ev - bust), bust


def hit_stand_tables(q: list[float], d: list[float]) -> Tables:
    """Solve hit/stand for every hand state against dealer distribution ``d`` (no blackjack)."""
    stand = stand_values(d)
    best = [[0.0, 0.0] for _ in range(32)]
    hit = [[-1.0, -1.0] for _ in range(32)]
    for hard in range(21, 1, -1):
        for ace in (False, True):
            total = playing_total(hard, ace)
            if total == 21:
                best[hard][ace] = stand[21]
                hit[hard][ace] = -2.0  # never hit a 21: the hand is complete
                continue
            ev = 0.0
            for x in VALUES:
                h = hard + x
                ev += q[x] * (-1.0 if h > 21 else best[h][ace or x == 1])
            hit[hard][ace] = ev
            best[hard][ace] = max(ev, stand[total])
    return Tables(q, stand, best, hit)


def normalise(counts: list[int]) -> list[float]:
    """Probability vector of a composition."""
    n = sum(counts)
    return [c / n for c in counts]
