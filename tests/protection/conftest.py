"""Shoes for the protection tests: seeded 6-deck shoes dealt into rounds to their cut card."""

from __future__ import annotations

import random

from controller.cards import ALL_CARDS, Card
from controller.protection.discards import discard_order
from simulators.shuffles import play_rounds


def fresh_shoe(rng: random.Random, decks: int = 6) -> list[Card]:
    """A fairly shuffled shoe of ``decks`` 52-card packs."""
    shoe = [card for card in ALL_CARDS for _ in range(decks)]
    rng.shuffle(shoe)
    return shoe


def dealt_and_discards(shoe: list[Card], boxes: int = 5) -> tuple[list[Card], list[Card]]:
    """The shoe dealt to its cut card (75 %) at ``boxes`` boxes: its dealt order and its discard order."""
    rounds, count = play_rounds(shoe, boxes, round(len(shoe) * 0.75))
    return shoe[:count], discard_order(rounds)
