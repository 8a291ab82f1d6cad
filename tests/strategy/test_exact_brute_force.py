"""The exact analyser (simulators/exact.py) against brute-force enumerators on tiny shoes.

On 20-card shoes and with no split, it equals a plain recursive enumerator written here, which
deals the hole card at the deal and has the player decide on what he can see (the hole card's
odds given the cards shown and, where the dealer peeked, given no blackjack): for basic strategy
and for composition-dependent optimal play, under every blackjack rule that changes the figure
(peek on ace or ace and ten, no hole card with either blackjack rule, soft 17, double rules,
every surrender rule, three sevens).

With splits and resplits (to 3 and 4 hands, DAS on and off, resplit aces, peek or no hole card with
either blackjack rule) it equals a second enumerator that plays a split in the table's order, one
hand after the other, for basic strategy, CDP1 and CDZ-; and where a line of a split can run out of
cards, the analyser refuses the shoe.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from controller.rules import build_rules
from controller.legality import Action
from games.blackjack.rules import RuleProfile
from simulators.exact import ShoeError, analyse
from simulators.strategy import DOUBLE, HIT, SPLIT, STAND, SURRENDER, strategy_for
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


# ------------------------------------------------------------------ with splits and resplits
def _brute_force_with_splits(rules: RuleProfile, shoe: list[int], play: str) -> tuple[float, bool]:
    """The round's expectation, every card sequence enumerated, pairs split (and split again) to
    ``max_hands`` in the table's order: each split hand takes its second card when its turn comes (a
    pair card then begins a new hand while the box has room) and plays out before the next; the
    dealer plays last. Also whether some line could need a card from an empty shoe.

    The hole card is dealt at the deal (the player never sees it). How a split hand plays: basic
    strategy's table (asked with the box's real number of hands); CDP1: the best play of the first
    split hand with these cards (the shoe less both pair cards, no further split); CDZ-: the best play
    of the same cards as an original hand. A tie stands; a hard 11 or less hits.
    """
    house = HouseRules.of(rules)
    decide = strategy_for(rules).decide
    bj_pays = float(rules.blackjack_ratio)
    takes_all = rules.dealer_bj_takes.value == "all"
    optimal = play != "basic"
    ran_out = [False]

    def is_bj(up: int, hole: int) -> bool:
        return {up, hole} == {1, 10}

    def peeked_cards(up: int) -> tuple[int, ...]:
        if not rules.hole_card or up not in house.peek_ups:
            return ()
        return (10,) if up == 1 else (1,)

    def without(c: tuple[int, ...], x: int) -> tuple[int, ...]:
        rest = list(c)
        rest[x] -= 1
        return tuple(rest)

    def hard_ace(cards: tuple[int, ...]) -> tuple[int, bool]:
        return sum(cards), 1 in cards

    @cache
    def dealer_ends(c: tuple[int, ...], hard: int, ace: bool) -> tuple[tuple[int, float], ...]:
        """The dealer's final totals (22: bust) drawing from ``c``."""
        mine = _total(hard, ace)
        if hard > 21:
            return ((22, 1.0),)
        if mine > 17 or (mine == 17 and not (rules.dealer_hits_soft17 and ace and hard == 7)):
            return ((mine, 1.0),)
        n = sum(c)
        if n == 0:
            ran_out[0] = True
            return ((22, 1.0),)
        ends: dict[int, float] = {}
        for x in range(1, 11):
            if c[x]:
                for t, p in dealer_ends(without(c, x), hard + x, ace or x == 1):
                    ends[t] = ends.get(t, 0.0) + c[x] / n * p
        return tuple(sorted(ends.items()))

    def hole_odds(c: tuple[int, ...], up: int) -> list[tuple[int, float]]:
        hidden = peeked_cards(up)
        left = sum(c) - sum(c[h] for h in hidden)
        return [(h, c[h] / left) for h in range(1, 11) if c[h] and h not in hidden]

    @cache
    def stand(c: tuple[int, ...], up: int, total: int, stake: float, split: bool) -> float:
        ev = 0.0
        for h, p in hole_odds(c, up):
            if is_bj(up, h):  # no peek: a blackjack made after play (a split box is charged one bet once)
                ev += p * -(stake if takes_all else (0.0 if split else 1.0))
            else:
                ends = dealer_ends(without(c, h), up + h, up == 1 or h == 1)
                ev += p * stake * sum(q * ((total > t) - (total < t) if t <= 21 else 1) for t, q in ends)
        return ev

    @cache
    def next_card(c: tuple[int, ...], up: int) -> tuple[tuple[int, float], ...]:
        n = sum(c)
        if n < 2:
            ran_out[0] = True
            return ()
        odds = [0.0] * 11
        for h, p in hole_odds(c, up):
            for x in range(1, 11):
                odds[x] += p * (c[x] - (x == h)) / (n - 1)
        return tuple((x, odds[x]) for x in range(1, 11) if odds[x] > 0)

    @cache
    def actions(c: tuple[int, ...], up: int, cards: tuple[int, ...], split: bool) -> dict[Action, float]:
        """Each action's value on a hand (an original one, or a split hand of a split to two hands) drawing
        from ``c``, the hand played on as the play would play it there."""
        hard, ace = hard_ace(cards)
        total = _total(hard, ace)
        first = len(cards) == 2
        values = {STAND: stand(c, up, total, 1.0, split)}
        if split and cards[0] == 1:
            return values  # split aces: one card
        if total < 21:
            hit = 0.0
            for x, p in next_card(c, up):
                if first and not split and house.three_sevens and cards == (7, 7) and x == 7:
                    hit += p * house.sevens_bonus(up)
                elif hard + x > 21:
                    hit -= p * (1.0 if not split or takes_all or up not in (1, 10) or up in house.peek_ups
                                else 1.0 - bj_after(without(c, x), up))
                else:
                    hit += p * chosen(without(c, x), up, cards + (x,), split)
            values[HIT] = hit
        if first and house.may_double(hard, ace) and (house.das or not split):
            double = 0.0
            for x, p in next_card(c, up):
                if hard + x > 21:
                    double -= p * 2.0 * (1.0 if not split or takes_all or up not in (1, 10) or up in house.peek_ups
                                         else 1.0 - bj_after(without(c, x), up))
                else:
                    double += p * stand(without(c, x), up, _total(hard + x, ace or x == 1), 2.0, split)
            values[DOUBLE] = double
        if first and not split and house.may_surrender(up):
            values[SURRENDER] = -0.5
        return values

    def bj_after(c: tuple[int, ...], up: int) -> float:
        # A split box charged one bet for a blackjack made after play: a bust hand loses only without one.
        n = sum(c)
        return c[10 if up == 1 else 1] / n if n else 0.0

    def chosen(c: tuple[int, ...], up: int, cards: tuple[int, ...], split: bool) -> float:
        values = actions(c, up, cards, split)
        if optimal:
            hard, ace = hard_ace(cards)
            if hard <= 11 and not ace and HIT in values:
                return values[HIT]
            return max(values.values())
        act = decide(list(cards), up, can_double=False, can_split=False, can_surrender=False)
        return values[act if act in values else STAND]

    def best(values: dict[Action, float]) -> Action:
        act = STAND
        for other in (HIT, DOUBLE):
            if other in values and values[other] > values[act]:
                act = other
        return act

    def split_play(start: tuple[int, ...], up: int, cards: tuple[int, ...], hands: int) -> Action:
        """How a split hand holding ``cards`` plays; ``start``: the shoe after the deal (the hole card in it)."""
        hard, ace = hard_ace(cards)
        first = len(cards) == 2
        may_double = first and house.das and house.may_double(hard, ace)
        if (cards[0] == 1 and first) or (_total(hard, ace) == 21 and (play != "cdp1" or not may_double)):
            return STAND  # CDZ-: a ten-ace is a blackjack unsplit, and stands
        if play == "basic":
            return decide(list(cards), up, can_double=may_double, can_split=False, can_surrender=False,
                          hands_in_box=hands, is_split_hand=True)
        if hard <= 11 and not ace:
            values = {HIT: 1.0}
            if may_double:
                world = actions(_less(start, cards[1:]), up, cards, True) if play == "cdp1" else actions(
                    _less(_plus(start, cards[0]), cards), up, cards, False)
                return DOUBLE if world[DOUBLE] > world[HIT] else HIT
            return HIT
        if play == "cdp1":
            values = dict(actions(_less(start, cards[1:]), up, cards, True))
            if _total(hard, ace) == 21:
                values.pop(HIT, None)
        else:
            values = dict(actions(_less(_plus(start, cards[0]), cards), up, cards, False))
        if not may_double:
            values.pop(DOUBLE, None)
        values.pop(SURRENDER, None)
        return best(values)

    def split_value(start: tuple[int, ...], up: int, pair: int) -> float:
        """A split of ``pair``: ``start`` is the shoe after the up card and the pair (the hole card in it)."""

        def may_resplit(hands: int) -> bool:
            if hands >= rules.max_hands or (pair == 1 and not rules.resplit_aces):
                return False
            return optimal or decide([pair, pair], up, can_double=False, can_split=True, can_surrender=False,
                                     hands_in_box=hands, is_split_hand=True) is SPLIT

        @cache
        def settle(c: tuple[int, ...], hole: int, done: tuple[tuple[int, float], ...]) -> float:
            if is_bj(up, hole):
                return -sum(s for _, s in done) if takes_all else -1.0
            ends = dealer_ends(c, up + hole, up == 1 or hole == 1)
            ev = 0.0
            for total, stake in done:
                if total > 21:
                    ev -= stake
                else:
                    ev += stake * sum(q * ((total > t) - (total < t) if t <= 21 else 1) for t, q in ends)
            return ev

        @cache
        def box(c: tuple[int, ...], hole: int, hands: int, pending: int, cards: tuple[int, ...],
                done: tuple[tuple[int, float], ...]) -> float:
            if not cards:
                if pending == 0:
                    return settle(c, hole, done)
                return box(c, hole, hands, pending - 1, (pair,), done)
            n = sum(c)
            if len(cards) == 1:  # the hand's second card
                if n == 0:
                    ran_out[0] = True
                    return 0.0
                ev = 0.0
                for x in range(1, 11):
                    if c[x]:
                        if x == pair and may_resplit(hands):
                            ev += c[x] / n * box(without(c, x), hole, hands + 1, pending + 1, cards, done)
                        else:
                            ev += c[x] / n * box(without(c, x), hole, hands, pending, cards + (x,), done)
                return ev
            hard, ace = hard_ace(cards)
            act = split_play(start, up, cards, hands)
            if act is STAND:
                return box(c, hole, hands, pending, (), tuple(sorted(done + ((_total(hard, ace), 1.0),))))
            if n == 0:
                ran_out[0] = True
                return 0.0
            ev = 0.0
            for x in range(1, 11):
                if not c[x]:
                    continue
                rest = without(c, x)
                if act is DOUBLE or hard + x > 21:
                    end = (22 if hard + x > 21 else _total(hard + x, ace or x == 1), 2.0 if act is DOUBLE else 1.0)
                    ev += c[x] / n * box(rest, hole, hands, pending, (), tuple(sorted(done + (end,))))
                else:
                    ev += c[x] / n * box(rest, hole, hands, pending, cards + (x,), done)
            return ev

        return sum(p * box(without(start, h), h, 2, 1, (pair,), ()) for h, p in hole_odds(start, up))

    def deal(c: tuple[int, ...], up: int, a: int, b: int) -> float:
        if {a, b} == {1, 10}:
            return sum(c[h] / sum(c) * (0.0 if is_bj(up, h) else bj_pays) for h in range(1, 11))
        hidden = peeked_cards(up)
        p_bj = sum(c[h] for h in hidden) / sum(c)
        values = dict(actions(c, up, (a, b), False))
        if a == b and rules.max_hands >= 2:
            values[SPLIT] = split_value(c, up, a)
        if optimal:
            value = max(values.values())
        else:
            act = decide([a, b], up, can_double=DOUBLE in values, can_split=SPLIT in values,
                         can_surrender=SURRENDER in values)
            value = values[act]
        return -p_bj + (1.0 - p_bj) * value

    ev = 0.0
    start = tuple([0, *shoe])
    for up in range(1, 11):
        for a in range(1, 11):
            for b in range(1, 11):
                c = start
                p = 1.0
                for x in (a, up, b):
                    p *= c[x] / sum(c)
                    if not p:
                        break
                    c = without(c, x)
                if p:
                    ev += p * deal(c, up, a, b)
    return ev, ran_out[0]


