"""The authoritative round engine: events in, effects out.

`Table.apply(event)` is the only way the table's state changes; `Table.refusal(event)`
says, changing nothing, whether `apply` would accept it (python-chess's ``is_legal``
before ``push``). Neither reads a clock, a port or a pin: time arrives in the event's
``at``. A refused action raises IllegalAction and leaves the state exactly as it was,
because every handler runs only after its check has passed. A card is physical and is
never refused: a card nobody may take puts the table in ATTENTION, holding the card,
until a supervisor discards it or voids the round.

This module is the table's shared machinery: the dispatch of events, cards and the shoe,
boxes and bets, alerts and attention, the supervisor's events, snapshots. The round itself
is the game's (a `controller.game.Game` from the registry: `controller.registry`), chosen by the rules' ``game``:
the table hands it each card that arrives in a round, its own events, and the questions
only the game can answer (what may be decided, who takes the next card, the view).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any, Callable, ClassVar

from . import events as ev
from . import snapshot as snap
from .alerts import LOCKING_KINDS, MAX_ALERTS_PER_KIND, Alert, AlertKind, overflow_message
from .cards import Card, parse_card
from .closed import closed_cards
from .effects import (AlertCleared, AlertRaised, CardPlaced, DealerChanged, Effect, ReservationLapsed, RoundSettled,
                      ShoeLock, _PHASE_CHANGED)
from .errors import EngineError, IllegalAction, SnapshotError
from . import registry
from .game import Bets, Game, on_spot
from .hand import BoxInPlay
from .legality import Action, GameAction, Refusal, named_box_refusal
from .money import money, to_cents
from .phase import BETWEEN_ROUNDS, IN_ROUND, READY, Phase
from .round import DEALER, Round, round_record
from .protection.findings import Finding, SlugAlarm
from .protection.live import ShoeWatch
from .rules import RuleError, Rules, build_rules, load_rules
from .inventory import Slip, Watch, chips_value, signer
from .seats import Seated, seated_name
from .shoe import ShoeTracker

__all__ = [
    "BETWEEN_ROUNDS", "DEALER", "IN_ROUND", "Action", "EngineError", "IllegalAction", "Phase", "Refusal",
    "Round", "SnapshotError", "Table", "money", "round_record",
]

log = logging.getLogger(__name__)

Check = Callable[["Table", Any], Refusal | None]
Handler = Callable[["Table", Any], None]

# While the table is in ATTENTION only physical events and the supervisor's resolution go through
# (with these, every game's own decisions: `Game.blocked_by_attention`).
_BLOCKED_BY_ATTENTION = frozenset({ev.PlaceBet, ev.Shuffle, ev.SetRules, ev.Reserve})
# The phases in which `Table._no_card_expected` has no objection (with a shoe in, between rounds).
_CARD_MAY_COME = frozenset(Phase) - {Phase.WAITING_FOR_SHUFFLE, Phase.ATTENTION}
_ATTENTION = Refusal("table_needs_attention",
                     "the table needs the supervisor: discard the held card or void the round first")


def _in_turn_first(check: Check | None) -> Check:
    """``check`` preceded by the named box's: a stand or split naming a box not in turn is refused first."""
    def checked(t: Table, e: Any) -> Refusal | None:
        refusal = named_box_refusal(t.phase, t.round, e.box)
        if refusal is not None or check is None:
            return refusal
        return check(t, e)
    return checked


def _unknown_event(event: ev.Event) -> Refusal:
    return Refusal("unknown_event", f"the table does not know the event {event!r}")


