"""Baccarat (punto banco, EZ Baccarat) on the table: the shoe's cards alone decide and settle every coup.

A coup, as docs/rules.md (Baccarat) restates the published rules of play:

1. Bets on the boxes' spots (player, banker, tie, the pairs; EZ: dragon7, panda8) between coups. After a
   shuffle the first card is turned and that many cards are burnt (``burn``).
2. The first card after the bets starts the coup; cards go Player, Banker, Player, Banker, then third cards
   by the tableau (`tableau`). The engine assigns every card by the tableau: the shoe cannot tell hands.
3. Once decided, every spot is settled to the cent (`settlement`); the coup goes on the shoe's scoreboard.
4. Under the squeeze (``squeeze``) every card is dealt face down; the coup settles only once the dealer has
   marked its cards turned (`events.Reveal`): below supervisor nothing tells the result before.

A card is never refused: a card when no coup is open, or (under the squeeze) a card the tableau did not call
for, is held and the table goes to attention (docs/baccarat.md gives the supervisor's procedure).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from controller import events as ev
from controller.alerts import AlertKind
from controller.cards import HIDDEN, Card
from controller.effects import CardPlaced, CardsTurned, burnt_card
from controller.errors import SnapshotError
from controller.game import Dispatch, Game, ShoeFigure, TableOps
from controller.hand import BoxInPlay, Hand, Outcome
from controller.legality import GameAction, Refusal
from controller.money import money
from controller.phase import READY, Phase
from controller.round import Round, VoidReason
from controller.snapshot import cents_of, check

from . import settlement as pay
from .coup import SPOTS, WAITING, Coup, SpotHand, make_box
from .events import CollectCommission, Reveal, SpotOdds
from .odds import MAIN_SPOTS, USUAL_WINDOW, alert_detail, alert_text, over_usual, usual_size
from .snapshot import CoupState, ShoeStateModel, dump_coup, load_coup
from .rules import BaccaratRules, LastCoup
from .tableau import BANKER, PLAYER, points


class BaccaratAction(GameAction):
    """Baccarat's decisions: the players make none; under the squeeze the dealer marks the cards turned."""

    REVEAL = "reveal"
    COLLECT_COMMISSION = "collect_commission"


class ShoeState:
    """What baccarat keeps between coups: the shoe's coups (its scoreboard), the coups still to deal after the
    cut card, the commission owed per box and player (``commission_collect = end_of_shoe``), and the side-bet
    watch's (`odds`): the newest exact expectations and each side spot's recent bets (its usual size)."""

    __slots__ = ("coups", "after_cut", "owed", "odds", "side_stakes")

    def __init__(self) -> None:
        self.coups: list[dict[str, Any]] = []  # each settled coup of the shoe, oldest first (`coup_summary`)
        self.after_cut: int | None = None  # coups still to start after the one in progress (None: cut card in)
        self.owed: dict[int, dict[str, int]] = {}  # box -> player -> commission owed, in cents
        # (shoe, cards out, spot -> expectation) of the newest `SpotOdds`: the coup dealt after those cards
        self.odds: tuple[str, int, dict[str, float]] | None = None
        self.side_stakes: dict[str, list[int]] = {}  # side spot -> its newest bets in settled coups, in cents

    def as_dict(self) -> dict[str, Any]:
        """As plain data."""
        return {"coups": self.coups, "after_cut": self.after_cut,
                "owed": [{"box": b, "player": p, "amount": money(a)} for b, ps in sorted(self.owed.items())
                         for p, a in ps.items()],
                "odds": None if self.odds is None else {"shoe_id": self.odds[0], "cards_out": self.odds[1],
                                                        "expectations": self.odds[2]},
                "side_stakes": {spot: list(bets) for spot, bets in sorted(self.side_stakes.items())}}


MAX_COUPS_KEPT = 120
"""A shoe of 8 decks deals at most about 85 coups: the scoreboard keeps this many (older ones drop off)."""


