"""What both club games of document 003 share: closed hands, the bottom card, the banker's drawing.

In the club games the croupier is the banker and plays every box; the players' cards are
closed. Every card placed on a box is placed face down (``CardPlaced(face_down=True)``) and
stays a secret from every role below supervisor until it is turned (``CardsTurned``): when a
box shows a two-card 21, splits or doubles a pair, wins or loses at once, or when the round is
settled. The banker's own cards are closed until he draws face up. `club_view` shows a closed
card as ``XX`` and a closed hand with its card count and no total.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, ClassVar, TypeVar, cast

from controller import events as ev
from controller import snapshot as snap
from controller.alerts import AlertKind
from controller.cards import HIDDEN, Card, parse_card, soft_total
from controller.effects import CardPlaced, CardsTurned, dealer_card
from controller.errors import EngineError, SnapshotError
from controller.hand import BoxInPlay, Hand
from controller.legality import Action, GameAction, Refusal
from controller.money import money
from controller.phase import Phase
from controller.round import DEALER, Round, void_keys
from controller.game import Game, ShoeFigure, TableOps, on_spot

from .events import BankerStand, Withdraw
from .outcomes import ClubOutcome
from .actions import ClubAction
from .rules import ClubRulesBase as ClubRules
from .snapshot import ClubBoxState, ClubHandState


BANKER = DEALER  # deal-plan target for the banker's hand


class ClubHand(Hand):
    """A hand of a club game: its cards counted by the pack's values, each card closed or shown.

    ``up[i]`` is whether card i is face up; ``dark_from`` is the index of the first card a box
    drew dark (club-21-36); ``drew`` says the box has drawn after the deal.
    """

    __slots__ = ("values", "up", "dark_from", "drew")

    def __init__(self, box: BoxInPlay | None, stake: int, values: tuple[int, ...], from_split: bool = False) -> None:
        super().__init__(box, stake, from_split)
        self.values = values
        self.up: list[bool] = []
        self.dark_from: int | None = None
        self.drew = False

    def add(self, card: Card, up: bool = False) -> None:
        """Put a card on the hand, closed unless ``up``."""
        self.cards.append(card)
        self.up.append(up)
        value = self.values[card.index]
        self.hard += value
        if value == 1:
            self.has_ace = True
        soft = soft_total(self.hard, self.has_ace)
        self.total = self.hard if soft is None else soft

    def remove_last(self) -> Card:
        """Take back the last card (a split moves it to the new hand)."""
        card = self.cards.pop()
        self.up.pop()
        self.hard -= self.values[card.index]
        self.has_ace = any(self.values[c.index] == 1 for c in self.cards)
        soft = soft_total(self.hard, self.has_ace)
        self.total = self.hard if soft is None else soft
        return card

    @property
    def closed(self) -> bool:
        """A card of the hand is still face down."""
        return not all(self.up)

    @property
    def dark(self) -> bool:
        """The box has taken a card dark (club-21-36)."""
        return self.dark_from is not None and self.dark_from < len(self.cards)

    @property
    def pictures(self) -> int:
        """How many of the hand's cards are pictures (jack, queen, king)."""
        return sum(1 for c in self.cards if c.rank in "JQK")


class ClubBox(BoxInPlay):
    """A box in a club round: its bets, its hand(s), and what the club rules record about it.

    ``recontra``: the box redoubled after the banker's contra (club-21); ``choice``: on a spent
    pack, ``double`` or ``fold`` (club-21); ``banker``: the banker's hand in this box's duel,
    ``kept``: it began with the card the banker kept from the previous duel, ``bank_after``:
    the bank's balance after the duel, in cents (club-21-36).
    """

    __slots__ = ("recontra", "choice", "banker", "kept", "bank_after")

    def __init__(self, number: int, bets: dict[str, int], owner: str | None, values: tuple[int, ...]) -> None:
        super().__init__(number, bets, owner)
        self.hands = [ClubHand(self, self.bet, values)]
        self.recontra = False
        self.choice: str | None = None
        self.banker: ClubHand | None = None
        self.kept = False
        self.bank_after: int | None = None

    # A club box holds only club hands (its constructor makes them): this says so once.
    @property
    def club_hands(self) -> list[ClubHand]:
        """The box's hands, as the club hands they are."""
        return cast("list[ClubHand]", self.hands)

    @property
    def hand(self) -> ClubHand:
        """The box's first hand."""
        return self.club_hands[0]

    def open_hands(self) -> list[ClubHand]:
        """The box's hands not yet settled."""
        return [h for h in self.club_hands if h.outcome is None]


