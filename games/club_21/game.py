"""`club-21`, document 003's club "ochko" (twenty-one): the croupier deals, banks and plays every box.

The round, as ``shared/rules.md`` (profile `club-21`) restates it:

1. Bets first, within the table limits; the first card read after a shuffle is the bottom
   card (an ace: shuffle again).
2. Two rounds of one card, each betting box in order then the banker, all closed. With
   ``contra`` the banker may double every stake after the first round (``contra``), then each
   box its own (``recontra``); the next card closes that window.
3. The banker looks first: his two-card 21 is shown and takes every bet. Otherwise each box's
   two-card 21 is shown and paid at once (``natural_pays``).
4. The boxes, from the croupier's left, draw one card at a time as long as they like
   (``stand`` ends a box's turn; a box over 21 says nothing and stands itself). Options:
   ``pairs`` (split or double a pair), ``two_aces_split``, ``surrender``.
5. The banker turns his cards and draws face up until ``banker_stand`` (or the house's
   ``banker_draws_to`` / ``banker_stands_on``); then every card is shown and settled.
6. The pack running out (every card but the bottom one dealt) before every box and the banker
   have two cards voids the deal; running out while the boxes play, every box not yet settled
   doubles its stake and stands, or folds (``double`` / ``fold`` with its box); running out in
   the banker's draw, he stops there.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from controller import events as ev
from controller import snapshot as snap
from controller.cards import Card, parse_card
from controller.hand import GameOutcome, Outcome
from controller.legality import Action, GameAction, Refusal, named_box_refusal
from controller.phase import READY, Phase
from controller.round import Round, VoidReason
from controller.game import Dispatch, TableOps

from ..club.events import BankerStand, Fold, Withdraw
from .events import Contra, Recontra
from ..club.outcomes import ClubOutcome
from ..club.actions import ClubAction
from .rules import Club21Rules, NaturalAgainstNatural, Ties
from ..club import game as club
from ..club.game import BANKER, ClubBox, ClubHand
from .snapshot import Club21RoundState

_BLOCKED = frozenset({ev.Stand, ev.Double, ev.Split, ev.Surrender, Fold, BankerStand, Contra,
                      Recontra, Withdraw})

_NO_PAIRS = Refusal("split_not_allowed", "no splitting at this table (pairs and two_aces_split are off)")
_NOT_A_PAIR = Refusal("split_unequal", "the box's first two cards are not a pair")
_NOT_TWO_ACES = Refusal("split_not_allowed", "only two aces may be split at this table")
_SPLIT_FIRST_TWO = Refusal("split_not_allowed", "split only the box's first two cards, before it draws")
_NO_DOUBLE = Refusal("double_not_allowed", "a box doubles here only on a pair (pairs), or on a spent pack")
_DOUBLE_FIRST_TWO = Refusal("double_not_allowed", "double only a pair of the box's first two cards, before it draws")
_NOT_A_PAIR_TO_DOUBLE = Refusal("double_not_allowed", "the box's first two cards are not a pair")
_NO_SURRENDER = Refusal("surrender_not_allowed", "surrender is not offered at this table")
_SURRENDER_FIRST = Refusal("surrender_not_allowed", "surrender only on the box's first two cards, before it draws")
_NO_CONTRA = Refusal("contra_not_allowed", "contra and recontra are not played at this table")
_CONTRA_CLOSED = Refusal("contra_closed", "contra is taken after everyone's first card, before the second")
_CONTRA_DONE = Refusal("contra_done", "the banker has doubled the stakes already")
_NO_CONTRA_YET = Refusal("no_contra", "recontra answers the banker's contra: he has not doubled the stakes")
_PACK_NOT_SPENT = Refusal("pack_not_spent", "fold is the choice on a spent pack: the pack has cards")
_BOX_FOR_PACK = Refusal("needs_box", "on a spent pack name the box that doubles")
_WITHDRAW_CLOSED = Refusal("withdraw_closed", "the banker is drawing: a stake is withdrawn before that")


class Club21Round(club.ClubRound):
    """One deal of club-21, from its first card to its settlement.

    ``dealer`` is the banker's hand; ``contra``: the banker doubled every stake; ``pack_out``:
    the pack ran out while the boxes played (they chose to double or fold).
    """

    __slots__ = ("contra", "pack_out")

    def __init__(self, number: int, shoe_id: str | None, boxes: list[ClubBox], plan: list[int],
                 started_at: datetime | None, values: tuple[int, ...], bottom: Card | None) -> None:
        super().__init__(number, shoe_id, boxes, plan, started_at, values, bottom)
        self.contra = False
        self.pack_out = False

    def build_record(self) -> dict[str, Any]:
        """The record of the settled club-21 round (``club21_record``)."""
        return club21_record(self)


def club21_record(r: Club21Round) -> dict[str, Any]:
    """The record of a settled club-21 round: the blackjack record's keys, and the game's own."""
    hands = [club.hand_record(box, hand) for box in r.club_boxes for hand in box.club_hands]
    total = sum(club.hand_net(hand) for box in r.club_boxes for hand in box.hands)
    return club.club_record(r, Club21.name, {"cards": [c.code for c in r.banker.cards], "total": r.banker.total},
                            hands, total, {**({"contra": True} if r.contra else {}),
                                           **({"pack_out": True} if r.pack_out else {})})


def settle_hand(hand: ClubHand, banker: ClubHand, rules: Club21Rules) -> tuple[GameOutcome, int]:
    """rules.md, club-21, Settlement after the banker stops, all cards shown.

    Banker at 21 or less: a higher total wins 1:1, a lower total or over 21 loses, equal totals
    push (``ties = banker``: the banker wins them). Banker over 21: a box at 21 or less is paid
    ``banker_bust_pays`` (2:1), a box also over 21 takes its stake back.
    """
    stake = hand.stake
    if banker.hard > 21:
        if hand.hard > 21:
            return Outcome.PUSH, 0
        num, den = rules.banker_bust_parts
        return ClubOutcome.BANKER_BUST, stake * num // den
    if hand.hard > 21:
        return ClubOutcome.BUST, -stake
    if hand.total > banker.total:
        return Outcome.WIN, stake
    if hand.total < banker.total or rules.ties is Ties.BANKER:
        return Outcome.LOSE, -stake
    return Outcome.PUSH, 0


class Club21(club.ClubGame[Club21Round, Club21Rules]):
    """club-21: the banker plays every box; the players' cards are closed; he draws last, face up."""

    name = "club-21"
    rules_model = Club21Rules
    blocked_by_attention = _BLOCKED

    def events(self) -> Dispatch:
        """The boxes' decisions, the banker's, the spent pack's, the supervisor's withdraw."""
        return {
            ev.CutCardOut: (None, club.ignore_cut_card),
            ev.Shuffle: (self.check_shuffle, self.on_shuffle),
            ev.Stand: (self._check_stand, self._on_stand),
            ev.Split: (self._check_split, self._on_split),
            ev.Double: (self._check_double, self._on_double),
            ev.Surrender: (self._check_surrender, self._on_surrender),
            Fold: (self._check_fold, self._on_fold),
            BankerStand: (self._check_banker_stand, self._on_banker_stand),
            Contra: (self._check_contra, self._on_contra),
            Recontra: (self._check_recontra, self._on_recontra),
            Withdraw: (self._check_withdraw, self._on_withdraw),
        }

    # ================================================================== cards
    def place(self, t: TableOps, card: Card, e: ev.CardDrawn) -> None:
        """The bottom card or a new deal between rounds, the deal plan, the box in turn, the banker."""
        phase = t.phase
        if phase is Phase.DEALING:
            self._deal(t, card)
        elif phase is Phase.PLAYERS and t.shoe is not None and t.shoe.dealt > t.shoe.size:  # (this card counted)
            # rules.md: the pack runs out while a box still wants cards. A card read now is beyond the pack:
            # the box in turn wanted one, so the run-out begins, and the card is held (never lost).
            self._pack_out(t)
            t.hold(card, "the pack is spent: every box doubles or folds", e.at)
        elif phase is Phase.PLAYERS:
            self._draw(t, card)
        elif phase is Phase.DEALER:
            r = self.in_play(t)
            if club.banker_may_draw(self.rules_of(t), r.banker):
                club.to_banker(t, r.banker, card, up=True)
                self._banker_may_stop(t)
            else:
                t.hold(card, "the banker has finished drawing", e.at)
        elif phase is Phase.CONTRA:
            t.set_phase(Phase.DEALING)  # the next card closes the contra window
            self._deal(t, card)
        elif phase in READY:
            shoe = self.loaded_shoe(t)
            if shoe.bottom_due:
                if not club.take_bottom(t, card, e.at, self.rules_of(t).values):
                    club.ace_at_the_bottom(t, card, e.at)
            elif t.pending:
                self._start_round(t, e.at)
                self._deal(t, card)
            else:
                t.hold(card, "no bets are on the table", e.at)
        elif phase is Phase.PACK_OUT:
            t.hold(card, "the pack is spent: every box doubles or folds", e.at)
        else:  # (a due shuffle and the supervisor awaited are the table's: Table._no_card_expected)
            t.hold(card, f"no card is expected now ({phase.value})", e.at)

    def face_down_next(self, t: TableOps) -> str | None:
        """Every card to a box, and the banker's two in the deal, go face down."""
        r = self.round_of(t)
        phase = t.phase
        if r is not None and phase in (Phase.DEALING, Phase.CONTRA):
            return club.deal_target(r, "the banker")
        if r is not None and phase is Phase.PLAYERS and not self._spent(t):
            return f"box {r.boxes[r.box_i].number}"
        if r is None and phase in READY and t.shoe is not None and not t.shoe.bottom_due and t.pending:
            return f"box {min(t.pending)}"
        return None

    def next_card(self, t: TableOps) -> str | None:
        """'bottom', 'first box', 'box N', 'banker', or None when no card is expected."""
        r = self.round_of(t)
        phase = t.phase
        if r is None:
            if phase in READY and t.shoe is not None:
                if t.shoe.bottom_due:
                    return "bottom"
                if t.pending:
                    return "first box"
            return None
        if phase in (Phase.DEALING, Phase.CONTRA):
            return club.deal_target(r, "banker")
        if phase is Phase.PLAYERS:
            return None if self._spent(t) else f"box {r.boxes[r.box_i].number}"
        if phase is Phase.DEALER and club.banker_may_draw(self.rules_of(t), r.banker):
            return "banker"
        return None

    def check_shuffle(self, t: TableOps, e: ev.Shuffle) -> Refusal | None:
        if t.round is not None:
            return Refusal("round_in_progress", "finish the round before shuffling (on a spent pack every box "
                           "doubles or folds)")
        return t.check_shuffle(e)

    # ================================================================== the deal
    def _start_round(self, t: TableOps, at: datetime | None) -> None:
        rules = self.rules_of(t)
        boxes = club.club_boxes(t)
        order = list(range(len(boxes)))
        plan = order + [BANKER] + order + [BANKER]  # two rounds of one card: each box, then the banker
        t.round = Club21Round(t.rounds_played, t.shoe.shoe_id if t.shoe else None, boxes, plan, at, rules.values,
                             t.shoe.bottom if t.shoe else None)
        t.previous = None
        t.set_phase(Phase.DEALING)

    def _deal(self, t: TableOps, card: Card) -> None:
        r = self.in_play(t)
        target = club.deal_next(t, r, card)
        done = r.dealt == len(r.plan)
        if t.shoe is not None and t.shoe.spent and not done:
            # rules.md: the pack running out before every box and the banker have two cards voids the deal.
            self.void(t, VoidReason.PACK_RAN_OUT)
            return
        if not done:
            if target == BANKER and self.rules_of(t).contra:
                t.set_phase(Phase.CONTRA)  # everyone has a first card: the banker's contra, then recontra
            return
        self._after_deal(t)

    def _after_deal(self, t: TableOps) -> None:
        r = self.in_play(t)
        rules = self.rules_of(t)
        banker = r.banker
        if banker.is_blackjack:
            # rules.md: the banker looks first; his two-card 21 is shown and takes every bet,
            # the boxes' own two-card 21s included (natural_against_natural = push: those push).
            club.turn(t, banker, None)
            for box in r.club_boxes:
                for hand in box.open_hands():
                    if hand.is_blackjack and rules.natural_against_natural is NaturalAgainstNatural.PUSH:
                        hand.settle(Outcome.PUSH, 0)
                    else:
                        hand.settle(Outcome.LOSE, -hand.stake)
            t.finish_round(r)
            return
        num, den = rules.natural_parts
        for box in r.club_boxes:
            hand = box.hand
            if hand.outcome is None and hand.is_blackjack:  # shown and paid at once
                club.turn(t, hand, box.number)
                hand.settle(ClubOutcome.NATURAL, hand.stake * num // den)
        r.box_i, r.hand_i = 0, 0
        t.set_phase(Phase.PLAYERS)
        self._to_next_hand(t)

    # ================================================================== the boxes draw
    def _draw(self, t: TableOps, card: Card) -> None:
        r = self.in_play(t)
        hand = r.club_hand
        box = r.boxes[r.box_i]
        hand.drew = True
        club.to_box(t, hand, card, box.number, r.hand_i)
        # A box over 21 is not moved on (that would tell the banker it passed 21): it stands itself.
        if hand.doubled and len(hand.cards) >= 3:  # a doubled pair takes at most one more card
            hand.done = True
            self._to_next_hand(t)

    def _to_next_hand(self, t: TableOps) -> None:
        r = self.in_play(t)
        if r.to_next_hand():
            if self._spent(t) and len(r.hand.cards) < 2:
                self._pack_out(t)  # a split hand waiting for its second card wants one: the pack has none
            return
        self._banker_turn(t)

    @staticmethod
    def _spent(t: TableOps) -> bool:
        return t.shoe is not None and t.shoe.spent

    def _pack_out(self, t: TableOps) -> None:
        """rules.md: the pack runs out while a box still wants cards: every box not yet settled doubles or
        folds. It begins at the first box that wants a card once the pack is spent (003: "Если понтёр просит
        добрать, а колода кончилась"), not when the pack is spent: a box that stands plays on as usual."""
        r = self.in_play(t)
        r.pack_out = True
        t.set_phase(Phase.PACK_OUT)
        self._after_choice(t)

    def _after_choice(self, t: TableOps) -> None:
        r = self.in_play(t)
        if any(b.choice is None and b.open_hands() for b in r.club_boxes):
            return
        # The banker draws no more either: his cards are shown and the round is settled.
        club.turn(t, r.banker, None)
        self._settle(t)

    # ================================================================== the banker
    def _banker_turn(self, t: TableOps) -> None:
        r = self.in_play(t)
        t.set_phase(Phase.DEALER)
        club.turn(t, r.banker, None)  # he draws last, face up
        if not any(b.open_hands() for b in r.club_boxes):
            self._settle(t)  # no stake depends on his hand: he draws nothing
            return
        self._banker_may_stop(t)

    def _banker_may_stop(self, t: TableOps) -> None:
        r = self.in_play(t)
        if not club.banker_may_draw(self.rules_of(t), r.banker) or (t.shoe is not None and t.shoe.spent):
            self._settle(t)  # over 21, on 21, at the house's banker_stands_on, or the pack is spent

    def _on_banker_stand(self, t: TableOps, e: BankerStand) -> None:
        self._settle(t)

    def _settle(self, t: TableOps) -> None:
        r = self.in_play(t)
        rules = self.rules_of(t)
        for box in r.club_boxes:
            for hand in box.open_hands():
                hand.settle(*settle_hand(hand, r.banker, rules))
        t.finish_round(r)

    def void(self, t: TableOps, reason: VoidReason = VoidReason.SUPERVISOR) -> None:
        """rules.md: a voided round returns every bet on it, settled or not."""
        r = self.in_play(t)
        r.voided = True
        r.void_reason = reason
        for box in r.club_boxes:
            for hand in box.hands:
                hand.settle(Outcome.VOID, 0)
        t.finish_round(r)

    # ================================================================== the boxes' decisions
    def _turn(self, t: TableOps, what: str, number: int | None = None) -> tuple[Refusal | None, ClubHand | None]:
        """The hand in turn, ready for a decision (its cards dealt), or why not."""
        r = self.round_of(t)
        if t.phase is not Phase.PLAYERS or r is None:
            return Refusal("not_players_turn", f"cannot {what} now: no box is playing ({t.phase.value})"), None
        refusal = named_box_refusal(t.phase, r, number)
        if refusal is not None:
            return refusal, None
        hand = r.club_hand
        if len(hand.cards) < 2:
            return Refusal("needs_card", f"cannot {what}: the split hand needs a card first"), None
        return None, hand

    def _first_two(self, hand: ClubHand) -> bool:
        return len(hand.cards) == 2 and not hand.from_split and not hand.drew and not hand.doubled

    def _check_stand(self, t: TableOps, e: ev.Stand) -> Refusal | None:
        return self._turn(t, "stand")[0]

    def _on_stand(self, t: TableOps, e: ev.Stand) -> None:
        self.in_play(t).hand.done = True
        self._to_next_hand(t)

    def _check_split(self, t: TableOps, e: ev.Split) -> Refusal | None:
        rules = self.rules_of(t)
        if not (rules.pairs or rules.two_aces_split):
            return _NO_PAIRS
        refusal, hand = self._turn(t, "split")
        if hand is None:
            return refusal
        if not self._first_two(hand):
            return _SPLIT_FIRST_TWO
        a, b = hand.cards
        if rules.pairs and a.rank == b.rank:
            return None
        if rules.two_aces_split and a.rank == b.rank == "A":
            return None
        return _NOT_A_PAIR if rules.pairs else _NOT_TWO_ACES

    def _on_split(self, t: TableOps, e: ev.Split) -> None:
        # 003: the box shows the pair, adds its stake on the second card, and draws to one, then the other.
        r = self.in_play(t)
        hand = r.club_hand
        box = r.club_boxes[r.box_i]
        club.turn(t, hand, box.number)
        new = ClubHand(box, hand.stake, hand.values, from_split=True)
        new.add(hand.remove_last(), up=True)
        hand.from_split = True
        box.hands.insert(r.hand_i + 1, new)

    def _check_double(self, t: TableOps, e: ev.Double) -> Refusal | None:
        if t.phase is Phase.PACK_OUT:
            if e.box is None:
                return _BOX_FOR_PACK
            return self._choice_refusal(t, e.box)
        if t.phase is Phase.PLAYERS and self._spent(t):
            return self._ask_refusal(t, "double", e.box)
        if not self.rules_of(t).pairs:
            return _NO_DOUBLE
        refusal, hand = self._turn(t, "double", e.box)
        if hand is None:
            return refusal
        if not self._first_two(hand):
            return _DOUBLE_FIRST_TWO
        if hand.cards[0].rank != hand.cards[1].rank:
            return _NOT_A_PAIR_TO_DOUBLE
        return None

    def _on_double(self, t: TableOps, e: ev.Double) -> None:
        r = self.in_play(t)
        if t.phase is Phase.PLAYERS and self._spent(t):
            self._box_asks(t)  # the box in turn wants a card: the run-out begins with its choice
        if t.phase is Phase.PACK_OUT:
            # The pack is spent: the box doubles its stake and stands on what it has.
            number = r.boxes[r.box_i].number if e.box is None else e.box
            box = r.club_box(number)
            box.choice = "double"
            for open_hand in box.open_hands():
                open_hand.stake *= 2
                open_hand.doubled = open_hand.done = True
            self._after_choice(t)
            return
        # 003: the pair is shown and the stake doubled; the box may take at most one more card.
        hand = r.club_hand
        club.turn(t, hand, r.boxes[r.box_i].number)
        hand.stake *= 2
        hand.doubled = True

    def _check_surrender(self, t: TableOps, e: ev.Surrender) -> Refusal | None:
        if not self.rules_of(t).surrender:
            return _NO_SURRENDER
        refusal, hand = self._turn(t, "surrender", e.box)
        if hand is None:
            return refusal
        return None if self._first_two(hand) else _SURRENDER_FIRST

    def _on_surrender(self, t: TableOps, e: ev.Surrender) -> None:
        hand = self.in_play(t).hand
        hand.settle(ClubOutcome.SURRENDER, -(hand.stake // 2))
        self._to_next_hand(t)

    # ------------------------------------------------------------------ the spent pack
    def _choice_refusal(self, t: TableOps, number: int) -> Refusal | None:
        box = club.box_in_round(self.round_of(t), number)
        if box is None:
            return club.no_such_box(number)
        if box.choice is not None:
            return Refusal("already_chosen", f"box {number} has chosen to {box.choice} already")
        if not box.open_hands():
            return Refusal("box_settled", f"box {number} is settled: nothing to double or fold")
        return None

    def _ask_refusal(self, t: TableOps, what: str, number: int | None) -> Refusal | None:
        """The pack is spent while a box plays: the box in turn asks for a card by choosing to double or fold,
        which begins the run-out. A choice named for another unsettled box is taken too and begins it: the
        previous release ran the pack out as soon as it was spent and took every box's choice in any order, and
        its journals must replay."""
        r = self.in_play(t)
        if number is not None and r.box_i < len(r.boxes) and number != r.boxes[r.box_i].number:
            return self._choice_refusal(t, number)
        refusal, hand = self._turn(t, what, number)
        if hand is None:
            return refusal
        return self._choice_refusal(t, self.in_play(t).boxes[self.in_play(t).box_i].number)

    def _box_asks(self, t: TableOps) -> None:
        r = self.in_play(t)
        r.pack_out = True
        t.set_phase(Phase.PACK_OUT)

    def _check_fold(self, t: TableOps, e: Fold) -> Refusal | None:
        if t.phase is Phase.PLAYERS and self._spent(t):
            return self._ask_refusal(t, "fold", e.box)
        if t.phase is not Phase.PACK_OUT:
            return _PACK_NOT_SPENT
        return self._choice_refusal(t, e.box)

    def _on_fold(self, t: TableOps, e: Fold) -> None:
        if t.phase is Phase.PLAYERS:
            self._box_asks(t)  # the box in turn wants a card on a spent pack: the run-out begins with its choice
        box = self.in_play(t).club_box(e.box)
        box.choice = "fold"
        for hand in box.open_hands():
            hand.settle(ClubOutcome.FOLD, -hand.stake)
        self._after_choice(t)

    # ------------------------------------------------------------------ contra and recontra
    def _check_contra(self, t: TableOps, e: Contra) -> Refusal | None:
        if not self.rules_of(t).contra:
            return _NO_CONTRA
        if t.phase is not Phase.CONTRA:
            return _CONTRA_CLOSED
        if self.in_play(t).contra:
            return _CONTRA_DONE
        return None

    def _on_contra(self, t: TableOps, e: Contra) -> None:
        r = self.in_play(t)
        r.contra = True
        for box in r.club_boxes:
            for hand in box.open_hands():
                hand.stake *= 2

    def _check_recontra(self, t: TableOps, e: Recontra) -> Refusal | None:
        if not self.rules_of(t).contra:
            return _NO_CONTRA
        if t.phase is not Phase.CONTRA:
            return _CONTRA_CLOSED
        r = self.in_play(t)
        if not r.contra:
            return _NO_CONTRA_YET
        box = club.box_in_round(r, e.box)
        if box is None:
            return club.no_such_box(e.box)
        if box.recontra:
            return Refusal("recontra_done", f"box {e.box} has redoubled already")
        if not box.open_hands():
            return Refusal("box_settled", f"box {e.box} is settled")
        return None

    def _on_recontra(self, t: TableOps, e: Recontra) -> None:
        box = self.in_play(t).club_box(e.box)
        box.recontra = True
        for hand in box.open_hands():
            hand.stake *= 2

    # ------------------------------------------------------------------ the supervisor's withdraw
    def _withdraw_closed(self, t: TableOps, r: Round, box: ClubBox) -> Refusal | None:
        """Once the banker draws, every stake still open is in play against his hand."""
        return _WITHDRAW_CLOSED if t.phase is Phase.DEALER else None

    def _on_withdraw(self, t: TableOps, e: Withdraw) -> None:
        # rules.md (decided): the box's stake comes back and it plays no more of this round.
        r = self.in_play(t)
        box = r.club_box(e.box)
        index = r.boxes.index(box)
        for hand in box.open_hands():
            hand.settle(ClubOutcome.WITHDRAWN, 0)
        if r.dealt < len(r.plan):  # a withdrawn box is dealt no more cards
            r.plan = r.plan[:r.dealt] + [x for x in r.plan[r.dealt:] if x != index]
            if r.dealt == len(r.plan):
                self._after_deal(t)
            return
        if t.phase is Phase.PLAYERS and r.box_i == index:
            self._to_next_hand(t)
        elif t.phase is Phase.PACK_OUT:
            self._after_choice(t)

    # ================================================================== what may be decided
    def legal_actions(self, t: TableOps) -> list[GameAction]:
        """The box in turn's decisions, the banker's, the contra window's, or the spent pack's."""
        r = self.round_of(t)
        phase = t.phase
        rules = self.rules_of(t)
        if r is None:
            return []
        if phase is Phase.PLAYERS:
            hand = r.club_hand
            if len(hand.cards) < 2:
                return []  # the split hand waits for its card
            if self._spent(t):
                # No card is left: the box stands, or asks for one (double or fold: the run-out begins).
                actions = [Action.STAND, Action.DOUBLE, ClubAction.FOLD]
                if self._check_surrender(t, _SURRENDER) is None:
                    actions.append(Action.SURRENDER)
                return actions
            actions = [Action.STAND, Action.HIT]
            if self._check_double(t, _DOUBLE) is None:
                actions.append(Action.DOUBLE)
            if self._check_split(t, _SPLIT) is None:
                actions.append(Action.SPLIT)
            if self._check_surrender(t, _SURRENDER) is None:
                actions.append(Action.SURRENDER)
            return actions
        if phase is Phase.DEALER:
            actions = []
            if club.banker_may_draw(rules, r.banker):
                actions.append(Action.HIT)
            if club.banker_stand_refusal(t) is None:
                actions.append(ClubAction.BANKER_STAND)
            return actions
        if phase is Phase.CONTRA:
            if not r.contra:
                return [ClubAction.CONTRA]
            if any(not b.recontra and b.open_hands() for b in r.club_boxes):
                return [ClubAction.RECONTRA]
            return []
        if phase is Phase.PACK_OUT:
            return [Action.DOUBLE, ClubAction.FOLD]
        return []

    def _claims(self, t: TableOps) -> list[GameAction]:
        """Decisions that depend on the closed cards: offered to every viewer whenever they could be claimed."""
        r = self.round_of(t)
        rules = self.rules_of(t)
        if t.phase is not Phase.PLAYERS or r is None or not self._first_two(r.club_hand):
            return []
        claims: list[GameAction] = []
        if rules.pairs:
            claims.append(Action.DOUBLE)
        if (rules.pairs or rules.two_aces_split) and not self._spent(t):
            claims.append(Action.SPLIT)
        return claims

    # ================================================================== views and snapshots
    def view(self, t: TableOps, reveal: bool) -> dict[str, Any]:
        """Boxes with closed hands (XX, the card count, no total) unless ``reveal``; the banker; the pack."""
        r = self.round_of(t)
        boxes = []
        in_players = t.phase is Phase.PLAYERS
        if r is not None:
            for bi, box in enumerate(r.club_boxes):
                boxes.append({**club.box_view(box, [
                    club.hand_view(h, in_players and bi == r.box_i and hi == r.hand_i, reveal)
                    for hi, h in enumerate(box.club_hands)]), "recontra": box.recontra,
                    "choice": box.choice})
        turn: dict[str, Any] | None = None
        if in_players and r is not None:
            turn = {"box": r.boxes[r.box_i].number, "hand": r.hand_i}
        elif t.phase is Phase.DEALER:
            turn = {"dealer": True}
        actions = self.legal_actions(t)
        if not reveal:
            actions = club.public_actions(actions, self._claims(t))
        shoe = t.shoe
        return {
            "boxes": boxes,
            "dealer": club.banker_view(r.banker if r is not None else None, False, reveal),
            "turn": turn,
            "legal_actions": [a.value for a in actions],
            "settled": club.settled_club_view(self.previous_of(t), _no_extra) if r is None and t.previous is not None else None,
            "game": self.name,
            "bottom_card": shoe.bottom.code if shoe is not None and shoe.bottom is not None else None,
            "contra": r.contra if r is not None else False,
            "pack_out": r.pack_out if r is not None else False,
        }

    def dump_round(self, r: Round) -> dict[str, Any]:
        """A club-21 round as plain data."""
        assert isinstance(r, Club21Round)
        return {
            "number": r.number,
            "shoe_id": r.shoe_id,
            "boxes": [club.dump_box(b) for b in r.club_boxes],
            "banker": club.dump_hand(r.banker),
            "plan": list(r.plan),
            "dealt": r.dealt,
            "box_i": r.box_i,
            "hand_i": r.hand_i,
            "started_at": r.started_at.isoformat() if r.started_at is not None else None,
            "voided": r.voided,
            **snap.dump_void_reason(r),
            "contra": r.contra,
            "pack_out": r.pack_out,
            "bottom": r.bottom.code if r.bottom is not None else None,
        }

    def load_round(self, t: TableOps, data: Any) -> Round:
        """A club-21 round from checked data."""
        state = snap.check(Club21RoundState, data, "round")
        values = self.rules_of(t).values
        boxes = [club.load_box(b, values) for b in state.boxes]
        club.check_indices(state.plan, state.dealt, len(boxes), state.box_i, state.hand_i, [len(b.hands) for b in boxes])
        r = Club21Round(state.number, state.shoe_id, boxes, list(state.plan),
                       datetime.fromisoformat(state.started_at) if state.started_at is not None else None, values,
                       parse_card(state.bottom) if state.bottom is not None else None)
        r.dealer = club.load_hand(state.banker, None, values)  # the banker's hand
        r.dealt, r.box_i, r.hand_i = state.dealt, state.box_i, state.hand_i
        r.voided, r.contra, r.pack_out = state.voided, state.contra, state.pack_out
        r.void_reason = state.void_reason
        return r


def _no_extra(box: ClubBox) -> dict[str, Any]:
    return {}


# The decisions of the box in turn, asked of the checks without a box (legal_actions).
_DOUBLE, _SPLIT, _SURRENDER = ev.Double(), ev.Split(), ev.Surrender()
