"""Deterministic shuffles."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulators.shoe.deck import check_pack, fresh_cards, shuffled_shoe


@given(st.integers(), st.integers(1, 50), st.integers(1, 8))
def test_same_seed_same_shoe_and_every_card_decks_times(seed: int, number: int, decks: int) -> None:
    shoe = shuffled_shoe(seed, number, decks)
    assert shoe == shuffled_shoe(seed, number, decks)
    assert len(shoe) == 52 * decks
    assert set(Counter(shoe).values()) == {decks}
    assert Counter(shoe) == Counter(fresh_cards(decks))


def test_seeds_and_shoe_numbers_give_different_orders() -> None:
    assert shuffled_shoe(1, 1, 6) != shuffled_shoe(2, 1, 6)
    assert shuffled_shoe(1, 1, 6) != shuffled_shoe(1, 2, 6)


def test_a_known_shoe_stays_the_same_across_versions() -> None:
    # Tests of other packages may rely on this exact order.
    assert shuffled_shoe(1, 1, 1)[:6] == ["KS", "9D", "AC", "3D", "7D", "6D"]
    assert shuffled_shoe(1, 2, 6)[:3] == ["5S", "QH", "QS"]
    assert all(len(c) == 2 and c[0] in "23456789TJQKA" and c[1] in "SHDC" for c in shuffled_shoe(1, 1, 1))


def test_no_decks_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one deck"):
        fresh_cards(0)


@given(st.integers(), st.integers(1, 20), st.integers(1, 2))
def test_a_36_card_pack_is_six_to_ace_in_four_suits(seed: int, number: int, decks: int) -> None:
    shoe = shuffled_shoe(seed, number, decks, pack=36)
    assert len(shoe) == 36 * decks and shoe == shuffled_shoe(seed, number, decks, pack=36)
    assert {c[0] for c in shoe} == set("6789TJQKA")
    assert set(Counter(shoe).values()) == {decks} and len(Counter(shoe)) == 36


def test_a_known_36_card_shoe_stays_the_same_across_versions() -> None:
    # The ranks of a pack are the engine's (controller.cards.PACK_RANKS, ace first); a fresh pack still
    # lies six to ace in each suit, so a seed deals the shoes it always dealt.
    assert fresh_cards(1, 36)[:10] == ["6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS", "6H"]
    assert shuffled_shoe(1, 1, 1, pack=36)[:6] == ["TH", "TC", "9C", "7C", "9D", "8H"]


def test_the_52_card_pack_is_the_default_and_keeps_its_order() -> None:
    assert shuffled_shoe(1, 1, 1, pack=52) == shuffled_shoe(1, 1, 1)
    assert shuffled_shoe(1, 1, 1, pack=36) != shuffled_shoe(1, 1, 1)[:36]


def test_a_pack_of_another_size_is_an_error() -> None:
    with pytest.raises(ValueError, match="36 or 52 cards, got 40"):
        fresh_cards(1, 40)
    assert check_pack(36) == 36