class ClubRound(Round):
    """A round of a club game: the banker's hand is the round's ``dealer``, the bottom card is kept.

    Each game builds its own record (``build_record``); this class keeps it once built.
    """

    __slots__ = ("bottom",)

    def __init__(self, number: int, shoe_id: str | None, boxes: list[ClubBox], plan: list[int],
                 started_at: datetime | None, values: tuple[int, ...], bottom: Card | None) -> None:
        super().__init__(number, shoe_id, cast("list[BoxInPlay]", boxes), plan, started_at)
        self.dealer = ClubHand(None, 0, values)
        self.bottom = bottom

    # A club round holds only club boxes and hands (its constructor takes them): these say so once.
    @property
    def banker(self) -> ClubHand:
        """The banker's hand in play (the round's ``dealer``)."""
        return cast(ClubHand, self.dealer)

    @property
    def club_boxes(self) -> list[ClubBox]:
        """The round's boxes, as the club boxes they are."""
        return cast("list[ClubBox]", self.boxes)

    @property
    def club_hand(self) -> ClubHand:
        """The hand in turn, a club hand."""
        return cast(ClubHand, self.hand)

    def club_box(self, number: int | None) -> ClubBox:
        """Box `number`, which the event's check has found in play."""
        box = self.box(number) if number is not None else None
        if box is None:  # a bug, never an input: the checks refuse a box not in play
            raise EngineError(f"box {number} is not in play")
        return cast(ClubBox, box)

    @property
    def record(self) -> dict[str, Any]:
        """The JSON-ready record of the settled round (built once, on first use)."""
        if self._record is None:
            self._record = self.build_record()
        return self._record

    def build_record(self) -> dict[str, Any]:
        """The game's record of the settled round (each club game says what its record holds)."""
        raise NotImplementedError


def hand_record(box: ClubBox, hand: ClubHand) -> dict[str, Any]:
    """A settled hand in a club round's record: the blackjack record's keys and its total."""
    return {"box": box.number, "cards": [c.code for c in hand.cards], "bet": money(hand.stake),
            "outcome": hand.outcome.value if hand.outcome else None, "net": money(hand_net(hand)),
            "total": hand.total}


def hand_net(hand: Hand) -> int:
    """What a settled hand won (+) or lost (-) in cents; an unsettled one counts nothing."""
    return hand.net if hand.net is not None else 0


def club_record(r: ClubRound, game: str, dealer: dict[str, Any], hands: list[dict[str, Any]], net: int,
                extra: dict[str, Any]) -> dict[str, Any]:
    """The record of a settled club round: the blackjack record's keys (no insurance), the game,
    the bottom card, then the game's own keys (``extra``), and ``void`` on a voided round."""
    return {
        "number": r.number,
        "shoe_id": r.shoe_id,
        "game": game,
        "dealer": dealer,
        "hands": hands,
        "insurance": [],
        "net": money(net),
        "bottom_card": r.bottom.code if r.bottom is not None else None,
        **extra,
        **void_keys(r),
    }


def club_rules(t: TableOps) -> ClubRules:
    """The table's rules, a club game's: these helpers serve only the club games."""
    return cast(ClubRules, t.rules)


def club_boxes(t: TableOps) -> list[ClubBox]:
    """The table's pending bets become the round's boxes (club boxes, counted by the pack's values)."""
    values = club_rules(t).values
    return cast("list[ClubBox]", t.take_pending(lambda n, bets, owner: ClubBox(n, on_spot(bets), owner, values)))


# ---------------------------------------------------------------------------- placing and turning cards
def to_box(t: TableOps, hand: ClubHand, card: Card, box: int, index: int) -> None:
    """A card to a box's hand, closed: a secret from every role below supervisor until turned."""
    hand.add(card)
    t.emit(CardPlaced(card.code, "box", box, index, face_down=True))


def to_banker(t: TableOps, hand: ClubHand, card: Card, up: bool) -> None:
    """A card to the banker: closed in the deal, face up when he draws."""
    hand.add(card, up)
    t.emit(dealer_card(card) if up else CardPlaced(card.code, "dealer", face_down=True))


def turn(t: TableOps, hand: ClubHand, box: int | None) -> None:
    """Turn every closed card of a hand face up (``box`` None: the banker's)."""
    shown = [c.code for c, up in zip(hand.cards, hand.up) if not up]
    if shown:
        hand.up = [True] * len(hand.cards)
        t.emit(CardsTurned(tuple(shown), box))


