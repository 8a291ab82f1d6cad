"""Deterministic shoes: the same seed and shoe number always give the same order."""

from __future__ import annotations

import random

RANKS = "23456789TJQKA"
SUITS = "SHDC"


def fresh_cards(decks: int) -> list[str]:
    """``decks`` unshuffled 52-card decks as two-character codes ("AS", "TD", "7H" ...)."""
    if decks < 1:
        raise ValueError(f"a shoe needs at least one deck, got {decks}")
    return [rank + suit for _ in range(decks) for suit in SUITS for rank in RANKS]


def shuffled_shoe(seed: int, shoe_number: int, decks: int) -> list[str]:
    """Shoe number ``shoe_number`` (1, 2 ...) of a simulator run with ``seed``, shuffled.

    Each shoe's seed is derived from the run's seed and the shoe number, so a
    test can predict any shoe without replaying the earlier ones.
    """
    cards = fresh_cards(decks)
    random.Random(f"{seed}:{shoe_number}").shuffle(cards)
    return cards
