"""Baccarat's snapshot layout: a coup as plain data out, strictly validated data in (`Baccarat.dump_round`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, Strict, model_validator

from controller.hand import BoxInPlay, Hand, Outcome
from controller.money import money
from controller.snapshot import (Amount, CardCode, Count, StrictModel, Time, VoidReasonState, amount_of, cards_of,
                                 cents_of, dump_void_reason, time_of, time_out)

from .coup import SPOTS, Coup, SpotHand
from .tableau import BANKER, PLAYER, next_due

_SPOT_NAMES = tuple(s.name for s in SPOTS)


class SpotState(StrictModel):
    """One player's bet on one spot of a box."""

    player: Annotated[str, Field(min_length=1, max_length=64)]
    spot: str
    stake: Amount
    outcome: Annotated[Outcome, Strict(False)] | None
    net: Amount | None
    commission: Amount
    owed: bool

    @model_validator(mode="after")
    def _known(self) -> SpotState:
        if self.spot not in _SPOT_NAMES:
            raise ValueError(f"no such spot {self.spot!r}")
        if cents_of(self.stake) <= 0 or cents_of(self.commission) < 0:
            raise ValueError("a stake is above zero and a commission never below")
        return self


class CoupBoxState(StrictModel):
    """A box in the coup."""

    number: Annotated[int, Field(ge=1, le=9)]
    owner: str | None
    spots: list[SpotState] = Field(min_length=1)


class CoupState(StrictModel):
    """A coup, in play or settled."""

    number: Annotated[int, Field(ge=1)]
    shoe_id: str | None
    boxes: list[CoupBoxState] = Field(min_length=1)
    player: list[CardCode] = Field(max_length=3)
    banker: list[CardCode] = Field(max_length=3)
    order: list[Literal["player", "banker"]] = Field(max_length=6)
    turned: Count
    waiting: list[CardCode] = Field(max_length=8)
    started_at: Time | None
    voided: bool
    void_reason: VoidReasonState = None

    @model_validator(mode="after")
    def _tableau(self) -> CoupState:
        order = list[str](self.order)
        if order.count(PLAYER) != len(self.player) or order.count(BANKER) != len(self.banker):
            raise ValueError("the order of the cards does not match the hands")
        if self.turned > len(self.order):
            raise ValueError("more cards turned than dealt")
        p: list[int] = []
        b: list[int] = []
        values = {PLAYER: iter(cards_of(self.player)), BANKER: iter(cards_of(self.banker))}
        for hand in self.order:  # every card went where the tableau called for it
            if next_due(p, b) != hand:
                raise ValueError("the cards do not follow the tableau")
            (p if hand == PLAYER else b).append(next(values[hand]).value)
        return self


class CoupSummary(StrictModel):
    """A settled coup on the shoe's scoreboard."""

    number: Annotated[int, Field(ge=1)]
    result: Literal["player", "banker", "tie"]
    player: Annotated[int, Field(ge=0, le=9)]
    banker: Annotated[int, Field(ge=0, le=9)]
    player_pair: bool
    banker_pair: bool
    natural: bool


class OwedState(StrictModel):
    """Commission a box's player owes."""

    box: Annotated[int, Field(ge=1, le=9)]
    player: Annotated[str, Field(min_length=1, max_length=64)]
    amount: Amount


class OddsState(StrictModel):
    """The newest exact expectations of the spots (`events.SpotOdds`)."""

    shoe_id: Annotated[str, Field(min_length=1, max_length=64)]
    cards_out: Annotated[int, Field(ge=0, le=65_535)]
    expectations: Annotated[dict[str, Annotated[float, Field(ge=-1.0, le=41.0, allow_inf_nan=False)]],
                            Field(max_length=16)]


class ShoeStateModel(StrictModel):
    """What baccarat keeps between coups (a snapshot from before the side-bet watch has no odds nor history)."""

    coups: list[CoupSummary] = Field(max_length=200)
    after_cut: Annotated[int, Field(ge=0, le=1)] | None
    owed: list[OwedState] = Field(max_length=200)
    odds: OddsState | None = None
    side_stakes: Annotated[dict[str, Annotated[list[Annotated[int, Field(ge=1)]], Field(max_length=200)]],
                           Field(max_length=16)] = Field(default_factory=dict)


def dump_coup(r: Coup) -> dict[str, Any]:
    """A coup as plain data."""
    boxes = []
    for box in r.boxes:
        spots = []
        for h in box.hands:
            assert isinstance(h, SpotHand)
            spots.append({"player": h.player, "spot": h.spot, "stake": money(h.stake),
                          "outcome": h.outcome.value if h.outcome else None,
                          "net": money(h.net) if h.net is not None else None,
                          "commission": money(h.commission), "owed": h.owed})
        boxes.append({"number": box.number, "owner": box.owner, "spots": spots})
    return {"number": r.number, "shoe_id": r.shoe_id, "boxes": boxes,
            "player": [c.code for c in r.punto.cards], "banker": [c.code for c in r.banco.cards],
            "order": list(r.order), "turned": r.turned, "waiting": [c.code for c in r.waiting],
            "started_at": time_out(r.started_at), "voided": r.voided, **dump_void_reason(r)}


def load_coup(s: CoupState) -> Coup:
    """A coup from checked data."""
    boxes = []
    for b in s.boxes:
        bets: dict[str, int] = {}
        for sp in b.spots:
            bets[sp.player] = bets.get(sp.player, 0) + cents_of(sp.stake)
        box = BoxInPlay(b.number, bets, b.owner)
        hands = []
        for sp in b.spots:
            h = SpotHand(box, sp.player, sp.spot, cents_of(sp.stake))
            if sp.outcome is not None:
                net = amount_of(sp.net)
                h.settle(sp.outcome, net if net is not None else 0)
            h.commission, h.owed = cents_of(sp.commission), sp.owed
            hands.append(h)
        box.hands = list[Hand](hands)
        boxes.append(box)
    r = Coup(s.number, s.shoe_id, boxes, time_of(s.started_at))
    for c in cards_of(s.player):
        r.punto.add(c)
    for c in cards_of(s.banker):
        r.banco.add(c)
    r.order, r.turned, r.waiting = list(s.order), s.turned, cards_of(s.waiting)
    r.voided, r.void_reason = s.voided, s.void_reason
    return r
