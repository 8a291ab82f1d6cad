"""One blackjack round: its data, its deal plan, who acts, and its record.

The engine (`controller.engine.Table`) changes a round only through `apply`;
this module says what a round is made of and answers questions about it.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

from .hand import BoxInPlay, Hand
from .money import money

DEALER = -1  # deal-plan target for the dealer's hand


class VoidReason(str, Enum):
    """Why a round was voided: kept in its record (``void_reason``) and shown beside "void"."""

    SUPERVISOR = "supervisor"
    """The supervisor voided it (a misdeal)."""
    PACK_RAN_OUT = "pack_ran_out"
    """club-21: the pack ran out before every box and the banker had two cards."""
    BOTTOM_ACE = "bottom_ace"
    """club-21-36: an ace came up as the bottom card: the pack is shuffled and cut again."""


VOID_REASON_TEXT: dict[VoidReason, str] = {
    VoidReason.SUPERVISOR: "the supervisor voided it",
    VoidReason.PACK_RAN_OUT: "the pack ran out",
    VoidReason.BOTTOM_ACE: "an ace came up as the bottom card",
}
"""A void reason in the pit's words (the dashboard keeps the same words in app.js)."""


class Round:
    """One round from its first card to its settlement."""

    __slots__ = ("number", "shoe_id", "boxes", "dealer", "plan", "dealt", "box_i", "hand_i",
                 "anyone_drew", "peeked", "started_at", "voided", "void_reason", "hole_turned", "_record")

    def __init__(self, number: int, shoe_id: str | None, boxes: list[BoxInPlay], plan: list[int],
                 started_at: datetime | None) -> None:
        self.number = number
        self.shoe_id = shoe_id
        self.boxes = boxes
        self.dealer = Hand(None, 0)
        self.plan = plan
        self.dealt = 0  # cards of the plan dealt so far
        self.box_i = 0  # the box in turn, then the hand in turn on it
        self.hand_i = 0
        self.anyone_drew = False  # a player has taken a card after the deal (closes surrender windows)
        self.peeked = False  # a hole-card dealer has checked for blackjack
        self.started_at = started_at
        self.voided = False
        self.void_reason: VoidReason | None = None  # why it was voided (None: not voided, or an old snapshot's)
        self.hole_turned = False  # the dealer's hole card (a hole-card game) has been turned face up
        self._record: dict[str, Any] | None = None

    @property
    def record(self) -> dict[str, Any]:
        """The JSON-ready record of the settled round (built once, on first use)."""
        if self._record is None:
            self._record = round_record(self)
        return self._record

    def net(self) -> int:
        """What the players won (+) or lost (-) on the round in cents, insurance and bonuses included."""
        return sum(box.net() for box in self.boxes)

    @property
    def hand(self) -> Hand:
        """The hand in turn."""
        return self.boxes[self.box_i].hands[self.hand_i]

    def box(self, number: int) -> BoxInPlay | None:
        """The box with this number in the round, if it has a bet on it."""
        for box in self.boxes:
            if box.number == number:
                return box
        return None

    def to_next_hand(self) -> bool:
        """Move the turn to the first hand, from the one in turn on, that still has to act.

        rules.md, shared: boxes play in order from the dealer's left, a box's hands one at a time.
        Returns False when no hand is left to act (the dealer's turn).
        """
        boxes = self.boxes
        while self.box_i < len(boxes):
            hands = boxes[self.box_i].hands
            while self.hand_i < len(hands):
                if not hands[self.hand_i].done:
                    return True
                self.hand_i += 1
            self.box_i += 1
            self.hand_i = 0
        return False


def round_record(r: Round) -> dict[str, Any]:
    """The JSON-ready record of a settled round (what replay prints and the journal keeps)."""
    hands = []
    total = 0
    for box in r.boxes:
        for hand in box.hands:
            net = hand.net if hand.net is not None else 0
            total += net
            hands.append({
                "box": box.number,
                "cards": [c.code for c in hand.cards],
                "bet": money(hand.stake),
                "outcome": hand.outcome.value if hand.outcome else None,
                "net": money(net),
            })
    insurance = []
    for box in r.boxes:
        if box.insurance is not None:
            net = box.insurance_net if box.insurance_net is not None else 0
            total += net
            insurance.append({"box": box.number, "amount": money(box.insurance), "net": money(net)})
    dealer = r.dealer
    return {
        "number": r.number,
        "shoe_id": r.shoe_id,
        "dealer": {"cards": [c.code for c in dealer.cards], "total": dealer.total},
        "hands": hands,
        "insurance": insurance,
        "net": money(total),
        **void_keys(r),
    }


def void_keys(r: Round) -> dict[str, Any]:
    """A voided round's record keys: ``void`` and, when known, ``void_reason`` (none at all otherwise, as
    before: a round restored from an older snapshot was voided for a reason it did not keep)."""
    if not r.voided:
        return {}
    return {"void": True, **({"void_reason": r.void_reason.value} if r.void_reason is not None else {})}
