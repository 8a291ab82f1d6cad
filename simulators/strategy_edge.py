"""House edge of a profile under its computed basic strategy, off the top of a full shoe.

This is the number a long simulation of ``tablectl simulate`` should converge
to (up to the small cut-card effect of a shoe dealt to a cut card). It plays
the *actual* decision tables of ``BasicStrategy.decide`` against the finite
shoe with full depletion:

* every initial deal (two player cards, dealer up card) with its exact probability;
* the player's draws deplete the shoe card by card;
* the dealer's outcome is computed from the shoe left after the player's hand
  (up card, player cards and the dealer's own draws removed);
* where the dealer peeks, the play is conditioned exactly on "no blackjack"
  (the joint probability of the player's path and a non-blackjack hole card);
  where he does not, a dealer blackjack made after play takes the stake (or
  the one original bet) exactly as the engine settles it;
* three sevens: the bonus is paid at once with the exact suited odds.

One approximation remains, as in every published combinatorial analyser:
a split hand is played as if the *other* split hands' cards were still in the
shoe (each hand sees the shoe minus the pair and up card), and the number of
resplits uses the pair card's share of that shoe. Its effect on the edge is a
few 0.001 %.

Under ``dealer_bj_takes = original`` without a peek, a box that split is
charged exactly one bet against a dealer blackjack (the engine charges the
larger of that and what its split hands already lost by busting): a
difference only in the rare case of a bust of more than one bet followed by a
dealer blackjack, and no built-in profile uses that combination.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .blackjack_terms import BlackjackTerms

from .strategy import DOUBLE, SPLIT, STAND, SURRENDER, BasicStrategy, strategy_for
from .strategy_model import BJ, BUST, BlackjackLoss, HouseRules, playing_total


@dataclass(frozen=True)
class EdgeReport:
    """The computed expectation of one profile per unit of initial bet."""

    rules_name: str
    ev: float  # player's expectation per initial bet
    by_up: dict[int, float] = field(default_factory=dict)  # contribution of each up card

    @property
    def house_edge(self) -> float:
        """House edge as a fraction of the initial bet (positive favours the house)."""
        return -self.ev

    def describe(self) -> str:
        """One line per up card and the total, in percent."""
        parts = [f"  up {('A' if u == 1 else u):>2}: {v * 100:+.4f} %" for u, v in sorted(self.by_up.items())]
        return "\n".join(
            [f"player EV by dealer up card (contribution to the total), {self.rules_name}:", *parts,
             f"house edge: {self.house_edge * 100:.4f} % of the initial bet"]
        )


class _Evaluator:
    """Plays a strategy's tables against a depleting shoe; memoises dealer outcomes and hand values."""

    def __init__(self, rules: BlackjackTerms, strategy: BasicStrategy) -> None:
        self.house = HouseRules.of(rules)
        self.s = strategy
        self._dealer: dict[tuple[tuple[int, ...], int], list[float]] = {}
        self._hands: dict[tuple, float] = {}

    # ------------------------------------------------------------------ dealer
    def dealer(self, shoe: tuple[int, ...], up: int) -> list[float]:
        """Joint probabilities of the dealer's final 17..21, bust, blackjack drawing from ``shoe``."""
        key = (shoe, up)
        got = self._dealer.get(key)
        if got is not None:
            return got
        counts = list(shoe)
        h17 = self.house.hits_soft17
        memo: dict[tuple[int, ...], list[float]] = {}

        def draw(hard: int, ace: bool, n: int) -> list[float]:
            state = tuple(counts)
            got = memo.get(state)
            if got is not None:
                return got
            out = [0.0] * 6
            for x in range(1, 11):
                c = counts[x]
                if not c:
                    continue
                p = c / n
                h = hard + x
                a = ace or x == 1
                if h > 21:
                    out[BUST] += p
                    continue
                total = h + 10 if a and h <= 11 else h
                if total > 17 or (total == 17 and not (h17 and a and h == 7)):
                    out[total - 17] += p
                    continue
                counts[x] = c - 1
                sub = draw(h, a, n - 1)
                counts[x] = c
                for i in range(6):
                    out[i] += p * sub[i]
            memo[state] = out
            return out

        n = sum(counts)
        dist = [0.0] * 7
        for x in range(1, 11):
            c = counts[x]
            if not c:
                continue
            p = c / n
            if (up == 1 and x == 10) or (up == 10 and x == 1):
                dist[BJ] += p
                continue
            hard, ace = up + x, up == 1 or x == 1
            total = hard + 10 if ace and hard <= 11 else hard
            if total > 17 or (total == 17 and not (h17 and ace and hard == 7)):
                dist[total - 17] += p
                continue
            counts[x] = c - 1
            sub = draw(hard, ace, n - 1)
            counts[x] = c
            for i in range(6):
                dist[i] += p * sub[i]
        self._dealer[key] = dist
        return dist

    # ------------------------------------------------------------------ one hand
    def _bj_chance(self, counts: list[int], n: int, up: int) -> float:
        if up == 1:
            return counts[10] / n
        if up == 10:
            return counts[1] / n
        return 0.0

    def stand(self, counts: list[int], up: int, total: int, stake: float, kind: "_Kind") -> float:
        d = self.dealer(tuple(counts), up)
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
        return ev + d[BJ] * (-stake if kind.takes_stake else -1.0)

    def bust(self, counts: list[int], n: int, up: int, stake: float, kind: "_Kind") -> float:
        if kind.no_bj_only:
            return -stake * (1.0 - self._bj_chance(counts, n, up))
        return -stake

    def hits(self, counts: list[int], up: int, hard: int, ace: bool, cards: list[int], kind: "_Kind") -> float:
        """Value of a hand that has hit at least once (hit/stand only from here)."""
        total = playing_total(hard, ace)
        if total == 21:
            return self.stand(counts, up, 21, 1.0, kind)
        key = (tuple(counts), up, hard, ace, kind)
        got = self._hands.get(key)
        if got is not None:
            return got
        if self.s.decide(cards, up, can_double=False, can_split=False, can_surrender=False,
                         hands_in_box=2 if kind.split else 1, is_split_hand=kind.split) is STAND:
            ev = self.stand(counts, up, total, 1.0, kind)
        else:
            ev = self.draw(counts, up, hard, ace, cards, kind)
        self._hands[key] = ev
        return ev

    def draw(self, counts: list[int], up: int, hard: int, ace: bool, cards: list[int], kind: "_Kind",
             sevens: bool = False) -> float:
        """Value of hitting once and playing on; ``sevens``: the hand is an original 7-7."""
        n = sum(counts)
        ev = 0.0
        for x in range(1, 11):
            c = counts[x]
            if not c:
                continue
            p = c / n
            counts[x] = c - 1
            h = hard + x
            if h > 21:
                ev += p * self.bust(counts, n - 1, up, 1.0, kind)
            elif sevens and x == 7:
                paid = self.house.sevens_bonus(up)
                ev += p * paid * ((1.0 - self._bj_chance(counts, n - 1, up)) if kind.no_bj_only else 1.0)
            else:
                cards.append(x)
                ev += p * self.hits(counts, up, h, ace or x == 1, cards, kind)
                cards.pop()
            counts[x] = c
        return ev

    def double(self, counts: list[int], up: int, hard: int, ace: bool, kind: "_Kind") -> float:
        n = sum(counts)
        ev = 0.0
        for x in range(1, 11):
            c = counts[x]
            if not c:
                continue
            p = c / n
            counts[x] = c - 1
            h = hard + x
            if h > 21:
                ev += p * self.bust(counts, n - 1, up, 2.0, kind)
            else:
                ev += p * self.stand(counts, up, playing_total(h, ace or x == 1), 2.0, kind)
            counts[x] = c
        return ev

    def two_cards(self, counts: list[int], up: int, a: int, b: int, kind: "_Kind", hands: int) -> float:
        """A split hand's value on its first two cards (no further split)."""
        house = self.house
        hard, ace = a + b, a == 1 or b == 1
        if a == 1:  # split aces: one card
            return self.stand(counts, up, playing_total(hard, ace), 1.0, kind)
        act = self.s.decide([a, b], up, can_double=house.das and house.may_double(hard, ace), can_split=False,
                            can_surrender=False, hands_in_box=hands, is_split_hand=True)
        if act is DOUBLE:
            return self.double(counts, up, hard, ace, kind)
        if act is STAND:
            return self.stand(counts, up, playing_total(hard, ace), 1.0, kind)
        return self.draw(counts, up, hard, ace, [a, b], kind)

    def split(self, rest: list[int], up: int, c: int, peeked: bool) -> float:
        """Value of splitting c-c on an original hand; ``rest`` excludes the pair and up card."""
        house = self.house
        kind = _Kind(split=True, no_bj_only=peeked or house.blackjack_loss(up) is not BlackjackLoss.STAKE,
                     takes_stake=True)
        n = sum(rest)
        values = [0.0] * 11
        for x in range(1, 11):
            if rest[x]:
                rest[x] -= 1
                values[x] = self.two_cards(rest, up, c, x, kind, 2)
                rest[x] += 1
        p = rest[c] / n
        if house.split_by_rank and c == 10:
            p /= 4
        mix = sum(rest[x] / n * values[x] for x in range(1, 11))
        other = (mix - p * values[c]) / (1.0 - p)
        may_resplit = c != 1 or house.resplit_aces

        def resplits(hands: int) -> bool:
            if not may_resplit or hands >= house.max_hands:
                return False
            return self.s.decide([c, c], up, can_double=False, can_split=True, can_surrender=False,
                                 hands_in_box=hands, is_split_hand=True) is SPLIT

        @lru_cache(maxsize=None)
        def count(hands: int, pending: int) -> tuple[float, float]:
            if pending == 0:
                return 0.0, 0.0
            a_done, p_done = count(hands, pending - 1)
            if resplits(hands):
                a_re, p_re = count(hands + 1, pending + 1)
                return (1 - p) * (a_done + 1) + p * a_re, (1 - p) * p_done + p * p_re
            return a_done + (1 - p), p_done + p

        non_pair, pairs = count(2, 2)
        ev = non_pair * other + pairs * values[c]
        if not peeked and house.blackjack_loss(up) is BlackjackLoss.ORIGINAL:
            ev -= self._bj_chance(rest, n, up)  # the box's one bet
        return ev

    # ------------------------------------------------------------------ one deal
    def deal(self, rest: list[int], up: int, a: int, b: int) -> float:
        """Expectation of an original hand a-b against ``up``; ``rest`` is the shoe without those cards."""
        house = self.house
        n = sum(rest)
        p_bj = self._bj_chance(rest, n, up)
        if a + b == 11 and (a == 1 or b == 1):
            return house.bj_pays * (1.0 - p_bj)
        peeked = up in house.peek_ups
        loss = house.blackjack_loss(up)
        kind = _Kind(split=False, no_bj_only=peeked, takes_stake=loss is BlackjackLoss.STAKE)
        top = -p_bj if peeked else 0.0
        hard, ace = a + b, a == 1 or b == 1
        pair_ok = a == b and house.max_hands >= 2 and not (house.split_by_rank and a == 10)
        act = self.s.decide([a, b], up, can_double=house.may_double(hard, ace), can_split=pair_ok,
                            can_surrender=house.may_surrender(up))
        if act is SURRENDER:
            return top + (-0.5 * (1.0 - p_bj) if peeked else -0.5)
        if act is STAND:
            return top + self.stand(rest, up, playing_total(hard, ace), 1.0, kind)
        if act is DOUBLE:
            return top + self.double(rest, up, hard, ace, kind)
        if act is SPLIT:
            return top + self.split(rest, up, a, peeked)
        return top + self.draw(rest, up, hard, ace, [a, b], kind, sevens=house.three_sevens and a == b == 7)


@dataclass(frozen=True)
class _Kind:
    """How a hand is settled against a dealer blackjack made after play."""

    split: bool
    no_bj_only: bool  # value only the no-blackjack outcomes (peek; or "original" split hands)
    takes_stake: bool  # a later dealer blackjack takes the hand's whole stake (else one bet)


@lru_cache(maxsize=16)
def house_edge(rules: BlackjackTerms) -> EdgeReport:
    """The exact (see module notes) expectation of the profile's basic strategy off the top of a shoe."""
    house = HouseRules.of(rules)
    ev_all = _Evaluator(rules, strategy_for(rules))
    shoe = house.shoe()
    total = sum(shoe)
    by_up: dict[int, float] = {}
    for up in range(1, 11):
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
                counts = rest.copy()
                counts[a] -= 1
                counts[b] -= 1
                ev_up += p * ev_all.deal(counts, up, a, b)
        by_up[up] = p_up * ev_up
    return EdgeReport(rules.name, sum(by_up.values()), by_up)
