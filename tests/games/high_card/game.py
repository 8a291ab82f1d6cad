"""High card's engine: written only against `controller.game.Game` and the table's `TableOps`.

Its options are blackjack's with another ``game`` (the table's limits, boxes and shoe as they are), and its round
is blackjack's round (the same snapshot layout): a game may build on another's parts through their modules.
"""

from __future__ import annotations

from typing import Any, Literal

from controller import events as ev
from controller.cards import Card
from controller.effects import box_card, dealer_card
from controller.game import Dispatch, Game, ShoeFigure, TableOps
from controller.hand import Hand, Outcome
from controller.legality import Action
from controller.money import money
from controller.phase import READY, Phase
from controller.round import DEALER, Round, VoidReason
from controller.snapshot import check
from games.blackjack import snapshot as round_snapshot
from games.blackjack.rules import RuleProfile


class HighCardRules(RuleProfile):
    """Blackjack's options model with another game: the table's limits, boxes and shoe as they are."""

    game: Literal["high-card"] = "high-card"  # type: ignore[assignment]  # the one option that differs


class HighCard(Game[Round, HighCardRules]):
    """One card to each box and to the dealer; the higher card wins even money, equal cards push."""

    name = "high-card"
    rules_model = HighCardRules
    dealer_title = "Dealer"
    shoe_figures = frozenset({ShoeFigure.DEALT, ShoeFigure.LEFT})

    def events(self) -> Dispatch:
        return {}  # no decisions: the table's shared events are all it takes

    def place(self, t: TableOps, card: Card, e: ev.CardDrawn) -> None:
        if t.phase in READY and t.pending:
            boxes = t.take_pending()
            t.round = Round(t.rounds_played, t.shoe.shoe_id if t.shoe else None, boxes,
                            list(range(len(boxes))) + [DEALER], e.at)
            t.set_phase(Phase.DEALING)
        r = t.round
        if t.phase is not Phase.DEALING or r is None:
            t.hold(card, f"no card is expected now ({t.phase.value})", e.at)
            return
        target = r.plan[r.dealt]
        r.dealt += 1
        if target == DEALER:
            r.dealer.add(card)
            t.emit(dealer_card(card))
            for box in r.boxes:
                hand, theirs, ours = box.hands[0], order(box.hands[0].cards[0]), order(card)
                hand.settle(*((Outcome.WIN, hand.stake) if theirs > ours else
                              (Outcome.LOSE, -hand.stake) if theirs < ours else (Outcome.PUSH, 0)))
            t.finish_round(r)
        else:
            r.boxes[target].hands[0].add(card)
            t.emit(box_card(card, r.boxes[target].number, 0))

    def face_down_next(self, t: TableOps) -> str | None:
        return None  # every card face up

    def next_card(self, t: TableOps) -> str | None:
        r = t.round
        if r is None:
            return "first box" if t.phase in READY and t.pending else None
        return "dealer" if r.plan[r.dealt] == DEALER else f"box {r.boxes[r.plan[r.dealt]].number}"

    def hidden_cards(self, t: TableOps) -> list[Card]:
        return []

    def legal_actions(self, t: TableOps) -> list[Action]:
        return []

    def void(self, t: TableOps, reason: VoidReason = VoidReason.SUPERVISOR) -> None:
        r = self.in_play(t)
        r.voided, r.void_reason = True, reason
        for box in r.boxes:
            box.hands[0].settle(Outcome.VOID, 0)
        t.finish_round(r)

    def view(self, t: TableOps, reveal: bool) -> dict[str, Any]:
        r = t.round
        settled = t.previous if r is None else None
        return {"boxes": [_box(b) for b in r.boxes] if r else [],
                "dealer": _dealer(r.dealer if r else None, done=False), "turn": None, "legal_actions": [],
                "settled": {"number": settled.number, "void": settled.voided,
                            "void_reason": settled.void_reason.value if settled.void_reason is not None else None,
                            "dealer": _dealer(settled.dealer, done=True),
                            "boxes": [{**_box(b), "net": money(b.net())} for b in settled.boxes],
                            "net": money(settled.net())} if settled is not None else None}

    def dump_round(self, r: Round) -> dict[str, Any]:
        return round_snapshot.dump_round(r)  # the same round as blackjack's: the same layout

    def load_round(self, t: TableOps, data: Any) -> Round:
        return round_snapshot.load_round(check(round_snapshot.RoundState, data, "round"))


def order(card: Card) -> int:
    """A card's order in high card: 2..10, then J, Q, K, A."""
    return "23456789TJQKA".index(card.code[0])


def _hand(h: Hand) -> dict[str, Any]:
    # A card's order is its total (2 to 14).
    return {"cards": [c.code for c in h.cards], "totals": [order(c) + 2 for c in h.cards], "bet": money(h.stake),
            "done": h.outcome is not None, "in_play": False,
            "outcome": h.outcome.value if h.outcome is not None else None,
            "net": money(h.net) if h.outcome is not None else None}


def _box(b: Any) -> dict[str, Any]:
    return {"box": b.number, "owner": b.owner, "bets": {p: money(a) for p, a in b.bets.items()}, "insurance": None,
            "hands": [_hand(h) for h in b.hands]}


def _dealer(h: Hand | None, done: bool) -> dict[str, Any]:
    cards = h.cards if h is not None else []
    return {"cards": [c.code for c in cards], "totals": [order(c) + 2 for c in cards], "hole_hidden": False,
            "done": done}