def coup_summary(r: Coup) -> dict[str, Any]:
    """A settled coup as the scoreboard keeps it: who won, the points, the pairs, a natural."""
    facts = r.facts()
    return {"number": r.number, "result": facts.result.value, "player": points(list(facts.player)),
            "banker": points(list(facts.banker)), "player_pair": facts.player_pair, "banker_pair": facts.banker_pair,
            "natural": len(facts.player) == 2 and len(facts.banker) == 2 and max(
                points(list(facts.player)), points(list(facts.banker))) >= 8}


class Baccarat(Game[Coup, BaccaratRules]):
    """Baccarat: no player decides anything; the shoe's cards, by the tableau, decide and settle every coup."""

    name = "baccarat"
    rules_model = BaccaratRules
    dealer_title = "Banker"
    view_kind = "baccarat"
    spots = SPOTS
    card_destinations = (PLAYER, BANKER, WAITING, "burn")
    blocked_by_attention = frozenset({Reveal, CollectCommission})
    # The odds come from the table's own worker; a person's key could forge them (and the alert), so below the
    # supervisor none may send them.
    supervisor_events = frozenset({SpotOdds})
    surveillance_events = frozenset({SpotOdds})  # (the odds are surveillance's: not the dealer's nor a viewer's)
    collect_events = frozenset({CollectCommission})  # (the shift's figures: the commission kept in a box, paid)
    shoe_figures = frozenset({ShoeFigure.DEALT, ShoeFigure.BURNED, ShoeFigure.PENETRATION, ShoeFigure.CUT_CARD,
                              ShoeFigure.RANKS_LEFT})

    def events(self) -> Dispatch:
        """The cut card, the shuffle (a new shoe's scoreboard), the squeeze's reveal, the commission collected."""
        return {
            ev.CutCardOut: (None, self._on_cut_card),
            ev.Shuffle: (self._check_shuffle, self._on_shuffle),
            Reveal: (self._check_reveal, self._on_reveal),
            CollectCommission: (self._check_collect, self._on_collect),
            ev.PlaceBet: (self.check_bet, self._on_bet),
            SpotOdds: (None, self._on_odds),
        }

    def new_state(self) -> ShoeState:
        """A new table has no coups yet."""
        return ShoeState()

    def state(self, t: TableOps) -> ShoeState:
        """The table's baccarat state."""
        s = t.game_state
        assert isinstance(s, ShoeState)
        return s

    # ================================================================== bets
    def check_bet(self, t: TableOps, e: ev.PlaceBet) -> Refusal | None:
        """A side bet the table does not offer is refused; else the spot's own limits (`Game.check_bet`)."""
        rules = self.rules_of(t)
        if (e.spot == pay.DRAGON7 and not rules.dragon7) or (e.spot == pay.PANDA8 and not rules.panda8):
            return Refusal("no_such_spot", f"this table does not offer {e.spot}")
        return super().check_bet(t, e)

    def _on_bet(self, t: TableOps, e: ev.PlaceBet) -> None:
        """The table takes the bet (`TableOps.on_bet`); the side-bet watch looks at what it changed."""
        before = {(p, spot): c for p, spots in t.pending.get(e.box, {}).items() for spot, c in spots.items()}
        t.on_bet(e)
        s = self.state(t)
        shoe = t.shoe
        if s.odds is None or shoe is None or (s.odds[0], s.odds[1]) != (shoe.shoe_id, shoe.dealt):
            return  # no odds yet for the coup these bets are for (they are checked when the odds come)
        for p, spots in t.pending.get(e.box, {}).items():
            for spot, cents in spots.items():
                was = before.get((p, spot), 0)
                if cents != was:
                    self._watch_side_bet(t, s, e.box, p, spot, was, cents, e.at)

    # ================================================================== the side-bet watch (odds.py)
    def _odds_for(self, t: TableOps, e: SpotOdds) -> bool:
        """Whether the odds are for the coup about to be dealt, or for the coup in progress (they were taken
        before its first card): the shoe's cards out then are ``cards_out``."""
        shoe = t.shoe
        if shoe is None or shoe.shoe_id != e.shoe_id:
            return False
        r = self.round_of(t)
        return shoe.dealt - (len(r.order) + len(r.waiting) if r is not None else 0) == e.cards_out

    def _on_odds(self, t: TableOps, e: SpotOdds) -> None:
        """Keep the odds for bets still to come, and check every bet already on the coup they are for.

        Odds the shoe has moved on from (a card came while the worker computed: the burn after a shuffle, a coup
        dealt quickly) change nothing. They are not refused: a refusal is the dealer's in the dealers' figures
        (`protect dealers` counts them per shift), and the worker's lateness is nobody's doing."""
        if not self._odds_for(t, e):
            return
        s = self.state(t)
        s.odds = (e.shoe_id, e.cards_out, dict(e.expectations))
        r = self.round_of(t)
        if r is not None:
            bets = [(b.number, h.player, h.spot, h.stake) for b in r.boxes for h in b.hands if isinstance(h, SpotHand)]
        else:
            bets = [(box, p, spot, c) for box, ps in sorted(t.pending.items()) for p, spots in ps.items()
                    for spot, c in spots.items()]
        for box, player, spot, cents in bets:
            self._watch_side_bet(t, s, box, player, spot, 0, cents, e.at)

    def _watch_side_bet(self, t: TableOps, s: ShoeState, box: int, player: str, spot: str, before: int, after: int,
                        at: datetime | None) -> None:
        """Raise ``side_bet_edge`` when this bet crosses its spot's usual size at a positive expectation."""
        if spot in MAIN_SPOTS or s.odds is None:
            return
        shoe_id, cards_out, expectations = s.odds
        minimum = next((sp.limits(t.rules)[0] for sp in SPOTS if sp.name == spot and sp.limits is not None), 0)
        usual = usual_size(s.side_stakes.get(spot, []), minimum)
        expectation = expectations.get(spot)
        if expectation is not None and over_usual(expectation, before, after, usual):
            t.raise_alert(AlertKind.SIDE_BET_EDGE, alert_text(box), at,
                          secret=alert_detail(player, spot, after, usual, expectation, shoe_id, cards_out))

    # ================================================================== cards
    def place(self, t: TableOps, card: Card, e: ev.CardDrawn) -> None:
        """The burn after a shuffle, a coup's first card when bets are down, the coup's cards by the tableau."""
        phase = t.phase
        if phase is Phase.DEALING:
            self._deal(t, card, e.at)
        elif phase in READY:
            shoe = self.loaded_shoe(t)
            if t.burn_left > 0:
                first = shoe.burned == 0
                t.burn_left -= 1
                shoe.burned += 1
                t.emit(burnt_card(card))
                if first and self.rules_of(t).burn == "face_value":
                    t.burn_left = card.value  # the first card turned: that many more burnt (tens and faces 10)
            elif t.pending:
                boxes = t.take_pending(make_box)
                t.round = Coup(t.rounds_played, shoe.shoe_id, boxes, e.at)
                t.previous = None
                t.set_phase(Phase.DEALING)
                self._deal(t, card, e.at)
            else:
                t.hold(card, "no bets are on the table", e.at)
        else:
            t.hold(card, f"no card is expected now ({phase.value})", e.at)

    def _deal(self, t: TableOps, card: Card, at: datetime | None) -> None:
        r = self.in_play(t)
        squeeze = self.rules_of(t).squeeze
        if squeeze and len(r.order) >= 4 and r.hidden():
            # A third card while cards lie face down: which hand it is for (or that none was due) would tell the
            # tableau, and so the totals, before the room has seen them. It waits face down, for no hand, until
            # the cards are turned (`_on_reveal`).
            r.waiting.append(card)
            t.emit(CardPlaced(card.code, WAITING, face_down=True))
            return
        if not self._give(t, r, card, at, face_down=squeeze) and r.due() is None and not r.hidden():
            self._settle(t, r)

    def _give(self, t: TableOps, r: Coup, card: Card, at: datetime | None, *, face_down: bool) -> bool:
        """Give a card to the hand the tableau calls it for; a card none is due for is held (True)."""
        due = r.due()
        if due is None:
            t.hold(card, "the coup is decided: the tableau calls for no more cards", at)
            return True
        (r.punto if due == PLAYER else r.banco).add(card)
        r.order.append(due)
        if not face_down:
            r.turned = len(r.order)
        t.emit(CardPlaced(card.code, due, face_down=face_down))
        return False

    def face_down_next(self, t: TableOps) -> str | None:
        """Under the squeeze every card of a coup goes face down; the alert names neither hand."""
        if not self.rules_of(t).squeeze:
            return None
        if t.phase is Phase.DEALING or (t.phase in READY and t.pending and t.burn_left == 0):
            return "the coup"
        return None

    def next_card(self, t: TableOps) -> str | None:
        """'player', 'banker', 'burn', 'first card', or None; under the squeeze, while a card is face down, the
        same words whether or not a card is due ('the coup'): the tableau is not told before the cards are turned."""
        r = self.round_of(t)
        if r is not None:
            if r.hidden():
                return "the coup"
            return r.due()
        if t.phase in READY and t.shoe is not None and (t.pending or t.burn_left):
            return "burn" if t.burn_left else "first card"
        return None

    def hidden_cards(self, t: TableOps) -> list[Card]:
        """Every card of the coup not yet turned (the squeeze)."""
        r = self.round_of(t)
        return r.hidden() if r is not None else []

    def dealer_card_closed(self, t: TableOps) -> bool:
        """A card of the Banker's hand lies face down."""
        r = self.round_of(t)
        return r is not None and any(h == BANKER for h in r.order[r.turned:])

    def reveal_all(self, t: TableOps, r: Round) -> None:
        """A coup over keeps no secret: every card still face down is turned."""
        assert isinstance(r, Coup)
        self._turn(t, r)

    def _turn(self, t: TableOps, r: Coup) -> list[Card]:
        """Turn every card face down; the cards that were waiting for a hand are returned, in the order dealt."""
        hidden = r.hidden()
        if hidden:
            r.turned = len(r.order)
            waiting, r.waiting = r.waiting, []
            t.emit(CardsTurned(tuple(c.code for c in hidden)))
            return waiting
        return []

    # ================================================================== the shoe
    def _check_shuffle(self, t: TableOps, e: ev.Shuffle) -> Refusal | None:
        return t.check_shuffle(e)

    def _on_shuffle(self, t: TableOps, e: ev.Shuffle) -> None:
        mid_coup = t.round is not None  # a spent shoe replaced in the middle of a coup: the same shoe's scoreboard
        t.on_shuffle(e)
        if not mid_coup:
            s = self.state(t)
            s.coups = []
            s.after_cut = None

    def _on_cut_card(self, t: TableOps, e: ev.CutCardOut) -> None:
        """docs/rules.md, Baccarat: the coup in progress is finished and (``one_more``) one more coup is dealt."""
        shoe = t.shoe
        s = self.state(t)
        if shoe is None or shoe.cut_card_out or s.after_cut is not None:
            return  # nothing to track, or already out (a resend)
        shoe.cut_card_position = e.position if e.position is not None else shoe.dealt + 1
        one_more = self.rules_of(t).last_coup is LastCoup.ONE_MORE
        if t.round is not None:
            s.after_cut = 1 if one_more else 0
        elif one_more or t.pending:
            s.after_cut = 0  # the next coup is the last
        else:
            shoe.cut_card_out = True
            if t.phase in READY:
                t.set_phase(Phase.WAITING_FOR_SHUFFLE)
                t.raise_alert(AlertKind.SHUFFLE_DUE, "the cut card is out: shuffle", e.at)
            elif t.phase is Phase.ATTENTION and t.resume_phase in READY:
                t.resume_phase = Phase.WAITING_FOR_SHUFFLE
                t.raise_alert(AlertKind.SHUFFLE_DUE, "the cut card is out: shuffle", e.at)

    # ================================================================== settlement
    def _settle(self, t: TableOps, r: Coup) -> None:
        rules = self.rules_of(t)
        facts = r.facts()
        s = self.state(t)
        for box in r.boxes:
            for hand in box.hands:
                assert isinstance(hand, SpotHand)
                paid = pay.settle_spot(hand.spot, hand.stake, facts, rules)
                hand.settle(paid.outcome, paid.net)
                hand.commission, hand.owed = paid.commission, paid.owed
                if paid.owed and paid.commission:
                    owed = s.owed.setdefault(box.number, {})
                    owed[hand.player] = owed.get(hand.player, 0) + paid.commission
                if hand.spot not in MAIN_SPOTS:  # the side spot's usual size (odds.py)
                    history = s.side_stakes.setdefault(hand.spot, [])
                    history.append(hand.stake)
                    del history[:-USUAL_WINDOW]
        s.coups.append(coup_summary(r))
        del s.coups[:-MAX_COUPS_KEPT]
        if s.after_cut is not None:
            if s.after_cut == 0:
                shoe = self.loaded_shoe(t)
                shoe.cut_card_out = True  # the last coup is over: finish_round calls the shuffle
                s.after_cut = None
            else:
                s.after_cut -= 1
        t.finish_round(r)

    def void(self, t: TableOps, reason: VoidReason = VoidReason.SUPERVISOR) -> None:
        """A voided coup returns every bet on it (its cards go to the discard; the scoreboard skips it)."""
        r = self.in_play(t)
        r.voided, r.void_reason = True, reason
        for box in r.boxes:
            for hand in box.hands:
                hand.settle(Outcome.VOID, 0)
        t.finish_round(r)

    # ================================================================== the dealer's marks
    def legal_actions(self, t: TableOps) -> list[GameAction]:
        """``reveal`` while a card of the coup lies face down; ``collect_commission`` while any is owed."""
        out: list[GameAction] = []
        r = self.round_of(t)
        if r is not None and r.hidden() and t.phase is Phase.DEALING:
            out.append(BaccaratAction.REVEAL)
        if self.state(t).owed:
            out.append(BaccaratAction.COLLECT_COMMISSION)
        return out

    def _check_reveal(self, t: TableOps, e: Reveal) -> Refusal | None:
        r = self.round_of(t)
        if r is None or t.phase is not Phase.DEALING or not r.hidden():
            return Refusal("nothing_face_down", "no card of a coup lies face down")
        return None

    def _on_reveal(self, t: TableOps, e: Reveal) -> None:
        r = self.in_play(t)
        held: list[Card] = []
        for card in self._turn(t, r):  # now the tableau is seen: each waiting card goes where it calls for
            due = r.due()
            if due is None:
                held.append(card)
            else:
                (r.punto if due == PLAYER else r.banco).add(card)
                r.order.append(due)
                r.turned = len(r.order)
        if r.due() is None:
            self._settle(t, r)
        for card in held:
            # docs/baccarat.md: a card dealt that the tableau did not call for is a dead card; the coup stands by
            # the tableau and the card is held for the supervisor to discard.
            t.hold(card, "a card the tableau did not call for (the coup stands by the tableau)", e.at)

    def _check_collect(self, t: TableOps, e: CollectCommission) -> Refusal | None:
        owed = self.state(t).owed.get(e.box, {})
        if not owed or (e.player is not None and e.player not in owed):
            who = f"{e.player} at box {e.box}" if e.player is not None else f"box {e.box}"
            return Refusal("no_commission_owed", f"{who} owes no commission")
        return None

    def _on_collect(self, t: TableOps, e: CollectCommission) -> None:
        s = self.state(t)
        owed = s.owed[e.box]
        for player in ([e.player] if e.player is not None else list(owed)):
            owed.pop(player, None)
        if not owed:
            del s.owed[e.box]

    # ================================================================== views and snapshots
    def view(self, t: TableOps, reveal: bool) -> dict[str, Any]:
        """The boxes' spots, both hands (a face-down card XX unless ``reveal``), the coup's result once shown."""
        r = self.round_of(t)
        s = self.state(t)
        boxes = [_box_view(b) for b in r.boxes] if r is not None else []
        shown = r is None or reveal or not r.hidden()
        player = _hand_view(r, PLAYER, reveal) if r is not None else _EMPTY
        banker = _hand_view(r, BANKER, reveal) if r is not None else _EMPTY
        return {
            "boxes": boxes,
            "dealer": {"cards": banker["cards"], "totals": banker["totals"], "hole_hidden": banker["hidden"],
                       "done": False},
            "turn": None,
            "legal_actions": [a.value for a in self.legal_actions(t)],
            "settled": settled_view(t.previous) if r is None and t.previous is not None else None,
            "player_hand": player,
            "banker_hand": banker,
            # Cards dealt face down for no hand yet (the squeeze): XX below supervisor.
            "waiting": [c.code if reveal else HIDDEN for c in r.waiting] if r is not None else [],
            # Whether the tableau calls for another card: told only once every card is turned.
            "decided": (r.due() is None) if r is not None and shown else None,
            "squeeze": self.rules_of(t).squeeze,
            "commission_owed": {str(b): {p: money(a) for p, a in ps.items()} for b, ps in sorted(s.owed.items())},
            "scoreboard_coups": len(s.coups),
        }

    def dump_round(self, r: Round) -> dict[str, Any]:
        """A coup as plain data."""
        assert isinstance(r, Coup)
        return dump_coup(r)

    def load_round(self, t: TableOps, data: Any) -> Round:
        """A coup from checked data."""
        return load_coup(check(CoupState, data, "round"))

    def dump_state(self, t: TableOps) -> Any:
        """The shoe's coups, the cut card's count-down and the commission owed."""
        return self.state(t).as_dict()

    def load_state(self, t: TableOps, data: Any) -> None:
        """Restore `dump_state`'s data, validated."""
        state = check(ShoeStateModel, data, "game_state")
        s = ShoeState()
        s.coups = [c.model_dump() for c in state.coups][-MAX_COUPS_KEPT:]
        s.after_cut = state.after_cut
        for o in state.owed:
            cents = cents_of(o.amount)
            if cents < 0:
                raise SnapshotError("malformed table snapshot: game_state: commission owed is never below zero")
            s.owed.setdefault(o.box, {})[o.player] = cents
        if state.odds is not None:
            s.odds = (state.odds.shoe_id, state.odds.cards_out, dict(state.odds.expectations))
        s.side_stakes = {spot: list(bets)[-USUAL_WINDOW:] for spot, bets in state.side_stakes.items()}
        t.game_state = s


