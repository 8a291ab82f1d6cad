"""Blackjack's snapshot layout: a round as plain data out, strictly validated data in.

The table's own parts (shoe, bets, alerts) are `controller.snapshot`'s; `Blackjack.dump_round` and
`load_round` use these for the round, as each club game uses its own.
"""

from __future__ import annotations

from typing import Annotated, Any
from pydantic import Field, Strict, model_validator

from controller.hand import BoxInPlay, Hand, Outcome
from controller.money import money
from controller.round import DEALER, Round
from controller.snapshot import (Amount, BetState, CardCode, Count, StrictModel, Time, VoidReasonState, amount_of, bets_of,
                         bets_out, cards_of, cents_of, dump_void_reason, money_or_none, time_of, time_out)

from .outcomes import BlackjackOutcome


class HandState(StrictModel):
    """One hand on a box."""

    cards: list[CardCode]
    stake: Amount
    doubled: bool
    from_split: bool
    split_aces: bool
    done: bool
    # the table's own outcome, or blackjack's (by its name: not strict)
    outcome: Annotated[Outcome, Strict(False)] | Annotated[BlackjackOutcome, Strict(False)] | None
    net: Amount | None


class BoxState(StrictModel):
    """A box in play."""

    number: Annotated[int, Field(ge=1, le=9)]
    bets: list[BetState] = Field(min_length=1)
    owner: str | None
    hands: list[HandState] = Field(min_length=1)
    insurance: Amount | None
    insurance_net: Amount | None
    acted: bool


class RoundState(StrictModel):
    """A round, in play or settled."""

    number: Annotated[int, Field(ge=1)]
    shoe_id: str | None
    boxes: list[BoxState] = Field(min_length=1)
    dealer: list[CardCode]
    plan: list[int]
    dealt: Count
    box_i: Count
    hand_i: Count
    anyone_drew: bool
    peeked: bool
    started_at: Time | None
    voided: bool
    void_reason: VoidReasonState = None
    hole_turned: bool

    @model_validator(mode="after")
    def _indices(self) -> RoundState:
        n = len(self.boxes)
        if any(t != DEALER and not 0 <= t < n for t in self.plan):
            raise ValueError("the deal plan names a box the round does not have")
        if self.dealt > len(self.plan):
            raise ValueError("more cards dealt than the deal plan holds")
        if self.box_i > n or (self.box_i < n and self.hand_i >= len(self.boxes[self.box_i].hands)):
            raise ValueError("the hand in turn is not on the table")
        return self


def dump_hand(hand: Hand) -> dict[str, Any]:
    """A hand as plain data."""
    return {
        "cards": [c.code for c in hand.cards],
        "stake": money(hand.stake),
        "doubled": hand.doubled,
        "from_split": hand.from_split,
        "split_aces": hand.split_aces,
        "done": hand.done,
        "outcome": hand.outcome.value if hand.outcome is not None else None,
        "net": money_or_none(hand.net),
    }


def dump_round(r: Round) -> dict[str, Any]:
    """A round as plain data."""
    return {
        "number": r.number,
        "shoe_id": r.shoe_id,
        "boxes": [{
            "number": box.number,
            "bets": bets_out(box.bets),
            "owner": box.owner,
            "hands": [dump_hand(h) for h in box.hands],
            "insurance": money_or_none(box.insurance),
            "insurance_net": money_or_none(box.insurance_net),
            "acted": box.acted,
        } for box in r.boxes],
        "dealer": [c.code for c in r.dealer.cards],
        "plan": list(r.plan),
        "dealt": r.dealt,
        "box_i": r.box_i,
        "hand_i": r.hand_i,
        "anyone_drew": r.anyone_drew,
        "peeked": r.peeked,
        "started_at": time_out(r.started_at),
        "voided": r.voided,
        **dump_void_reason(r),
        "hole_turned": r.hole_turned,
    }


def load_round(state: RoundState) -> Round:
    """A Round from checked data."""
    boxes = []
    for b in state.boxes:
        box = BoxInPlay(b.number, bets_of(b.bets), b.owner)
        box.hands = []
        for h in b.hands:
            hand = Hand(box, cents_of(h.stake), from_split=h.from_split)
            for card in cards_of(h.cards):
                hand.add(card)
            hand.doubled, hand.split_aces, hand.done = h.doubled, h.split_aces, h.done
            hand.outcome, hand.net = h.outcome, amount_of(h.net)
            box.hands.append(hand)
        box.insurance, box.insurance_net = amount_of(b.insurance), amount_of(b.insurance_net)
        box.acted = b.acted
        boxes.append(box)
    r = Round(state.number, state.shoe_id, boxes, list(state.plan), time_of(state.started_at))
    for card in cards_of(state.dealer):
        r.dealer.add(card)
    r.dealt, r.box_i, r.hand_i = state.dealt, state.box_i, state.hand_i
    r.anyone_drew, r.peeked, r.voided, r.void_reason = state.anyone_drew, state.peeked, state.voided, state.void_reason
    r.hole_turned = state.hole_turned
    return r
