"""Whole shoes dealt through the real engine, for the protection tests (issue 25).

`deal_shoe` shuffles a shoe in and plays box 1 (it stands on 12 or more) until about 180 cards are
out, submitting each event as the service's writer would; `with_slug` makes the false shuffle: a
block of the previous shoe's dealt order left as it was.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal

from controller import events as ev
from games.blackjack.events import CloseInsurance
from controller.cards import Card, parse_card
from controller.engine import Table
from controller.phase import READY, Phase

RANKS, SUITS = "A23456789TJQK", "SHDC"
DEALT_PER_SHOE = 180

Submit = Callable[[ev.Event], object]


def fresh_shoe(rng: random.Random, decks: int = 6) -> list[Card]:
    """A fairly shuffled shoe of ``decks`` 52-card packs."""
    cards = [parse_card(r + s) for r in RANKS for s in SUITS] * decks
    rng.shuffle(cards)
    return cards


def with_slug(fresh: list[Card], previous: list[Card], start: int, length: int = 20, at: int = 40) -> list[Card]:
    """``fresh`` with the previous shoe's cards ``start .. start+length`` moved, in their order, to follow card ``at``."""
    slug = previous[start:start + length]
    rest = list(fresh)
    for card in slug:
        rest.remove(card)
    return rest[:at] + slug + rest[at:]


def deal_shoe(live: Table | Callable[[], Table], submit: Submit, shoe_id: str, cards: list[Card], at: datetime,
              after_card: Callable[[int], None] | None = None) -> list[Card]:
    """Shuffle ``cards`` in and play rounds on box 1 until about 180 cards are out; the cards dealt.

    ``live`` is the table, or what gives the table now (one restored from a snapshot on the way);
    ``after_card(n)`` is called once card number ``n`` of the shoe has been submitted.
    """
    submit(ev.Shuffle(shoe_id=shoe_id, at=at))
    out: list[Card] = []
    while len(out) < DEALT_PER_SHOE or (table := live() if callable(live) else live).round is not None:
        table = live() if callable(live) else live
        at += timedelta(seconds=5)
        if table.phase in READY and table.round is None and not table.pending and not table.burn_left:
            submit(ev.PlaceBet(box=1, amount=Decimal(10), at=at))
        elif table.phase is Phase.INSURANCE:
            submit(CloseInsurance(at=at))
        elif table.phase in (Phase.PLAYERS, Phase.SURRENDER) and table.next_card() is None or (
                table.phase is Phase.PLAYERS and table.round is not None and table.round.hand.total >= 12):
            submit(ev.Stand(at=at))
        else:
            card = cards[len(out)]
            submit(ev.CardDrawn(card=card, position=len(out) + 1, at=at))
            out.append(card)
            if after_card is not None:
                after_card(len(out))
        assert table.phase is not Phase.ATTENTION, table.lock_reasons()
    return out