class Table:
    """The table's whole state and the rules that move it."""

    # The shared events: event type -> (check or None, handler); filled once below the class.
    # Each table looks events up in ``_dispatch``: these, with its game's own merged over them.
    _DISPATCH: ClassVar[dict[type, tuple[Check | None, Handler]]]

    def __init__(self, rules: Rules | None = None, *, shoes_watched: int | None = 2) -> None:
        """A table by `rules` (ru-standard by default), waiting for its first shuffle.

        ``shoes_watched``: the shoes the protection watch keeps (the one in play and the one before
        it); None keeps every shoe, for a report over a whole journal (`tablectl protect report`); 0
        watches none, for a simulation: its shoe is shuffled fairly by construction, and the watch (every
        card against the last shoe's orders, every shuffle scored) would be most of its time.
        """
        self.rules: Rules = rules or build_rules()
        self._use_game(registry.game(self.rules.game))
        self.game_state: Any = self.game.new_state()
        self.phase = Phase.WAITING_FOR_SHUFFLE
        self.shoe: ShoeTracker | None = None
        self.shoes_loaded = 0
        self.burn_left = 0
        self.pending: dict[int, Bets] = {}  # box -> player -> spot -> bet in cents, for the next round
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
        self.shoe_watch = ShoeWatch(keep=shoes_watched)  # game protection: false and weak shuffles
        self._watching = shoes_watched != 0
        self.dealer_on_duty: str | None = None  # who deals (dealer_in), and since when: every round has one dealer
        # Set by an `imported` row (issue 38): this record was brought in from elsewhere (source, format, sha256,
        # at), never a live table's own; the tools that read it say so.
        self.imported: dict[str, str | None] | None = None
        self.dealer_since: datetime | None = None
        # Who sits on each box (issue 41): box -> the player seated (seat, or a named player's first bet on an empty
        # box), for the rating slip; none there: nobody seated (anonymous play is rated by its box).
        self.seated: dict[int, Seated] = {}
        # The multiple transaction log's running sums (issue 41): the gaming day of the last cash buy-in, and each
        # person's cash bought in that day, in cents (a new gaming day starts them again).
        self.mtl_day: str | None = None
        self.cash_today: dict[str, int] = {}
        # The fill and credit slips waiting for their two signatures (issue 41), by number; the next number.
        self.slips: dict[int, Slip] = {}
        self.next_slip = 1
        # The inventory period open (since its opener), and the last one closed whose drop is still to come: their
        # two figures compared once both are in (issue 41; controller.inventory.Watch).
        self.inventory: Watch | None = None
        self.inventory_closed: Watch | None = None
        self._fx: list[Effect] = []

    def _use_game(self, game: Game[Any, Any]) -> None:
        self.game = game
        self._dispatch: dict[type, tuple[Check | None, Handler]] = {**self._DISPATCH, **game.dispatch}
        for named in (ev.Stand, ev.Split):  # every game: a box named on these must be the box in turn
            if named in self._dispatch:
                check, handler = self._dispatch[named]
                self._dispatch[named] = (_in_turn_first(check), handler)
        self._blocked = _BLOCKED_BY_ATTENTION | game.blocked_by_attention
        self._place = game.place  # the hot path: one lookup per card

    # ------------------------------------------------------------------ entry points
    def refusal(self, event: ev.Event) -> Refusal | None:
        """Why `apply(event)` would refuse the event now, or None if it would accept it.

        Changes nothing at all. A card is never refused.
        """
        entry = self._dispatch.get(type(event))
        if entry is None:
            return _unknown_event(event)
        if self.phase is Phase.ATTENTION and type(event) in self._blocked:
            return _ATTENTION
        check = entry[0]
        return None if check is None else check(self, event)

    def apply(self, event: ev.Event) -> list[Effect]:
        """Apply one event; return what the outputs must do.

        IllegalAction (with the `Refusal` that `refusal(event)` gives) leaves the state unchanged.
        """
        entry = self._dispatch.get(type(event))
        if entry is None:
            raise IllegalAction(_unknown_event(event))
        check, handler = entry
        if check is not None:
            if self.phase is Phase.ATTENTION and type(event) in self._blocked:
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
        if self._watching:
            self._watch_shoe(event, fx)
        phase = self.phase
        locked = (self.gate_held or phase is Phase.ATTENTION or phase is Phase.WAITING_FOR_SHUFFLE
                  or (bool(self.alerts) and self._alert_locks()))
        if locked is not self.locked:
            self.locked = locked
            fx.append(ShoeLock(locked))
        return fx

    def legal_actions(self) -> list[GameAction]:
        """The decisions the table may take now (the hand in turn's, or insurance's), for consoles and players."""
        return self.game.legal_actions(self)

    def next_card(self) -> str | None:
        """Who takes the next card now: 'box N', 'dealer', 'burn', 'first box', or None if none is expected."""
        return self.game.next_card(self)

    @property
    def last_round(self) -> dict[str, Any] | None:
        """The record of the last settled round, until the next round starts."""
        return self.previous.record if self.previous is not None else None

    def open_alerts(self) -> list[Alert]:
        """Alerts still on the board."""
        return [a for a in self.alerts if a.open]

    @property
    def dealer_card_closed(self) -> bool:
        """True while a card of the dealer's (the banker's) is face down and not yet turned."""
        return self.game.dealer_card_closed(self)

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
        try:  # validated as a profile is, by the model of the game the rules name
            rules = load_rules(state.rules.name, state.rules.options)
        except (RuleError, TypeError) as exc:
            raise SnapshotError(f"malformed table snapshot: rules: {exc}") from None
        table = cls(rules)
        snap.load_table(table, state)
        return table

    # ------------------------------------------------------------------ what a game may do (games.base.TableOps)
    def emit(self, effect: Effect) -> None:
        """Add an effect of the input being applied (what the service passes on to the outputs)."""
        self._fx.append(effect)

    def set_phase(self, phase: Phase) -> None:
        """Move the table to `phase`, with the effect that says so (none when it is there already)."""
        if phase is not self.phase:
            self._fx.append(_PHASE_CHANGED[self.phase][phase])
            self.phase = phase

    def raise_alert(self, kind: AlertKind, message: str, at: datetime | None, secret: str | None = None) -> Alert:
        """Put an alert on the board (or count a repeat of one there); `secret` is the supervisor's detail only."""
        # The board is bounded (alerts.py): a repeat is counted on the alert it repeats, and past
        # MAX_ALERTS_PER_KIND - 1 alerts of a kind, one more alert counts every further one.
        said = ""  # what the cause said, when the board counts it on the alert that stands for the kind's rest
        same = self._on_board(kind, message)
        if same is None and sum(a.kind is kind for a in self.alerts) >= MAX_ALERTS_PER_KIND - 1:
            said, message, secret = message, overflow_message(kind), None
            same = self._on_board(kind, message)
        if same is not None:
            same.repeat(secret)
            self._fx.append(AlertRaised(same, said))  # it rings again: the cause is back (logged by the live writer)
            return same
        alert = Alert(self.next_alert_id, kind, message, at or self.now, secret=secret)
        self.next_alert_id += 1
        self.alerts.append(alert)
        # Not logged here: apply runs on every replay too (a start on 10^6 rows wrote 10^6 INFO lines, issue 42);
        # the authority logs the alerts of live inputs.
        self._fx.append(AlertRaised(alert, said))
        return alert

    def _watch_shoe(self, event: ev.Event, fx: list[Effect]) -> None:
        """Feed the protection watch what this event did to the shoe; raise what it finds (docs/protection.md)."""
        watch = self.shoe_watch
        found: list[Finding] = []
        if isinstance(event, ev.Shuffle) and self.shoe is not None:
            shoe = self.shoe
            zone = self.rules.cut_card_zone(shoe.size)  # the earliest the cut card may lie; none: the whole pack
            found += watch.shuffle(shoe.shoe_id, event.at, decks=shoe.decks, pack=shoe.pack,
                                   cut_card_at=zone[0] if zone else shoe.size)
        elif isinstance(event, ev.CutCardOut):
            watch.cut_card(event.position)
        for effect in fx:
            if isinstance(effect, CardPlaced) and effect.to != "discard":
                watch.card(parse_card(effect.card), effect.to, effect.box, effect.hand)
            elif isinstance(effect, RoundSettled):
                watch.round_settled()
        if watch.held and not closed_cards(self):
            found += watch.release()
        for finding in found:
            kind = AlertKind.SLUG if isinstance(finding, SlugAlarm) else AlertKind.WEAK_SHUFFLE
            self.raise_alert(kind, finding.message, event.at)

    def _on_board(self, kind: AlertKind, message: str) -> Alert | None:
        """The alert on the board that a new one of `kind` saying `message` repeats (any call of the pit)."""
        for alert in self.alerts:
            if alert.kind is kind and (kind is AlertKind.CALL_PIT or alert.message == message):
                return alert
        return None

    def _resolve_alerts(self, kind: AlertKind, acknowledged_by: str | None = None,
                        at: datetime | None = None) -> None:
        """The cause of every alert of this kind is gone (by `acknowledged_by`'s act at `at`, if a person's);
        an acknowledged one leaves the board."""
        for alert in self.alerts:
            if alert.kind is kind and alert.active:
                alert.resolve(acknowledged_by, at or self.now)
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

    def hold(self, card: Card, why: str, at: datetime | None) -> None:
        """Keep a card nobody may take now: held (never lost), the table in attention, an alert saying `why`."""
        self.held.append(card)
        self._fx.append(CardPlaced(card.code, "held"))
        if self.phase is not Phase.ATTENTION:
            self.resume_phase = self.phase
            self.set_phase(Phase.ATTENTION)
        self.raise_alert(AlertKind.UNEXPECTED_CARD, f"unexpected card {card.code}: {why}", at)

    def _shuffle_due(self) -> bool:
        shoe = self.shoe
        return shoe is None or shoe.cut_card_out or shoe.must_shuffle or self.rules.reshuffle_every_round

    # ------------------------------------------------------------------ cards (never refused)
    def _on_card(self, e: ev.CardDrawn) -> None:
        card = e.card
        shoe = self.shoe
        if shoe is not None:
            problem = shoe.take(card)
            foreign = False
            if problem:
                foreign = not shoe.in_pack(card)
                if not foreign and (self.game.face_down_next(self) is not None or self.game.hidden_cards(self)):
                    # While a card lies face down, every card that is not possible gets this one wording, its
                    # card named only in the supervisor's detail: a wording of its own for a twin of the closed
                    # card (or for the closed card itself) would tell a viewer what the closed card is; so would
                    # the card's code, and the count of alerts and their size (the same text folds into one
                    # alert, counted, whichever card it was).
                    self.raise_alert(AlertKind.INTEGRITY, f"a card of this round is not possible in shoe "
                                      f"{shoe.shoe_id} (the supervisor sees which)", e.at, problem)
                else:
                    self.raise_alert(AlertKind.INTEGRITY, problem, e.at)
            if e.position is not None:
                found = shoe.position_problem(e.position, card)
                if found is not None:
                    self.raise_alert(AlertKind.INTEGRITY, found[0], e.at)
                    if found[1]:
                        self.hold(card, f"the shoe had dealt card {e.position} already", e.at)
                        return
            if foreign:  # a 2 to 5 in a 36-card pack: nobody may take it (held, like any such card)
                self.hold(card, f"not a card of the {shoe.pack}-card pack", e.at)
                return
        # The same for every game, decided here before the game is asked. The phases where a card may come are
        # tested first, inline: this runs once a card, and the call was a twentieth of a simulation's time.
        phase = self.phase
        why = None if phase in _CARD_MAY_COME and (shoe is not None or phase not in READY) else self._no_card_expected()
        if why is not None:
            self.hold(card, why, e.at)
        else:
            self._place(self, card, e)
        if shoe is not None and shoe.spent and self.round is not None and self.next_card() is not None \
                and not any(a.kind is AlertKind.SHOE_EMPTY and a.active for a in self.alerts):
            self.raise_alert(AlertKind.SHOE_EMPTY,
                              f"shoe {shoe.shoe_id} is empty in round {self.round.number}: load a new shoe and the "
                              "round goes on with its cards, or the supervisor voids the round", e.at)

    # ------------------------------------------------------------------ bets and boxes
    def _no_card_expected(self) -> str | None:
        """Why no game may take a card now, whatever it plays: no shoe, a due shuffle, the supervisor awaited."""
        if self.phase is Phase.WAITING_FOR_SHUFFLE:
            return "a shuffle is due"
        if self.phase is Phase.ATTENTION:
            return "the table is waiting for the supervisor"
        if self.shoe is None and self.phase in READY:
            return "no shoe has been shuffled in"
        return None

    def _bettor(self, e: ev.PlaceBet, bets: Bets) -> str:
        # An anonymous bet joins the box's first player, or names the box.
        return e.player or (next(iter(bets)) if bets else f"box{e.box}")

    def lapsed(self, reserved: tuple[str | None, datetime | None], at: datetime | None) -> bool:
        """A box's reservation (player, since) has run out by `at` (or the table's time)."""
        since = reserved[1]
        now = at or self.now
        return since is not None and now is not None and now - since >= timedelta(minutes=self.rules.reservation_minutes)

    def _check_bet(self, e: ev.PlaceBet) -> Refusal | None:
        """Why a bet is refused now: the game's question (its spots, each spot's limits; `Game.check_bet`)."""
        return self.game.check_bet(self, e)

    def bet_refusal(self, e: ev.PlaceBet, spot: str, least: int, most: int) -> Refusal | None:
        """Why a bet on ``spot`` is refused now (closed, chips, a reserved or full box, the spot's limits in cents
        ``least`` and ``most``), or None: every game's bets are checked here, by their spot's limits."""
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
        if reserved and reserved[0] and e.player and e.player != reserved[0] and not self.lapsed(reserved, e.at):
            return Refusal("box_reserved", f"box {e.box} is reserved for {reserved[0]}")
        if player not in bets and len(bets) >= rules.players_per_box:
            return Refusal("box_full", f"box {e.box} already has {rules.players_per_box} player(s)")
        total = sum(spots.get(spot, 0) for spots in bets.values()) + amount
        where = "" if spot == self.game.spots[0].name else f" on {spot}"  # (the main spot's words as they were)
        if total > most:
            kind = "the table maximum" if where == "" else "its maximum"
            return Refusal("bet_over_max", f"box {e.box} would hold {money(total)}{where}, over {kind} {money(most)}")
        if total < least:
            kind = "the table minimum" if where == "" else "its minimum"
            return Refusal("bet_under_min", f"box {e.box} would hold {money(total)}{where}, under {kind} {money(least)}")
        return None

    def on_bet(self, e: ev.PlaceBet) -> None:
        """Add a bet to its box, on the spot it names, for the next round."""
        bets = self.pending.get(e.box, {})
        player = self._bettor(e, bets)
        spot = self.game.spot_of(e)
        cents = to_cents(e.amount)
        if cents is None or spot is None:  # a bug: the check refuses a fraction of a cent, or a spot not the game's
            raise EngineError(f"a bet of {e.amount} on {e.spot!r} is not one the game takes")
        new_bets = {p: dict(spots) for p, spots in bets.items()}
        on_spots = new_bets.setdefault(player, {})
        on_spots[spot.name] = on_spots.get(spot.name, 0) + cents
        self.pending[e.box] = new_bets
        self.reservations.pop(e.box, None)
        if e.player is not None and e.box not in self.seated:
            # decided (issue 41): the table never refuses play for want of a rating; the slip opens at the first bet
            self.seated[e.box] = Seated(e.player, None, e.at or self.now)
        if self.phase is Phase.SETTLED:
            self.set_phase(Phase.BETTING)

    # ------------------------------------------------------------------ buy-ins and the multiple transaction log
    def _check_buy_in(self, e: ev.BuyIn) -> Refusal | None:
        if e.box is not None and e.box > self.rules.boxes:
            return Refusal("no_such_box", f"this table has boxes 1 to {self.rules.boxes}")
        if e.player is None and e.box is None:
            return Refusal("who_buys_in", "a buy-in names the player or the box they sit on")
        amount = to_cents(e.amount)
        if amount is None:
            return Refusal("bad_amount", f"{e.amount} is not a whole number of cents")
        return None

    def buyer(self, e: ev.BuyIn) -> str:
        """Whose buy-in it is: the player named, else the one seated on its box, else "Player on box N"."""
        if e.player is not None:
            return e.player
        assert e.box is not None  # (the check refuses a buy-in with neither)
        seated = self.seated.get(e.box)
        return seated_name(e.box, seated.player if seated is not None else None)

    def _on_buy_in(self, e: ev.BuyIn) -> None:
        if e.method != "cash" or e.gaming_day is None:
            return
        day = e.gaming_day.isoformat()
        if self.mtl_day is None or day > self.mtl_day:
            self.mtl_day, self.cash_today = day, {}
        elif day < self.mtl_day:
            return  # a buy-in stamped for a gaming day already over (a clock set back): logged, not summed
        person = self.buyer(e)
        before = self.cash_today.get(person, 0)
        total = before + (to_cents(e.amount) or 0)
        self.cash_today[person] = total
        for kind, threshold in ((AlertKind.MTL_ACTION, e.mtl_action), (AlertKind.MTL_NOTICE, e.mtl_notice)):
            limit = to_cents(threshold) if threshold is not None else None
            if limit is not None and before < limit <= total:
                word = "action" if kind is AlertKind.MTL_ACTION else "notice"
                self.raise_alert(kind, f"multiple transaction log, {word}: {person} has bought in {money(total)} in "
                                       f"cash on gaming day {day} (the {word} threshold is {money(limit)})", e.at)
                break  # one crossing, the higher, said once

    # ------------------------------------------------------------------ the inventory's slips (controller.inventory)
    def _on_inventory(self, e: ev.Event) -> None:
        """An opener, a closer or a drop: the journal keeps it and the figures are made from it (InventoryBook); the
        engine compares the inventory's win with its own figure as soon as the closer and the drop are both in."""
        watch: Watch | None
        if isinstance(e, ev.Opener):
            self.inventory = Watch(chips_value(e.chips))
            return
        if isinstance(e, ev.Closer):
            watch = self.inventory or Watch(0)  # a closer with no opener: its opener unknown (0), as the book's
            watch.closer, self.inventory = chips_value(e.chips), None
            if watch.drop is None:
                self.inventory_closed = watch
                return
        elif isinstance(e, ev.Drop):
            # The count is for the last inventory closed (ev.Drop), else for the one open (its closer to come).
            watch = self.inventory_closed or self.inventory
            if watch is None:
                return
            watch.drop = to_cents(e.amount) or 0
            if watch.closer is None:
                return
            self.inventory_closed = None
        else:
            return
        tolerance = to_cents(e.tolerance) if e.tolerance is not None else None
        difference = watch.difference
        if tolerance is not None and difference is not None and abs(difference) > tolerance:
            inventory = difference + watch.table_win
            self.raise_alert(AlertKind.INVENTORY_DIFFERENCE,
                             f"inventory: the win by the inventory is {money(inventory)}, the table's own figure "
                             f"{money(watch.table_win)}: {money(abs(difference))} "
                             f"{'over' if difference > 0 else 'short'} (the tolerance is {money(tolerance)})", e.at)

    def _check_sign_shift(self, e: ev.SignShift) -> Refusal | None:
        if e.end <= e.start:
            return Refusal("bad_shift", "a shift ends after it starts")
        if e.at is not None and e.end > e.at:
            return Refusal("shift_not_over", "a shift is signed once it is over: its end is still to come")
        return None

    def _on_slip_request(self, e: ev.FillRequest | ev.CreditRequest) -> None:
        kind = "fill" if isinstance(e, ev.FillRequest) else "credit"
        slip = self.slips[self.next_slip] = Slip(self.next_slip, kind, dict(e.chips), e.at or self.now)
        if self.inventory is not None:  # the period's slip, once signed (as InventoryBook counts it)
            self.inventory.pending[slip.id] = slip.value if kind == "credit" else -slip.value
        self.next_slip += 1

    def _check_sign(self, e: ev.SignSlip) -> Refusal | None:
        slip = self.slips.get(e.slip)
        if slip is None:
            return Refusal("no_such_slip", f"no fill or credit slip {e.slip} waits for a signature")
        who = signer(e.actor)
        if who is None:
            return Refusal("signature_needs_key", "a slip is signed with a dealer's or a supervisor's own key")
        part, person = who
        if part in slip.signed:
            return Refusal("already_signed", f"the {part}'s signature is on slip {e.slip} already "
                                             f"({slip.signed[part]})")
        if person in slip.signed.values():
            return Refusal("same_signer", f"{person} has signed slip {e.slip} already: the two signatures are two "
                                          "people's, a dealer's and a supervisor's")
        return None

    def _on_sign(self, e: ev.SignSlip) -> None:
        slip = self.slips[e.slip]
        part, person = signer(e.actor) or ("", "")
        slip.signed[part] = person
        if slip.complete:
            del self.slips[e.slip]
            for watch in (self.inventory, self.inventory_closed):
                if watch is not None:
                    watch.completed(e.slip)

    # ------------------------------------------------------------------ players seated (the rating slip)
    def _seated_on(self, box: int, player: str | None = None) -> Refusal | None:
        if box > self.rules.boxes:
            return Refusal("no_such_box", f"this table has boxes 1 to {self.rules.boxes}")
        seated = self.seated.get(box)
        if seated is None:
            return Refusal("not_seated", f"nobody is seated on box {box}")
        if player is not None and seated.player != player:
            return Refusal("not_seated", f"{player} is not seated on box {box} ({seated_name(box, seated.player)} is)")
        return None

    def _check_seat(self, e: ev.Seat) -> Refusal | None:
        if e.box > self.rules.boxes:
            return Refusal("no_such_box", f"this table has boxes 1 to {self.rules.boxes}")
        seated = self.seated.get(e.box)
        if seated is not None:
            if seated.player == e.player:
                return Refusal("already_seated", f"{seated_name(e.box, e.player)} is already seated on box {e.box}")
            return Refusal("box_occupied", f"{seated_name(e.box, seated.player)} is seated on box {e.box}: "
                                           "unseat them first")
        return None

    def _on_seat(self, e: ev.Seat) -> None:
        self.seated[e.box] = Seated(e.player, e.card, e.at or self.now)

    def _check_unseat(self, e: ev.Unseat) -> Refusal | None:
        return self._seated_on(e.box, e.player)

    def _on_unseat(self, e: ev.Unseat) -> None:
        del self.seated[e.box]

    def _check_pause(self, e: ev.Pause) -> Refusal | None:
        refused = self._seated_on(e.box)
        if refused is None and self.seated[e.box].paused_at is not None:
            return Refusal("already_paused", f"the player on box {e.box} is paused already")
        return refused

    def _on_pause(self, e: ev.Pause) -> None:
        self.seated[e.box].paused_at = e.at or self.now

    def _check_resume(self, e: ev.Resume) -> Refusal | None:
        refused = self._seated_on(e.box)
        if refused is None and self.seated[e.box].paused_at is None:
            return Refusal("not_paused", f"the player on box {e.box} is not paused")
        return refused

    def _on_resume(self, e: ev.Resume) -> None:
        self.seated[e.box].paused_at = None

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

    def check_shuffle(self, e: ev.Shuffle) -> Refusal | None:
        """Why a shuffle (a new shoe) is refused now, or None (the table's rule; a game may add its own)."""
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

    def _new_shoe(self, e: ev.Shuffle, repeats: int) -> ShoeTracker:
        rules = self.rules
        self.shoes_loaded += 1
        size = self.game.pack_size(self)
        shoe = ShoeTracker(e.shoe_id or f"shoe-{self.shoes_loaded}", rules.decks, repeats, rules.pack, size)
        if e.card_count is not None and e.card_count != size:
            self.raise_alert(AlertKind.INTEGRITY, f"shoe {shoe.shoe_id} reports {e.card_count} cards loaded, but the "
                              f"rules' pack holds {size} ({rules.decks} x {rules.pack})", e.at)
        return shoe

    def on_shuffle(self, e: ev.Shuffle) -> None:
        """A new shoe is in: track it, end the due shuffle and the empty-shoe alerts."""
        shoe = self.shoe
        if self.round is not None:  # the spent shoe is replaced in the middle of its round
            self.shoe = self._new_shoe(e, 0)
            self._resolve_alerts(AlertKind.SHOE_EMPTY, acknowledged_by=e.actor or "dealer", at=e.at)
            return
        repeats = shoe.repeats + 1 if shoe is not None and self._shuffle_is_repeat() else 0
        self.shoe = self._new_shoe(e, repeats)
        self.burn_left = self.rules.burn_cards
        self.right_to_cut = None
        self._resolve_alerts(AlertKind.SHUFFLE_DUE, acknowledged_by=e.actor or "dealer", at=e.at)
        self.set_phase(Phase.BETTING)

    def check_rules(self, e: ev.SetRules) -> Refusal | None:
        """Why new rules are refused now (only between rounds with no bets down), or None."""
        if self.phase not in BETWEEN_ROUNDS or self.pending:
            return Refusal("rules_locked", "rules change only between rounds with no bets on the table")
        try:
            build_rules(e.profile, e.options)
        except RuleError as exc:
            return Refusal("bad_rules", str(exc))
        return None

    def on_rules(self, e: ev.SetRules) -> None:
        """Play by new rules from the next round (a new game's state when the game changes)."""
        rules = build_rules(e.profile, e.options)
        old = self.rules
        if self.shoe is not None and (rules.shoe_size != old.shoe_size or rules.game != old.game):
            self.set_phase(Phase.WAITING_FOR_SHUFFLE)  # another pack, or another game's: shuffle it in
        if rules.game != old.game:
            self._use_game(registry.game(rules.game))
            self.game_state = self.game.new_state()
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
        self.set_phase(resume)
        self._resolve_alerts(AlertKind.UNEXPECTED_CARD, acknowledged_by=e.actor or "supervisor", at=e.at)

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
        self._resolve_alerts(AlertKind.UNEXPECTED_CARD, acknowledged_by=e.actor or "supervisor", at=e.at)
        if r is None:
            self.pending = {}  # bets placed for a round that never started go back
            self.set_phase(Phase.WAITING_FOR_SHUFFLE if self._shuffle_due() else Phase.BETTING)
            return
        self.game.void(self)

    def _on_tick(self, e: ev.Tick) -> None:
        pass  # the time it carries is all (apply advances the clock)

    def _on_shoe_fault(self, e: ev.ShoeFault) -> None:
        detail = f": {e.detail}" if e.detail else ""
        self.raise_alert(AlertKind.SHOE_FAULT, f"{_fault_prefix(e.kind)}{detail}", e.at)

    def _on_shoe_fault_cleared(self, e: ev.ShoeFaultCleared) -> None:
        # The cause is gone, not the alert: it stays on the board (and in the journal) until a
        # supervisor has seen it, but no longer locks the gate, so play resumes by itself.
        for alert in self.alerts:
            if alert.active and _is_fault(alert, e.kind):
                alert.resolve()
        self._drop_closed_alerts()

    def shoe_fault_active(self, kind: str) -> bool:
        """A shoe fault of `kind` (``jam``, ``lid_open``...) is on the board with its cause active."""
        return any(a.active and _is_fault(a, kind) for a in self.alerts)

    def _on_link_down(self, e: ev.LinkDown) -> None:
        self.link_up = False
        if not any(a.kind is AlertKind.LINK_DOWN and a.active for a in self.alerts):
            self.raise_alert(AlertKind.LINK_DOWN, f"shoe link down: {e.reason or 'no answer'}", e.at)

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
            self.raise_alert(AlertKind.INTEGRITY, message, e.at)

    def _check_dealer_change(self) -> Refusal | None:
        if self.round is not None:
            return Refusal("round_in_play", "the dealer changes between rounds, so that each round has one dealer: "
                           "settle or void the round first")
        return None

    def _check_imported(self, e: ev.Imported) -> Refusal | None:
        if self.imported is not None or self.shoe is not None or self.shoes_loaded or self.rounds_played:
            return Refusal("imported_not_first", "only a new journal, before its first shoe, is marked imported: "
                                                 "a table's own record never is")
        return None

    def _on_imported(self, e: ev.Imported) -> None:
        self.imported = {"source": e.source, "format": e.format, "sha256": e.sha256,
                         "at": e.at.isoformat() if e.at is not None else None}

    def _check_dealer_in(self, e: ev.DealerIn) -> Refusal | None:
        if e.dealer == self.dealer_on_duty:
            return Refusal("already_on_duty", f"dealer {e.dealer} is already on duty")
        return self._check_dealer_change()

    def _on_dealer_in(self, e: ev.DealerIn) -> None:
        previous = self.dealer_on_duty
        self.dealer_on_duty, self.dealer_since = e.dealer, e.at or self.now
        self._fx.append(DealerChanged(e.dealer, previous))

    def _check_dealer_out(self, e: ev.DealerOut) -> Refusal | None:
        if self.dealer_on_duty is None:
            return Refusal("no_dealer_on_duty", "no dealer is on duty")
        if e.dealer is not None and e.dealer != self.dealer_on_duty:
            return Refusal("not_on_duty", f"dealer {e.dealer} is not on duty (dealer {self.dealer_on_duty} is)")
        return self._check_dealer_change()

    def _on_dealer_out(self, e: ev.DealerOut) -> None:
        previous = self.dealer_on_duty
        self.dealer_on_duty, self.dealer_since = None, None
        self._fx.append(DealerChanged(None, previous))

    def _on_call_pit(self, e: ev.CallPit) -> None:
        self.raise_alert(AlertKind.CALL_PIT, f"{e.actor or 'the dealer'} calls the pit", e.at)

    def _check_ack(self, e: ev.AcknowledgeAlert) -> Refusal | None:
        if not any(alert.id == e.alert_id for alert in self.alerts):
            return Refusal("no_such_alert", f"alert {e.alert_id} is not on the board")
        return None

    def _on_ack(self, e: ev.AcknowledgeAlert) -> None:
        for alert in self.alerts:
            if alert.id == e.alert_id:
                alert.acknowledge(e.actor, e.at or self.now)
        self._drop_closed_alerts()

    # ================================================================== what every game's round shares
    def take_pending(self, make: Callable[[int, Bets, str | None], BoxInPlay] | None = None) -> list[BoxInPlay]:
        """A new round takes the bets placed: one box in play per box bet on, in box order (``make``
        builds each from its number, its bets by player and spot, and its owner; by default a box of the
        stakes on the game's main spot)."""
        self.rounds_played += 1
        pending = self.pending
        if make is None:
            main = self.game.spots[0].name
            boxes = [BoxInPlay(n, on_spot(pending[n], main), next(iter(pending[n]))) for n in sorted(pending)]
        else:
            boxes = [make(n, pending[n], next(iter(pending[n]))) for n in sorted(pending)]
        self.pending = {}
        for box in boxes:
            self.reservations.pop(box.number, None)
        self.last_round_players = len({p for b in boxes for p in b.bets})
        return boxes

    def finish_round(self, r: Round) -> None:
        """The round is settled (every hand has its outcome): it goes on show, the table moves on."""
        self.game.reveal_all(self, r)  # a round over has no secret left
        self._resolve_alerts(AlertKind.SHOE_EMPTY)
        self.previous = r  # kept on the displays (and as last_round) until the next round
        self.round = None
        self._fx.append(RoundSettled(r))
        if self.inventory is not None and not r.voided:
            self.inventory.table_win -= r.net()  # the table's own figure: the house's side of the settlements
        # SETTLED is passed through: the table is at once ready for the next bets (or a shuffle),
        # while last_round keeps the result on show until the next round's first card.
        self.set_phase(Phase.SETTLED)
        if self.rules.reshuffle_every_round:
            self.set_phase(Phase.WAITING_FOR_SHUFFLE)
        elif self.shoe is not None and self.shoe.cut_card_out:
            self.set_phase(Phase.WAITING_FOR_SHUFFLE)
            self.raise_alert(AlertKind.SHUFFLE_DUE,
                              f"the cut card is out: shuffle (right to cut: {self.right_to_cut})", None)
        elif self.shoe is not None and self.shoe.spent:
            self.set_phase(Phase.WAITING_FOR_SHUFFLE)
            self.raise_alert(AlertKind.SHUFFLE_DUE, f"shoe {self.shoe.shoe_id} is spent: shuffle", None)
        elif self.shoe is not None and self.shoe.must_shuffle:
            self.set_phase(Phase.WAITING_FOR_SHUFFLE)
            self.raise_alert(AlertKind.SHUFFLE_DUE, f"the bottom card of shoe {self.shoe.shoe_id} is an ace: "
                              "shuffle and cut again", None)
        else:
            self.set_phase(Phase.BETTING)


