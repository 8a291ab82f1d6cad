"""The slug watch: the alarm on the card that makes a run reach its threshold, once per key; fair shoes raise nothing."""

from __future__ import annotations

import random

import pytest

from controller.cards import parse_card
from controller.protection.findings import Key, Level, Reference
from controller.protection.slug import SlugThresholds, SlugWatch, key_of

from tests.protection.conftest import dealt_and_discards, fresh_shoe


def test_the_alarm_fires_on_the_threshold_card_and_not_before() -> None:
    rng = random.Random(1)
    dealt, discards = dealt_and_discards(fresh_shoe(rng))
    new = fresh_shoe(rng)[:40] + dealt[100:112]  # 40 shuffled cards, then a 12-card slug of the dealt order
    watch = SlugWatch(dealt, discards)
    raised = [(position, alarm) for position, card in enumerate(new, 1) for alarm in watch.push(card)]
    first_position, first = raised[0]
    assert first_position == 47 and first.at_card == 47  # the slug's 7th card, not its 6th
    assert (first.key, first.reference, first.length) == (Key.RANK_AND_SUIT, Reference.DEALT, 7)
    assert (first.new_start, first.previous_start) == (41, 101)
    assert first.level is Level.ALARM and "cards 41-47" in first.message and "card 101" in first.message
    # once per key: the run grows to 12 without another rank-and-suit alarm; the summary has its length
    assert [a.key for _, a in raised].count(Key.RANK_AND_SUIT) == 1
    assert watch.longest(Reference.DEALT, Key.RANK_AND_SUIT).length == 12
    assert {a.key for a in watch.summary().alarms} == {a.key for _, a in raised}


def test_the_thresholds_are_options() -> None:
    rng = random.Random(2)
    dealt, _ = dealt_and_discards(fresh_shoe(rng))
    watch = SlugWatch(dealt, thresholds=SlugThresholds(rank_and_suit=4, rank=99, value=99))
    alarms = [a for card in fresh_shoe(rng)[:30] + dealt[50:54] for a in watch.push(card)]
    assert [(a.key, a.at_card, a.length) for a in alarms] == [(Key.RANK_AND_SUIT, 34, 4)]


def test_a_slug_of_the_discard_order_is_found_in_the_discards() -> None:
    rng = random.Random(3)
    dealt, discards = dealt_and_discards(fresh_shoe(rng))
    watch = SlugWatch(dealt, discards)
    slug = discards[60:80]
    alarms = [a for card in fresh_shoe(rng)[:25] + slug for a in watch.push(card)]
    assert alarms[0].reference is Reference.DISCARDS and alarms[0].at_card == 25 + 7
    assert watch.longest(Reference.DISCARDS, Key.RANK_AND_SUIT).length >= 20


def test_runs_by_rank_and_by_value_bridge_other_suits() -> None:
    previous = [parse_card(c) for c in "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS".split()]
    watch = SlugWatch(previous, thresholds=SlugThresholds(rank_and_suit=99, rank=5, value=99))
    alarms = [a for c in "AD 2H 3H 4H 5H 6H".split() for a in watch.push(parse_card(c))]
    assert [(a.key, a.at_card, a.previous_start) for a in alarms] == [(Key.RANK, 6, 1)]
    watch = SlugWatch(previous, thresholds=SlugThresholds(rank_and_suit=99, rank=99, value=4))
    alarms = [a for c in "AD 9H KD QH JC".split() for a in watch.push(parse_card(c))]  # 9 T T T by value
    assert [(a.key, a.new_start, a.previous_start, a.length) for a in alarms] == [(Key.VALUE, 2, 8, 4)]


def test_no_discard_order_no_discard_runs() -> None:
    watch = SlugWatch([parse_card("AS")])
    with pytest.raises(KeyError):
        watch.longest(Reference.DISCARDS, Key.RANK)


def test_fair_shoes_raise_nothing() -> None:
    """200 pairs of fair shoes (the benchmark and docs/protection.md run many more): no alarm, short runs."""
    rng = random.Random(4)
    longest = {key: 0 for key in Key}
    for _ in range(200):
        dealt, discards = dealt_and_discards(fresh_shoe(rng))
        new, _ = dealt_and_discards(fresh_shoe(rng))
        watch = SlugWatch(dealt, discards)
        assert [a for card in new for a in watch.push(card)] == []
        for key in Key:
            longest[key] = max(longest[key], *(watch.longest(r, key).length for r in Reference))
    thresholds = SlugThresholds()
    assert all(longest[key] < thresholds.of(key) - 1 for key in Key), longest


def _longest_runs_by_brute_force(previous: list, new: list, key: Key) -> tuple[list[tuple[int, int, int]], int | None]:
    """Every (new, previous) pair of positions: after each new card, the longest common run so far (length, new
    start, previous start; among the longest, the first found, and of those the earliest in the previous order),
    and the card at which a run first reached 7."""
    keys = key_of(key)
    table = [0] * (len(previous) + 1)  # run ending at previous position j (1-based) and the last new card
    best, so_far, reached = (0, 0, 0), [], None
    for i, card in enumerate(new, 1):
        table = [0] + [table[j - 1] + 1 if keys[previous[j - 1].index] == keys[card.index] else 0
                       for j in range(1, len(previous) + 1)]
        length = max(table)
        if length > best[0]:
            j = table.index(length)
            best = (length, i - length + 1, j - length + 1)
        so_far.append(best)
        if reached is None and length >= 7:
            reached = i
    return so_far, reached


def test_the_watch_finds_what_comparing_every_pair_of_positions_finds() -> None:
    """Planted slugs of every length and fair shoes: after each card, each key's longest run so far and where it
    starts in both shoes, and the card its alarm rings on, are those of the plain comparison of every position
    with every other."""
    rng = random.Random(5)
    for trial in range(12):
        dealt, _ = dealt_and_discards(fresh_shoe(rng, decks=2))
        new = fresh_shoe(rng, decks=2)[:60]
        start, length = rng.randrange(len(dealt) - 15), rng.randrange(0, 15)
        new[20:20] = dealt[start:start + length]  # a slug (of none to 14 cards) after 20 cards
        watch = SlugWatch(dealt, thresholds=SlugThresholds(rank_and_suit=7, rank=7, value=7))
        rung: dict[Key, int] = {}
        seen: dict[Key, list[tuple[int, int, int]]] = {key: [] for key in Key}
        for card in new:
            rung.update((a.key, a.at_card) for a in watch.push(card))
            for key in Key:
                run = watch.longest(Reference.DEALT, key)
                seen[key].append((run.length, run.new_start, run.previous_start))
        for key in Key:
            so_far, reached = _longest_runs_by_brute_force(dealt, new, key)
            assert seen[key] == so_far, (trial, key)
            assert rung.get(key) == reached, (trial, key)
