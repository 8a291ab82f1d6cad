"""The exact analyser (simulators/exact.py) against a brute-force enumerator on tiny shoes.

On 20-card shoes and with no split, it equals a plain recursive enumerator written here, which
deals the hole card at the deal and has the player decide on what he can see (the hole card's
odds given the cards shown and, where the dealer peeked, given no blackjack): for basic strategy
and for composition-dependent optimal play, under every blackjack rule that changes the figure
(peek on ace or ace and ten, no hole card with either blackjack rule, soft 17, double rules,
every surrender rule, three sevens).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from controller.rules import build_rules
from games.blackjack.rules import RuleProfile
from simulators.exact import analyse
from simulators.strategy import DOUBLE, HIT, STAND, SURRENDER, strategy_for
from simulators.strategy_model import HouseRules


def _rules(profile: str, **options: Any) -> RuleProfile:
    rules = build_rules(profile, options)
    assert isinstance(rules, RuleProfile)
    return rules


# ------------------------------------------------------------------ the brute-force enumerator
def _total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard <= 11 else hard


def _brute_force(rules: RuleProfile, shoe: list[int], play: str) -> float:
    """The round's expectation, every card sequence enumerated (no split: max_hands = 1)."""
    assert rules.max_hands == 1
    house = HouseRules.of(rules)
    decide = strategy_for(rules).decide
    bj_pays = float(rules.blackjack_ratio)

    def is_bj(up: int, hole: int) -> bool:
        return {up, hole} == {1, 10}

    def peeked_cards(up: int) -> tuple[int, ...]:
        # hole cards the dealer has checked for (and so are known not to be there)
        if not rules.hole_card or up not in house.peek_ups:
            return ()
        return (10,) if up == 1 else (1,)

    @cache
    def dealer(c: tuple[int, ...], up: int, hard: int, ace: bool, total: int, stake: float) -> float:
        """The player standing on `total`; the dealer holds `hard`/`ace` and draws from `c`."""
        mine = _total(hard, ace)
        if hard > 21:
            return stake
        if mine > 17 or (mine == 17 and not (rules.dealer_hits_soft17 and ace and hard == 7)):
            return stake * ((total > mine) - (total < mine))
        n = sum(c)
        ev = 0.0
        for x in range(1, 11):
            if c[x]:
                rest = list(c)
                rest[x] -= 1
                ev += c[x] / n * dealer(tuple(rest), up, hard + x, ace or x == 1, total, stake)
        return ev

    def hole_odds(c: tuple[int, ...], up: int) -> list[tuple[int, float]]:
        """The hole card's odds given the cards seen (and no blackjack where he peeked)."""
        hidden = peeked_cards(up)
        left = sum(c) - sum(c[h] for h in hidden)
        return [(h, c[h] / left) for h in range(1, 11) if c[h] and h not in hidden]

    def without(c: tuple[int, ...], x: int) -> tuple[int, ...]:
        rest = list(c)
        rest[x] -= 1
        return tuple(rest)

    @cache
    def stand(c: tuple[int, ...], up: int, total: int, stake: float) -> float:
        ev = 0.0
        for h, p in hole_odds(c, up):
            if is_bj(up, h):  # no peek: a blackjack made after play
                ev += p * -(stake if rules.dealer_bj_takes.value == "all" else 1.0)
            else:
                ev += p * dealer(without(c, h), up, up + h, up == 1 or h == 1, total, stake)
        return ev

    @cache
    def next_card(c: tuple[int, ...], up: int) -> list[tuple[int, float]]:
        """The odds of the player's next card, the hole card (if any) being one of the unseen ones."""
        n = sum(c)
        odds = [0.0] * 11
        for h, p in hole_odds(c, up):
            for x in range(1, 11):
                odds[x] += p * (c[x] - (x == h)) / (n - 1)
        return [(x, odds[x]) for x in range(1, 11) if odds[x] > 0]

    @cache
    def hand(c: tuple[int, ...], up: int, cards: tuple[int, ...]) -> float:
        hard, ace = sum(cards), 1 in cards
        total = _total(hard, ace)
        first = len(cards) == 2
        values = {STAND: stand(c, up, total, 1.0)}
        if total < 21:
            hit = 0.0
            for x, p in next_card(c, up):
                if first and house.three_sevens and cards == (7, 7) and x == 7:
                    hit += p * house.sevens_bonus(up)
                elif hard + x > 21:
                    hit -= p
                else:
                    hit += p * hand(without(c, x), up, cards + (x,))
            values[HIT] = hit
        if first and house.may_double(hard, ace):
            values[DOUBLE] = sum(p * (-2.0 if hard + x > 21 else stand(without(c, x), up, _total(hard + x, ace or x == 1), 2.0))
                                 for x, p in next_card(c, up))
        if first and house.may_surrender(up):
            values[SURRENDER] = -0.5
        if play == "optimal":
            return max(values.values())
        act = decide(list(cards), up, can_double=DOUBLE in values, can_split=False,
                     can_surrender=SURRENDER in values)
        return values[act if act is not HIT or HIT in values else STAND]

    def deal(c: tuple[int, ...], up: int, a: int, b: int) -> float:
        if {a, b} == {1, 10}:
            return sum(c[h] / sum(c) * (0.0 if is_bj(up, h) else bj_pays) for h in range(1, 11))
        hidden = peeked_cards(up)
        p_bj = sum(c[h] for h in hidden) / sum(c)
        return -p_bj + (1.0 - p_bj) * hand(c, up, (a, b))

    ev = 0.0
    start = tuple([0, *shoe])
    for up in range(1, 11):
        for a in range(1, 11):
            for b in range(1, 11):
                c = start
                p = 1.0
                for x in (a, up, b):  # dealt in the table's order: box, dealer, box
                    p *= c[x] / sum(c)
                    if not p:
                        break
                    c = without(c, x)
                if p:
                    ev += p * deal(c, up, a, b)
    return ev


ONE_ACE = [1, 1, 1, 1, 1, 1, 1, 1, 2, 10]  # 20 cards: one of each small card, two nines, ten tens
TWO_ACES = [2, 1, 1, 1, 1, 1, 1, 1, 1, 10]  # 20 cards: two aces, so blackjacks and soft hands twice as often

RULES = {
    "no hole card, lose all, three sevens": ("ru-standard", {}, ONE_ACE),
    "no hole card, early surrender": ("ru-surrender", {}, TWO_ACES),
    "no hole card, original bet only": ("ru-standard", {"dealer_bj_takes": "original", "three_sevens": False},
                                        TWO_ACES),
    "peek on ace and ten, hits soft 17": ("us-holecard", {"dealer_hits_soft17": True}, TWO_ACES),
    "peek on ace only, late surrender, 9-11": ("us-holecard", {"peek": "ace", "surrender": "late", "double": "9-11"},
                                               ONE_ACE),
    "double on 11, early surrender against 2-10": ("single-deck-enhc", {}, ONE_ACE),
}


@pytest.mark.parametrize("case", sorted(RULES))
@pytest.mark.parametrize("play", ["basic", "optimal"])
def test_equals_brute_force_enumeration_on_a_tiny_shoe(case: str, play: str) -> None:
    profile, options, shoe = RULES[case]
    rules = _rules(profile, max_hands=1, **options)
    got = analyse(rules, shoe, play).ev  # type: ignore[arg-type]
    assert got == pytest.approx(_brute_force(rules, shoe, play), abs=1e-12)
