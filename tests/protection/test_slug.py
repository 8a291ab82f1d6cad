"""The slug watch: the alarm on the card that makes a run reach its threshold, once per key, over every order a
dealer may gather in; fair shoes raise nothing."""

from __future__ import annotations

import random

import pytest

from controller.cards import Card, parse_card
from controller.protection.findings import Key, Level, Order
from controller.protection.slug import SlugThresholds, SlugWatch, key_of

from controller.protection.discards import slug_orders
from tests.protection.conftest import dealt_and_discards, fresh_shoe
from tests.support import casino

DEALT, DISCARDS = Order("dealt"), Order("third-base-first")


def orders(dealt: list[Card], discards: list[Card] | None = None) -> list[tuple[Order, list[Card]]]:
    """The dealt order and (if given) the table's discard order, as the watch's orders."""
    return [(DEALT, dealt)] + ([(DISCARDS, discards)] if discards is not None else [])


def test_the_alarm_fires_on_the_threshold_card_and_not_before() -> None:
    rng = random.Random(1)
    dealt, discards = dealt_and_discards(fresh_shoe(rng))
    new = fresh_shoe(rng)[:40] + dealt[100:112]  # 40 shuffled cards, then a 12-card slug of the dealt order
    watch = SlugWatch(orders(dealt, discards))
    raised = [(position, alarm) for position, card in enumerate(new, 1) for alarm in watch.push(card)]
    first_position, first = raised[0]
    assert first_position == 47 and first.at_card == 47  # the slug's 7th card, not its 6th
    assert (first.key, first.order, first.length) == (Key.RANK_AND_SUIT, DEALT, 7)
    assert (first.new_start, first.previous_start) == (41, 101)
    assert first.level is Level.ALARM and "cards 41-47" in first.message and "card 101" in first.message
    # once per key: the run grows to 12 without another rank-and-suit alarm; the summary has its length
    assert [a.key for _, a in raised].count(Key.RANK_AND_SUIT) == 1
    assert watch.longest(Key.RANK_AND_SUIT).length == 12
    assert {a.key for a in watch.summary().alarms} == {a.key for _, a in raised}


def test_the_thresholds_are_options() -> None:
    rng = random.Random(2)
    dealt, _ = dealt_and_discards(fresh_shoe(rng))
    watch = SlugWatch(orders(dealt), thresholds=SlugThresholds(rank_and_suit=4, rank=99, value=99))
    alarms = [a for card in fresh_shoe(rng)[:30] + dealt[50:54] for a in watch.push(card)]
    assert [(a.key, a.at_card, a.length) for a in alarms] == [(Key.RANK_AND_SUIT, 34, 4)]


def test_a_slug_of_the_discard_order_is_found_in_the_discards() -> None:
    rng = random.Random(3)
    dealt, discards = dealt_and_discards(fresh_shoe(rng))
    watch = SlugWatch(orders(dealt, discards))
    slug = discards[60:80]
    alarms = [a for card in fresh_shoe(rng)[:25] + slug for a in watch.push(card)]
    assert alarms[0].order == DISCARDS and alarms[0].at_card == 25 + 7
    assert watch.longest(Key.RANK_AND_SUIT).length >= 20 and watch.longest(Key.RANK_AND_SUIT).order == DISCARDS


def test_runs_by_rank_and_by_value_bridge_other_suits() -> None:
    previous = [parse_card(c) for c in "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS".split()]
    watch = SlugWatch(orders(previous), thresholds=SlugThresholds(rank_and_suit=99, rank=5, value=99))
    alarms = [a for c in "AD 2H 3H 4H 5H 6H".split() for a in watch.push(parse_card(c))]
    assert [(a.key, a.at_card, a.previous_start) for a in alarms] == [(Key.RANK, 6, 1)]
    watch = SlugWatch(orders(previous), thresholds=SlugThresholds(rank_and_suit=99, rank=99, value=4))
    alarms = [a for c in "AD 9H KD QH JC".split() for a in watch.push(parse_card(c))]  # 9 T T T by value
    assert [(a.key, a.new_start, a.previous_start, a.length) for a in alarms] == [(Key.VALUE, 2, 8, 4)]


def test_no_card_in_common_no_run() -> None:
    watch = SlugWatch(orders([parse_card("AS"), parse_card("AH")]))
    watch.push(parse_card("KD"))
    assert watch.longest(Key.RANK_AND_SUIT).length == 0 and watch.longest(Key.RANK_AND_SUIT).order is None


def _fair_runs(pairs: int, seed: str) -> dict[Key, int]:
    """The longest run per key over every order followed, between ``pairs`` pairs of fair shoes of the independent
    generator at a full table cut at 75 % (the null's most chances); asserts no alarm rang."""
    rng = random.Random(seed)
    longest = {key: 0 for key in Key}
    for _ in range(pairs):
        t = casino.trial("fair", rng, boxes=7, cut_zone=(234, 234))
        p = t.previous
        watch = SlugWatch(slug_orders(p.dealt, p.rounds, burnt=p.burnt, boxes=p.boxes))
        assert [a for card in t.new.dealt for a in watch.push(card)] == []
        for key in Key:
            longest[key] = max(longest[key], watch.longest(key).length)
    return longest


def test_fair_shoes_raise_nothing() -> None:
    """60 pairs of fair shoes, every order followed (the slow test runs 10,000, the benchmark's --null 100,000): no
    alarm, short runs."""
    longest = _fair_runs(60, "fair shoes")
    thresholds = SlugThresholds()
    assert all(longest[key] < thresholds.of(key) - 1 for key in Key), longest