_EMPTY: dict[str, Any] = {"cards": [], "totals": [], "hidden": False}


def _hand_view(r: Coup, hand: str, reveal: bool) -> dict[str, Any]:
    cards = (r.punto if hand == PLAYER else r.banco).cards
    turned_n = sum(1 for h in r.order[:r.turned] if h == hand)
    codes = [c.code if reveal or i < turned_n else HIDDEN for i, c in enumerate(cards)]
    hidden = HIDDEN in codes
    # A hand's points are shown only when every card of it is: a partial total would tell the closed card.
    return {"cards": codes, "totals": [points([c.value for c in cards])] if cards and not hidden else [],
            "hidden": hidden}


def _spot_view(h: Hand) -> dict[str, Any]:
    assert isinstance(h, SpotHand)
    return {"cards": [], "totals": [], "bet": money(h.stake), "done": h.done, "in_play": False,
            "outcome": h.outcome.value if h.outcome else None, "net": money(h.net) if h.net is not None else None,
            "spot": h.spot, "player": h.player, "commission": money(h.commission) if h.commission else None}


def _box_view(b: BoxInPlay) -> dict[str, Any]:
    return {"box": b.number, "owner": b.owner, "bets": {p: money(a) for p, a in b.bets.items()}, "insurance": None,
            "hands": [_spot_view(h) for h in b.hands]}


def settled_view(r: Round) -> dict[str, Any]:
    """The last settled coup as it lies on the felt until the next coup's first card."""
    assert isinstance(r, Coup)
    boxes = [{**_box_view(b), "net": money(b.net())} for b in r.boxes]
    for b in boxes:
        del b["insurance"]
    facts = r.facts() if not r.voided else None
    return {
        "number": r.number,
        "void": r.voided,
        "void_reason": r.void_reason.value if r.void_reason is not None else None,
        "dealer": {"cards": [c.code for c in r.banco.cards], "hole_hidden": False,
                   "totals": [points([c.value for c in r.banco.cards])] if r.banco.cards else [], "done": True},
        "player_hand": {"cards": [c.code for c in r.punto.cards],
                        "totals": [points([c.value for c in r.punto.cards])] if r.punto.cards else [],
                        "hidden": False},
        "result": facts.result.value if facts is not None and r.banco.cards and r.punto.cards else None,
        "boxes": boxes,
        "net": money(r.net()),
    }


__all__ = ["Baccarat", "BaccaratAction", "ShoeState", "settled_view"]
