"""A hand and a box in play: the cards, the stake, and what has been decided about them."""

from __future__ import annotations

from enum import Enum

from .cards import Card, playing_total, soft_total
from .errors import EngineError


class Outcome(str, Enum):
    """How a hand ended (the names in round records)."""

    BLACKJACK = "blackjack"
    WIN = "win"
    LOSE = "lose"
    BUST = "bust"
    PUSH = "push"
    SURRENDER = "surrender"
    EVEN_MONEY = "even_money"
    THREE_SEVENS = "three_sevens"
    VOID = "void"
    # the club games (003)
    NATURAL = "natural"  # a box's two-card 21, paid at once (club-21)
    BANKER_BUST = "banker_bust"  # the banker passed 21: a box at 21 or less is paid 2:1 (club-21)
    FOLD = "fold"  # on a spent pack the box gave up its stake (club-21)
    WITHDRAWN = "withdrawn"  # the supervisor returned the box's stake (club games)
    RETURNED = "returned"  # the bank was empty before the box's duel: its stake came back (club-21-36)


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
        self.outcome: Outcome | None = None
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

    def settle(self, outcome: Outcome, net: int) -> None:
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
