"""The authoritative round engine: events in, effects out.

`Table.apply(event)` is the only way the table's state changes. It never reads
a clock, a port or a pin: time arrives in the event's ``at``. A dealer's or
supervisor's action that is illegal where it stands raises IllegalAction and
leaves the state exactly as it was (handlers check everything before they
change anything). A card is physical and is never refused: a card nobody may
take puts the table in ATTENTION, holding the card, until a supervisor
discards it or voids the round.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from enum import Enum
from typing import Any, Callable

from . import events as ev
from .alerts import LOCKING_KINDS, Alert, AlertKind
from .cards import Card
from .effects import (AlertCleared, AlertRaised, CardPlaced, Effect, PhaseChanged,
                      ReservationLapsed, RoundSettled, ShoeLock)
from .hand import BoxInPlay, Hand, Outcome
from .rules import DealerBlackjackTakes, DoubleRule, Peek, RuleProfile, SplitBy, SurrenderRule, build_rules
from .shoe import ShoeTracker

log = logging.getLogger(__name__)

ZERO = Decimal(0)
DEALER = -1  # deal-plan target for the dealer's hand


class Phase(str, Enum):
    """Where the table is in its cycle."""

    WAITING_FOR_SHUFFLE = "waiting_for_shuffle"
    BETTING = "betting"
    DEALING = "dealing"
    INSURANCE = "insurance"
    SURRENDER = "surrender"
    PLAYERS = "players"
    DEALER = "dealer"
    SETTLED = "settled"
    ATTENTION = "attention"


IN_ROUND = frozenset({Phase.DEALING, Phase.INSURANCE, Phase.SURRENDER, Phase.PLAYERS, Phase.DEALER})
BETWEEN_ROUNDS = frozenset({Phase.BETTING, Phase.SETTLED, Phase.WAITING_FOR_SHUFFLE})


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the engine refuses an action: ``code`` for machines, ``message`` for the dealer."""

    code: str
    message: str