def turn_round(t: TableOps, r: ClubRound) -> None:
    """A round over keeps no secret: every closed card is turned, the boxes' in order, then the banker's."""
    for box in r.club_boxes:
        for hand in box.club_hands:
            turn(t, hand, box.number)
        banker = box.banker
        if banker is not None and banker is not r.dealer:
            turn(t, banker, None)
    turn(t, r.banker, None)


def closed_cards(r: ClubRound | None) -> list[Card]:
    """Every card of the round still face down."""
    if r is None:
        return []
    out: list[Card] = []
    hands = [h for b in r.club_boxes for h in b.club_hands]
    hands.append(r.banker)
    for hand in hands:
        out.extend(c for c, up in zip(hand.cards, hand.up) if not up)
    return out


# ---------------------------------------------------------------------------- the bottom card
def take_bottom(t: TableOps, card: Card, at: datetime | None, values: tuple[int, ...]) -> bool:
    """rules.md, club-21, The bottom card: the first card read after a shuffle is shown and put face up
    under the pack, dealt to nobody. An ace may not be the bottom card: the pack is shuffled and cut
    again (a shuffle is due, no attention). Returns False for an ace."""
    shoe = t.shoe
    assert shoe is not None
    shoe.bottom_due = False
    shoe.burned += 1  # dealt to nobody, like a burn: a repeated shuffle may still follow it
    t.emit(CardPlaced(card.code, "bottom"))
    if values[card.index] == 1:
        shoe.must_shuffle = True
        return False
    shoe.bottom = card
    return True


def ace_at_the_bottom(t: TableOps, card: Card, at: datetime | None) -> None:
    """Between rounds: an ace came up as the bottom card, so the pack is shuffled and cut again."""
    t.set_phase(Phase.WAITING_FOR_SHUFFLE)
    t.raise_alert(AlertKind.SHUFFLE_DUE, f"the bottom card is an ace ({card.code}): shuffle and cut again", at)


def ignore_cut_card(t: TableOps, e: ev.CutCardOut) -> None:
    """The club games use no cut card: the pack is dealt down to its bottom card, so a cut card changes nothing."""


# ---------------------------------------------------------------------------- the banker's drawing
def banker_must_draw(rules: ClubRules, banker: Hand) -> bool:
    """The house binds the croupier to draw below ``banker_draws_to`` (none: he chooses)."""
    return rules.banker_draws_to is not None and banker.total < rules.banker_draws_to


def banker_may_draw(rules: ClubRules, banker: Hand) -> bool:
    """Under 21, and under ``banker_stands_on`` where the house sets it."""
    total = banker.total
    return banker.hard <= 21 and total < 21 and (rules.banker_stands_on is None or total < rules.banker_stands_on)


def banker_stand_refusal(t: TableOps) -> Refusal | None:
    """The croupier may stop drawing in the banker's turn, unless the house binds him to draw."""
    if t.phase is not Phase.DEALER or t.round is None:
        return Refusal("not_banker_turn", f"the banker is not drawing now ({t.phase.value})")
    rules = club_rules(t)
    banker = t.round.dealer
    if banker_must_draw(rules, banker):
        return Refusal("banker_must_draw", f"the banker must draw below {rules.banker_draws_to} at this table "
                                           f"(he has {banker.total})")
    return None


# ---------------------------------------------------------------------------- who is who
def box_in_round(r: ClubRound | None, number: int) -> ClubBox | None:
    """The box with this number in the round, if it has a stake in it."""
    return cast("ClubBox | None", r.box(number)) if r is not None else None


NO_ROUND = Refusal("no_round", "there is no round in play")


def no_such_box(number: int) -> Refusal:
    """The refusal for a box with no stake in the round."""
    return Refusal("no_such_box", f"box {number} has no stake in this round")


# ---------------------------------------------------------------------------- the view
def hand_view(hand: ClubHand, in_play: bool, reveal: bool) -> dict[str, Any]:
    """A club hand as the table shows it: a closed card as XX, a closed hand with no total."""
    hidden = hand.closed and not reveal
    cards = [c.code if (up or reveal) else HIDDEN for c, up in zip(hand.cards, hand.up)]
    totals: list[int] = []
    if hand.cards and not hidden:
        soft = soft_total(hand.hard, hand.has_ace)
        totals = [hand.total] if soft is None or soft == 21 else [hand.hard, soft]
    return {
        "cards": cards,
        "totals": totals,
        "bet": money(hand.stake),
        "doubled": hand.doubled,
        "split": hand.from_split,
        "blackjack": False if hidden else hand.is_blackjack,
        "bust": False if hidden else hand.hard > 21,
        "done": hand.done,
        "in_play": in_play,
        "outcome": hand.outcome.value if hand.outcome else None,
        "net": money(hand.net) if hand.net is not None else None,
        "closed": hand.closed,
        "card_count": len(hand.cards),
        "dark": hand.dark,
    }