Table._DISPATCH = {
    ev.CardDrawn: (None, Table._on_card),
    ev.PlaceBet: (Table._check_bet, Table.on_bet),
    ev.Shuffle: (Table.check_shuffle, Table.on_shuffle),
    ev.SetRules: (Table.check_rules, Table.on_rules),
    ev.Reserve: (Table._check_reserve, Table._on_reserve),
    ev.DiscardCard: (Table._check_discard, Table._on_discard),
    ev.VoidRound: (Table._check_void, Table._on_void),
    ev.Tick: (None, Table._on_tick),
    ev.ShoeFault: (None, Table._on_shoe_fault),
    ev.ShoeFaultCleared: (None, Table._on_shoe_fault_cleared),
    ev.LinkDown: (None, Table._on_link_down),
    ev.LinkUp: (None, Table._on_link_up),
    ev.CallPit: (None, Table._on_call_pit),
    ev.AcknowledgeAlert: (Table._check_ack, Table._on_ack),
    ev.ShoeGate: (Table._check_gate, Table._on_gate),
    ev.ShoeCount: (None, Table._on_shoe_count),
    ev.DealerIn: (Table._check_dealer_in, Table._on_dealer_in),
    ev.DealerOut: (Table._check_dealer_out, Table._on_dealer_out),
    ev.Imported: (Table._check_imported, Table._on_imported),
    ev.Seat: (Table._check_seat, Table._on_seat),
    ev.Unseat: (Table._check_unseat, Table._on_unseat),
    ev.Pause: (Table._check_pause, Table._on_pause),
    ev.Resume: (Table._check_resume, Table._on_resume),
    ev.BuyIn: (Table._check_buy_in, Table._on_buy_in),
    ev.Opener: (None, Table._on_inventory),
    ev.Closer: (None, Table._on_inventory),
    ev.Drop: (None, Table._on_inventory),
    ev.FillRequest: (None, Table._on_slip_request),
    ev.CreditRequest: (None, Table._on_slip_request),
    ev.SignSlip: (Table._check_sign, Table._on_sign),
    ev.SignShift: (Table._check_sign_shift, Table._on_inventory),
}


def _fault_prefix(kind: str) -> str:
    """How a shoe fault's alert begins: its kind, which `shoe_fault_cleared` names to end its cause."""
    return f"shoe fault {kind}"


def _is_fault(alert: Alert, kind: str) -> bool:
    """`alert` is a shoe fault of `kind` (its message is `_fault_prefix(kind)`, then its detail)."""
    prefix = _fault_prefix(kind)
    return alert.kind is AlertKind.SHOE_FAULT and (alert.message == prefix or alert.message.startswith(prefix + ": "))


_LOCK_REASON = {
    AlertKind.UNEXPECTED_CARD: "an unexpected card is held",
    AlertKind.INTEGRITY: "an integrity alert is open: the supervisor must acknowledge it",
    AlertKind.SHOE_FAULT: "the shoe reports a fault: the supervisor must acknowledge it",
}