class IllegalAction(Exception):
    """A person's action refused where it stands; ``code`` for machines, ``message`` for the dealer."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def money(d: Decimal) -> str:
    """A decimal amount as the session format writes it: '10', '-7.5', '0'."""
    if d == d.to_integral_value():
        return str(int(d))
    return str(d.normalize())


class Round:
    """One round from its first card to its settlement."""

    __slots__ = ("number", "shoe_id", "boxes", "dealer", "plan", "dealt", "box_i", "hand_i",
                 "anyone_drew", "peeked", "started_at", "voided", "_record")

    def __init__(self, number: int, shoe_id: str | None, boxes: list[BoxInPlay], hole_card: bool,
                 at: datetime | None) -> None:
        self.number = number
        self.shoe_id = shoe_id
        self.boxes = boxes
        self.dealer = Hand(None, ZERO)  # type: ignore[arg-type]
        idx = list(range(len(boxes)))
        # One card to each box, one to the dealer, a second to each box, then the hole card.
        self.plan: list[int] = idx + [DEALER] + idx + ([DEALER] if hole_card else [])
        self.dealt = 0
        self.box_i = 0
        self.hand_i = 0
        self.anyone_drew = False
        self.peeked = False
        self.started_at = at
        self.voided = False
        self._record: dict[str, Any] | None = None

    @property
    def record(self) -> dict[str, Any]:
        """The JSON-ready record of the settled round (built once, on first use)."""
        if self._record is None:
            self._record = round_record(self)
        return self._record

    def net(self) -> Decimal:
        """What the players won (+) or lost (-) on the round, insurance and bonuses included."""
        total = ZERO
        for box in self.boxes:
            for hand in box.hands:
                if hand.net is not None:
                    total += hand.net
            if box.insurance_net is not None:
                total += box.insurance_net
        return total

    @property
    def hand(self) -> Hand:
        """The hand in play."""
        return self.boxes[self.box_i].hands[self.hand_i]


class Table:
    """The table's whole state and the rules that move it."""

    def __init__(self, rules: RuleProfile | None = None) -> None:
        self.rules = rules or build_rules("ru-standard")
        self.phase = Phase.WAITING_FOR_SHUFFLE
        self.shoe: ShoeTracker | None = None
        self.shoes_loaded = 0
        self.burn_left = 0
        self.pending: dict[int, dict[str, Decimal]] = {}
        self.reservations: dict[int, tuple[str | None, datetime | None]] = {}
        self.round: Round | None = None
        self.previous: Round | None = None
        self.rounds_played = 0
        self.last_round_players = 0
        self.right_to_cut: str | None = None
        self.held: list[Card] = []
        self.resume_phase: Phase | None = None
        self.alerts: list[Alert] = []
        self.next_alert_id = 1
        self.now: datetime | None = None
        self.locked = True
        self._fx: list[Effect] = []
        self._handlers: dict[type, Callable[[Any], None]] = {
            ev.CardDrawn: self._on_card,
            ev.Stand: self._on_stand,
            ev.Double: self._on_double,
            ev.Split: self._on_split,
            ev.Surrender: self._on_surrender,
            ev.PlaceBet: self._on_bet,
            ev.Insure: self._on_insurance,
            ev.EvenMoney: self._on_even_money,
            ev.CloseInsurance: self._on_close_insurance,
            ev.Shuffle: self._on_shuffle,
            ev.CutCardOut: self._on_cut_card,
            ev.SetRules: self._on_rules,
            ev.Reserve: self._on_reserve,
            ev.DiscardCard: self._on_discard,
            ev.VoidRound: self._on_void,
            ev.Tick: lambda e: None,
            ev.ShoeFault: self._on_shoe_fault,
            ev.LinkDown: self._on_link_down,
            ev.LinkUp: self._on_link_up,
            ev.CallPit: self._on_call_pit,
            ev.AcknowledgeAlert: self._on_ack,
        }

    def __getstate__(self) -> dict[str, Any]:
        # Snapshots pickle the state, not the bound-method dispatch table.
        state = dict(self.__dict__)
        del state["_handlers"]
        state["_fx"] = []
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        handlers = Table(state["rules"])._handlers
        self.__dict__.update(state)
        self._handlers = {kind: getattr(self, h.__name__) if hasattr(h, "__self__") else h
                          for kind, h in handlers.items()}

    # ------------------------------------------------------------------ entry point
    def refusal(self, event: ev.Event) -> Refusal | None:
        """Why `apply(event)` would refuse the event, or None; changes nothing.

        Interim: tries the event on a copy of the table (the legality checks are
        being separated from the mutations; this keeps the contract meanwhile).
        """
        import copy

        probe = copy.deepcopy(self)
        try:
            probe.apply(event)
        except IllegalAction as exc:
            return Refusal(exc.code, exc.message)
        return None

    def apply(self, event: ev.Event) -> list[Effect]:
        """Apply one event; return what the outputs must do. IllegalAction leaves the state unchanged."""
        self._fx = fx = []
        handler = self._handlers.get(type(event))
        if handler is None:
            raise IllegalAction("unknown_event", f"the table does not know the event {event!r}")
        if self.phase is Phase.ATTENTION and type(event) in _BLOCKED_BY_ATTENTION:
            raise IllegalAction(
                "table_needs_attention",
                "the table needs the supervisor: discard the held card or void the round first",
            )
        handler(event)
        if event.at is not None:
            self._advance_time(event.at)
        locked = self._should_lock()
        if locked != self.locked:
            self.locked = locked
            fx.append(ShoeLock(locked))
        return fx

    # ------------------------------------------------------------------ helpers
    def _set_phase(self, phase: Phase) -> None:
        if phase is not self.phase:
            self._fx.append(PhaseChanged(self.phase, phase))
            self.phase = phase

    def _raise_alert(self, kind: AlertKind, message: str, at: datetime | None) -> Alert:
        alert = Alert(self.next_alert_id, kind, message, at or self.now)
        self.next_alert_id += 1
        self.alerts.append(alert)
        self._fx.append(AlertRaised(alert))
        log.info("alert %s %s: %s", alert.id, kind.value, message)
        return alert

    def _resolve_alerts(self, kind: AlertKind, acknowledged_by: str | None = None) -> None:
        """The cause of every alert of this kind is gone; an acknowledged one leaves the board."""
        for alert in self.alerts:
            if alert.kind is kind and alert.active:
                alert.active = False
                if acknowledged_by is not None:
                    alert.acknowledged = True
                    alert.acknowledged_by = acknowledged_by
        self._drop_closed_alerts()

    def _drop_closed_alerts(self) -> None:
        keep = []
        for alert in self.alerts:
            if alert.open:
                keep.append(alert)
            else:
                self._fx.append(AlertCleared(alert.id, alert.kind))
        self.alerts = keep

    def _should_lock(self) -> bool:
        if self.phase is Phase.ATTENTION or self.phase is Phase.WAITING_FOR_SHUFFLE:
            return True
        if not self.alerts:
            return False
        return any(a.kind in LOCKING_KINDS and a.active for a in self.alerts)

    def _advance_time(self, at: datetime) -> None:
        if self.now is None or at > self.now:
            self.now = at
        if self.reservations:
            hold = timedelta(minutes=self.rules.reservation_minutes)
            for box, (_, since) in list(self.reservations.items()):
                if since is not None and at - since >= hold:
                    del self.reservations[box]
                    self._fx.append(ReservationLapsed(box))

    @property
    def last_round(self) -> dict[str, Any] | None:
        """The record of the last settled round, until the next round starts."""
        return self.previous.record if self.previous is not None else None

    def open_alerts(self) -> list[Alert]:
        """Alerts still on the board."""
        return [a for a in self.alerts if a.open]

    # ------------------------------------------------------------------ cards
    def _on_card(self, e: ev.CardDrawn) -> None:
        card = e.card
        if self.shoe is not None:
            problem = self.shoe.take(card)
            if problem:
                self._raise_alert(AlertKind.INTEGRITY, problem, e.at)
        phase = self.phase
        r = self.round
        if phase is Phase.DEALING:
            self._deal(card)
        elif phase is Phase.PLAYERS or phase is Phase.SURRENDER:
            hand = r.hand  # type: ignore[union-attr]
            if self._waiting_resplit_decision(hand):
                self._hold(card, "split aces: split again or stand before the next card", e.at)
            else:
                self._hit(hand, card)
        elif phase is Phase.DEALER:
            if self._dealer_needs_card():
                self._dealer_draw(card)
            else:
                self._hold(card, "the dealer has finished drawing", e.at)
        elif phase is Phase.BETTING or phase is Phase.SETTLED:
            if self.shoe is None:
                self._hold(card, "no shoe has been shuffled in", e.at)
            elif self.burn_left > 0:
                self.burn_left -= 1
                self.shoe.burned += 1
                self._fx.append(CardPlaced(card.code, "burn"))
            elif self.pending:
                self._start_round(e.at)
                self._deal(card)
            else:
                self._hold(card, "no bets are on the table", e.at)
        elif phase is Phase.WAITING_FOR_SHUFFLE:
            self._hold(card, "a shuffle is due", e.at)
        elif phase is Phase.INSURANCE:
            self._hold(card, "insurance is open: close insurance before dealing on", e.at)
        else:  # ATTENTION: a second card while one is held is held too
            self._hold(card, "the table is waiting for the supervisor", e.at)

    def _hold(self, card: Card, why: str, at: datetime | None) -> None:
        self.held.append(card)
        self._fx.append(CardPlaced(card.code, "held"))
        if self.phase is not Phase.ATTENTION:
            self.resume_phase = self.phase
            self._set_phase(Phase.ATTENTION)
        self._raise_alert(AlertKind.UNEXPECTED_CARD, f"unexpected card {card.code}: {why}", at)

    def _start_round(self, at: datetime | None) -> None:
        self.rounds_played += 1
        boxes = [BoxInPlay(n, self.pending[n], next(iter(self.pending[n]))) for n in sorted(self.pending)]
        self.pending = {}
        for box in boxes:
            self.reservations.pop(box.number, None)
        self.last_round_players = len({p for b in boxes for p in b.bets})
        self.round = Round(self.rounds_played, self.shoe.shoe_id if self.shoe else None, boxes,
                           self.rules.hole_card, at)
        self.previous = None
        self._set_phase(Phase.DEALING)

    def _deal(self, card: Card) -> None:
        r = self.round
        assert r is not None
        target = r.plan[r.dealt]
        r.dealt += 1
        if target == DEALER:
            r.dealer.add(card)
            self._fx.append(CardPlaced(card.code, "dealer"))
        else:
            box = r.boxes[target]
            box.hands[0].add(card)
            self._fx.append(CardPlaced(card.code, "box", box.number, 0))
        if r.dealt == len(r.plan):
            self._after_deal()

    def _after_deal(self) -> None:
        r = self.round
        assert r is not None
        if r.dealer.cards[0].value == 1 and (self.rules.insurance or self.rules.even_money):
            self._set_phase(Phase.INSURANCE)
        else:
            self._after_insurance()

    def _peeks(self, up: int) -> bool:
        peek = self.rules.peek
        return self.rules.hole_card and (
            (peek is Peek.ACE and up == 1) or (peek is Peek.ACE_TEN and up in (1, 10))
        )

    def _after_insurance(self) -> None:
        r = self.round
        assert r is not None
        up = r.dealer.cards[0].value
        if self._peeks(up):
            r.peeked = True
            if _dealer_blackjack(r.dealer):
                self._settle_round()
                return
            for box in r.boxes:  # the peek settles insurance: the dealer has no blackjack
                if box.insurance is not None:
                    box.insurance_net = -box.insurance
        dealer_may_have_bj = up in (1, 10) and not r.peeked
        ratio = self.rules.blackjack_ratio
        for box in r.boxes:
            hand = box.hands[0]
            if hand.is_blackjack and not hand.settled:
                if dealer_may_have_bj:
                    hand.done = True  # waits for the dealer's second card
                else:
                    hand.settle(Outcome.BLACKJACK, hand.stake * ratio)
        if self.rules.surrender is SurrenderRule.BEFORE_FIRST_HIT and any(
            self._may_surrender_early(b) for b in r.boxes
        ):
            self._set_phase(Phase.SURRENDER)
        else:
            self._set_phase(Phase.PLAYERS)
        r.box_i, r.hand_i = 0, 0
        self._to_next_hand()

    def _to_next_hand(self) -> None:
        """Move the turn to the first hand, from the one in play on, that still has to act."""
        r = self.round
        assert r is not None
        while r.box_i < len(r.boxes):
            hands = r.boxes[r.box_i].hands
            while r.hand_i < len(hands):
                if not hands[r.hand_i].done:
                    return
                r.hand_i += 1
            r.box_i += 1
            r.hand_i = 0
        self._set_phase(Phase.DEALER)
        if not self._dealer_needs_card():
            self._settle_round()

    def _waiting_resplit_decision(self, hand: Hand) -> bool:
        return hand.split_aces and len(hand.cards) == 2

    def _hit(self, hand: Hand, card: Card) -> None:
        r = self.round
        assert r is not None
        self._close_surrender_window()
        r.anyone_drew = True
        hand.box.acted = True
        hand.add(card)
        self._fx.append(CardPlaced(card.code, "box", hand.box.number, r.hand_i))
        rules = self.rules
        if hand.hard > 21:
            hand.settle(Outcome.BUST, -hand.stake)
        elif (rules.three_sevens and len(hand.cards) == 3 and not hand.from_split
              and all(c.rank == "7" for c in hand.cards)):
            suited = len({c.suit for c in hand.cards}) == 1
            ratio = rules.three_sevens_suited_ratio if suited else rules.three_sevens_ratio
            hand.settle(Outcome.THREE_SEVENS, hand.stake * ratio)
        elif hand.split_aces:
            # Split aces take one card; another ace may be split again where the rules allow.
            if not (card.value == 1 and self._can_resplit_aces(hand)):
                hand.done = True
        elif hand.doubled or hand.total == 21:
            hand.done = True
        if hand.done:
            self._to_next_hand()

    def _can_resplit_aces(self, hand: Hand) -> bool:
        return self.rules.resplit_aces and len(hand.box.hands) < self.rules.max_hands

    # ------------------------------------------------------------------ the dealer
    def _dealer_needs_card(self) -> bool:
        r = self.round
        assert r is not None
        waiting_bj = False
        live = False
        for box in r.boxes:
            if box.insurance is not None and box.insurance_net is None:
                waiting_bj = True
            for hand in box.hands:
                if not hand.settled:
                    if hand.is_blackjack:
                        waiting_bj = True
                    else:
                        live = True
        if not live and not waiting_bj:
            return False
        dealer = r.dealer
        if len(dealer.cards) < 2:
            return True
        if not live:
            return False
        total = dealer.total
        if total < 17:
            return True
        return total == 17 and self.rules.dealer_hits_soft17 and dealer.soft == 17

    def _dealer_draw(self, card: Card) -> None:
        r = self.round
        assert r is not None
        r.dealer.add(card)
        self._fx.append(CardPlaced(card.code, "dealer"))
        if not self._dealer_needs_card():
            self._settle_round()

    # ------------------------------------------------------------------ settlement
    def _settle_round(self) -> None:
        r = self.round
        assert r is not None
        dealer = r.dealer
        dealer_bj = _dealer_blackjack(dealer)
        for box in r.boxes:
            if box.insurance is not None and box.insurance_net is None:
                box.insurance_net = box.insurance * 2 if dealer_bj else -box.insurance
        if dealer_bj:
            self._settle_against_dealer_blackjack(r)
        else:
            dealer_total = dealer.total if dealer.hard <= 21 else 0
            ratio = self.rules.blackjack_ratio
            for box in r.boxes:
                for hand in box.hands:
                    if hand.settled:
                        continue
                    if hand.is_blackjack:
                        hand.settle(Outcome.BLACKJACK, hand.stake * ratio)
                    elif hand.total > dealer_total:
                        hand.settle(Outcome.WIN, hand.stake)
                    elif hand.total == dealer_total:
                        hand.settle(Outcome.PUSH, ZERO)
                    else:
                        hand.settle(Outcome.LOSE, -hand.stake)
        self._finish_round(r)

    def _settle_against_dealer_blackjack(self, r: Round) -> None:
        original_only = r.peeked or self.rules.dealer_bj_takes is DealerBlackjackTakes.ORIGINAL
        for box in r.boxes:
            # Under "original bet only" a box loses at most its original bet in all.
            can_lose = box.bet - sum((-h.net for h in box.hands if h.outcome is Outcome.BUST), ZERO)
            for hand in box.hands:
                if hand.settled:
                    continue
                if hand.is_blackjack:
                    hand.settle(Outcome.PUSH, ZERO)
                elif not original_only:
                    hand.settle(Outcome.LOSE, -hand.stake)
                else:
                    loss = min(hand.stake, max(can_lose, ZERO))
                    can_lose -= loss
                    hand.settle(Outcome.LOSE if loss else Outcome.PUSH, -loss)

    def _finish_round(self, r: Round) -> None:
        self.previous = r  # kept on the displays (and as last_round) until the next round
        self.round = None
        self._fx.append(RoundSettled(r))
        # SETTLED is passed through: the table is at once ready for the next bets (or a shuffle),
        # while last_round keeps the result on show until the next round's first card.
        self._set_phase(Phase.SETTLED)
        if self.rules.reshuffle_every_round:
            self._set_phase(Phase.WAITING_FOR_SHUFFLE)
        elif self.shoe is not None and self.shoe.cut_card_out:
            self._set_phase(Phase.WAITING_FOR_SHUFFLE)
            self._raise_alert(AlertKind.SHUFFLE_DUE,
                              f"the cut card is out: shuffle (right to cut: {self.right_to_cut})", None)
        else:
            self._set_phase(Phase.BETTING)

    # ------------------------------------------------------------------ players' decisions
    def _close_surrender_window(self) -> None:
        """The first card or decision after the deal ends the table-wide surrender window."""
        if self.phase is Phase.SURRENDER:
            self._set_phase(Phase.PLAYERS)

    def _require_turn(self, what: str) -> Hand:
        if self.phase is not Phase.PLAYERS and self.phase is not Phase.SURRENDER:
            raise IllegalAction("not_players_turn", f"cannot {what} now: no hand is in play ({self.phase.value})")
        hand = self.round.hand  # type: ignore[union-attr]
        if len(hand.cards) < 2:
            raise IllegalAction("needs_card", f"cannot {what}: the split hand needs its second card first")
        if hand.doubled:
            raise IllegalAction("needs_card", f"cannot {what}: the doubled hand takes exactly one more card")
        return hand

    def _on_stand(self, e: ev.Stand) -> None:
        hand = self._require_turn("stand")
        self._close_surrender_window()
        hand.box.acted = True
        hand.done = True
        self._to_next_hand()

    def _double_refusal(self, hand: Hand) -> IllegalAction | None:
        rules = self.rules
        if len(hand.cards) != 2:
            return IllegalAction("double_not_allowed", "double only on the first two cards of a hand")
        if hand.split_aces:
            return IllegalAction("double_not_allowed", "split aces take one card only: no double")
        if hand.from_split and not rules.double_after_split:
            return IllegalAction("double_not_allowed", "no double after a split at this table")
        rule = rules.double
        if rule is not DoubleRule.ANY:
            # Restricted doubling counts hard totals only: a soft hand cannot double.
            if hand.soft is not None or hand.hard not in _DOUBLE_TOTALS[rule]:
                if rule is DoubleRule.NONE:
                    return IllegalAction("double_not_allowed", "no doubling at this table")
                return IllegalAction("double_not_allowed",
                                     f"double only on a hard {rule.value}; this hand is {_describe(hand)}")
        return None

    def _split_refusal(self, hand: Hand) -> IllegalAction | None:
        rules = self.rules
        cards = hand.cards
        if len(cards) != 2:
            return IllegalAction("split_not_allowed", "split only a pair of two cards")
        a, b = cards
        pair = a.rank == b.rank if rules.split_by is SplitBy.RANK else a.value == b.value
        if not pair:
            what = "rank" if rules.split_by is SplitBy.RANK else "value"
            return IllegalAction("split_unequal", f"{a.code} and {b.code} are not a pair of equal {what}")
        if len(hand.box.hands) >= rules.max_hands:
            return IllegalAction("split_limit", f"a box may play at most {rules.max_hands} hands")
        if hand.split_aces and not rules.resplit_aces:
            return IllegalAction("split_limit", "split aces may not be split again at this table")
        return None

    def _surrender_refusal(self, number: int | None) -> tuple[IllegalAction | None, BoxInPlay | None]:
        mode = self.rules.surrender
        r = self.round
        if mode is SurrenderRule.NONE:
            return IllegalAction("surrender_not_allowed", "surrender is not offered at this table"), None
        if self.phase not in (Phase.SURRENDER, Phase.PLAYERS) or r is None:
            return IllegalAction("surrender_closed", f"cannot surrender now ({self.phase.value})"), None
        if mode is SurrenderRule.BEFORE_FIRST_HIT:
            if r.anyone_drew:
                return IllegalAction("surrender_closed", "surrender is closed: a player has already drawn a card"), None
            box = r.boxes[r.box_i]
            if number is not None:
                try:
                    box = self._box(number)
                except IllegalAction as exc:
                    return exc, None
            if box.acted or not self._may_surrender_early(box):
                return IllegalAction("surrender_not_allowed",
                                     f"box {box.number} cannot surrender: only a two-card hand not yet played"), None
            return None, box
        box = r.boxes[r.box_i]
        if number is not None and number != box.number:
            return IllegalAction("not_your_turn", f"it is box {box.number}'s turn, not box {number}'s"), None
        if box.acted or not self._may_surrender_early(box):
            return IllegalAction("surrender_not_allowed", "surrender only as the box's first decision on two cards"), None
        if mode is SurrenderRule.EARLY_VS_2_10 and r.dealer.cards[0].value == 1:
            return IllegalAction("surrender_not_allowed", "no surrender against a dealer ace"), None
        return None, box

    def legal_actions(self) -> list[str]:
        """The decisions the hand in play may take now (event type names), for consoles and players."""
        if self.phase not in (Phase.PLAYERS, Phase.SURRENDER):
            if self.phase is Phase.INSURANCE:
                return ["insurance", "even_money", "close_insurance"]
            return []
        hand = self.round.hand  # type: ignore[union-attr]
        if len(hand.cards) < 2 or hand.doubled:
            return []  # the hand waits for a card: a split hand's second, or a double's one
        actions = ["stand"]
        if not self._waiting_resplit_decision(hand):
            actions.append("hit")
        if self._double_refusal(hand) is None:
            actions.append("double")
        if self._split_refusal(hand) is None:
            actions.append("split")
        if self._surrender_refusal(None)[0] is None:
            actions.append("surrender")
        return actions

    def _on_double(self, e: ev.Double) -> None:
        hand = self._require_turn("double")
        refusal = self._double_refusal(hand)
        if refusal is not None:
            raise refusal
        self._close_surrender_window()
        hand.box.acted = True
        hand.stake = hand.stake * 2
        hand.doubled = True

    def _on_split(self, e: ev.Split) -> None:
        hand = self._require_turn("split")
        refusal = self._split_refusal(hand)
        if refusal is not None:
            raise refusal
        self._close_surrender_window()
        r = self.round
        assert r is not None
        box = hand.box
        box.acted = True
        aces = hand.cards[0].value == 1
        new = Hand(box, box.bet, from_split=True)
        new.add(hand.remove_last())
        new.split_aces = aces
        hand.from_split = True
        hand.split_aces = aces
        box.hands.insert(r.hand_i + 1, new)

    def _may_surrender_early(self, box: BoxInPlay) -> bool:
        hand = box.hands[0]
        return len(box.hands) == 1 and len(hand.cards) == 2 and not hand.done

    def _on_surrender(self, e: ev.Surrender) -> None:
        refusal, box = self._surrender_refusal(e.box)
        if refusal is not None:
            raise refusal
        assert box is not None and self.round is not None
        hand = box.hands[0]
        hand.settle(Outcome.SURRENDER, -hand.stake / 2)
        box.acted = True
        if self.round.boxes[self.round.box_i] is box:
            self._to_next_hand()

    def _box(self, number: int) -> BoxInPlay:
        r = self.round
        assert r is not None
        for box in r.boxes:
            if box.number == number:
                return box
        raise IllegalAction("no_such_box", f"box {number} has no bet in this round")

    # ------------------------------------------------------------------ insurance
    def _on_insurance(self, e: ev.Insure) -> None:
        if self.phase is not Phase.INSURANCE or not self.rules.insurance:
            raise IllegalAction("insurance_closed", "insurance is offered only against a dealer ace, before play")
        box = self._box(e.box)
        if box.hands[0].is_blackjack:
            raise IllegalAction("insurance_not_allowed", f"box {box.number} has blackjack: it may take even money")
        if box.insurance is not None:
            raise IllegalAction("insurance_not_allowed", f"box {box.number} is already insured")
        if e.amount > box.bet / 2:
            raise IllegalAction("insurance_too_large",
                                f"insurance is at most half the bet: {money(box.bet / 2)} on box {box.number}")
        box.insurance = e.amount

    def _on_even_money(self, e: ev.EvenMoney) -> None:
        if self.phase is not Phase.INSURANCE or not self.rules.even_money:
            raise IllegalAction("even_money_closed", "even money is offered only on a blackjack against a dealer ace")
        box = self._box(e.box)
        hand = box.hands[0]
        if not hand.is_blackjack or hand.settled:
            raise IllegalAction("even_money_not_allowed", f"box {box.number} has no blackjack to take even money on")
        hand.settle(Outcome.EVEN_MONEY, hand.stake)

    def _on_close_insurance(self, e: ev.CloseInsurance) -> None:
        if self.phase is not Phase.INSURANCE:
            raise IllegalAction("insurance_closed", "insurance is not open")
        self._after_insurance()

    # ------------------------------------------------------------------ bets and boxes
    def _on_bet(self, e: ev.PlaceBet) -> None:
        if self.phase not in BETWEEN_ROUNDS:
            raise IllegalAction("bets_closed", "bets are closed: the round has started")
        rules = self.rules
        if e.box > rules.boxes:
            raise IllegalAction("no_such_box", f"this table has boxes 1 to {rules.boxes}")
        bets = self.pending.get(e.box, {})
        player = e.player or (next(iter(bets)) if bets else f"box{e.box}")
        reserved = self.reservations.get(e.box)
        if reserved and reserved[0] and e.player and e.player != reserved[0] and not self._lapsed(reserved, e.at):
            raise IllegalAction("box_reserved", f"box {e.box} is reserved for {reserved[0]}")
        if player not in bets and len(bets) >= rules.players_per_box:
            raise IllegalAction("box_full", f"box {e.box} already has {rules.players_per_box} player(s)")
        total = sum(bets.values(), ZERO) + e.amount
        if total > rules.table_max:
            raise IllegalAction("bet_over_max", f"box {e.box} would hold {money(total)}, over the table maximum {money(rules.table_max)}")
        if total < rules.table_min:
            raise IllegalAction("bet_under_min", f"box {e.box} would hold {money(total)}, under the table minimum {money(rules.table_min)}")
        new_bets = dict(bets)
        new_bets[player] = new_bets.get(player, ZERO) + e.amount
        self.pending[e.box] = new_bets
        self.reservations.pop(e.box, None)
        if self.phase is Phase.SETTLED:
            self._set_phase(Phase.BETTING)

    def _lapsed(self, reserved: tuple[str | None, datetime | None], at: datetime | None) -> bool:
        since = reserved[1]
        now = at or self.now
        return since is not None and now is not None and now - since >= timedelta(minutes=self.rules.reservation_minutes)

    def _on_reserve(self, e: ev.Reserve) -> None:
        if e.box > self.rules.boxes:
            raise IllegalAction("no_such_box", f"this table has boxes 1 to {self.rules.boxes}")
        if e.box in self.pending:
            raise IllegalAction("box_taken", f"box {e.box} has a bet on it")
        self.reservations[e.box] = (e.player, e.at or self.now)

    # ------------------------------------------------------------------ the shoe
    def _on_shuffle(self, e: ev.Shuffle) -> None:
        if self.phase not in BETWEEN_ROUNDS:
            raise IllegalAction("round_in_progress", "finish the round before shuffling")
        shoe = self.shoe
        repeat = shoe is not None and shoe.dealt == shoe.burned and self.phase is not Phase.WAITING_FOR_SHUFFLE
        if not (self.phase is Phase.WAITING_FOR_SHUFFLE or shoe is None or self.rules.dealer_may_shuffle
                or self.rules.reshuffle_every_round or self.last_round_players == 1):
            if not repeat:
                raise IllegalAction("shuffle_not_due", "no shuffle is due: the cut card has not come out")
            if shoe.repeats >= self.rules.repeat_shuffles:  # type: ignore[union-attr]
                raise IllegalAction("shuffle_not_due", "the shuffle has already been repeated")
        self.shoes_loaded += 1
        repeats = shoe.repeats + 1 if repeat and shoe is not None else 0
        self.shoe = ShoeTracker(e.shoe_id or f"shoe-{self.shoes_loaded}", self.rules.decks, repeats)
        self.burn_left = self.rules.burn_cards
        self.right_to_cut = None
        self._resolve_alerts(AlertKind.SHUFFLE_DUE, acknowledged_by=e.actor or "dealer")
        self._set_phase(Phase.BETTING)

    def _on_cut_card(self, e: ev.CutCardOut) -> None:
        shoe = self.shoe
        if shoe is None or shoe.cut_card_out:
            return  # nothing to track: no shoe yet, or already out (a resend)
        shoe.cut_card_out = True
        shoe.cut_card_position = e.position if e.position is not None else shoe.dealt + 1
        self.right_to_cut = self.next_card_owner()
        if self.rules.reshuffle_every_round:
            return
        if self.phase in (Phase.BETTING, Phase.SETTLED):
            self._set_phase(Phase.WAITING_FOR_SHUFFLE)
            self._raise_alert(AlertKind.SHUFFLE_DUE, "the cut card is out: shuffle", e.at)
        elif self.phase is Phase.ATTENTION and self.resume_phase in (Phase.BETTING, Phase.SETTLED):
            # Out while a held card waits between rounds: once resolved, the table waits for the shuffle.
            self.resume_phase = Phase.WAITING_FOR_SHUFFLE
            self._raise_alert(AlertKind.SHUFFLE_DUE, "the cut card is out: shuffle", e.at)

    def next_card_owner(self) -> str:
        """Who the next card would go to: 'box N' or 'dealer' (the right to cut follows it)."""
        r = self.round
        if r is None:
            return f"box {min(self.pending)}" if self.pending else "dealer"
        if self.phase is Phase.DEALING:
            target = r.plan[r.dealt]
            return "dealer" if target == DEALER else f"box {r.boxes[target].number}"
        if self.phase in (Phase.PLAYERS, Phase.SURRENDER, Phase.INSURANCE) and r.box_i < len(r.boxes):
            return f"box {r.boxes[r.box_i].number}"
        return "dealer"

    def _on_rules(self, e: ev.SetRules) -> None:
        if self.phase not in BETWEEN_ROUNDS or self.pending:
            raise IllegalAction("rules_locked", "rules change only between rounds with no bets on the table")
        from .rules import RuleError
        try:
            rules = build_rules(e.profile, e.options)
        except RuleError as exc:
            raise IllegalAction("bad_rules", str(exc)) from None
        if self.shoe is not None and rules.decks != self.rules.decks:
            self._set_phase(Phase.WAITING_FOR_SHUFFLE)
        self.rules = rules

    # ------------------------------------------------------------------ the supervisor
    def _on_discard(self, e: ev.DiscardCard) -> None:
        if self.phase is not Phase.ATTENTION:
            raise IllegalAction("nothing_held", "no card is held: nothing to discard")
        for card in self.held:
            self._fx.append(CardPlaced(card.code, "discard"))
        self.held = []
        resume = self.resume_phase or Phase.BETTING
        self.resume_phase = None
        self._set_phase(resume)
        self._resolve_alerts(AlertKind.UNEXPECTED_CARD, acknowledged_by=e.actor or "supervisor")

    def _on_void(self, e: ev.VoidRound) -> None:
        r = self.round
        if r is None and not self.held and not self.pending:
            raise IllegalAction("no_round", "there is no round to void")
        for card in self.held:
            self._fx.append(CardPlaced(card.code, "discard"))
        self.held = []
        self.resume_phase = None
        self._resolve_alerts(AlertKind.UNEXPECTED_CARD, acknowledged_by=e.actor or "supervisor")
        if r is None:
            self.pending = {}  # bets placed for a round that never started go back
            self._set_phase(Phase.WAITING_FOR_SHUFFLE if self._shuffle_due() else Phase.BETTING)
            return
        r.voided = True
        for box in r.boxes:
            for hand in box.hands:
                hand.settle(Outcome.VOID, ZERO)
            if box.insurance is not None:
                box.insurance_net = ZERO
        self._finish_round(r)

    def _shuffle_due(self) -> bool:
        return self.shoe is None or self.shoe.cut_card_out or self.rules.reshuffle_every_round

    def _on_shoe_fault(self, e: ev.ShoeFault) -> None:
        detail = f": {e.detail}" if e.detail else ""
        self._raise_alert(AlertKind.SHOE_FAULT, f"shoe fault {e.kind}{detail}", e.at)

    def _on_link_down(self, e: ev.LinkDown) -> None:
        if not any(a.kind is AlertKind.LINK_DOWN and a.active for a in self.alerts):
            self._raise_alert(AlertKind.LINK_DOWN, f"shoe link down: {e.reason or 'no answer'}", e.at)

    def _on_link_up(self, e: ev.LinkUp) -> None:
        self._resolve_alerts(AlertKind.LINK_DOWN)

    def _on_call_pit(self, e: ev.CallPit) -> None:
        self._raise_alert(AlertKind.CALL_PIT, f"{e.actor or 'the dealer'} calls the pit", e.at)

    def _on_ack(self, e: ev.AcknowledgeAlert) -> None:
        for alert in self.alerts:
            if alert.id == e.alert_id:
                break
        else:
            raise IllegalAction("no_such_alert", f"alert {e.alert_id} is not on the board")
        alert.acknowledged = True
        alert.acknowledged_by = e.actor
        # A fault, an integrity problem or a call is resolved by the supervisor who acknowledges it;
        # an unexpected card, a lost link or a due shuffle only by what ends its cause.
        if alert.kind in (AlertKind.SHOE_FAULT, AlertKind.INTEGRITY, AlertKind.CALL_PIT):
            alert.active = False
        self._drop_closed_alerts()


