"""The slug watch: the alarm on the card that makes a run reach its threshold, once per key; fair shoes raise nothing."""

from __future__ import annotations

import random

import pytest

from controller.cards import parse_card
from controller.protection.findings import Key, Level, Reference
from controller.protection.slug import SlugThresholds, SlugWatch

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
