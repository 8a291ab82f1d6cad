"""`club-21-36`, document 003's 36-card game: the banker puts up a bank and plays each box in turn.

As ``shared/rules.md`` (profile `club-21-36`) restates it:

* The bank: before the deal the banker puts up a bank (``open_bank``) within ``bank_min`` and
  ``bank_max``. A stake is at least the table minimum and at most the bank as it stands
  (va-banque: the whole bank). The bank lives from round to round until the banker closes it
  (``close_bank``: no sooner than after ``bank_rounds`` rounds of duels, or once it holds
  ``bank_multiple`` times what he put up) or it is empty.
* A round of duels: stakes first (a box is dealt in by its stake), one closed card to each box
  and to the banker, then (after a shuffle) the bottom card. Then each box in order plays the
  banker: it may raise its stake (``bet``) before it draws, draws one card at a time (21, two
  aces or five pictures win at once; over 21 loses at once), may draw dark (``dark``) and stops
  (``stand``). Then the banker turns his card and draws face up: on 15 he must draw
  (``banker_draws_to``), at 17 he may not (``banker_stands_on``), between he chooses
  (``banker_stand``). The bank pays or takes the stake; the next duel is played with a new card
  for the banker, or the one he kept when the box passed 21 before he drew.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from controller import events as ev
from controller import snapshot as snap
from controller.cards import Card, parse_card
from controller.effects import BankChanged, CardCarried, CardsTurned
from controller.errors import SnapshotError
from controller.hand import GameOutcome, Outcome
from controller.legality import Action, GameAction, Refusal
from controller.money import money, to_cents
from controller.phase import BETWEEN_ROUNDS, READY, Phase
from controller.round import Round, VoidReason
from controller import registry
from controller.game import MAIN, Dispatch, TableOps, on_spot

from ..club.events import BankerStand, Fold, Withdraw
from .events import CloseBank, Dark, DealIn, OpenBank
from ..club.outcomes import ClubOutcome
from ..club.actions import ClubAction
from .rules import Club2136Rules, DarkBothBust
from ..club import game as club
from ..club.game import BANKER, ClubBox, ClubHand
from .snapshot import BankState, Club2136RoundState

_BLOCKED = frozenset({ev.Stand, Dark, BankerStand, OpenBank, CloseBank, Withdraw, Fold})

_NO_BANK = Refusal("no_bank", "no bank is open: the banker puts up a bank first (open_bank)")
_BANK_OPEN = Refusal("bank_open", "a bank is open already: it is closed first")
_BANK_BETWEEN_ROUNDS = Refusal("round_in_progress", "the bank is opened and closed between rounds of duels")
_RAISE_CLOSED = Refusal("bets_closed", "a stake is raised only by the box whose duel it is, before it draws")
_DARK_ALREADY = Refusal("dark_already", "the box draws dark already")
_WITHDRAW_CLOSED = Refusal("withdraw_closed", "the banker is drawing against the box: its stake is in play")
_DEALT_IN_BETWEEN_ROUNDS = Refusal("bets_closed", "a box is dealt in between rounds of duels")


class Bank:
    """The banker's bank, from round to round (in cents): what he put up, what it holds, how long it has played.

    ``kept``: the card the banker kept in a round's last duel (a box passed 21 before his card was used),
    closed, carried into the next round's first duel (rules.md: he keeps it for the next duel).
    """

    __slots__ = ("open", "opened_with", "balance", "rounds", "duels", "ended", "kept")

    def __init__(self) -> None:
        self.open = False
        self.opened_with = 0
        self.balance = 0
        self.rounds = 0  # full rounds of duels played since it was opened
        self.duels = 0
        self.kept: Card | None = None
        # How the last bank ended: "emptied" (the boxes won it all) or "closed" (the supervisor took it down);
        # None while none has ended. The pit's review tells the two apart (rules.md: "an empty bank ends it").
        self.ended: str | None = None

    @property
    def state(self) -> str:
        """``open``, ``emptied``, ``closed`` (by the supervisor's close_bank), or ``none`` (never opened)."""
        return "open" if self.open else self.ended or "none"

    def may_close(self, rules: Club2136Rules) -> bool:
        """rules.md: no sooner than after ``bank_rounds`` rounds of duels, or once it has tripled."""
        return self.rounds >= rules.bank_rounds or self.balance >= rules.bank_multiple * self.opened_with

    def as_dict(self) -> dict[str, Any]:
        """Plain data (the snapshot's ``game_state``; ``ended`` only once a bank has ended and ``kept`` only while
        a card is kept, so a snapshot without them reads as it did)."""
        data: dict[str, Any] = {"open": self.open, "opened_with": money(self.opened_with),
                                "balance": money(self.balance), "rounds": self.rounds, "duels": self.duels}
        if self.ended:
            data["ended"] = self.ended
        if self.kept is not None:
            data["kept"] = self.kept.code
        return data


class Club2136Round(club.ClubRound):
    """A round of duels: the boxes dealt in by their stakes, each playing the banker in turn.

    ``box_i`` is the box whose duel it is; ``dealer`` is the banker's hand in that duel (each
    box keeps its duel's as ``ClubBox.banker``). ``duel_open``: the duels have begun (the
    deal, and after a shuffle the bottom card, are done); ``banker_card_due``: the banker
    takes a new card for the next duel; ``bank_before``: the bank when the round began.
    """

    __slots__ = ("duel_open", "banker_card_due", "bank_before", "bank_closed", "cut_from")

    def __init__(self, number: int, shoe_id: str | None, boxes: list[ClubBox], plan: list[int],
                 started_at: datetime | None, values: tuple[int, ...], bank_before: int) -> None:
        # The bottom card is read after the deal's first cards, so a round of duels begins without it.
        super().__init__(number, shoe_id, boxes, plan, started_at, values, None)
        boxes[0].banker = self.banker
        self.duel_open = False
        self.banker_card_due = False
        self.bank_before = bank_before
        self.bank_closed = False
        # box number -> the stake it placed before the deal, when the bank no longer covered it at its duel
        self.cut_from: dict[int, int] = {}

    def build_record(self) -> dict[str, Any]:
        """The record of the settled round of duels (``duels_record``)."""
        return duels_record(self)


def duels_record(r: Club2136Round) -> dict[str, Any]:
    """The record of a round of duels: the blackjack record's keys, each hand a duel with the banker's cards.

    ``dealer`` lists every card the banker held in the round, once each, in order (a card he kept
    after a box passed 21 belongs to the next duel); ``total`` is his total in the last duel.
    """
    hands = []
    banker_cards: list[str] = []
    total = 0
    last: ClubHand | None = None
    for box in r.club_boxes:
        banker = box.banker
        if banker is not None and banker.cards:
            banker_cards.extend(c.code for c in banker.cards)
            last = banker
        hand: ClubHand = box.club_hands[0]
        total += club.hand_net(hand)
        hands.append({
            **club.hand_record(box, hand),
            "dark": hand.dark,
            "banker": [c.code for c in banker.cards] if banker is not None else [],
            "banker_total": banker.total if banker is not None and banker.cards else None,
            "kept": box.kept,
            "bank_after": money(box.bank_after) if box.bank_after is not None else None,
            # only on a stake cut to the bank: the stake placed (``bet`` is what was played)
            **({"stake_cut_from": money(r.cut_from[box.number])} if box.number in r.cut_from else {}),
        })
    after = next((b.bank_after for b in reversed(r.club_boxes) if b.bank_after is not None),
                 r.bank_before)
    return club.club_record(r, Club2136.name, {"cards": banker_cards, "total": last.total if last is not None else 0},
                            hands, total,
                            {"bank": {"before": money(r.bank_before), "after": money(after), "closed": r.bank_closed,
                                      # the bank at the end of the round: a supervisor closes it only between
                                      # rounds (an incident of its own), so a round ends it only by emptying it
                                      "state": "emptied" if r.bank_closed else "open"}})


def special(hand: ClubHand) -> bool:
    """Two aces as the first two cards, or five picture cards: a win at once, counted as 21."""
    cards = hand.cards
    n = len(cards)
    return (n == 2 and cards[0].rank == cards[1].rank == "A") or (n == 5 and all(c.rank in "JQK" for c in cards))


def duel_result(hand: ClubHand, banker: ClubHand, rules: Club2136Rules) -> tuple[GameOutcome, int]:
    """rules.md, club-21-36: the higher total at 21 or less wins; a tie goes to the banker, to a dark
    box; a dark box and the banker both over 21: ``dark_both_bust``. Wins and losses are 1:1."""
    stake = hand.stake
    box_special, banker_special = special(hand), special(banker)
    box_total = 21 if box_special else hand.total
    banker_total = 21 if banker_special else banker.total
    box_bust = hand.hard > 21 and not box_special
    banker_bust = banker.hard > 21 and not banker_special
    dark = hand.dark
    if box_bust:
        if banker_bust and dark and rules.dark_both_bust is DarkBothBust.PLAYER:
            return Outcome.WIN, stake
        return ClubOutcome.BUST, -stake
    if banker_bust or box_total > banker_total or (box_total == banker_total and dark):
        return Outcome.WIN, stake
    return Outcome.LOSE, -stake


class Club2136(club.ClubGame[Club2136Round, Club2136Rules]):
    """club-21-36: the banker's bank against each box in turn, one duel at a time."""

    name = "club-21-36"
    rules_model = Club2136Rules
    blocked_by_attention = _BLOCKED
    # club-21-36's bank is the house's money put up and taken down (a fill and a credit the pit signs for).
    supervisor_events = frozenset({Withdraw, OpenBank, CloseBank})
    stake_events = frozenset({DealIn})  # a box dealt in stakes (or passes) on its duel

    def events(self) -> Dispatch:
        """The bank, the stakes and their raise, the boxes' and the banker's decisions, withdraw."""
        return {
            ev.CutCardOut: (None, club.ignore_cut_card),
            ev.Shuffle: (self.check_shuffle, self._on_shuffle_gathering),
            ev.SetRules: (self.check_rules, lambda t, e: t.on_rules(e)),
            ev.PlaceBet: (self.check_bet, self.on_bet),
            OpenBank: (self._check_open_bank, self._on_open_bank),
            CloseBank: (self._check_close_bank, self._on_close_bank),
            ev.Stand: (self._check_stand, self._on_stand),
            Dark: (self._check_dark, self._on_dark),
            BankerStand: (self._check_banker_stand, self._on_banker_stand),
            Withdraw: (self._check_withdraw, self._on_withdraw),
            DealIn: (self._check_deal_in, self._on_deal_in),
            Fold: (self._check_pass, self._on_pass),
        }

    def new_state(self) -> Bank:
        """A new table has no bank until the banker puts one up."""
        return Bank()

    # ================================================================== cards
    def place(self, t: TableOps, card: Card, e: ev.CardDrawn) -> None:
        """The deal, the bottom card after it, the banker's card for each duel, the box's draws, the banker's."""
        phase = t.phase
        shoe = t.shoe
        r = self.round_of(t)
        if r is not None and phase in (Phase.DEALING, Phase.PLAYERS, Phase.DEALER):
            if phase is Phase.DEALING and r.dealt < len(r.plan):
                self._deal(t, card)
            elif shoe is not None and shoe.bottom_due:
                # rules.md: after the first card to each box and the banker, the bottom card.
                if club.take_bottom(t, card, e.at, self.rules_of(t).values):
                    r.bottom = card
                    if not r.duel_open:
                        self._open_duel(t)
                else:
                    self.void(t, VoidReason.BOTTOM_ACE)  # an ace: the pack is shuffled and cut again (the bottom's round is void)
            elif phase is Phase.DEALING:
                club.to_banker(t, r.banker, card, up=False)  # the banker's new card for this duel
                r.banker_card_due = False
                t.set_phase(Phase.PLAYERS)
            elif phase is Phase.PLAYERS:
                if _unstaked(r):
                    t.hold(card, f"box {r.boxes[r.box_i].number} has not staked: it stakes (bet) or passes (fold) "
                                  "before it draws", e.at)
                else:
                    self._box_draws(t, card)
            elif club.banker_may_draw(self.rules_of(t), r.banker):
                club.to_banker(t, r.banker, card, up=True)
                self._banker_may_stop(t)
            else:
                t.hold(card, "the banker has finished drawing", e.at)
        elif phase in READY:
            if t.pending:  # (no shoe: the table holds the card before asking, Table._no_card_expected)
                self._start_round(t, e.at)
                self._deal(t, card)
            else:
                t.hold(card, "no stakes are on the table" if t.game_state.open else "no bank is open", e.at)
        else:  # (a due shuffle and the supervisor awaited are the table's: Table._no_card_expected)
            t.hold(card, f"no card is expected now ({phase.value})", e.at)

    def _expected(self, t: TableOps) -> str | None:
        """What the next card is: 'deal', 'bottom', 'banker' (closed), 'box', 'draw' (the banker's), or None."""
        r = self.round_of(t)
        phase = t.phase
        if r is None:
            return "deal" if phase in READY and t.shoe is not None and t.pending else None
        if phase is Phase.DEALING and r.dealt < len(r.plan):
            return "deal"
        if phase in (Phase.DEALING, Phase.PLAYERS, Phase.DEALER) and t.shoe is not None and t.shoe.bottom_due:
            return "bottom"
        if phase is Phase.DEALING:
            return "banker"
        if phase is Phase.PLAYERS:
            return None if _unstaked(r) else "box"  # a box dealt in without a stake stakes before it draws
        if phase is Phase.DEALER and club.banker_may_draw(self.rules_of(t), r.banker):
            return "draw"
        return None

    def face_down_next(self, t: TableOps) -> str | None:
        """The deal's cards, the banker's card for a duel and the box's draws go face down."""
        what = self._expected(t)
        r = self.round_of(t)
        if what == "deal":
            if r is None:
                return f"box {min(t.pending)}"
            return club.deal_target(r, "the banker")
        if what == "banker":
            return "the banker"
        if what == "box" and r is not None:
            return f"box {r.boxes[r.box_i].number}"
        return None

    def next_card(self, t: TableOps) -> str | None:
        """'first box', 'box N', 'banker', 'bottom', or None when no card is expected."""
        what = self._expected(t)
        r = self.round_of(t)
        if what is None:
            return None
        if what == "deal":
            if r is None:
                return "first box"
            return club.deal_target(r, "banker")
        if what == "box":
            r = self.in_play(t)  # a box's card is expected only in a round
            return f"box {r.club_boxes[r.box_i].number}"
        if what == "draw":
            return "banker"
        return what

    def hidden_cards(self, t: TableOps) -> list[Card]:
        """Every closed card on the table: the round's, and between rounds the card the banker kept."""
        kept = t.game_state.kept
        return club.closed_cards(self.round_of(t)) + ([kept] if kept is not None else [])

    def _let_go_kept(self, t: TableOps) -> None:
        """Decided (docs/club-games.md): the banker's kept card leaves play between rounds (a shuffle gathers it
        into the new pack; closing the bank discards it). It is turned face up as it goes, so the ledger row
        that dealt it is final again and the table's account shows which card it was."""
        bank: Bank = t.game_state
        if bank.kept is not None and t.round is None:
            t.emit(CardsTurned((bank.kept.code,), None))
            bank.kept = None

    def _on_shuffle_gathering(self, t: TableOps, e: ev.Shuffle) -> None:
        self._let_go_kept(t)
        self.on_shuffle(t, e)

    def cards_in_play(self, t: TableOps) -> list[Card]:
        """A pack shuffled in during a round lacks what is on the table: the first cards of the boxes still
        to play, the cards of the duel in play (the banker's too). The settled duels' went under the pack."""
        r = self.round_of(t)
        if r is None:
            return []
        cards = [c for b in r.club_boxes for h in b.open_hands() for c in h.cards]
        if r.boxes[min(r.box_i, len(r.boxes) - 1)].hands[0].outcome is None:
            cards.extend(r.banker.cards)
        return cards

    def check_shuffle(self, t: TableOps, e: ev.Shuffle) -> Refusal | None:
        return t.check_shuffle(e)

    def check_rules(self, t: TableOps, e: ev.SetRules) -> Refusal | None:
        refusal = t.check_rules(e)
        if refusal is None and t.game_state.open and (registry.profile(e.profile) or {}).get("game") != self.name:
            return Refusal("bank_open", "the bank is open: the banker closes it before the table plays another game")
        return refusal

    # ================================================================== the bank
    def incident(self, t: TableOps, event: ev.Event) -> str | None:
        """``the supervisor opens a bank of 1000`` / ``... closes the bank at 2400 (put up 1000, 4 rounds of
        duels)``: house money moved, between rounds, in no round's record (the bank as the event left it)."""
        if not isinstance(event, (OpenBank, CloseBank)):
            return None
        who = event.actor or "the supervisor"
        bank: Bank = t.game_state
        if isinstance(event, OpenBank):
            return f"{who} opens a bank of {money(bank.opened_with)}"
        rounds = bank.rounds
        return (f"{who} closes the bank at {money(bank.balance)} (put up {money(bank.opened_with)}, "
                f"{rounds} round{'' if rounds == 1 else 's'} of duels)")

    def _check_open_bank(self, t: TableOps, e: OpenBank) -> Refusal | None:
        rules = self.rules_of(t)
        bank: Bank = t.game_state
        if t.phase not in BETWEEN_ROUNDS:
            return _BANK_BETWEEN_ROUNDS
        if bank.open:
            return _BANK_OPEN
        amount = to_cents(e.amount)
        if amount is None or amount % rules.chip_cents:
            return Refusal("bank_not_whole_chips", f"a bank is put up in chips of {money(rules.chip_cents)}")
        if amount < rules.bank_min_cents:
            return Refusal("bank_under_min", f"a bank is at least {money(rules.bank_min_cents)}")
        if amount > rules.bank_max_cents:
            return Refusal("bank_over_max", f"a bank is at most {money(rules.bank_max_cents)}")
        return None

    def _on_open_bank(self, t: TableOps, e: OpenBank) -> None:
        bank: Bank = t.game_state
        amount = to_cents(e.amount)
        assert amount is not None
        bank.open, bank.opened_with, bank.balance, bank.rounds, bank.duels = True, amount, amount, 0, 0
        bank.ended = None
        self._bank_changed(t)

    def _check_close_bank(self, t: TableOps, e: CloseBank) -> Refusal | None:
        rules = self.rules_of(t)
        bank: Bank = t.game_state
        if not bank.open:
            return _NO_BANK
        if t.phase not in BETWEEN_ROUNDS:
            return _BANK_BETWEEN_ROUNDS
        if t.pending:
            return Refusal("bets_down", "stakes are down for the next round of duels: it is played first")
        if not bank.may_close(rules):
            return Refusal("bank_close_early",
                           f"the bank may close after {rules.bank_rounds} rounds of duels ({bank.rounds} played) "
                           f"or once it holds {money(rules.bank_multiple * bank.opened_with)} "
                           f"({money(bank.balance)} now)")
        return None

    def _on_close_bank(self, t: TableOps, e: CloseBank) -> None:
        self._let_go_kept(t)
        t.game_state.open = False
        t.game_state.ended = "closed"
        self._bank_changed(t)

    def _bank_changed(self, t: TableOps) -> None:
        bank: Bank = t.game_state
        t.emit(BankChanged(money(bank.balance), money(bank.opened_with), bank.open))

    # ------------------------------------------------------------------ stakes
    def check_bet(self, t: TableOps, e: ev.PlaceBet) -> Refusal | None:
        bank: Bank = t.game_state
        if t.phase is Phase.PLAYERS:
            return self._raise_refusal(t, e)
        if t.phase in BETWEEN_ROUNDS and not bank.open:
            return _NO_BANK
        refusal = super().check_bet(t, e)
        bets = on_spot(t.pending.get(e.box, {}))
        amount = to_cents(e.amount) or 0
        total = sum(bets.values()) + amount
        if refusal is not None:
            # Va-banque: a bank under the table minimum may still be played for all it holds.
            if not (refusal.code == "bet_under_min" and total == bank.balance):
                return refusal
        if total > bank.balance:
            return Refusal("bet_over_bank", f"box {e.box} would stake {money(total)}: the bank covers at most "
                                            f"{money(bank.balance)} (va-banque is the whole bank)")
        return None

    # ------------------------------------------------------------------ dealt in before the stake (003)
    def _check_deal_in(self, t: TableOps, e: DealIn) -> Refusal | None:
        bank: Bank = t.game_state
        if t.phase not in BETWEEN_ROUNDS:
            return _DEALT_IN_BETWEEN_ROUNDS
        if not bank.open:
            return _NO_BANK
        if e.box > t.rules.boxes:
            return Refusal("no_such_box", f"this table has boxes 1 to {t.rules.boxes}")
        if e.box in t.pending:
            return Refusal("box_taken", f"box {e.box} is in the next round already")
        reserved = t.reservations.get(e.box)
        if reserved and reserved[0] and e.player and e.player != reserved[0] and not t.lapsed(reserved, e.at):
            return Refusal("box_reserved", f"box {e.box} is reserved for {reserved[0]}")
        return None

    def _on_deal_in(self, t: TableOps, e: DealIn) -> None:
        # 003, "смотрит свою карту и выставляет": the box is dealt its card with nothing staked; it stakes on its duel.
        t.pending[e.box] = {e.player or f"box{e.box}": {MAIN: 0}}
        t.reservations.pop(e.box, None)
        if t.phase is Phase.SETTLED:
            t.set_phase(Phase.BETTING)

    def _check_pass(self, t: TableOps, e: Fold) -> Refusal | None:
        refusal = self._turn_refusal(t, "pass", e.box)
        if refusal is None and not _unstaked(self.in_play(t)):
            return Refusal("box_staked", f"box {e.box} has staked: it plays its duel (stand to stop drawing)")
        return refusal

    def _on_pass(self, t: TableOps, e: Fold) -> None:
        # The box looked at its card and will not stake: it leaves the round (its card goes under the pack with
        # the duel's), and the banker, whose card was not used, keeps it for the next box.
        r = self.in_play(t)
        r.boxes[r.box_i].hands[0].settle(ClubOutcome.FOLD, 0)
        r.box_i += 1
        self._duel_for(t, kept=True)

    def _raise_refusal(self, t: TableOps, e: ev.PlaceBet) -> Refusal | None:
        rules = self.rules_of(t)
        r = self.in_play(t)
        box = r.club_boxes[r.box_i]
        hand = box.hand
        if e.box != box.number or hand.drew or hand.dark_from is not None or hand.outcome is not None:
            return _RAISE_CLOSED
        player = e.player or box.owner
        if player not in box.bets:
            return Refusal("bets_closed", f"a stake is raised by a player already on box {box.number}")
        amount = to_cents(e.amount)
        if amount is None or amount % rules.chip_cents:
            return Refusal("bet_not_whole_chips", f"stakes are made in chips of {money(rules.chip_cents)}: "
                                                  f"{e.amount.normalize()} is not a whole number of chips")
        stake = hand.stake + amount
        bank: Bank = t.game_state
        if hand.stake == 0 and stake < rules.table_min_cents and stake != bank.balance:
            # 003: the box looks at its card and stakes at least the table minimum (va-banque: a smaller bank whole)
            return Refusal("bet_under_min", f"box {box.number} stakes at least the table minimum "
                                            f"{money(rules.table_min_cents)} (or the whole bank, "
                                            f"{money(bank.balance)}), not {money(stake)}")
        if stake > bank.balance:
            return Refusal("bet_over_bank", f"box {box.number} would stake {money(stake)}: the bank covers at most "
                                            f"{money(bank.balance)} (va-banque is the whole bank)")
        if stake > rules.table_max_cents:
            return Refusal("bet_over_max", f"box {box.number} would stake {money(stake)}, over the table maximum "
                                           f"{money(rules.table_max_cents)}")
        return None

    def on_bet(self, t: TableOps, e: ev.PlaceBet) -> None:
        if t.phase is not Phase.PLAYERS:
            t.on_bet(e)
            return
        r = self.in_play(t)
        box = r.club_boxes[r.box_i]
        player = e.player or box.owner
        amount = to_cents(e.amount)
        assert player is not None and amount is not None
        box.bets = {**box.bets, player: box.bets[player] + amount}
        box.bet += amount
        box.hand.stake += amount

    # ================================================================== the round of duels
    def _start_round(self, t: TableOps, at: datetime | None) -> None:
        rules = self.rules_of(t)
        bank: Bank = t.game_state
        boxes = club.club_boxes(t)
        plan = list(range(len(boxes)))  # one card to each box and to the banker, unless he holds a kept card
        if bank.kept is None:
            plan.append(BANKER)
        r = Club2136Round(t.rounds_played, t.shoe.shoe_id if t.shoe else None, boxes, plan, at, rules.values,
                       bank.balance)
        if bank.kept is not None:  # rules.md: the card he kept plays the next duel, this round's first
            r.banker.add(bank.kept)  # still closed
            boxes[0].kept = True
            bank.kept = None
        t.round = r
        t.previous = None
        t.set_phase(Phase.DEALING)

    def _deal(self, t: TableOps, card: Card) -> None:
        r = self.in_play(t)
        club.deal_next(t, r, card)
        if r.dealt == len(r.plan) and not (t.shoe is not None and t.shoe.bottom_due):
            self._open_duel(t)

    def _open_duel(self, t: TableOps) -> None:
        """The first duel: the box first in order plays the banker's card from the deal."""
        r = self.in_play(t)
        r.duel_open = True
        r.box_i = 0
        self._duel_for(t, kept=False, first=True)

    def _duel_for(self, t: TableOps, kept: bool, first: bool = False) -> None:
        """The next box still to play takes its duel (none left: the round is over). The banker plays it with
        the card from the deal (``first``), the card he kept when the last box passed 21 before he drew
        (``kept``), or a new card from the top."""
        r = self.in_play(t)
        boxes = r.club_boxes
        previous = r.banker
        while r.box_i < len(boxes) and boxes[r.box_i].hands[0].outcome is not None:
            r.box_i += 1
        if r.box_i >= len(boxes):
            if kept and previous.cards:
                # The last duel ended before the banker's card was used: he keeps it, closed, for the next
                # round's first duel (rules.md); it is not this round's, and it is not shown.
                t.game_state.kept = previous.remove_last()
                t.emit(CardCarried(None))
            self._end_round(t)
            return
        box = boxes[r.box_i]
        bank: Bank = t.game_state
        if box.hand.stake > bank.balance:
            # The bank binds: at most the bank as it stands (va-banque). A stake placed before the deal that earlier
            # duels left uncovered is cut, and the record says so (``stake_cut_from``), as the view's duel does.
            r.cut_from[box.number] = box.hand.stake
            box.hand.stake = bank.balance
        if first:
            if boxes[0] is not box:  # the first boxes left before their duel: the deal's card is this one's
                boxes[0].banker = None
                box.kept, boxes[0].kept = boxes[0].kept, False
            box.banker = previous
        elif kept and previous.cards:
            hand = ClubHand(None, 0, box.hand.values)
            hand.add(previous.remove_last())  # still closed: his card moves on to the next duel
            box.banker, box.kept = hand, True
        else:
            box.banker = ClubHand(None, 0, box.hand.values)
            r.banker_card_due = True
        r.dealer = box.banker
        t.set_phase(Phase.DEALING if r.banker_card_due else Phase.PLAYERS)

    def _box_draws(self, t: TableOps, card: Card) -> None:
        r = self.in_play(t)
        box = r.club_boxes[r.box_i]
        hand = box.hand
        hand.drew = True
        club.to_box(t, hand, card, box.number, 0)
        if hand.dark:
            return  # dark: nothing is known, nothing is settled, until the banker has drawn
        if special(hand) or hand.total == 21:
            club.turn(t, hand, box.number)
            self._duel_over(t, Outcome.WIN, hand.stake, kept=False)  # 21, two aces or five pictures: at once
        elif hand.hard > 21:
            club.turn(t, hand, box.number)
            self._duel_over(t, ClubOutcome.BUST, -hand.stake, kept=True)  # the banker keeps his unused card

    def _duel_over(self, t: TableOps, outcome: GameOutcome, net: int, kept: bool) -> None:
        r = self.in_play(t)
        box = r.club_boxes[r.box_i]
        bank: Bank = t.game_state
        box.hand.settle(outcome, net)
        bank.balance -= net  # a loss pays the stake into the bank, a win takes it from the bank
        bank.duels += 1
        box.bank_after = bank.balance
        if not kept:
            club.turn(t, r.banker, None)
        self._bank_changed(t)
        r.box_i += 1
        if bank.balance == 0:
            self._bank_empty(t)
            return
        self._duel_for(t, kept)

    def _bank_empty(self, t: TableOps) -> None:
        """rules.md: an empty bank ends it; the boxes still to play take their stakes back."""
        r = self.in_play(t)
        bank: Bank = t.game_state
        bank.open = False
        bank.ended = "emptied"
        r.bank_closed = True
        for box in r.club_boxes:
            for hand in box.open_hands():
                hand.settle(ClubOutcome.RETURNED, 0)
        self._bank_changed(t)
        t.finish_round(r)

    def _end_round(self, t: TableOps) -> None:
        r = self.in_play(t)
        if any(b.bank_after is not None for b in r.club_boxes):
            t.game_state.rounds += 1  # a full round of duels (a box that left played none)
        t.finish_round(r)

    # ------------------------------------------------------------------ the box's decisions
    def _turn_refusal(self, t: TableOps, what: str, number: int | None = None) -> Refusal | None:
        r = t.round
        if t.phase is not Phase.PLAYERS or r is None:
            return Refusal("not_players_turn", f"cannot {what} now: no box is playing its duel ({t.phase.value})")
        box = r.boxes[r.box_i]
        if number is not None and number != box.number:
            return Refusal("not_your_turn", f"it is box {box.number}'s duel, not box {number}'s")
        return None

    def _check_stand(self, t: TableOps, e: ev.Stand) -> Refusal | None:
        return self._turn_refusal(t, "stand") or self._stake_first(t)

    def _stake_first(self, t: TableOps) -> Refusal | None:
        """A box dealt in without a stake stakes or passes before anything else of its duel."""
        r = self.in_play(t)
        if not _unstaked(r):
            return None
        rules = self.rules_of(t)
        return Refusal("no_stake", f"box {r.boxes[r.box_i].number} has not staked: it stakes (bet, at least "
                                   f"{money(min(rules.table_min_cents, t.game_state.balance))}) or passes (fold)")

    def _on_stand(self, t: TableOps, e: ev.Stand) -> None:
        # The box stops: the banker turns his card and draws to it, face up.
        r = self.in_play(t)
        t.set_phase(Phase.DEALER)
        club.turn(t, r.banker, None)
        self._banker_may_stop(t)

    def _check_dark(self, t: TableOps, e: Dark) -> Refusal | None:
        refusal = self._turn_refusal(t, "draw dark", e.box) or self._stake_first(t)
        if refusal is not None:
            return refusal
        r = self.in_play(t)
        if r.club_boxes[r.box_i].hand.dark_from is not None:
            return _DARK_ALREADY
        return None

    def _on_dark(self, t: TableOps, e: Dark) -> None:
        # From now on the box takes its cards without looking at them, before the banker draws.
        r = self.in_play(t)
        hand = r.club_boxes[r.box_i].hand
        hand.dark_from = len(hand.cards)

    # ------------------------------------------------------------------ the banker
    def _banker_may_stop(self, t: TableOps) -> None:
        r = self.in_play(t)
        banker = r.banker
        if special(banker) or not club.banker_may_draw(self.rules_of(t), banker):
            self._settle_duel(t)  # 21, two aces, five pictures, over 21, or at the house's banker_stands_on

    def _on_banker_stand(self, t: TableOps, e: BankerStand) -> None:
        self._settle_duel(t)

    def _settle_duel(self, t: TableOps) -> None:
        r = self.in_play(t)
        box = r.club_boxes[r.box_i]
        club.turn(t, box.hand, box.number)
        outcome, net = duel_result(box.hand, r.banker, self.rules_of(t))
        self._duel_over(t, outcome, net, kept=False)

    # ------------------------------------------------------------------ the supervisor
    def _withdraw_closed(self, t: TableOps, r: Round, box: ClubBox) -> Refusal | None:
        """While the banker draws, only the stake of the box whose duel it is is in play."""
        return _WITHDRAW_CLOSED if t.phase is Phase.DEALER and r.boxes[r.box_i] is box else None

    def _on_withdraw(self, t: TableOps, e: Withdraw) -> None:
        r = self.in_play(t)
        box = r.club_box(e.box)
        index = r.boxes.index(box)
        box.hand.settle(ClubOutcome.WITHDRAWN, 0)
        if r.dealt < len(r.plan):  # a withdrawn box is dealt no more cards
            r.plan = r.plan[:r.dealt] + [x for x in r.plan[r.dealt:] if x != index]
            return
        if r.duel_open and r.box_i == index:
            # Its duel ends before the banker drew: he keeps his card for the next box (if he has it yet).
            r.banker_card_due = False
            r.box_i += 1
            self._duel_for(t, kept=True)

    def void(self, t: TableOps, reason: VoidReason = VoidReason.SUPERVISOR) -> None:
        """rules.md (decided for club-21-36): the duels already settled stand (their stakes have moved to or
        from the bank); the duel in play and the boxes still to play take their stakes back."""
        r = self.in_play(t)
        r.voided = True
        r.void_reason = reason
        for box in r.club_boxes:
            for hand in box.open_hands():
                hand.settle(Outcome.VOID, 0)
        t.finish_round(r)

    # ================================================================== what may be decided
    def legal_actions(self, t: TableOps) -> list[GameAction]:
        """The bank between rounds; the box's duel; the banker's draw."""
        phase = t.phase
        rules = self.rules_of(t)
        bank: Bank = t.game_state
        r = self.round_of(t)
        if r is None:
            if phase not in BETWEEN_ROUNDS:
                return []
            if not bank.open:
                return [ClubAction.OPEN_BANK]
            return [ClubAction.CLOSE_BANK] if bank.may_close(rules) and not t.pending else []
        if phase is Phase.PLAYERS:
            hand = r.club_boxes[r.box_i].hand
            if _unstaked(r):
                return [ClubAction.BET, ClubAction.FOLD]  # 003: it looked at its card; it stakes or passes
            actions: list[GameAction] = [Action.STAND]
            if not (t.shoe is not None and t.shoe.bottom_due):  # a new pack's first card is its bottom card
                actions.append(Action.HIT)
            if not hand.drew and hand.dark_from is None:
                if min(bank.balance, rules.table_max_cents) - hand.stake >= rules.chip_cents:
                    actions.append(ClubAction.BET)
            if hand.dark_from is None:
                actions.append(ClubAction.DARK)
            return actions
        if phase is Phase.DEALER:
            actions = []
            if club.banker_may_draw(rules, r.banker) and not (t.shoe is not None and t.shoe.bottom_due):
                actions.append(Action.HIT)
            if club.banker_stand_refusal(t) is None:
                actions.append(ClubAction.BANKER_STAND)
            return actions
        return []

    # ================================================================== views and snapshots
    def view(self, t: TableOps, reveal: bool) -> dict[str, Any]:
        """Boxes with closed hands unless ``reveal``, the banker's hand in the duel, and the bank."""
        r = self.round_of(t)
        rules = self.rules_of(t)
        bank: Bank = t.game_state
        boxes = []
        duel = None
        if r is not None:
            for bi, box in enumerate(r.club_boxes):
                in_play = r.duel_open and bi == r.box_i and t.phase is Phase.PLAYERS
                boxes.append({**club.box_view(box, [club.hand_view(box.club_hands[0], in_play, reveal)]),
                              "bank_after": money(box.bank_after) if box.bank_after is not None else None})
            if r.duel_open and r.box_i < len(r.boxes):
                box = r.club_boxes[r.box_i]
                duel = {"box": box.number, "stake": money(box.club_hands[0].stake), "dark": box.club_hands[0].dark,
                        "banker_kept_card": box.kept,
                        "cut_from": money(r.cut_from[box.number]) if box.number in r.cut_from else None}
        turn: dict[str, Any] | None = None
        if r is not None and r.duel_open and t.phase is Phase.PLAYERS:
            turn = {"box": r.boxes[r.box_i].number, "hand": 0}
        elif t.phase is Phase.DEALER:
            turn = {"dealer": True}
        shoe = t.shoe
        return {
            "boxes": boxes,
            "dealer": club.banker_view(r.banker if r is not None else None, False, reveal),
            "turn": turn,
            "legal_actions": [a.value for a in self.legal_actions(t)],
            "settled": club.settled_club_view(self.previous_of(t), _settled_extra) if r is None and t.previous is not None
            else None,
            "game": self.name,
            "bottom_card": shoe.bottom.code if shoe is not None and shoe.bottom is not None else None,
            "bank": {
                "open": bank.open,
                "state": bank.state,
                "balance": money(bank.balance),
                "opened_with": money(bank.opened_with),
                "limits": {"min": money(rules.bank_min_cents), "max": money(rules.bank_max_cents)},
                "duel": duel,
                "duels_played": bank.duels,
                "rounds_played": bank.rounds,
                "may_close": bank.open and bank.may_close(rules),
                "close_after_rounds": rules.bank_rounds,
                "close_multiple": rules.bank_multiple,
            },
        }

    def dump_round(self, r: Round) -> dict[str, Any]:
        """A round of duels as plain data."""
        assert isinstance(r, Club2136Round)
        return {
            "number": r.number,
            "shoe_id": r.shoe_id,
            "boxes": [club.dump_box(b) for b in r.club_boxes],
            "plan": list(r.plan),
            "dealt": r.dealt,
            "box_i": r.box_i,
            "started_at": r.started_at.isoformat() if r.started_at is not None else None,
            "voided": r.voided,
            **snap.dump_void_reason(r),
            "duel_open": r.duel_open,
            "banker_card_due": r.banker_card_due,
            "bottom": r.bottom.code if r.bottom is not None else None,
            "bank_before": money(r.bank_before),
            "bank_closed": r.bank_closed,
            "banker_of": next(i for i, b in enumerate(r.club_boxes) if b.banker is r.dealer),
            **({"cut_from": {str(n): money(c) for n, c in r.cut_from.items()}} if r.cut_from else {}),
        }

    def load_round(self, t: TableOps, data: Any) -> Round:
        """A round of duels from checked data."""
        state = snap.check(Club2136RoundState, data, "round")
        values: tuple[int, ...] = self.rules_of(t).values
        boxes = [club.load_box(b, values) for b in state.boxes]
        club.check_indices(state.plan, state.dealt, len(boxes), state.box_i, 0, [1] * len(boxes))
        bankers = [b.banker for b in boxes]
        banker_hand = bankers[state.banker_of] if state.banker_of < len(boxes) else None
        if any(len(b.hands) != 1 for b in boxes) or banker_hand is None:
            raise SnapshotError("malformed table snapshot: round: a duel is one hand a box, and banker_of "
                                     "names a box with the banker's hand")
        started = datetime.fromisoformat(state.started_at) if state.started_at is not None else None
        r = Club2136Round(state.number, state.shoe_id, boxes, list(state.plan), started, values,
                       snap.cents_of(state.bank_before))
        for box, banker in zip(boxes, bankers):
            box.banker = banker
        r.dealer = banker_hand
        r.dealt, r.box_i, r.voided = state.dealt, state.box_i, state.voided
        r.void_reason = state.void_reason
        r.duel_open, r.banker_card_due, r.bank_closed = state.duel_open, state.banker_card_due, state.bank_closed
        r.bottom = parse_card(state.bottom) if state.bottom is not None else None
        r.cut_from = {int(n): snap.cents_of(c) for n, c in state.cut_from.items()}
        return r

    def dump_state(self, t: TableOps) -> Any:
        """The bank."""
        return t.game_state.as_dict()

    def load_state(self, t: TableOps, data: Any) -> None:
        """The bank from checked data."""
        state = snap.check(BankState, data, "game_state")
        bank = Bank()
        bank.open, bank.rounds, bank.duels = state.open, state.rounds, state.duels
        bank.opened_with, bank.balance = snap.cents_of(state.opened_with), snap.cents_of(state.balance)
        bank.ended = state.ended
        bank.kept = parse_card(state.kept) if state.kept is not None else None
        if bank.balance < 0 or bank.opened_with < 0:
            raise SnapshotError("malformed table snapshot: game_state: the bank is never below zero")
        t.game_state = bank


def _unstaked(r: Club2136Round) -> bool:
    """The box whose duel it is was dealt in without a stake and has not staked yet (``deal_in``)."""
    return r.box_i < len(r.boxes) and r.boxes[r.box_i].hands[0].stake == 0


def _settled_extra(box: ClubBox) -> dict[str, Any]:
    banker = box.banker
    return {"banker": club.banker_view(banker, True, True) if banker is not None else None,
            "bank_after": money(box.bank_after) if box.bank_after is not None else None}