@pytest.mark.slow
def test_fair_shoes_raise_nothing_at_scale() -> None:
    """10,000 pairs: no alarm; the longest runs stay a card or more below each threshold."""
    longest = _fair_runs(10_000, "fair shoes at scale")
    thresholds = SlugThresholds()
    assert all(longest[key] <= thresholds.of(key) - 2 for key in Key), longest


def _longest_runs_by_brute_force(named: list[tuple[Order, list[Card]]], new: list[Card],
                                 key: Key) -> tuple[list[tuple[int, int, int, Order | None]], int | None]:
    """Every (new, previous) pair of positions in every order: after each new card, the longest common run so far
    (length, new start, start in its order as gathered, the order; among the longest, the first order's, and in it
    the earliest), and the card at which a run first reached 7."""
    keys = key_of(key)
    tables = [[0] * (len(cards) + 1) for _, cards in named]  # run ending at position j (1-based) and the last card
    best: tuple[int, int, int, Order | None] = (0, 0, 0, None)
    so_far, reached = [], None
    for i, card in enumerate(new, 1):
        length, where = 0, (0, 0)
        for o, (_, cards) in enumerate(named):
            table = [0] + [tables[o][j - 1] + 1 if keys[cards[j - 1].index] == keys[card.index] else 0
                           for j in range(1, len(cards) + 1)]
            tables[o] = table
            if max(table) > length:
                length, where = max(table), (o, table.index(max(table)))
        if length > best[0]:
            o, j = where
            order, cards = named[o]
            start = j - length + 1  # 1-based, in the order as followed
            best = (length, i - length + 1, len(cards) - start + 1 if order.turned else start, order)
        so_far.append(best)
        if reached is None and length >= 7:
            reached = i
    return so_far, reached


def test_the_watch_finds_what_comparing_every_pair_of_positions_in_every_order_finds() -> None:
    """Planted slugs of every length from every order a dealer may gather in, and fair shoes: after each card, each
    key's longest run so far, the order it lies in and where it starts in both shoes, and the card its alarm rings
    on, are those of the plain comparison of every position of every order with every new card."""
    rng = random.Random(5)
    for trial in range(12):
        played = casino.play(casino.new_shoe(rng, decks=2), rng, cut_card=75, boxes=(1, 3, 4, 6))
        known = casino.record(played)
        named = slug_orders(known.dealt, known.rounds, burnt=known.burnt, boxes=known.boxes)
        assert len(named) >= 10  # the dealt order and four pick-ups, each as it lies and turned over
        new = [parse_card(c) for c in casino.new_shoe(rng, decks=2)[:60]]
        _, source = named[trial % len(named)]
        start, length = rng.randrange(len(source) - 15), rng.randrange(0, 15)
        new[20:20] = source[start:start + length]  # a slug (of none to 14 cards) after 20 cards
        watch = SlugWatch(named, thresholds=SlugThresholds(rank_and_suit=7, rank=7, value=7))
        rung: dict[Key, int] = {}
        seen: dict[Key, list[tuple[int, int, int, Order | None]]] = {key: [] for key in Key}
        for card in new:
            rung.update((a.key, a.at_card) for a in watch.push(card))
            for key in Key:
                run = watch.longest(key)
                seen[key].append((run.length, run.new_start, run.previous_start, run.order))
        for key in Key:
            so_far, reached = _longest_runs_by_brute_force(named, new, key)
            assert seen[key] == so_far, (trial, key)
            assert rung.get(key) == reached, (trial, key)


@pytest.mark.parametrize("how", casino.ALL_GATHERINGS, ids=lambda how: how.name)
def test_a_slug_however_the_dealer_gathered_it_rings_on_its_seventh_card(how: casino.Gathering) -> None:
    """Shoes of the independent generator (tests/support/casino.py): a 14- or 20-card slug of the discards gathered
    in each way a dealer may (from either base, the dealer's hand first or last, split hands as they lie or as
    played, the tray turned over), kept as it lay or turned over, or a slug of the dealt order: the alarm rings on
    the slug's 7th card in every shoe (issue 38: first base first was found in 1 of 40, a slug turned over never)."""
    rng = random.Random(f"slug gathered {how.name}")
    for size, turned, from_dealt in ((14, False, False), (20, True, False), (14, True, False), (20, False, True)):
        t = casino.trial(f"slug:{size}", rng, how=how, slug_turned=turned, slug_from_dealt=from_dealt)
        p = t.previous
        watch = SlugWatch(slug_orders(p.dealt, p.rounds, burnt=p.burnt, boxes=p.boxes))
        rung = [(watch.cards, alarm) for card in t.new.dealt for alarm in watch.push(card)]
        assert t.slug_at is not None and rung, (size, turned, from_dealt)
        at, alarm = rung[0]
        assert at == t.slug_at + 7 and alarm.key is Key.RANK_AND_SUIT and alarm.new_start == t.slug_at + 1
        assert alarm.order.turned is turned or from_dealt


def test_a_turned_slug_is_named_backwards_from_its_place_in_the_order_as_gathered() -> None:
    """The alarm names where the run lies in the previous shoe's order as it was gathered, and says backwards."""
    rng = random.Random(7)
    dealt, discards = dealt_and_discards(fresh_shoe(rng))
    watch = SlugWatch(orders(dealt, discards) + [(Order("third-base-first", turned=True), discards[::-1])])
    new = fresh_shoe(rng)[:30] + discards[120:100:-1]  # cards 121 down to 102 of the discards
    alarm = next(a for card in new for a in watch.push(card))
    assert alarm.order == Order("third-base-first", turned=True) and alarm.previous_start == 121
    assert "discards (gathered third base first), turned over by rank and suit backwards from its card 121" \
        in alarm.message and alarm.at_card == 37
