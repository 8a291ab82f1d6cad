"""The discard order: each pick-up order, burnt cards first, a club pack's bottom card last."""

from __future__ import annotations

import pytest

from controller.cards import Card, parse_card
from controller.protection.discards import PickUp, discard_order, other_discard_orders, round_pick_up


def cards(text: str) -> list[Card]:
    return [parse_card(c) for c in text.split()]


ROUND = [cards("2S 3S"), cards("4S 5S 6S"), cards("7S 8S")]  # box 1, box 2, the dealer


@pytest.mark.parametrize(("pick_up", "order"), [
    (PickUp.THIRD_BASE_FIRST, "4S 5S 6S 2S 3S 7S 8S"),
    (PickUp.FIRST_BASE_FIRST, "2S 3S 4S 5S 6S 7S 8S"),
    (PickUp.DEALER_THEN_THIRD_BASE, "7S 8S 4S 5S 6S 2S 3S"),
    (PickUp.DEALER_THEN_FIRST_BASE, "7S 8S 2S 3S 4S 5S 6S"),
])
def test_each_pick_up_order(pick_up: PickUp, order: str) -> None:
    assert round_pick_up(ROUND, pick_up) == cards(order)


def test_the_default_is_third_base_first_and_the_dealer_last() -> None:
    assert round_pick_up(ROUND) == cards("4S 5S 6S 2S 3S 7S 8S")


def test_burnt_cards_first_rounds_in_turn_the_bottom_card_last() -> None:
    second = [cards("9H"), cards("TH JH")]
    order = discard_order([ROUND, second], burnt=cards("KD"), bottom_card=parse_card("AC"))
    assert order == cards("KD 4S 5S 6S 2S 3S 7S 8S 9H TH JH AC")
    assert discard_order([]) == [] and round_pick_up([]) == []


def test_the_other_pick_ups_orders_for_the_riffle_statistic() -> None:
    """Every pick-up order but the table's own, in PickUp's order, burnt cards first and the bottom card last."""
    others = other_discard_orders([ROUND], PickUp.FIRST_BASE_FIRST, burnt=cards("KD"), bottom_card=parse_card("AC"))
    assert others == [cards("KD 4S 5S 6S 2S 3S 7S 8S AC"), cards("KD 7S 8S 4S 5S 6S 2S 3S AC"),
                      cards("KD 7S 8S 2S 3S 4S 5S 6S AC")]
    assert len(other_discard_orders([ROUND])) == 3
