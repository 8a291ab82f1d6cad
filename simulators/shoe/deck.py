"""Deterministic shoes: the same seed and shoe number always give the same order.

A shoe holds ``decks`` packs of one kind: the 52-card pack (two to ace) of blackjack and
``club-21``, or the 36-card pack (six to ace) of ``club-21-36``.
"""

from __future__ import annotations

import random

from controller.cards import PACK_RANKS, RANKS, SUITS

# A fresh pack lies two (or six) to ace in each suit, spades, hearts, diamonds, clubs: the order
# every seeded shuffle starts from, so it stays as it was (a recorded shoe deals the same cards).
ACE_HIGH = RANKS[1:] + RANKS[:1]
PACKS = tuple(sorted(PACK_RANKS))


def check_pack(pack: int) -> int:
    """Return ``pack`` if it is a pack the shoe knows (36 or 52); else raise ValueError naming them."""
    if pack not in PACK_RANKS:
        raise ValueError(f"a pack has 36 or 52 cards, got {pack}")
    return pack


def fresh_cards(decks: int, pack: int = 52) -> list[str]:
    """``decks`` unshuffled packs of ``pack`` cards as two-character codes ("AS", "TD", "7H" ...)."""
    if decks < 1:
        raise ValueError(f"a shoe needs at least one deck, got {decks}")
    ranks = [rank for rank in ACE_HIGH if rank in PACK_RANKS[check_pack(pack)]]
    return [rank + suit for _ in range(decks) for suit in SUITS for rank in ranks]


def shuffled_shoe(seed: int, shoe_number: int, decks: int, pack: int = 52) -> list[str]:
    """Shoe number ``shoe_number`` (1, 2 ...) of a simulator run with ``seed``, shuffled.

    Each shoe's seed is derived from the run's seed and the shoe number, so a
    test can predict any shoe without replaying the earlier ones. A 52-card shoe
    keeps the order it always had (old logs and tests still hold).
    """
    cards = fresh_cards(decks, pack)
    random.Random(f"{seed}:{shoe_number}").shuffle(cards)
    return cards