def banker_view(hand: ClubHand | None, done: bool, reveal: bool) -> dict[str, Any]:
    """The banker's hand: closed cards XX (no total) until he draws face up."""
    if hand is None or not hand.cards:
        return {"cards": [], "totals": [], "hole_hidden": False, "blackjack": False, "bust": False, "done": done,
                "closed": False, "card_count": 0}
    view = hand_view(hand, False, reveal)
    return {"cards": view["cards"], "totals": view["totals"], "hole_hidden": hand.closed and not reveal,
            "blackjack": view["blackjack"], "bust": view["bust"], "done": done, "closed": hand.closed,
            "card_count": len(hand.cards)}


def box_view(box: ClubBox, hands: list[dict[str, Any]]) -> dict[str, Any]:
    """A box with its bets and hands (club games have no insurance)."""
    return {
        "box": box.number,
        "owner": box.owner,
        "bets": {p: money(a) for p, a in box.bets.items()},
        "insurance": None,
        "hands": hands,
    }


def settled_club_view(r: ClubRound, extra: Callable[[ClubBox], dict[str, Any]]) -> dict[str, Any]:
    """The last settled round as it lies on the felt: every card shown (a settled round keeps no secret)."""
    boxes = []
    for box in r.club_boxes:
        hands = [hand_view(h, False, True) for h in box.club_hands]
        for view, hand in zip(hands, box.hands):
            view["surrendered"] = hand.outcome is ClubOutcome.SURRENDER
        boxes.append({**box_view(box, hands), "insurance_net": None, "net": money(box.net()),
                      **extra(box)})
    return {
        "number": r.number,
        "void": r.voided,
        "void_reason": r.void_reason.value if r.void_reason is not None else None,
        "dealer": banker_view(r.banker, True, True),
        "boxes": boxes,
        "net": money(r.net()),
    }


_ORDER: dict[GameAction, int] = {a: i for i, a in enumerate([*Action, *ClubAction])}


def public_actions(actions: list[GameAction], claims: list[GameAction]) -> list[GameAction]:
    """What a viewer below supervisor is told may be decided: a decision that depends on the closed
    cards (splitting or doubling a pair) is offered whenever the box could claim it, in one fixed
    order, so that the offer does not tell what the cards are; the engine checks the claim."""
    return sorted(set(actions) | set(claims), key=_ORDER.__getitem__)


# ---------------------------------------------------------------------------- snapshots
def dump_hand(hand: ClubHand) -> dict[str, Any]:
    """A club hand as plain data."""
    return {
        "cards": [c.code for c in hand.cards],
        "up": list(hand.up),
        "stake": money(hand.stake),
        "doubled": hand.doubled,
        "from_split": hand.from_split,
        "done": hand.done,
        "outcome": hand.outcome.value if hand.outcome is not None else None,
        "net": money(hand.net) if hand.net is not None else None,
        "dark_from": hand.dark_from,
        "drew": hand.drew,
    }


def dump_box(box: ClubBox) -> dict[str, Any]:
    """A club box as plain data."""
    return {
        "number": box.number,
        "bets": [{"player": p, "amount": money(a)} for p, a in box.bets.items()],
        "owner": box.owner,
        "hands": [dump_hand(h) for h in box.club_hands],
        "recontra": box.recontra,
        "choice": box.choice,
        "banker": dump_hand(box.banker) if box.banker is not None else None,
        "kept": box.kept,
        "bank_after": money(box.bank_after) if box.bank_after is not None else None,
    }


def load_hand(state: ClubHandState, box: BoxInPlay | None, values: tuple[int, ...]) -> ClubHand:
    """A club hand from checked data."""
    if len(state.up) != len(state.cards):
        raise SnapshotError("malformed table snapshot: a club hand needs one face-up mark per card")
    hand = ClubHand(box, snap.cents_of(state.stake), values, from_split=state.from_split)
    for code, up in zip(state.cards, state.up):
        hand.add(parse_card(code), up)
    hand.doubled, hand.done, hand.drew = state.doubled, state.done, state.drew
    hand.outcome, hand.net = state.outcome, snap.amount_of(state.net)
    hand.dark_from = state.dark_from
    return hand


def load_box(state: ClubBoxState, values: tuple[int, ...]) -> ClubBox:
    """A club box from checked data."""
    if state.choice not in (None, "double", "fold"):
        raise SnapshotError(f"malformed table snapshot: a box's choice on a spent pack is double or fold, "
                            f"not {state.choice!r}")
    box = ClubBox(state.number, snap.bets_of(state.bets), state.owner, values)
    box.hands = [load_hand(h, box, values) for h in state.hands]
    box.recontra, box.choice, box.kept = state.recontra, state.choice, state.kept
    box.banker = load_hand(state.banker, None, values) if state.banker is not None else None
    box.bank_after = snap.amount_of(state.bank_after)
    return box


