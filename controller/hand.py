"""A hand and a box in play: the cards, the stake, and what has been decided about them."""

from __future__ import annotations

from enum import Enum

from .cards import Card, playing_total, soft_total
from .errors import EngineError


class GameOutcome(str, Enum):
    """How a hand ended, in any game: every game's outcomes extend this (it has no member of its own), so a
    hand's ``outcome`` is one of the table's own (`Outcome`) or one of its game's. The value is the name in
    round records."""

    _value_: str


class Outcome(GameOutcome):
    """How a hand ended, in every game (each game adds its own outcomes: blackjack's in its folder's
    ``outcomes.py``, the club games' in theirs)."""

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    VOID = "void"


class Hand:
    """One hand on a box, or the dealer's (``box`` None).

    Totals are kept as the cards arrive: the hard sum, whether an ace is in it, and the total
    the hand plays at. Money (``stake``, ``net``) is in whole cents.
    """

    __slots__ = ("box", "cards", "hard", "has_ace", "total", "stake", "doubled", "from_split",
                 "split_aces", "done", "outcome", "net")

    def __init__(self, box: BoxInPlay | None, stake: int, from_split: bool = False) -> None:
        self.box = box
        self.cards: list[Card] = []
        self.hard = 0
        self.has_ace = False
        self.total = 0  # the total the hand plays at (soft when an ace can count 11)
        self.stake = stake
        self.doubled = False
        self.from_split = from_split
        self.split_aces = False
        self.done = False
        self.outcome: GameOutcome | None = None
        self.net: int | None = None

    @property
    def own_box(self) -> BoxInPlay:
        """The box a player's hand belongs to (only the dealer's hand has none)."""
        if self.box is None:  # a bug: asked only of a player's hand
            raise EngineError("the dealer's hand has no box")
        return self.box

    def add(self, card: Card) -> None:
        """Put a card on the hand."""
        self.cards.append(card)
        self.hard += card.value
        if card.value == 1:
            self.has_ace = True
        soft = soft_total(self.hard, self.has_ace)
        self.total = self.hard if soft is None else soft

    def remove_last(self) -> Card:
        """Take back the last card (a split moves it to the new hand)."""
        card = self.cards.pop()
        self.hard -= card.value
        self.has_ace = any(c.value == 1 for c in self.cards)
        self.total = playing_total(self.hard, self.has_ace)
        return card

    @property
    def soft(self) -> int | None:
        """The soft total, when an ace can count 11 without busting."""
        return soft_total(self.hard, self.has_ace)

    @property
    def is_bust(self) -> bool:
        """Over 21 even with every ace counted 1."""
        return self.hard > 21

    @property
    def is_blackjack(self) -> bool:
        """A two-card 21 on a box's original hand, never on a split hand (the dealer's counts too)."""
        return len(self.cards) == 2 and not self.from_split and self.has_ace and self.hard == 11

    @property
    def settled(self) -> bool:
        """The hand's money is decided."""
        return self.outcome is not None

    def settle(self, outcome: GameOutcome, net: int) -> None:
        """Decide the hand's money; a settled hand takes no more part in play."""
        self.outcome = outcome
        self.net = net
        self.done = True


class BoxInPlay:
    """A betting box during one round: its bets, its hands in play order, its insurance (cents)."""

    __slots__ = ("number", "bet", "bets", "owner", "hands", "insurance", "insurance_net", "acted")

    def __init__(self, number: int, bets: dict[str, int], owner: str | None) -> None:
        self.number = number
        self.bets = bets
        self.bet = sum(bets.values())
        self.owner = owner
        self.hands: list[Hand] = [Hand(self, self.bet)]
        self.insurance: int | None = None
        self.insurance_net: int | None = None
        self.acted = False  # the box has taken its first decision (surrender windows close)

    def net(self) -> int:
        """What the box's players won (+) or lost (-) in cents: every hand's net and the insurance's."""
        total = sum(h.net for h in self.hands if h.net is not None)
        return total + (self.insurance_net or 0)
