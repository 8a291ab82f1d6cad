"""Blackjack, as the five casino documents play it: the round behind the table's shared machinery.

The round's data is `controller.round` (shared with the club games); what a player may do is
`legality`, the dealer and the payouts are `settlement`, the round's snapshot is `snapshot` and the
options are `rules`, all in this folder. This module applies what they decide, in the order the
table's events arrive, and shows the round.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from controller import events as ev
from controller.alerts import AlertKind
from controller.cards import HIDDEN, Card, total_of
from controller.effects import CardPlaced, HoleCardTurned, box_card, burnt_card, dealer_card
from controller.errors import EngineError
from controller.hand import BoxInPlay, Hand, Outcome
from controller.legality import GameAction, Refusal, named_box_refusal
from controller.money import money, to_cents
from controller.phase import PLAY, READY, Phase
from controller.round import DEALER, Round, VoidReason
from controller.snapshot import check
from controller.game import Dispatch, Game, ShoeFigure, TableOps

from .events import CloseInsurance, EvenMoney, Insure
from .outcomes import BlackjackOutcome
from . import legality as legal
from . import settlement
from . import snapshot as snap
from .rules import RuleProfile, SurrenderRule

_BLOCKED = frozenset({ev.Stand, ev.Double, ev.Split, ev.Surrender, Insure, EvenMoney, CloseInsurance})


def deal_plan(boxes: int, hole_card: bool) -> list[int]:
    """The order of the initial deal, as box indices and DEALER.

    rules.md, shared: one card to each betting box in order, one to the dealer, a second card to
    each box, then the hole card in a hole-card game.
    """
    idx = list(range(boxes))
    return idx + [DEALER] + idx + ([DEALER] if hole_card else [])


class Blackjack(Game[Round, RuleProfile]):
    """Blackjack: the dealer plays his own hand against every box, by the house's fixed rule."""

    name = "blackjack"
    rules_model = RuleProfile
    blocked_by_attention = _BLOCKED
    dealer_title = "Dealer"
    view_kind = "blackjack"
    card_destinations = ("box", "dealer", "burn")  # a burn after the shuffle, through the reader
    # A shoe with a cut card (and a burn after the cut): every figure the pit has always read, the Hi-Lo
    # count included (a 52-card shoe's).
    shoe_figures = frozenset({ShoeFigure.DEALT, ShoeFigure.BURNED, ShoeFigure.PENETRATION, ShoeFigure.CUT_CARD,
                              ShoeFigure.RIGHT_TO_CUT, ShoeFigure.COUNT, ShoeFigure.RANKS_LEFT})

    def events(self) -> Dispatch:
        """The players' decisions, insurance, and the cut card."""
        return {
            ev.CutCardOut: (None, self._on_cut_card),
            ev.Stand: (self._check_stand, self._on_stand),
            ev.Double: (self._check_double, self._on_double),
            ev.Split: (self._check_split, self._on_split),
            ev.Surrender: (self._check_surrender, self._on_surrender),
            Insure: (self._check_insure, self._on_insurance),
            EvenMoney: (self._check_even_money, self._on_even_money),
            CloseInsurance: (self._check_close_insurance, self._on_close_insurance),
        }

    # ================================================================== cards
    def place(self, t: TableOps, card: Card, e: ev.CardDrawn) -> None:
        """The deal plan while dealing, the hand in turn while it plays, the dealer in his turn,
        a burn or a new round's first card between rounds; anything else is held."""
        phase = t.phase
        if phase is Phase.DEALING:
            self._deal(t, card)
        elif phase in PLAY:
            hand = self.in_play(t).hand
            if legal.awaiting_resplit(hand):
                t.hold(card, "split aces: split again or stand before the next card", e.at)
            else:
                self._hit(t, hand, card)
        elif phase is Phase.DEALER:
            if settlement.dealer_needs_card(self.in_play(t), self.rules_of(t)):
                self._dealer_draw(t, card)
            else:
                t.hold(card, "the dealer has finished drawing", e.at)
        elif phase in READY:
            shoe = self.loaded_shoe(t)
            if t.burn_left > 0:
                t.burn_left -= 1
                shoe.burned += 1
                t.emit(burnt_card(card))
            elif t.pending:
                self._start_round(t, e.at)
                self._deal(t, card)
            else:
                t.hold(card, "no bets are on the table", e.at)
        elif phase is Phase.INSURANCE:
            t.hold(card, "insurance is open: close insurance before dealing on", e.at)
        else:  # (a due shuffle and the supervisor awaited are the table's: Table._no_card_expected)
            t.hold(card, f"no card is expected now ({phase.value})", e.at)

    def face_down_next(self, t: TableOps) -> str | None:
        """The hole card (a hole-card game's second dealer card in the deal) goes face down to the dealer."""
        r = t.round
        if (t.phase is Phase.DEALING and r is not None and self.rules_of(t).hole_card
                and r.plan[r.dealt] == DEALER and len(r.dealer.cards) == 1):
            return "the dealer"
        return None

    def next_card(self, t: TableOps) -> str | None:
        """'box N', 'dealer', 'burn', 'first box', or None when no card is expected."""
        r = t.round
        if r is not None:
            return legal.next_card(r, t.phase)
        if t.phase in READY and t.shoe is not None and (t.pending or t.burn_left):
            return "burn" if t.burn_left else "first box"
        return None

    def next_card_owner(self, t: TableOps) -> str:
        """Whom the next card would be for: 'box N' or 'dealer' (the right to cut follows it)."""
        r = t.round
        if r is None:
            return f"box {min(t.pending)}" if t.pending else "dealer"
        owner = legal.next_card(r, t.phase)
        if owner is not None:
            return owner
        if (t.phase in PLAY or t.phase is Phase.INSURANCE) and r.box_i < len(r.boxes):
            return f"box {r.boxes[r.box_i].number}"  # the box in turn, though it takes no card now
        return "dealer"

    def dealer_card_closed(self, t: TableOps) -> bool:
        """The dealer's hole card is dealt face down and not yet turned."""
        r = t.round
        return r is not None and self.rules_of(t).hole_card and len(r.dealer.cards) >= 2 and not r.hole_turned

    def hidden_cards(self, t: TableOps) -> list[Card]:
        """The hole card, while it is face down."""
        return [self.in_play(t).dealer.cards[1]] if self.dealer_card_closed(t) else []

    def reveal_all(self, t: TableOps, r: Round) -> None:
        """A round over has no secret left: the hole card is turned."""
        self._turn_hole_card(t)

    def _on_cut_card(self, t: TableOps, e: ev.CutCardOut) -> None:
        shoe = t.shoe
        if shoe is None or shoe.cut_card_out:
            return  # nothing to track: no shoe yet, or already out (a resend)
        shoe.cut_card_out = True
        shoe.cut_card_position = e.position if e.position is not None else shoe.dealt + 1
        t.right_to_cut = self.next_card_owner(t)
        if t.rules.reshuffle_every_round or t.pending:
            # rules.md, Points decided: out after the bets and before the first card, the cut card
            # leaves the round whose bets are down to be dealt and finished; the shuffle follows it.
            return
        if t.phase in READY:
            t.set_phase(Phase.WAITING_FOR_SHUFFLE)
            t.raise_alert(AlertKind.SHUFFLE_DUE, "the cut card is out: shuffle", e.at)
        elif t.phase is Phase.ATTENTION and t.resume_phase in READY:
            # Out while a held card waits between rounds: once resolved, the table waits for the shuffle.
            t.resume_phase = Phase.WAITING_FOR_SHUFFLE
            t.raise_alert(AlertKind.SHUFFLE_DUE, "the cut card is out: shuffle", e.at)

    # ================================================================== the round
    def _start_round(self, t: TableOps, at: datetime | None) -> None:
        rules = self.rules_of(t)
        boxes = t.take_pending()
        t.round = Round(t.rounds_played, t.shoe.shoe_id if t.shoe else None, boxes,
                        deal_plan(len(boxes), rules.hole_card), at)
        t.previous = None
        t.set_phase(Phase.DEALING)

    def _deal(self, t: TableOps, card: Card) -> None:
        r = t.round
        assert r is not None
        target = r.plan[r.dealt]
        r.dealt += 1
        if target == DEALER:
            face_down = self.rules_of(t).hole_card and len(r.dealer.cards) == 1
            r.dealer.add(card)
            # The hole card is the one placed face down (rare: built here, not shared).
            t.emit(CardPlaced(card.code, "dealer", face_down=True) if face_down else dealer_card(card))
        else:
            box = r.boxes[target]
            box.hands[0].add(card)
            t.emit(box_card(card, box.number, 0))
        if r.dealt == len(r.plan):
            if legal.insurance_opens(r, self.rules_of(t)):
                t.set_phase(Phase.INSURANCE)
            else:
                self._after_insurance(t)

    def _after_insurance(self, t: TableOps) -> None:
        r = t.round
        assert r is not None
        rules = self.rules_of(t)
        if settlement.dealer_peeks(r.dealer.cards[0].value, rules):
            r.peeked = True
            if r.dealer.is_blackjack:
                self._settle_round(t)
                return
            for box in r.boxes:  # the peek settles insurance: the dealer has no blackjack
                if box.insurance is not None:
                    box.insurance_net = settlement.insurance_net(box.insurance, False)
        waits = settlement.blackjack_may_come(r)
        for box in r.boxes:
            hand = box.hands[0]
            if hand.is_blackjack and not hand.settled:
                if waits:
                    hand.done = True  # waits for the dealer's second card
                else:
                    hand.settle(BlackjackOutcome.BLACKJACK, settlement.blackjack_net(hand.stake, rules))
        if rules.surrender is SurrenderRule.BEFORE_FIRST_HIT and any(legal.may_surrender_early(b) for b in r.boxes):
            t.set_phase(Phase.SURRENDER)
        else:
            t.set_phase(Phase.PLAYERS)
        r.box_i, r.hand_i = 0, 0
        self._to_next_hand(t)

    def _turn_hole_card(self, t: TableOps) -> None:
        r = t.round
        if r is not None and self.rules_of(t).hole_card and len(r.dealer.cards) >= 2 and not r.hole_turned:
            r.hole_turned = True
            t.emit(HoleCardTurned(r.dealer.cards[1].code))

    def _to_next_hand(self, t: TableOps) -> None:
        r = t.round
        assert r is not None
        if r.to_next_hand():
            return
        self._turn_hole_card(t)
        t.set_phase(Phase.DEALER)
        if not settlement.dealer_needs_card(r, self.rules_of(t)):
            self._settle_round(t)

    def _close_surrender_window(self, t: TableOps) -> None:
        # The first card or decision after the deal ends the table-wide surrender window.
        if t.phase is Phase.SURRENDER:
            t.set_phase(Phase.PLAYERS)

    def _hit(self, t: TableOps, hand: Hand, card: Card) -> None:
        r = t.round
        assert r is not None and hand.box is not None
        rules = self.rules_of(t)
        self._close_surrender_window(t)
        r.anyone_drew = True
        hand.box.acted = True
        hand.add(card)
        t.emit(box_card(card, hand.box.number, r.hand_i))
        paid = settlement.settled_at_once(hand, rules)
        if paid is not None:
            hand.settle(*paid)
        elif legal.hand_complete(hand, card, rules):
            hand.done = True
        if hand.done:
            self._to_next_hand(t)

    def _dealer_draw(self, t: TableOps, card: Card) -> None:
        r = t.round
        assert r is not None
        r.dealer.add(card)
        t.emit(dealer_card(card))
        if not settlement.dealer_needs_card(r, self.rules_of(t)):
            self._settle_round(t)

    def _settle_round(self, t: TableOps) -> None:
        r = t.round
        assert r is not None
        hands, insurance = settlement.settle_round(r, self.rules_of(t))
        for box, net in insurance:
            box.insurance_net = net
        for hand, outcome, net in hands:
            hand.settle(outcome, net)
        t.finish_round(r)

    def void(self, t: TableOps, reason: VoidReason = VoidReason.SUPERVISOR) -> None:
        """rules.md: a voided round returns every bet on it, settled or not."""
        r = t.round
        assert r is not None
        r.voided = True
        r.void_reason = reason
        for box in r.boxes:
            for hand in box.hands:
                hand.settle(Outcome.VOID, 0)
            if box.insurance is not None:
                box.insurance_net = 0
        t.finish_round(r)

    # ================================================================== players' decisions
    def legal_actions(self, t: TableOps) -> list[GameAction]:
        """The hand in turn's decisions, or those the insurance phase offers."""
        return legal.legal_actions(t.phase, t.round, self.rules_of(t))

    def _check_stand(self, t: TableOps, e: ev.Stand) -> Refusal | None:
        return legal.turn_refusal(t.phase, t.round, "stand")

    def _on_stand(self, t: TableOps, e: ev.Stand) -> None:
        hand = self.in_play(t).hand
        self._close_surrender_window(t)
        hand.own_box.acted = True
        hand.done = True
        self._to_next_hand(t)

    def _check_double(self, t: TableOps, e: ev.Double) -> Refusal | None:
        refusal = legal.turn_refusal(t.phase, t.round, "double")
        if refusal is not None:
            return refusal
        r = self.in_play(t)
        return named_box_refusal(t.phase, r, e.box) or legal.double_refusal(r.hand, self.rules_of(t))

    def _on_double(self, t: TableOps, e: ev.Double) -> None:
        hand = self.in_play(t).hand
        self._close_surrender_window(t)
        hand.own_box.acted = True
        hand.stake = hand.stake * 2
        hand.doubled = True

    def _check_split(self, t: TableOps, e: ev.Split) -> Refusal | None:
        return legal.turn_refusal(t.phase, t.round, "split") or \
            legal.split_refusal(self.in_play(t).hand, self.rules_of(t))

    def _on_split(self, t: TableOps, e: ev.Split) -> None:
        r = t.round
        assert r is not None
        hand = r.hand
        box = hand.box
        assert box is not None
        self._close_surrender_window(t)
        box.acted = True
        aces = legal.is_pair_of_aces(hand)
        new = Hand(box, box.bet, from_split=True)  # each new hand takes a bet equal to the original
        new.add(hand.remove_last())
        new.split_aces = hand.split_aces = aces
        hand.from_split = True
        box.hands.insert(r.hand_i + 1, new)

    def _check_surrender(self, t: TableOps, e: ev.Surrender) -> Refusal | None:
        return legal.surrender_refusal(t.phase, t.round, self.rules_of(t), e.box)

    def _on_surrender(self, t: TableOps, e: ev.Surrender) -> None:
        r = t.round
        assert r is not None
        box = legal.surrendering_box(r, e.box)
        assert box is not None
        hand = box.hands[0]
        hand.settle(BlackjackOutcome.SURRENDER, settlement.surrender_net(hand.stake))
        box.acted = True
        if r.boxes[r.box_i] is box:
            self._to_next_hand(t)

    # ------------------------------------------------------------------ insurance
    def _check_insure(self, t: TableOps, e: Insure) -> Refusal | None:
        return legal.insure_refusal(t.phase, t.round, self.rules_of(t), e.box, to_cents(e.amount))

    def _on_insurance(self, t: TableOps, e: Insure) -> None:
        _checked_box(self.in_play(t), e.box).insurance = to_cents(e.amount)

    def _check_even_money(self, t: TableOps, e: EvenMoney) -> Refusal | None:
        return legal.even_money_refusal(t.phase, t.round, self.rules_of(t), e.box)

    def _on_even_money(self, t: TableOps, e: EvenMoney) -> None:
        hand = _checked_box(self.in_play(t), e.box).hands[0]
        hand.settle(BlackjackOutcome.EVEN_MONEY, hand.stake)  # 1:1 at once

    def _check_close_insurance(self, t: TableOps, e: CloseInsurance) -> Refusal | None:
        return legal.close_insurance_refusal(t.phase)

    def _on_close_insurance(self, t: TableOps, e: CloseInsurance) -> None:
        self._after_insurance(t)

    # ================================================================== views and snapshots
    def view(self, t: TableOps, reveal: bool) -> dict[str, Any]:
        """Boxes and hands, the dealer (the hole card XX unless ``reveal``), whose turn, the legal actions."""
        r = t.round
        boxes: list[dict[str, Any]] = []
        in_players = t.phase in PLAY
        if r is not None:
            for bi, box in enumerate(r.boxes):
                boxes.append({
                    "box": box.number,
                    "owner": box.owner,
                    "bets": {p: money(a) for p, a in box.bets.items()},
                    "insurance": money(box.insurance) if box.insurance is not None else None,
                    "hands": [_hand_view(h, in_players and bi == r.box_i and hi == r.hand_i)
                              for hi, h in enumerate(box.hands)],
                })
        dealer: dict[str, Any] = {"cards": [], "totals": [], "hole_hidden": False, "blackjack": False,
                                  "bust": False, "done": False}
        if r is not None:
            cards = [c.code for c in r.dealer.cards]
            values = [c.value for c in r.dealer.cards]
            if self.dealer_card_closed(t) and not reveal:
                cards[1] = HIDDEN
                values = values[:1]
                dealer["hole_hidden"] = True
            dealer["cards"] = cards
            dealer["totals"] = total_of(values).shown() if values else []
            if not dealer["hole_hidden"]:  # a blackjack behind a face-down card is never told
                dealer.update(_dealer_marks(r))
        turn = None
        if in_players and r is not None:
            turn = {"box": r.boxes[r.box_i].number, "hand": r.hand_i}
        elif t.phase is Phase.DEALER:
            turn = {"dealer": True}
        return {
            "boxes": boxes,
            "dealer": dealer,
            "turn": turn,
            "legal_actions": [a.value for a in self.legal_actions(t)],
            "settled": settled_view(t.previous) if r is None and t.previous is not None else None,
        }

    def dump_round(self, r: Round) -> dict[str, Any]:
        """A blackjack round as plain data (controller.snapshot's layout)."""
        return snap.dump_round(r)

    def load_round(self, t: TableOps, data: Any) -> Round:
        """A blackjack round from checked data."""
        return snap.load_round(check(snap.RoundState, data, "round"))


