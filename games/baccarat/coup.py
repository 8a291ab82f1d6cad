"""A coup's data: the boxes' spots and bets, the two hands, the order the cards went in, the squeeze's face-down
cards, and the coup's record (what the journal keeps and replay prints). Pure; `game.Baccarat` moves it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from controller.cards import Card
from controller.game import Bets, Spot
from controller.hand import BoxInPlay, Hand
from controller.money import money
from controller.round import Round, void_keys

from . import settlement as pay
from .tableau import BANKER, PLAYER, next_due, points

WAITING = "waiting"
"""Where a card dealt face down goes while the cards before it are face down too (beyond the first four): to no
hand yet (`Coup.waiting`)."""


def _main_limits(r: Any) -> tuple[int, int]:
    return r.table_min_cents, r.table_max_cents


def _side(name: str) -> Any:
    def limits(r: Any) -> tuple[int, int]:
        return r.cents("side_min"), r.cents(name)
    return limits


SPOTS = (
    Spot(pay.PLAYER, "Player", _main_limits),
    Spot(pay.BANKER, "Banker", _main_limits),
    Spot(pay.TIE, "Tie", _side("tie_max")),
    Spot(pay.PLAYER_PAIR, "Player pair", _side("pair_max")),
    Spot(pay.BANKER_PAIR, "Banker pair", _side("pair_max")),
    Spot(pay.DRAGON7, "Dragon 7", _side("dragon7_max")),
    Spot(pay.PANDA8, "Panda 8", _side("panda8_max")),
)


class SpotHand(Hand):
    """One player's bet on one spot of a box: a hand with no cards (both hands are the table's), its stake,
    outcome and net, and the commission on a won Banker bet (taken, or owed in the tally)."""

    __slots__ = ("player", "spot", "commission", "owed")

    def __init__(self, box: BoxInPlay, player: str, spot: str, stake: int) -> None:
        super().__init__(box, stake)
        self.player = player
        self.spot = spot
        self.commission = 0
        self.owed = False


def make_box(number: int, bets: Bets, owner: str | None) -> BoxInPlay:
    """A box in the coup: one `SpotHand` per player and spot, in the order the players came and the spots' order."""
    box = BoxInPlay(number, {p: sum(spots.values()) for p, spots in bets.items()}, owner)
    order = [s.name for s in SPOTS]
    box.hands = [SpotHand(box, p, s, spots[s]) for p, spots in bets.items()
                 for s in sorted(spots, key=order.index)]
    return box


class Coup(Round):
    """One coup: the table's round, with the Player's hand (the Banker's is the round's ``dealer``), the order the
    cards went in, how many of them are turned (the squeeze), and the cards dealt face down while earlier ones were
    still face down beyond the first four (``waiting``: given to a hand by the tableau only once those are turned,
    so that where a card goes never tells the tableau before the room has seen the cards)."""

    __slots__ = ("punto", "order", "turned", "waiting")

    def __init__(self, number: int, shoe_id: str | None, boxes: list[BoxInPlay], started_at: datetime | None) -> None:
        super().__init__(number, shoe_id, boxes, [], started_at)
        self.punto = Hand(None, 0)
        self.order: list[str] = []  # PLAYER or BANKER for each card dealt, in order
        self.turned = 0  # cards of ``order`` turned face up (all of them, but under the squeeze)
        self.waiting: list[Card] = []  # face down, not yet given to a hand (the squeeze)

    @property
    def banco(self) -> Hand:
        """The Banker's hand."""
        return self.dealer

    def values(self, hand: str) -> list[int]:
        """A hand's card values in order."""
        return [c.value for c in (self.punto if hand == PLAYER else self.banco).cards]

    def due(self) -> str | None:
        """Which hand the tableau calls the next card for, or None: the coup is decided."""
        return next_due(self.values(PLAYER), self.values(BANKER))

    def cards_in_order(self) -> list[Card]:
        """Every card of the two hands, in the order dealt."""
        p, b = iter(self.punto.cards), iter(self.banco.cards)
        return [next(p) if h == PLAYER else next(b) for h in self.order]

    def hidden(self) -> list[Card]:
        """The cards still face down: those not yet turned, and those waiting."""
        return self.cards_in_order()[self.turned:] + self.waiting

    def facts(self) -> pay.Coup:
        """The decided coup's facts."""
        return pay.Coup.of([(c.rank, c.value) for c in self.punto.cards], [(c.rank, c.value) for c in self.banco.cards])

    @property
    def record(self) -> dict[str, Any]:
        """The JSON-ready record of the settled coup (built once)."""
        if self._record is None:
            self._record = coup_record(self)
        return self._record


def coup_record(r: Coup) -> dict[str, Any]:
    """The JSON-ready record of a settled coup (what replay prints and the journal keeps)."""
    hands = []
    total = 0
    commission = 0
    for box in r.boxes:
        for h in box.hands:
            assert isinstance(h, SpotHand)
            net = h.net if h.net is not None else 0
            total += net
            commission += h.commission
            hands.append({"box": box.number, "player": h.player, "spot": h.spot, "cards": [],
                          "bet": money(h.stake), "outcome": h.outcome.value if h.outcome else None,
                          "net": money(net), **({"commission": money(h.commission), "commission_owed": h.owed}
                                                if h.commission else {})})
    complete = bool(r.punto.cards) and bool(r.banco.cards) and r.due() is None
    facts = r.facts()
    return {
        "number": r.number,
        "shoe_id": r.shoe_id,
        "game": "baccarat",
        "dealer": {"cards": [c.code for c in r.banco.cards], "total": points([c.value for c in r.banco.cards])},
        "player_hand": {"cards": [c.code for c in r.punto.cards], "total": points([c.value for c in r.punto.cards])},
        "result": facts.result.value if complete and not r.voided else None,
        "hands": hands,
        "insurance": [],
        "commission": money(commission),
        "net": money(total),
        **void_keys(r),
    }
