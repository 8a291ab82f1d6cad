"""Baccarat's protection: the slug watch and the shuffle score read a baccarat shoe's discards as its coups in
dealing order (the burn first), and a slug of the previous shoe is found while it is dealt."""

from __future__ import annotations

import random

from controller import events as ev
from controller.alerts import AlertKind
from controller.cards import ALL_CARDS, Card
from controller.engine import Phase
from controller.protection.discards import PickUp, discard_order

from tests.games.baccarat.support import T0, bet, table


def _play_shoe(t, cards: list[Card]) -> list[Card]:
    """Coups until the cards run short; returns the cards dealt into coups, in order."""
    dealt: list[Card] = []
    it = iter(cards)
    while t.phase in (Phase.BETTING, Phase.SETTLED) and len(dealt) < len(cards) - 6:
        bet(t, 1, "banker", 25)
        while t.round is None or t.phase is Phase.DEALING:
            card = next(it)
            t.apply(ev.CardDrawn(card=card, at=T0))
            dealt.append(card)
            if t.round is None:
                break
    return dealt


def test_a_baccarat_shoes_discards_are_its_coups_in_dealing_order() -> None:
    t = table(decks=1)
    cards = list(ALL_CARDS)
    random.Random(3).shuffle(cards)
    dealt = _play_shoe(t, cards)
    book = t.shoe_watch.book.shoes[-1]
    assert len(book.rounds) == t.rounds_played > 3
    for pick_up in PickUp:  # however the house says the dealer gathers: there is one pile, the coups as dealt
        assert discard_order(book.rounds, pick_up, burnt=book.burnt) == dealt


def test_a_slug_of_the_last_shoe_is_found_in_a_baccarat_shoe() -> None:
    t = table(decks=1)
    cards = list(ALL_CARDS)
    random.Random(4).shuffle(cards)
    first = _play_shoe(t, cards)
    t.apply(ev.Shuffle(shoe_id="s2", at=T0))
    slug = first[:20]  # a block of the tray kept as it lay through the shuffle
    rest = [c for c in ALL_CARDS if c not in slug]
    random.Random(5).shuffle(rest)
    _play_shoe(t, slug + rest)
    assert any(a.kind is AlertKind.SLUG for a in t.alerts)
