"""The authoritative round engine: events in, effects out.

`Table.apply(event)` is the only way the table's state changes; `Table.refusal(event)`
says, changing nothing, whether `apply` would accept it (python-chess's ``is_legal``
before ``push``). Neither reads a clock, a port or a pin: time arrives in the event's
``at``. A refused action raises IllegalAction and leaves the state exactly as it was,
because every handler runs only after its check has passed. A card is physical and is
never refused: a card nobody may take puts the table in ATTENTION, holding the card,
until a supervisor discards it or voids the round.

This module is the table's shared machinery: the dispatch of events, cards and the shoe,
boxes and bets, alerts and attention, snapshots. The blackjack round itself is described
by `controller.round` (its data and deal plan), `controller.legality` (what a player may
do) and `controller.settlement` (the dealer and the payouts); the handlers of the round's
events below apply what those modules decide.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any, Callable, ClassVar

from . import events as ev
from . import legality as legal
from . import settlement
from . import snapshot as snap
from .alerts import LOCKING_KINDS, Alert, AlertKind
from .cards import Card
from .effects import (AlertCleared, AlertRaised, CardPlaced, Effect, HoleCardTurned, ReservationLapsed,
                      RoundSettled, ShoeLock, _PHASE_CHANGED, box_card, burnt_card, dealer_card)
from .errors import EngineError, IllegalAction, SnapshotError
from .hand import BoxInPlay, Hand, Outcome
from .legality import Action, Refusal
from .money import money, to_cents
from .phase import BETWEEN_ROUNDS, IN_ROUND, PLAY, READY, Phase
from .round import DEALER, Round, deal_plan, round_record
from .rules import RuleError, RuleProfile, SurrenderRule, build_rules
from .shoe import ShoeTracker

__all__ = [
    "BETWEEN_ROUNDS", "DEALER", "IN_ROUND", "Action", "EngineError", "IllegalAction", "Phase", "Refusal",
    "Round", "SnapshotError", "Table", "money", "round_record",
]

log = logging.getLogger(__name__)

Check = Callable[["Table", Any], Refusal | None]
Handler = Callable[["Table", Any], None]

# While the table is in ATTENTION only physical events and the supervisor's resolution go through.
_BLOCKED_BY_ATTENTION = frozenset({
    ev.Stand, ev.Double, ev.Split, ev.Surrender, ev.PlaceBet, ev.Insure, ev.EvenMoney,
    ev.CloseInsurance, ev.Shuffle, ev.SetRules, ev.Reserve,
})
_ATTENTION = Refusal("table_needs_attention",
                     "the table needs the supervisor: discard the held card or void the round first")


class Table:
    """The table's whole state and the rules that move it."""

    # event type -> (check or None, handler); filled once below the class.
    _DISPATCH: ClassVar[dict[type, tuple[Check | None, Handler]]]

    def __init__(self, rules: RuleProfile | None = None) -> None:
        self.rules = rules or build_rules("ru-standard")
        self.phase = Phase.WAITING_FOR_SHUFFLE
        self.shoe: ShoeTracker | None = None
        self.shoes_loaded = 0
        self.burn_left = 0
        self.pending: dict[int, dict[str, int]] = {}  # box -> player -> bet in cents, for the next round
        self.reservations: dict[int, tuple[str | None, datetime | None]] = {}  # box -> (player, since)
        self.round: Round | None = None
        self.previous: Round | None = None  # the last settled round, on show until the next one
        self.rounds_played = 0
        self.last_round_players = 0
        self.right_to_cut: str | None = None
        self.held: list[Card] = []
        self.resume_phase: Phase | None = None
        self.alerts: list[Alert] = []
        self.next_alert_id = 1
        self.now: datetime | None = None
        self.locked = True
        self.gate_held = False  # a supervisor holds the shoe's gate shut, whatever the table's state
        self.link_up = False  # a smart shoe is connected: it, not a person, starts each new shoe
        self._fx: list[Effect] = []

    # ------------------------------------------------------------------ entry points
    def refusal(self, event: ev.Event) -> Refusal | None:
        """Why `apply(event)` would refuse the event now, or None if it would accept it.

        Changes nothing at all. A card is never refused.
        """
        entry = self._DISPATCH.get(type(event))
        if entry is None:
            return Refusal("unknown_event", f"the table does not know the event {event!r}")
        if self.phase is Phase.ATTENTION and type(event) in _BLOCKED_BY_ATTENTION:
            return _ATTENTION
        check = entry[0]
        return None if check is None else check(self, event)

    def apply(self, event: ev.Event) -> list[Effect]:
        """Apply one event; return what the outputs must do.

        IllegalAction (with the `Refusal` that `refusal(event)` gives) leaves the state unchanged.
        """
        entry = self._DISPATCH.get(type(event))
        if entry is None:
            raise IllegalAction(self.refusal(event))  # type: ignore[arg-type]
        check, handler = entry
        if check is not None:
            if self.phase is Phase.ATTENTION and type(event) in _BLOCKED_BY_ATTENTION:
                raise IllegalAction(_ATTENTION)
            refused = check(self, event)
            if refused is not None:
                raise IllegalAction(refused)
        fx: list[Effect] = []
        self._fx = fx
        handler(self, event)
        at = event.at
        if at is not None:
            self._advance_time(at)
        phase = self.phase
        locked = (self.gate_held or phase is Phase.ATTENTION or phase is Phase.WAITING_FOR_SHUFFLE
                  or (bool(self.alerts) and self._alert_locks()))
        if locked is not self.locked:
            self.locked = locked
            fx.append(ShoeLock(locked))
        return fx

    def legal_actions(self) -> list[Action]:
        """The decisions the table may take now (the hand in turn's, or insurance's), for consoles and players."""
        return legal.legal_actions(self.phase, self.round, self.rules)

    def next_card(self) -> str | None:
        """Who takes the next card now: 'box N', 'dealer', 'burn', 'first box', or None if none is expected."""
        r = self.round
        if r is not None:
            return legal.next_card(r, self.phase)
        if self.phase in READY and self.shoe is not None and (self.pending or self.burn_left):
            return "burn" if self.burn_left else "first box"
        return None

    def next_card_owner(self) -> str:
        """Whom the next card would be for: 'box N' or 'dealer' (the right to cut follows it)."""
        r = self.round
        if r is None:
            return f"box {min(self.pending)}" if self.pending else "dealer"
        owner = legal.next_card(r, self.phase)
        if owner is not None:
            return owner
        if (self.phase in PLAY or self.phase is Phase.INSURANCE) and r.box_i < len(r.boxes):
            return f"box {r.boxes[r.box_i].number}"  # the box in turn, though it takes no card now
        return "dealer"

    @property
    def last_round(self) -> dict[str, Any] | None:
        """The record of the last settled round, until the next round starts."""
        return self.previous.record if self.previous is not None else None

    def open_alerts(self) -> list[Alert]:
        """Alerts still on the board."""
        return [a for a in self.alerts if a.open]

    @property
    def hole_card_hidden(self) -> bool:
        """True while the dealer's hole card is dealt face down and not yet turned."""
        r = self.round
        return r is not None and self.rules.hole_card and len(r.dealer.cards) >= 2 and not r.hole_turned

    def lock_reasons(self) -> list[str]:
        """Why the shoe's gate is shut now, in words (empty when it is open)."""
        reasons = []
        if self.gate_held:
            reasons.append("a supervisor holds the gate")
        if self.phase is Phase.ATTENTION:
            reasons.append("a card is held: the supervisor must discard it or void the round")
        if self.phase is Phase.WAITING_FOR_SHUFFLE:
            reasons.append("a shuffle is due")
        for kind in sorted({a.kind for a in self.alerts if a.kind in LOCKING_KINDS and a.active}, key=str):
            reasons.append(_LOCK_REASON[kind])
        return reasons

    # ------------------------------------------------------------------ snapshots
    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (str, int, bool, None, lists, dicts), with a ``format``."""
        return snap.dump_table(self)

    @classmethod
    def from_snapshot(cls, data: Any) -> Table:
        """Rebuild a table from `snapshot()` data; SnapshotError names what is malformed."""
        state = snap.validate(data)
        table = cls(snap.load_rules(state.rules))
        snap.load_table(table, state)
        return table

    # ------------------------------------------------------------------ shared helpers
    def _set_phase(self, phase: Phase) -> None:
        if phase is not self.phase:
            self._fx.append(_PHASE_CHANGED[self.phase][phase])
            self.phase = phase

    def _raise_alert(self, kind: AlertKind, message: str, at: datetime | None, secret: str | None = None) -> Alert:
        alert = Alert(self.next_alert_id, kind, message, at or self.now, secret=secret)
        self.next_alert_id += 1
        self.alerts.append(alert)
        self._fx.append(AlertRaised(alert))
        log.info("alert %s %s: %s", alert.id, kind.value, message)
        return alert

    def _resolve_alerts(self, kind: AlertKind, acknowledged_by: str | None = None) -> None:
        """The cause of every alert of this kind is gone; an acknowledged one leaves the board."""
        for alert in self.alerts:
            if alert.kind is kind and alert.active:
                alert.resolve(acknowledged_by)
        self._drop_closed_alerts()

    def _drop_closed_alerts(self) -> None:
        keep = []
        for alert in self.alerts:
            if alert.open:
                keep.append(alert)
            else:
                self._fx.append(AlertCleared(alert.id, alert.kind))
        self.alerts = keep

    def _alert_locks(self) -> bool:
        # The shoe stays locked while the table needs attention, a shuffle is due, or a locking alert is active.
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

    def _hold(self, card: Card, why: str, at: datetime | None) -> None:
        self.held.append(card)
        self._fx.append(CardPlaced(card.code, "held"))
        if self.phase is not Phase.ATTENTION:
            self.resume_phase = self.phase
            self._set_phase(Phase.ATTENTION)
        self._raise_alert(AlertKind.UNEXPECTED_CARD, f"unexpected card {card.code}: {why}", at)

    def _shuffle_due(self) -> bool:
        return self.shoe is None or self.shoe.cut_card_out or self.rules.reshuffle_every_round

    # ------------------------------------------------------------------ cards (never refused)
    def _next_is_hole_card(self) -> bool:
        r = self.round
        return (self.phase is Phase.DEALING and r is not None and self.rules.hole_card
                and r.plan[r.dealt] == DEALER and len(r.dealer.cards) == 1)

    def _on_card(self, e: ev.CardDrawn) -> None:
        card = e.card
        shoe = self.shoe
        if shoe is not None:
            problem = shoe.take(card)
            if problem:
                if self._next_is_hole_card():  # the alert must not say what the face-down card is
                    self._raise_alert(AlertKind.INTEGRITY, f"the card dealt face down to the dealer is not "
                                      f"possible in shoe {shoe.shoe_id} (the supervisor sees which)", e.at, problem)
                else:
                    self._raise_alert(AlertKind.INTEGRITY, problem, e.at)
            if e.position is not None:
                found = shoe.position_problem(e.position, card)
                if found is not None:
                    self._raise_alert(AlertKind.INTEGRITY, found[0], e.at)
                    if found[1]:
                        self._hold(card, f"the shoe had dealt card {e.position} already", e.at)
                        return
        self._place(card, e)
        if shoe is not None and shoe.spent and self.round is not None and self.next_card() is not None \
                and not any(a.kind is AlertKind.SHOE_EMPTY and a.active for a in self.alerts):
            self._raise_alert(AlertKind.SHOE_EMPTY,
                              f"shoe {shoe.shoe_id} is empty in round {self.round.number}: load a new shoe and the "
                              "round goes on with its cards, or the supervisor voids the round", e.at)

    def _place(self, card: Card, e: ev.CardDrawn) -> None:
        shoe = self.shoe
        phase = self.phase
        r = self.round
        if phase is Phase.DEALING:
            self._deal(card)
        elif phase in PLAY:
            hand = r.hand  # type: ignore[union-attr]
            if legal.awaiting_resplit(hand):
                self._hold(card, "split aces: split again or stand before the next card", e.at)
            else:
                self._hit(hand, card)
        elif phase is Phase.DEALER:
            if settlement.dealer_needs_card(r, self.rules):  # type: ignore[arg-type]
                self._dealer_draw(card)
            else:
                self._hold(card, "the dealer has finished drawing", e.at)
        elif phase in READY:
            if shoe is None:
                self._hold(card, "no shoe has been shuffled in", e.at)
            elif self.burn_left > 0:
                self.burn_left -= 1
                shoe.burned += 1
                self._fx.append(burnt_card(card))
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

    def _on_cut_card(self, e: ev.CutCardOut) -> None:
        shoe = self.shoe
        if shoe is None or shoe.cut_card_out:
            return  # nothing to track: no shoe yet, or already out (a resend)
        shoe.cut_card_out = True
        shoe.cut_card_position = e.position if e.position is not None else shoe.dealt + 1
        self.right_to_cut = self.next_card_owner()
        if self.rules.reshuffle_every_round or self.pending:
            # rules.md, Points decided: out after the bets and before the first card, the cut card
            # leaves the round whose bets are down to be dealt and finished; the shuffle follows it.
            return
        if self.phase in READY:
            self._set_phase(Phase.WAITING_FOR_SHUFFLE)
            self._raise_alert(AlertKind.SHUFFLE_DUE, "the cut card is out: shuffle", e.at)
        elif self.phase is Phase.ATTENTION and self.resume_phase in READY:
            # Out while a held card waits between rounds: once resolved, the table waits for the shuffle.
            self.resume_phase = Phase.WAITING_FOR_SHUFFLE
            self._raise_alert(AlertKind.SHUFFLE_DUE, "the cut card is out: shuffle", e.at)

    # ------------------------------------------------------------------ bets and boxes
    def _bettor(self, e: ev.PlaceBet, bets: dict[str, int]) -> str:
        # An anonymous bet joins the box's first player, or names the box.
        return e.player or (next(iter(bets)) if bets else f"box{e.box}")

    def _lapsed(self, reserved: tuple[str | None, datetime | None], at: datetime | None) -> bool:
        since = reserved[1]
        now = at or self.now
        return since is not None and now is not None and now - since >= timedelta(minutes=self.rules.reservation_minutes)

    def _check_bet(self, e: ev.PlaceBet) -> Refusal | None:
        if self.phase not in BETWEEN_ROUNDS:
            return Refusal("bets_closed", "bets are closed: the round has started")
        rules = self.rules
        if e.box > rules.boxes:
            return Refusal("no_such_box", f"this table has boxes 1 to {rules.boxes}")
        amount = to_cents(e.amount)
        if amount is None or amount % rules.chip_cents:
            return Refusal("bet_not_whole_chips", f"bets are made in chips of {money(rules.chip_cents)}: "
                                                  f"{e.amount.normalize()} is not a whole number of chips")
        bets = self.pending.get(e.box, {})
        player = self._bettor(e, bets)
        reserved = self.reservations.get(e.box)
        if reserved and reserved[0] and e.player and e.player != reserved[0] and not self._lapsed(reserved, e.at):
            return Refusal("box_reserved", f"box {e.box} is reserved for {reserved[0]}")
        if player not in bets and len(bets) >= rules.players_per_box:
            return Refusal("box_full", f"box {e.box} already has {rules.players_per_box} player(s)")
        total = sum(bets.values()) + amount
        if total > rules.table_max_cents:
            return Refusal("bet_over_max",
                           f"box {e.box} would hold {money(total)}, over the table maximum {money(rules.table_max_cents)}")
        if total < rules.table_min_cents:
            return Refusal("bet_under_min",
                           f"box {e.box} would hold {money(total)}, under the table minimum {money(rules.table_min_cents)}")
        return None

    def _on_bet(self, e: ev.PlaceBet) -> None:
        bets = self.pending.get(e.box, {})
        player = self._bettor(e, bets)
        new_bets = dict(bets)
        new_bets[player] = new_bets.get(player, 0) + to_cents(e.amount)  # type: ignore[operator]
        self.pending[e.box] = new_bets
        self.reservations.pop(e.box, None)
        if self.phase is Phase.SETTLED:
            self._set_phase(Phase.BETTING)

    def _check_reserve(self, e: ev.Reserve) -> Refusal | None:
        if e.box > self.rules.boxes:
            return Refusal("no_such_box", f"this table has boxes 1 to {self.rules.boxes}")
        if e.box in self.pending:
            return Refusal("box_taken", f"box {e.box} has a bet on it")
        return None

    def _on_reserve(self, e: ev.Reserve) -> None:
        self.reservations[e.box] = (e.player, e.at or self.now)

    # ------------------------------------------------------------------ the shoe
    def _shuffle_is_repeat(self) -> bool:
        # rules.md, Points decided: a repeat is a shuffle with no card dealt since the last one
        # (burns aside); the shuffle the rules require (a shuffle is due) is never a repeat.
        shoe = self.shoe
        return shoe is not None and shoe.dealt == shoe.burned and self.phase is not Phase.WAITING_FOR_SHUFFLE

    def _check_shuffle(self, e: ev.Shuffle) -> Refusal | None:
        shoe = self.shoe
        if self.link_up and (e.shoe_id is None or (shoe is not None and e.shoe_id == shoe.shoe_id)):
            # The integrity count spans a physical shoe: only a new load, which the shoe names, ends it.
            return Refusal("shoe_owns_shuffle", "the smart shoe starts a new shoe when it is loaded: load the "
                           "shoe (the table counts this shoe's cards until then)")
        if self.phase not in BETWEEN_ROUNDS:
            if self.round is not None and shoe is not None and shoe.spent:
                return None  # a new shoe for the round whose shoe ran out: the round goes on
            return Refusal("round_in_progress", "finish the round before shuffling")
        rules = self.rules
        if self.phase is Phase.WAITING_FOR_SHUFFLE or shoe is None:
            return None  # the shuffle the rules require
        if self._shuffle_is_repeat():
            # "Once only" holds in every profile and with every option.
            if shoe.repeats >= rules.repeat_shuffles:
                return Refusal("shuffle_not_due", "the shuffle has already been repeated")
            return None
        if rules.dealer_may_shuffle or rules.reshuffle_every_round or self.last_round_players == 1:
            return None  # a new shuffle mid-shoe: the dealer's choice, or a lone player's request
        if shoe.cut_card_out:
            return Refusal("shuffle_not_due", "the round whose bets are down is dealt first; the shuffle follows it")
        return Refusal("shuffle_not_due", "no shuffle is due: the cut card has not come out")

    def _on_shuffle(self, e: ev.Shuffle) -> None:
        shoe = self.shoe
        if self.round is not None:  # the spent shoe is replaced in the middle of its round
            self.shoes_loaded += 1
            self.shoe = ShoeTracker(e.shoe_id or f"shoe-{self.shoes_loaded}", self.rules.decks)
            self._resolve_alerts(AlertKind.SHOE_EMPTY, acknowledged_by=e.actor or "dealer")
            return
        repeats = shoe.repeats + 1 if shoe is not None and self._shuffle_is_repeat() else 0
        self.shoes_loaded += 1
        self.shoe = ShoeTracker(e.shoe_id or f"shoe-{self.shoes_loaded}", self.rules.decks, repeats)
        self.burn_left = self.rules.burn_cards
        self.right_to_cut = None
        self._resolve_alerts(AlertKind.SHUFFLE_DUE, acknowledged_by=e.actor or "dealer")
        self._set_phase(Phase.BETTING)

    def _check_rules(self, e: ev.SetRules) -> Refusal | None:
        if self.phase not in BETWEEN_ROUNDS or self.pending:
            return Refusal("rules_locked", "rules change only between rounds with no bets on the table")
        try:
            build_rules(e.profile, e.options)
        except RuleError as exc:
            return Refusal("bad_rules", str(exc))
        return None

    def _on_rules(self, e: ev.SetRules) -> None:
        rules = build_rules(e.profile, e.options)
        if self.shoe is not None and rules.decks != self.rules.decks:
            self._set_phase(Phase.WAITING_FOR_SHUFFLE)
        self.rules = rules

    # ------------------------------------------------------------------ the supervisor and the world
    def _check_discard(self, e: ev.DiscardCard) -> Refusal | None:
        if self.phase is not Phase.ATTENTION:
            return Refusal("nothing_held", "no card is held: nothing to discard")
        return None

    def _on_discard(self, e: ev.DiscardCard) -> None:
        for card in self.held:
            self._fx.append(CardPlaced(card.code, "discard"))
        self.held = []
        resume = self.resume_phase or Phase.BETTING
        self.resume_phase = None
        self._set_phase(resume)
        self._resolve_alerts(AlertKind.UNEXPECTED_CARD, acknowledged_by=e.actor or "supervisor")

    def _check_void(self, e: ev.VoidRound) -> Refusal | None:
        if self.round is None and not self.held and not self.pending:
            return Refusal("no_round", "there is no round to void")
        return None

    def _on_void(self, e: ev.VoidRound) -> None:
        r = self.round
        for card in self.held:
            self._fx.append(CardPlaced(card.code, "discard"))
        self.held = []
        self.resume_phase = None
        self._resolve_alerts(AlertKind.UNEXPECTED_CARD, acknowledged_by=e.actor or "supervisor")
        if r is None:
            self.pending = {}  # bets placed for a round that never started go back
            self._set_phase(Phase.WAITING_FOR_SHUFFLE if self._shuffle_due() else Phase.BETTING)
            return
        # rules.md: a voided round returns every bet on it, settled or not.
        r.voided = True
        for box in r.boxes:
            for hand in box.hands:
                hand.settle(Outcome.VOID, 0)
            if box.insurance is not None:
                box.insurance_net = 0
        self._finish_round(r)

    def _on_tick(self, e: ev.Tick) -> None:
        pass  # the time it carries is all (apply advances the clock)

    def _on_shoe_fault(self, e: ev.ShoeFault) -> None:
        detail = f": {e.detail}" if e.detail else ""
        self._raise_alert(AlertKind.SHOE_FAULT, f"shoe fault {e.kind}{detail}", e.at)

    def _on_link_down(self, e: ev.LinkDown) -> None:
        self.link_up = False
        if not any(a.kind is AlertKind.LINK_DOWN and a.active for a in self.alerts):
            self._raise_alert(AlertKind.LINK_DOWN, f"shoe link down: {e.reason or 'no answer'}", e.at)

    def _on_link_up(self, e: ev.LinkUp) -> None:
        self.link_up = True
        self._resolve_alerts(AlertKind.LINK_DOWN)

    def _check_gate(self, e: ev.ShoeGate) -> Refusal | None:
        if e.locked and self.gate_held:
            return Refusal("gate_held", "a supervisor already holds the shoe's gate shut")
        if not e.locked and not self.gate_held:
            return Refusal("gate_not_held", "no supervisor holds the shoe's gate: the table's own state locks it "
                           f"({'; '.join(self.lock_reasons()) or 'it is open'})")
        return None

    def _on_gate(self, e: ev.ShoeGate) -> None:
        self.gate_held = e.locked  # releasing the hold leaves the table's own reasons in force

    def _on_shoe_count(self, e: ev.ShoeCount) -> None:
        shoe = self.shoe
        if shoe is None or shoe.shoe_id != e.shoe_id:
            known = f"shoe {shoe.shoe_id}" if shoe is not None else "no shoe"
            message = (f"the shoe is dealing shoe {e.shoe_id} ({e.position} cards out) but the table knows {known}: "
                       "that shoe's shuffle and cards never reached the table (a journal put back from a copy?)")
        else:
            stored = e.position - e.unacked
            have = shoe.last_position or 0
            if stored <= have:
                return  # nothing is missing: cards still on their way
            missing = f"card {stored} is" if stored == have + 1 else f"cards {have + 1} to {stored} are"
            message = (f"the shoe has released {e.position} cards of shoe {e.shoe_id} but the table has {have}: "
                       f"{missing} missing (a journal put back from a copy, or cards lost)")
            shoe.last_position = stored  # said once: the next card is not a second gap
        if not any(a.kind is AlertKind.INTEGRITY and a.active and a.message == message for a in self.alerts):
            self._raise_alert(AlertKind.INTEGRITY, message, e.at)

    def _on_call_pit(self, e: ev.CallPit) -> None:
        self._raise_alert(AlertKind.CALL_PIT, f"{e.actor or 'the dealer'} calls the pit", e.at)

    def _check_ack(self, e: ev.AcknowledgeAlert) -> Refusal | None:
        if not any(alert.id == e.alert_id for alert in self.alerts):
            return Refusal("no_such_alert", f"alert {e.alert_id} is not on the board")
        return None

    def _on_ack(self, e: ev.AcknowledgeAlert) -> None:
        for alert in self.alerts:
            if alert.id == e.alert_id:
                alert.acknowledge(e.actor)
        self._drop_closed_alerts()

    # ================================================================== the blackjack round
    # What follows applies the decisions of controller.round, .legality and .settlement.

    def _start_round(self, at: datetime | None) -> None:
        self.rounds_played += 1
        pending = self.pending
        boxes = [BoxInPlay(n, pending[n], next(iter(pending[n]))) for n in sorted(pending)]
        self.pending = {}
        for box in boxes:
            self.reservations.pop(box.number, None)
        self.last_round_players = len({p for b in boxes for p in b.bets})
        self.round = Round(self.rounds_played, self.shoe.shoe_id if self.shoe else None, boxes,
                           deal_plan(len(boxes), self.rules.hole_card), at)
        self.previous = None
        self._set_phase(Phase.DEALING)

    def _deal(self, card: Card) -> None:
        r = self.round
        assert r is not None
        target = r.plan[r.dealt]
        r.dealt += 1
        if target == DEALER:
            face_down = self.rules.hole_card and len(r.dealer.cards) == 1
            r.dealer.add(card)
            # The hole card is the one placed face down (rare: built here, not shared).
            self._fx.append(CardPlaced(card.code, "dealer", face_down=True) if face_down else dealer_card(card))
        else:
            box = r.boxes[target]
            box.hands[0].add(card)
            self._fx.append(box_card(card, box.number, 0))
        if r.dealt == len(r.plan):
            if legal.insurance_opens(r, self.rules):
                self._set_phase(Phase.INSURANCE)
            else:
                self._after_insurance()

    def _after_insurance(self) -> None:
        r = self.round
        assert r is not None
        rules = self.rules
        if settlement.dealer_peeks(r.dealer.cards[0].value, rules):
            r.peeked = True
            if r.dealer.is_blackjack:
                self._settle_round()
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
                    hand.settle(Outcome.BLACKJACK, settlement.blackjack_net(hand.stake, rules))
        if rules.surrender is SurrenderRule.BEFORE_FIRST_HIT and any(legal.may_surrender_early(b) for b in r.boxes):
            self._set_phase(Phase.SURRENDER)
        else:
            self._set_phase(Phase.PLAYERS)
        r.box_i, r.hand_i = 0, 0
        self._to_next_hand()

    def _turn_hole_card(self) -> None:
        r = self.round
        if r is not None and self.rules.hole_card and len(r.dealer.cards) >= 2 and not r.hole_turned:
            r.hole_turned = True
            self._fx.append(HoleCardTurned(r.dealer.cards[1].code))

    def _to_next_hand(self) -> None:
        r = self.round
        assert r is not None
        if r.to_next_hand():
            return
        self._turn_hole_card()
        self._set_phase(Phase.DEALER)
        if not settlement.dealer_needs_card(r, self.rules):
            self._settle_round()

    def _close_surrender_window(self) -> None:
        # The first card or decision after the deal ends the table-wide surrender window.
        if self.phase is Phase.SURRENDER:
            self._set_phase(Phase.PLAYERS)

    def _hit(self, hand: Hand, card: Card) -> None:
        r = self.round
        assert r is not None and hand.box is not None
        self._close_surrender_window()
        r.anyone_drew = True
        hand.box.acted = True
        hand.add(card)
        self._fx.append(box_card(card, hand.box.number, r.hand_i))
        paid = settlement.settled_at_once(hand, self.rules)
        if paid is not None:
            hand.settle(*paid)
        elif legal.hand_complete(hand, card, self.rules):
            hand.done = True
        if hand.done:
            self._to_next_hand()

    def _dealer_draw(self, card: Card) -> None:
        r = self.round
        assert r is not None
        r.dealer.add(card)
        self._fx.append(dealer_card(card))
        if not settlement.dealer_needs_card(r, self.rules):
            self._settle_round()

    def _settle_round(self) -> None:
        r = self.round
        assert r is not None
        hands, insurance = settlement.settle_round(r, self.rules)
        for box, net in insurance:
            box.insurance_net = net
        for hand, outcome, net in hands:
            hand.settle(outcome, net)
        self._finish_round(r)

    def _finish_round(self, r: Round) -> None:
        self._turn_hole_card()  # a round over has no secret left
        self._resolve_alerts(AlertKind.SHOE_EMPTY)
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
        elif self.shoe is not None and self.shoe.spent:
            self._set_phase(Phase.WAITING_FOR_SHUFFLE)
            self._raise_alert(AlertKind.SHUFFLE_DUE, f"shoe {self.shoe.shoe_id} is spent: shuffle", None)
        else:
            self._set_phase(Phase.BETTING)

    # ------------------------------------------------------------------ players' decisions
    def _check_stand(self, e: ev.Stand) -> Refusal | None:
        return legal.turn_refusal(self.phase, self.round, "stand")

    def _on_stand(self, e: ev.Stand) -> None:
        hand = self.round.hand  # type: ignore[union-attr]
        self._close_surrender_window()
        hand.box.acted = True  # type: ignore[union-attr]
        hand.done = True
        self._to_next_hand()

    def _check_double(self, e: ev.Double) -> Refusal | None:
        return legal.turn_refusal(self.phase, self.round, "double") or \
            legal.double_refusal(self.round.hand, self.rules)  # type: ignore[union-attr]

    def _on_double(self, e: ev.Double) -> None:
        hand = self.round.hand  # type: ignore[union-attr]
        self._close_surrender_window()
        hand.box.acted = True  # type: ignore[union-attr]
        hand.stake = hand.stake * 2
        hand.doubled = True

    def _check_split(self, e: ev.Split) -> Refusal | None:
        return legal.turn_refusal(self.phase, self.round, "split") or \
            legal.split_refusal(self.round.hand, self.rules)  # type: ignore[union-attr]

    def _on_split(self, e: ev.Split) -> None:
        r = self.round
        assert r is not None
        hand = r.hand
        box = hand.box
        assert box is not None
        self._close_surrender_window()
        box.acted = True
        aces = legal.is_pair_of_aces(hand)
        new = Hand(box, box.bet, from_split=True)  # each new hand takes a bet equal to the original
        new.add(hand.remove_last())
        new.split_aces = hand.split_aces = aces
        hand.from_split = True
        box.hands.insert(r.hand_i + 1, new)

    def _check_surrender(self, e: ev.Surrender) -> Refusal | None:
        return legal.surrender_refusal(self.phase, self.round, self.rules, e.box)

    def _on_surrender(self, e: ev.Surrender) -> None:
        r = self.round
        assert r is not None
        box = legal.surrendering_box(r, e.box)
        assert box is not None
        hand = box.hands[0]
        hand.settle(Outcome.SURRENDER, settlement.surrender_net(hand.stake))
        box.acted = True
        if r.boxes[r.box_i] is box:
            self._to_next_hand()

    # ------------------------------------------------------------------ insurance
    def _check_insure(self, e: ev.Insure) -> Refusal | None:
        return legal.insure_refusal(self.phase, self.round, self.rules, e.box, to_cents(e.amount))

    def _on_insurance(self, e: ev.Insure) -> None:
        box = self.round.box(e.box)  # type: ignore[union-attr]
        box.insurance = to_cents(e.amount)  # type: ignore[union-attr]

    def _check_even_money(self, e: ev.EvenMoney) -> Refusal | None:
        return legal.even_money_refusal(self.phase, self.round, self.rules, e.box)

    def _on_even_money(self, e: ev.EvenMoney) -> None:
        hand = self.round.box(e.box).hands[0]  # type: ignore[union-attr]
        hand.settle(Outcome.EVEN_MONEY, hand.stake)  # 1:1 at once

    def _check_close_insurance(self, e: ev.CloseInsurance) -> Refusal | None:
        return legal.close_insurance_refusal(self.phase)

    def _on_close_insurance(self, e: ev.CloseInsurance) -> None:
        self._after_insurance()


Table._DISPATCH = {
    ev.CardDrawn: (None, Table._on_card),
    ev.CutCardOut: (None, Table._on_cut_card),
    ev.Stand: (Table._check_stand, Table._on_stand),
    ev.Double: (Table._check_double, Table._on_double),
    ev.Split: (Table._check_split, Table._on_split),
    ev.Surrender: (Table._check_surrender, Table._on_surrender),
    ev.PlaceBet: (Table._check_bet, Table._on_bet),
    ev.Insure: (Table._check_insure, Table._on_insurance),
    ev.EvenMoney: (Table._check_even_money, Table._on_even_money),
    ev.CloseInsurance: (Table._check_close_insurance, Table._on_close_insurance),
    ev.Shuffle: (Table._check_shuffle, Table._on_shuffle),
    ev.SetRules: (Table._check_rules, Table._on_rules),
    ev.Reserve: (Table._check_reserve, Table._on_reserve),
    ev.DiscardCard: (Table._check_discard, Table._on_discard),
    ev.VoidRound: (Table._check_void, Table._on_void),
    ev.Tick: (None, Table._on_tick),
    ev.ShoeFault: (None, Table._on_shoe_fault),
    ev.LinkDown: (None, Table._on_link_down),
    ev.LinkUp: (None, Table._on_link_up),
    ev.CallPit: (None, Table._on_call_pit),
    ev.AcknowledgeAlert: (Table._check_ack, Table._on_ack),
    ev.ShoeGate: (Table._check_gate, Table._on_gate),
    ev.ShoeCount: (None, Table._on_shoe_count),
}

_LOCK_REASON = {
    AlertKind.UNEXPECTED_CARD: "an unexpected card is held",
    AlertKind.INTEGRITY: "an integrity alert is open: the supervisor must acknowledge it",
    AlertKind.SHOE_FAULT: "the shoe reports a fault: the supervisor must acknowledge it",
}