def _dealer_blackjack(hand: Hand) -> bool:
    return len(hand.cards) == 2 and hand.has_ace and hand.hard == 11

_DOUBLE_TOTALS = {
    DoubleRule.NINE_TO_ELEVEN: (9, 10, 11),
    DoubleRule.TEN_OR_ELEVEN: (10, 11),
    DoubleRule.ELEVEN: (11,),
    DoubleRule.NONE: (),
}

# While the table is in ATTENTION only physical events and the supervisor's resolution go through.
_BLOCKED_BY_ATTENTION = frozenset({
    ev.Stand, ev.Double, ev.Split, ev.Surrender, ev.PlaceBet, ev.Insure, ev.EvenMoney,
    ev.CloseInsurance, ev.Shuffle, ev.SetRules, ev.Reserve,
})


def _describe(hand: Hand) -> str:
    soft = hand.soft
    return f"soft {soft}" if soft is not None else f"hard {hand.hard}"


def round_record(r: Round) -> dict[str, Any]:
    """The JSON-ready record of a settled round (what replay prints and the journal keeps)."""
    hands = []
    total = ZERO
    for box in r.boxes:
        for hand in box.hands:
            net = hand.net if hand.net is not None else ZERO
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
            net = box.insurance_net if box.insurance_net is not None else ZERO
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
        **({"void": True} if r.voided else {}),
    }
