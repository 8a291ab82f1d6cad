"""The display side's own input model: what the table looks like, in the game's words.

The composition root fills these from the engine's state; nothing here knows the
engine. Frozen dataclasses rather than pydantic: they are built in-process on every
state change, must be hashable (the display worker compares states) and need only
light checks, which ``__post_init__`` does with errors naming the field.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from decimal import Decimal

#: The highest hard total a display is asked to show: two digits. In blackjack a hand stops at
#: 30 (20 plus a ten); in the club games a box may go on drawing past 21, its total unannounced.
MAX_HARD_TOTAL = 99


class HandOutcome(enum.Enum):
    """How a settled hand ended for the player (a blackjack win is WIN with ``is_blackjack``)."""

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"


class TableMessage(enum.Enum):
    """A table-wide condition shown on the displays.

    Declaration order is priority order: when several are set, the first one in this
    enum is shown. Messages of scope ``ALL`` replace every display's text (box totals
    cannot be trusted while they stand); the others are for the dealer's display only.
    """

    TABLE_STOPPED = "table_stopped"  # the controller stopped (its journal failed): nothing is recorded
    ATTENTION = "attention"  # unexpected card or integrity problem: the pit must look
    SHOE_FAULT = "shoe_fault"  # the shoe reports a fault
    LINK_DOWN = "link_down"  # the serial link to the shoe is lost
    PIT_CALLED = "pit_called"  # the dealer has called the pit (confirms his button)
    CUT_CARD_OUT = "cut_card_out"  # the cut card came out: last round before the shuffle
    SHUFFLE_DUE = "shuffle_due"  # the shoe must be shuffled before the next round
    PLACE_BETS = "place_bets"  # betting is open

    @property
    def scope(self) -> MessageScope:
        """Which displays this message takes over."""
        return _SCOPES[self]


class BankerAdvice(enum.Enum):
    """The dealer's display's advice to the banker in his turn (club-21, where the house turns it on): his best
    play from what he can see. Only advice: the croupier decides (the console's STAND, or the next card)."""

    DRAW = "draw"
    STAND = "stand"


class MessageScope(enum.Enum):
    """Where a table message is shown."""

    ALL = "all"
    DEALER = "dealer"


_SCOPES = {
    TableMessage.TABLE_STOPPED: MessageScope.ALL,
    TableMessage.ATTENTION: MessageScope.ALL,
    TableMessage.SHOE_FAULT: MessageScope.ALL,
    TableMessage.LINK_DOWN: MessageScope.ALL,
    TableMessage.PIT_CALLED: MessageScope.DEALER,
    TableMessage.CUT_CARD_OUT: MessageScope.DEALER,
    TableMessage.SHUFFLE_DUE: MessageScope.DEALER,
    TableMessage.PLACE_BETS: MessageScope.DEALER,
}


def _check_totals(owner: str, card_count: int, hard_total: int, soft_total: int | None) -> None:
    if card_count < 0:
        raise ValueError(f"{owner}.card_count must be >= 0, got {card_count}")
    if not 0 <= hard_total <= MAX_HARD_TOTAL:
        raise ValueError(f"{owner}.hard_total must be in 0..{MAX_HARD_TOTAL}, got {hard_total}")
    if card_count == 0 and hard_total != 0:
        raise ValueError(f"{owner}.hard_total must be 0 with no cards, got {hard_total}")
    if soft_total is not None and (soft_total != hard_total + 10 or soft_total > 21):
        raise ValueError(
            f"{owner}.soft_total must be hard_total + 10 and at most 21 (or None), "
            f"got hard {hard_total} soft {soft_total}"
        )


@dataclass(frozen=True, slots=True)
class HandView:
    """One hand of a box (a box has several after a split).

    ``hard_total`` counts aces as 1; ``soft_total`` is ``hard_total + 10`` when an ace
    can count 11 without busting, else None. ``done`` means the player's decisions for
    this hand are over (stood, doubled and drawn, 21, bust): a soft hand then shows its
    best total only. ``in_play`` marks the hand whose decision the table waits for.
    """

    card_count: int = 0
    hard_total: int = 0
    soft_total: int | None = None
    is_blackjack: bool = False
    is_bust: bool = False
    doubled: bool = False
    surrendered: bool = False
    in_play: bool = False
    done: bool = False
    outcome: HandOutcome | None = None
    closed: bool = False

    def __post_init__(self) -> None:
        _check_totals("HandView", self.card_count, self.hard_total, self.soft_total)
        if self.closed and (self.hard_total or self.soft_total is not None or self.is_blackjack or self.is_bust
                            or self.outcome is not None):
            # A closed hand's total is a secret: the model cannot even carry one to a display.
            raise ValueError("HandView.closed cannot carry a total, a blackjack, a bust or an outcome")
        if self.is_bust and self.hard_total <= 21:
            raise ValueError(f"HandView.is_bust needs hard_total > 21, got {self.hard_total}")
        if self.is_blackjack and (self.card_count != 2 or self.soft_total != 21):
            raise ValueError("HandView.is_blackjack needs two cards and soft_total 21")

    @property
    def best_total(self) -> int:
        """The total that counts: the soft total when there is one, else the hard total."""
        return self.soft_total if self.soft_total is not None else self.hard_total


@dataclass(frozen=True, slots=True)
class BoxView:
    """One betting box (numbered from 1, the dealer's left).

    ``active`` is False for a box with no bet: its display is blank. An active box with
    no hands yet (bet placed, cards not dealt) shows a placeholder. ``payout`` is set
    once the round is settled: what the dealer pays the box (> 0), takes from it (< 0)
    or neither (0), all its hands and its insurance together; it is shown instead of
    the hands, so the dealer reads the amount off the display; ``settled_total`` (the club
    games, whose hands are shown only at the settlement) is the box's total, shown before it.
    """

    number: int
    active: bool = False
    hands: tuple[HandView, ...] = ()
    payout: Decimal | None = None
    settled_total: int | None = None

    def __post_init__(self) -> None:
        if self.number < 1:
            raise ValueError(f"BoxView.number must be >= 1, got {self.number}")
        if not self.active and (self.hands or self.payout is not None):
            raise ValueError(f"BoxView {self.number}: an inactive box cannot hold hands or a payout")
        if self.payout is not None and not self.payout.is_finite():
            raise ValueError(f"BoxView {self.number}: payout must be a finite amount, got {self.payout}")
        if self.settled_total is not None and (self.payout is None or not 0 <= self.settled_total <= MAX_HARD_TOTAL):
            raise ValueError(f"BoxView {self.number}: settled_total needs a payout and must be in 0..{MAX_HARD_TOTAL}")
        if sum(h.in_play for h in self.hands) > 1:
            raise ValueError(f"BoxView {self.number}: at most one hand can be in play")


@dataclass(frozen=True, slots=True)
class Duel:
    """Two hands dealt against each other, no box's own (baccarat's Player and Banker), on the dealer's display:
    each one's mark (a letter the digits can draw: ``P``, ``b``) and points (None: no card yet), and once the round
    is decided, ``result``: the winner's mark, or ``tie`` (its mark ``t``). The composition root gives no duel while
    the hands are face down (the squeeze): nothing here can say a point before the cards are turned."""

    left: str
    left_points: int | None
    right: str
    right_points: int | None
    result: str | None = None
    tie: str = "t"

    def __post_init__(self) -> None:
        for mark in (self.left, self.right, self.tie):
            if not 1 <= len(mark) <= 2:
                raise ValueError(f"Duel: a mark is one or two characters, got {mark!r}")
        for points in (self.left_points, self.right_points):
            if points is not None and not 0 <= points <= MAX_HARD_TOTAL:
                raise ValueError(f"Duel: points must be in 0..{MAX_HARD_TOTAL}, got {points}")
        if self.result is not None and self.result not in (self.left, self.right, self.tie):
            raise ValueError(f"Duel.result must be {self.left!r}, {self.right!r} or {self.tie!r}, got {self.result!r}")


@dataclass(frozen=True, slots=True)
class DealerView:
    """The dealer's hand.

    ``up_card`` is the up card's value (1 for an ace, 10 for ten and faces) or None
    before the deal. In a hole-card game ``hole_card_hidden`` is True from the deal
    until the hole card is turned, and the display then shows ``up_card`` only;
    totals are those of every card the dealer holds. ``payout`` is set once the round
    is settled: the round's total, what the dealer pays out (> 0) or takes in (< 0)
    over every box, shown instead of his own total.

    The club games: ``closed`` says the banker's cards are face down (the display shows that
    he has cards, never a total, and there is no up card); once he draws face up his totals
    are shown like any dealer's. ``bank`` is the bank's balance (club-21-36), shown beside.
    ``advice`` (club-21, option ``banker_advice``): in his turn, draw or stand, shown beside his total.
    ``duel`` (baccarat): the two hands' points and the result, shown instead of the dealer's own total and payout.
    """

    up_card: int | None = None
    card_count: int = 0
    hard_total: int = 0
    soft_total: int | None = None
    is_blackjack: bool = False
    is_bust: bool = False
    hole_card_hidden: bool = False
    done: bool = False
    payout: Decimal | None = None
    closed: bool = False
    bank: Decimal | None = None
    advice: BankerAdvice | None = None
    duel: Duel | None = None

    def __post_init__(self) -> None:
        if self.duel is not None and (self.closed or self.hole_card_hidden):
            raise ValueError("DealerView.duel is shown with the cards face up only (never under the squeeze)")
        _check_totals("DealerView", self.card_count, self.hard_total, self.soft_total)
        if self.advice is not None and (self.card_count == 0 or self.closed or self.done or self.is_bust
                                        or self.payout is not None or self.hole_card_hidden):
            raise ValueError("DealerView.advice is for the banker's turn: his cards face up, not done, not bust")
        if self.payout is not None and not self.payout.is_finite():
            raise ValueError(f"DealerView.payout must be a finite amount, got {self.payout}")
        if self.bank is not None and not self.bank.is_finite():
            raise ValueError(f"DealerView.bank must be a finite amount, got {self.bank}")
        if self.up_card is not None and not 1 <= self.up_card <= 10:
            raise ValueError(f"DealerView.up_card must be 1..10 (1 = ace), got {self.up_card}")
        if self.closed:
            if self.up_card is not None or self.hard_total or self.soft_total is not None or self.is_blackjack \
                    or self.is_bust or self.hole_card_hidden:
                raise ValueError("DealerView.closed cannot carry an up card, a total, a blackjack or a bust")
        elif self.card_count > 0 and self.up_card is None:
            raise ValueError("DealerView.up_card is required once the dealer has cards")
        if self.hole_card_hidden and self.up_card is None:
            raise ValueError("DealerView.hole_card_hidden needs an up_card")
        if self.is_bust and self.hard_total <= 21:
            raise ValueError(f"DealerView.is_bust needs hard_total > 21, got {self.hard_total}")


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything the displays show at one moment.

    ``boxes`` lists every box of the table (1..N), active or not; ``messages`` holds
    the table conditions currently standing (the highest-priority one is shown).
    """

    boxes: tuple[BoxView, ...]
    dealer: DealerView = field(default_factory=DealerView)
    messages: frozenset[TableMessage] = frozenset()

    def __post_init__(self) -> None:
        numbers = [b.number for b in self.boxes]
        if numbers != list(range(1, len(numbers) + 1)):
            raise ValueError(f"TableView.boxes must be numbered 1..N in order, got {numbers}")

    @classmethod
    def empty(cls, box_count: int) -> TableView:
        """A table with every box inactive, no dealer cards and no message."""
        return cls(boxes=tuple(BoxView(number=n) for n in range(1, box_count + 1)))

    @property
    def top_message(self) -> TableMessage | None:
        """The message shown when several stand: the first in TableMessage's order."""
        for message in TableMessage:
            if message in self.messages:
                return message
        return None
