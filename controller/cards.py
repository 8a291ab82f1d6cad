"""Cards and hand totals.

A card is identified by its code as the shoe reports it: rank then suit
(`AS`, `TD`, `7H`; `10H` is accepted and normalised to `TH`). Cards are
interned: there are 52 `Card` objects, so the engine compares them by
identity and never parses a code twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

RANKS = "A23456789TJQK"
SUITS = "SHDC"
HIDDEN = "XX"  # how a face-down card is shown to whoever may not see it


class Suit(str, Enum):
    """The four suits; they matter only for the three-sevens bonus."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card: its code, rank letter, suit, blackjack value (ace = 1) and place in ALL_CARDS."""

    code: str
    rank: str
    suit: str
    value: int
    index: int  # 0..51: where counts and per-card tables keep it

    def __str__(self) -> str:
        return self.code


class BadCard(ValueError):
    """A card code that names no card."""


def rank_value(rank: str) -> int:
    """A rank's value for counting (an ace 1, a ten or a face card 10): ``A``, ``2``..``9``, ``T``, ``J``, ``Q``, ``K``."""
    if rank == "A":
        return 1
    if rank in "TJQK":
        return 10
    return int(rank)


_CARDS: dict[str, Card] = {}
for _r in RANKS:
    for _s in SUITS:
        _CARDS[_r + _s] = Card(_r + _s, _r, _s, rank_value(_r), len(_CARDS))
for _s in SUITS:
    _CARDS["10" + _s] = _CARDS["T" + _s]

ALL_CARDS: tuple[Card, ...] = tuple(_CARDS[r + s] for r in RANKS for s in SUITS)

# The club games' packs: 52 cards (2 to ace, pictures 10, as above), or 36 (six to ace: king 4,
# queen 3, jack 2, six to ten as marked, ace 1 or 11). The cards stay the same 52 objects; what a
# card is worth, and whether it belongs to the pack, is the pack's (a game asks by Card.index).
PACK_RANKS: dict[int, str] = {52: RANKS, 36: "A6789TJQK"}
_VALUES_36 = {"K": 4, "Q": 3, "J": 2}


def pack_values(pack: int) -> tuple[int, ...]:
    """Each card's value in a pack of ``pack`` cards, by Card.index (ace 1: it may count 11)."""
    if pack == 36:
        return tuple(_VALUES_36.get(c.rank, c.value) for c in ALL_CARDS)
    return tuple(c.value for c in ALL_CARDS)


def pack_members(pack: int) -> tuple[bool, ...]:
    """Whether each card (by Card.index) belongs to a pack of ``pack`` cards."""
    ranks = PACK_RANKS[pack]
    return tuple(c.rank in ranks for c in ALL_CARDS)


def parse_card(code: str) -> Card:
    """Return the card for a code such as ``AS``, ``td`` or ``10H``.

    Raises BadCard with a message a dealer understands when the code names no card.
    """
    card = _CARDS.get(code)
    if card is None:
        card = _CARDS.get(code.strip().upper()) if isinstance(code, str) else None
        if card is None:
            raise BadCard(
                f"'{code}' is not a card: use rank A,2-9,T,J,Q,K then suit S,H,D,C (e.g. AS, TD, 7H)"
            )
    return card


def soft_total(hard: int, has_ace: bool) -> int | None:
    """The soft total of a hand: one ace counted 11, when that does not bust it (two never can)."""
    return hard + 10 if has_ace and hard <= 11 else None


def playing_total(hard: int, has_ace: bool) -> int:
    """The total a hand plays at: the soft total if there is one, else the hard."""
    soft = soft_total(hard, has_ace)
    return hard if soft is None else soft


@dataclass(frozen=True, slots=True)
class Total:
    """What a hand counts: the hard total, and the soft total when an ace can count 11."""

    hard: int
    soft: int | None

    @property
    def best(self) -> int:
        """The total the hand plays at: the soft total if there is one, else the hard."""
        return self.soft if self.soft is not None else self.hard

    @property
    def is_bust(self) -> bool:
        """True when even the hard total is over 21."""
        return self.hard > 21

    def shown(self) -> list[int]:
        """The totals announced to the table: at most two (e.g. A-3 is [4, 14])."""
        if self.soft is None or self.soft == 21:
            return [self.best]
        return [self.hard, self.soft]


def total_of(values: list[int] | tuple[int, ...]) -> Total:
    """Count a hand from its card values (ace = 1).

    One ace counts 11 when that does not bust the hand; two aces can never
    both count 11, so at most two totals exist.
    """
    hard = sum(values)
    return Total(hard, soft_total(hard, 1 in values))