def check_indices(plan: list[int], dealt: int, boxes: int, box_i: int, hand_i: int, hands: list[int]) -> None:
    """The deal plan and the hand in turn point at the round's boxes and hands."""
    if any(t != BANKER and not 0 <= t < boxes for t in plan):
        raise SnapshotError("malformed table snapshot: round: the deal plan names a box the round does not have")
    if dealt > len(plan):
        raise SnapshotError("malformed table snapshot: round: more cards dealt than the deal plan holds")
    if box_i > boxes or (box_i < boxes and hand_i >= hands[box_i]):
        raise SnapshotError("malformed table snapshot: round: the hand in turn is not on the table")


# ---------------------------------------------------------------------------- what both games do alike
def deal_target(r: Round, banker: str) -> str:
    """Whom the deal plan's next card goes to: ``banker`` (the caller's word for him) or 'box N'."""
    target = r.plan[r.dealt]
    return banker if target == BANKER else f"box {r.boxes[target].number}"


def deal_next(t: TableOps, r: ClubRound, card: Card) -> int:
    """The deal plan's next card, closed, to its box or to the banker; returns the plan's target."""
    target = r.plan[r.dealt]
    r.dealt += 1
    if target == BANKER:
        to_banker(t, r.banker, card, up=False)
    else:
        box = r.club_boxes[target]
        to_box(t, box.hand, card, box.number, 0)
    return target


ClubRoundT = TypeVar("ClubRoundT", bound=ClubRound)
ClubRulesT = TypeVar("ClubRulesT", bound=ClubRules)


class ClubGame(Game[ClubRoundT, ClubRulesT]):
    """What club-21 and club-21-36 play alike: closed cards, the bottom card after a shuffle, the
    croupier's stand as the banker, and the supervisor's withdraw of a box (``_withdraw_closed``
    says when the game keeps the stake in play)."""

    dealer_title = "Banker"  # rules.md, club-21: the croupier is the banker
    view_kind = "club"  # closed boxes, the banker (and a bank): the club games' felt
    # rules.md, club-21: no cut card (the pack is dealt down to its bottom card, shown face up under it, not
    # burned), so no penetration, no cut and no right to cut; a Hi-Lo count means nothing on a 36-card pack
    # and nothing to a banker who plays every box. What is dealt and what is left of the pack is what matters.
    shoe_figures = frozenset({ShoeFigure.DEALT, ShoeFigure.LEFT, ShoeFigure.BOTTOM_CARD, ShoeFigure.RANKS_LEFT})
    supervisor_events: ClassVar[frozenset[type]] = frozenset({Withdraw})  # the supervisor returns a box's stake
    card_destinations = ("box", "dealer", "bottom")  # the pack's bottom card, shown face up under it

    def dealer_card_closed(self, t: TableOps) -> bool:
        """The banker's cards are closed until he draws face up."""
        r = self.round_of(t)
        return r is not None and r.banker.closed

    def hidden_cards(self, t: TableOps) -> list[Card]:
        """Every closed card on the table: the boxes', and the banker's in play."""
        return closed_cards(self.round_of(t))

    def reveal_all(self, t: TableOps, r: Round) -> None:
        """Settled, every card is shown."""
        turn_round(t, cast(ClubRound, r))  # (the table's round: this game's)

    def on_shuffle(self, t: TableOps, e: ev.Shuffle) -> None:
        t.on_shuffle(e)
        self.loaded_shoe(t).bottom_due = self.rules_of(t).bottom_card  # (the shuffle has just loaded it)

    def _check_banker_stand(self, t: TableOps, e: BankerStand) -> Refusal | None:
        return banker_stand_refusal(t)

    def _withdraw_closed(self, t: TableOps, r: Round, box: ClubBox) -> Refusal | None:
        """Why the box's stake, in play against the banker's drawing, may not be withdrawn now (or None)."""
        raise NotImplementedError

    def _check_withdraw(self, t: TableOps, e: Withdraw) -> Refusal | None:
        r = self.round_of(t)
        if r is None:
            return NO_ROUND
        box = box_in_round(r, e.box)
        if box is None:
            return no_such_box(e.box)
        if not box.open_hands():
            return Refusal("box_settled", f"box {e.box} is settled")
        return self._withdraw_closed(t, r, box)