def _hand_view(hand: Hand, in_play: bool) -> dict[str, Any]:
    return {
        "cards": [c.code for c in hand.cards],
        "totals": total_of([c.value for c in hand.cards]).shown() if hand.cards else [],
        "bet": money(hand.stake),
        "doubled": hand.doubled,
        "split": hand.from_split,
        "blackjack": hand.is_blackjack,
        "bust": hand.is_bust,
        "done": hand.done,
        "in_play": in_play,
        "outcome": hand.outcome.value if hand.outcome else None,
        "net": money(hand.net) if hand.net is not None else None,
    }


def _dealer_marks(r: Round) -> dict[str, bool]:
    return {"blackjack": r.dealer.is_blackjack, "bust": r.dealer.is_bust}


def settled_view(r: Round) -> dict[str, Any]:
    """The last settled round as it lies on the felt until the next round's first card.

    Every hand with its marks, outcome and net, each box's net with its insurance, and the
    dealer's hand; nets are the players' (the pit shows them from the house's side).
    """
    boxes = []
    for box in r.boxes:
        hands = [_hand_view(h, False) for h in box.hands]
        for view, hand in zip(hands, box.hands):
            view["surrendered"] = hand.outcome is BlackjackOutcome.SURRENDER
        boxes.append({
            "box": box.number,
            "owner": box.owner,
            "bets": {p: money(a) for p, a in box.bets.items()},
            "insurance": money(box.insurance) if box.insurance is not None else None,
            "insurance_net": money(box.insurance_net) if box.insurance_net is not None else None,
            "hands": hands,
            "net": money(box.net()),
        })
    d = r.dealer
    return {
        "number": r.number,
        "void": r.voided,
        "void_reason": r.void_reason.value if r.void_reason is not None else None,
        "dealer": {"cards": [c.code for c in d.cards], "hole_hidden": False,
                   "totals": total_of([c.value for c in d.cards]).shown() if d.cards else [], "done": True,
                   **_dealer_marks(r)},
        "boxes": boxes,
        "net": money(r.net()),
    }


__all__ = ["Blackjack", "settled_view"]


def _checked_box(r: Round, number: int | None) -> BoxInPlay:
    """Box `number` of the round, which the event's check has found there."""
    box = r.box(number) if number is not None else None
    if box is None:  # a bug, never an input: the check refuses a box not in play
        raise EngineError(f"box {number} is not in play")
    return box