def _less(c: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    rest = list(c)
    for x in cards:
        rest[x] -= 1
    return tuple(rest)


def _plus(c: tuple[int, ...], x: int) -> tuple[int, ...]:
    rest = list(c)
    rest[x] += 1
    return tuple(rest)


# Few values, mostly tens: every split can go to four hands, and no line can run out of cards.
EIGHTS = [3, 0, 0, 0, 0, 0, 0, 5, 0, 12]  # 20 cards: aces, eights and tens
NINES = [2, 0, 0, 1, 0, 0, 0, 0, 5, 12]  # 20 cards: a four to hit with, nines to split
TENS = [3, 0, 0, 0, 2, 1, 0, 0, 0, 14]  # 20 cards, tens rich: CDP1 doubles split tens that draw an ace
SPLITS = {
    "us-holecard, to 2, DAS, tens rich": ("us-holecard", {"max_hands": 2, "double_after_split": True,
                                                          "split_by": "value"}, TENS),
    "us-holecard, to 4, DAS, by value": ("us-holecard", {"max_hands": 4, "double_after_split": True,
                                                         "split_by": "value"}, EIGHTS),
    "us-holecard, to 3, no DAS": ("us-holecard", {"max_hands": 3, "split_by": "value"}, NINES),
    "no hole card, lose all, to 4, resplit aces, three sevens": ("ru-standard", {}, EIGHTS),
    "no hole card, original bet only, to 4": ("ru-standard", {"dealer_bj_takes": "original",
                                                              "three_sevens": False}, NINES),
    "peek on ace only, H17, to 3, DAS": ("us-holecard", {"max_hands": 3, "peek": "ace", "dealer_hits_soft17": True,
                                                         "double_after_split": True, "split_by": "value"}, EIGHTS),
}


@pytest.mark.parametrize("case", sorted(SPLITS))
@pytest.mark.parametrize("play", ["basic", "cdp1", "cdz-"])
def test_equals_brute_force_enumeration_with_resplits(case: str, play: str) -> None:
    profile, options, shoe = SPLITS[case]
    rules = _rules(profile, **options)
    want, ran_out = _brute_force_with_splits(rules, shoe, play)
    assert not ran_out
    got = analyse(rules, shoe, play).ev  # type: ignore[arg-type]
    assert got == pytest.approx(want, abs=1e-12)


def test_a_split_that_can_run_out_of_cards_is_refused() -> None:
    # 15 cards, five of them twos: basic strategy splits 2-2 against a 2 to four hands, and some line of that
    # split needs a card when none is left (the enumerator finds it). No figure is given for such a shoe.
    rules = _rules("us-holecard", max_hands=4, split_by="value", double_after_split=True)
    shoe = [1, 5, 0, 0, 0, 0, 0, 0, 0, 9]
    assert _brute_force_with_splits(rules, shoe, "basic")[1]
    with pytest.raises(ShoeError, match="could run out in a split"):
        analyse(rules, shoe, "basic")
