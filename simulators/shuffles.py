"""Shuffles, fair and bad on purpose, for the virtual shoe and the protection benchmark. Pure and seeded.

A shuffle takes the *pile* the dealer gathered (the previous shoe's discards, with the cards
left behind the cut card put on top) and returns the new shoe's order. The kinds (``--shuffle``):

* ``fair``: a uniformly random order;
* ``false-slug:N``: a false shuffle: N consecutive cards of the previous shoe's discard order are
  kept as a block, the rest shuffled fairly, and the block put back where it will be dealt
  (before the cut card when ``within`` says where that is);
* ``riffle:K``: K Gilbert–Shannon–Reeds riffles of the whole pile, nothing else;
* ``strip``: one strip of the pile into packets of 3 to 12 cards, restacked in reverse order;
* ``zone``: the pile split into zones of one deck (52 cards), each riffled twice, kept in order.

``play_rounds`` deals a shoe into blackjack rounds (a fixed drawing rule, enough to give the
discards the shape a real table gives them).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from controller.cards import Card

T = TypeVar("T")

SHUFFLE_HELP = "fair, false-slug:N (N >= 2 cards), riffle:K (K from 1 to 20), strip or zone"


class ShuffleKind(str, Enum):
    """The shuffles the virtual shoe knows."""

    FAIR = "fair"
    FALSE_SLUG = "false-slug"
    RIFFLE = "riffle"
    STRIP = "strip"
    ZONE = "zone"


class BadShuffle(ValueError):
    """A ``--shuffle`` spec that names no shuffle; the message says what is accepted."""


@dataclass(frozen=True, slots=True)
class ShuffleSpec:
    """A shuffle and its number: the slug's cards for false-slug, the riffles for riffle, else 0."""

    kind: ShuffleKind = ShuffleKind.FAIR
    amount: int = 0

    def __str__(self) -> str:
        return f"{self.kind.value}:{self.amount}" if self.kind in _NUMBERED else self.kind.value


_NUMBERED = {ShuffleKind.FALSE_SLUG: (2, None), ShuffleKind.RIFFLE: (1, 20)}


def parse_shuffle(text: str) -> ShuffleSpec:
    """Read a ``--shuffle`` spec (``fair``, ``false-slug:20``, ``riffle:3``, ``strip``, ``zone``).

    Raises BadShuffle with a one-line message naming what is accepted.
    """
    name, colon, number = text.strip().lower().partition(":")
    try:
        kind = ShuffleKind(name)
    except ValueError:
        raise BadShuffle(f"unknown shuffle {text!r}: use {SHUFFLE_HELP}") from None
    if kind not in _NUMBERED:
        if colon:
            raise BadShuffle(f"shuffle {name!r} takes no number, got {text!r}: use {SHUFFLE_HELP}")
        return ShuffleSpec(kind)
    low, high = _NUMBERED[kind]
    if not number.isdigit():
        raise BadShuffle(f"shuffle {name!r} needs a whole number, e.g. {name}:{max(low, 3)}, got {text!r}")
    amount = int(number)
    if amount < low or (high is not None and amount > high):
        bounds = f"at least {low}" if high is None else f"from {low} to {high}"
        raise BadShuffle(f"{name}:N takes N {bounds}, got {text!r}")
    return ShuffleSpec(kind, amount)


def riffle(cards: Sequence[T], rng: random.Random) -> list[T]:
    """One Gilbert–Shannon–Reeds riffle: a binomial cut, then cards drop in proportion to the packets' sizes."""
    cut = sum(rng.random() < 0.5 for _ in cards)
    left, right = list(cards[:cut]), list(cards[cut:])
    out: list[T] = []
    i = j = 0
    while i < len(left) or j < len(right):
        a, b = len(left) - i, len(right) - j
        if rng.random() * (a + b) < a:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out


def strip(cards: Sequence[T], rng: random.Random) -> list[T]:
    """One strip: packets of 3 to 12 cards taken off the top and piled, so their order reverses."""
    packets: list[list[T]] = []
    i = 0
    while i < len(cards):
        size = rng.randint(3, 12)
        packets.append(list(cards[i:i + size]))
        i += size
    return [card for packet in reversed(packets) for card in packet]


def zone_shuffle(cards: Sequence[T], rng: random.Random, zone: int = 52) -> list[T]:
    """The pile split into zones of ``zone`` cards, each riffled twice, the zones kept in order."""
    out: list[T] = []
    for start in range(0, len(cards), zone):
        out += riffle(riffle(cards[start:start + zone], rng), rng)
    return out


def false_slug(pile: Sequence[T], discards: Sequence[T], size: int, rng: random.Random,
               within: int | None = None) -> tuple[list[T], int]:
    """A false shuffle: ``size`` consecutive cards of ``discards`` kept in order, the rest of the pile shuffled.

    The block goes back at a random place that lies wholly in the first ``within`` cards (where
    the cheat wants it dealt), or anywhere when ``within`` is None. Returns the new order and
    where the block starts in it (0-based).
    """
    size = min(size, len(discards))
    start = rng.randint(0, len(discards) - size)
    block = list(discards[start:start + size])
    rest = list(pile)
    for card in block:
        rest.remove(card)  # one copy of it: the same card of a multi-deck shoe is any of its copies
    rng.shuffle(rest)
    room = len(pile) if within is None else max(size, min(within, len(pile)))
    at = rng.randint(0, room - size)
    return rest[:at] + block + rest[at:], at


def shuffle(spec: ShuffleSpec, pile: Sequence[T], rng: random.Random, *, discards: Sequence[T] | None = None,
            within: int | None = None) -> list[T]:
    """The new shoe's order after shuffling ``pile`` as ``spec`` says.

    ``discards`` is the previous shoe's discard order a false slug copies from (default: the
    pile); ``within`` how many cards will be dealt before the cut card (false-slug only).
    """
    if spec.kind is ShuffleKind.FAIR:
        cards = list(pile)
        rng.shuffle(cards)
        return cards
    if spec.kind is ShuffleKind.FALSE_SLUG:
        return false_slug(pile, pile if discards is None else discards, spec.amount, rng, within)[0]
    if spec.kind is ShuffleKind.RIFFLE:
        cards = list(pile)
        for _ in range(spec.amount):
            cards = riffle(cards, rng)
        return cards
    if spec.kind is ShuffleKind.STRIP:
        return strip(pile, rng)
    return zone_shuffle(pile, rng)


def _total(hand: list[Card]) -> int:
    hard = sum(card.value for card in hand)
    return hard + 10 if hard <= 11 and any(card.rank == "A" for card in hand) else hard


def play_rounds(cards: Sequence[Card], boxes: int, cut: int) -> tuple[list[list[list[Card]]], int]:
    """Deal ``cards`` into blackjack rounds at ``boxes`` boxes until the cut card (before card ``cut``) is out.

    Each box and the dealer get two cards in turn, each box draws to 17 or more (a fixed rule, no
    splits or doubles), then the dealer. Returns each round's hands in table order (boxes, then
    the dealer) and how many cards were dealt; a round that runs out of cards ends there.
    """
    rounds: list[list[list[Card]]] = []
    at = 0
    while at < cut - 1 and at < len(cards):
        hands: list[list[Card]] = [[] for _ in range(boxes + 1)]
        for _ in range(2):
            for hand in hands:
                if at < len(cards):
                    hand.append(cards[at])
                    at += 1
        for hand in hands:
            while _total(hand) < 17 and at < len(cards):
                hand.append(cards[at])
                at += 1
        rounds.append(hands)
    return rounds, at
