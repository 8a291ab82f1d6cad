"""Each shoe's cards as the table placed them, and what the room finds in each: the protection report's core.

`ShoeBook` is fed the table's own record, in order: a shuffle, each card placed (where it went), the
cut card, each round settled. It keeps, per shoe, the cards in the order they were read and each
round's hands in table order, so the discard order can be rebuilt (`discards`). `examine` then
watches each shoe against the one before it (`slug`), scores its shuffle (`quality`) and gathers
the shuffles for the preferential audit (`preferential`). Pure: the caller reads the journal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence

from ..cards import Card, rank_value
from .discards import PickUp, discard_order, other_discard_orders, slug_orders
from .findings import Order, SlugAlarm
from .preferential import RoundCount, ShuffleRecord
from .quality import ShuffleQuality, shuffle_quality
from .slug import SlugSummary, SlugThresholds, SlugWatch

HI_LO = {1: -1, 10: -1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1}  # by value: 2-6 +1, 7-9 0, tens and aces -1


def shift_of(at: datetime | None) -> str:
    """The shift a time falls in: three of eight hours from midnight, by the time's own clock (decided)."""
    if at is None:
        return "unknown"
    start = at.hour // 8 * 8
    return f"{at.date().isoformat()} {start:02d}-{start + 8:02d}"


@dataclass
class ShoeCards:
    """One shoe as the table dealt it."""

    shoe: str
    shuffled_at: datetime | None
    decks: int
    pack: int
    cut_card_at: int  # cards the rules deal before the cut card (where it came out, once it did)
    dealt: list[Card] = field(default_factory=list)  # every card read, in order (burns, bottom card included)
    burnt: list[Card] = field(default_factory=list)
    bottom: Card | None = None
    rounds: list[list[list[Card]]] = field(default_factory=list)  # each round's hands in table order, dealer last
    boxes: list[list[int]] = field(default_factory=list)  # each round's hands' boxes, as ``rounds`` (the dealer's 0)
    round_ends: list[int] = field(default_factory=list)  # cards dealt when each round settled
    cut_card_out: bool = False


class ShoeBook:
    """The shoes of one table, built from its record in order (see the module's docstring)."""

    def __init__(self) -> None:
        self.shoes: list[ShoeCards] = []
        self._hands: dict[tuple[int, int], list[Card]] = {}
        self._dealer: list[Card] = []

    def shuffle(self, shoe: str, at: datetime | None, *, decks: int, pack: int, cut_card_at: int) -> None:
        """A new shoe is in play."""
        self.shoes.append(ShoeCards(shoe, at, decks, pack, cut_card_at))
        self._hands, self._dealer = {}, []

    def card(self, card: Card, to: str, box: int | None = None, hand: int | None = None) -> None:
        """The table placed a card read from the shoe (``to``: box, dealer, burn, bottom, held, or a game's own
        place for it, gathered as the dealer's hand is)."""
        if not self.shoes:
            return  # a card before any shuffle is the table's to hold; no shoe to book it in
        shoe = self.shoes[-1]
        shoe.dealt.append(card)
        if to == "burn":
            shoe.burnt.append(card)
        elif to == "bottom":
            shoe.bottom = card
        elif to == "dealer":
            self._dealer.append(card)
        elif to == "box" and box is not None:
            self._hands.setdefault((box, hand or 0), []).append(card)
        elif to not in ("held", "discard"):
            # A game's own hands that are no box's (baccarat's Player and Banker, a card waiting face down for
            # one): they lie before the dealer and are gathered with his hand, in the order they were dealt,
            # so a baccarat shoe's discards are its coups in dealing order.
            self._dealer.append(card)

    def cut_card(self, position: int | None) -> None:
        """The cut card came out (after ``position`` cards, when the shoe says)."""
        if self.shoes:
            shoe = self.shoes[-1]
            shoe.cut_card_out = True
            shoe.cut_card_at = position - 1 if position is not None else len(shoe.dealt)

    def open_round(self) -> tuple[dict[tuple[int, int], list[Card]], list[Card]]:
        """The round in play's hands so far: by (box, hand), and the dealer's (for a saved state)."""
        return self._hands, self._dealer

    def restore_round(self, hands: dict[tuple[int, int], list[Card]], dealer: list[Card]) -> None:
        """Put back a round in play's hands (from `open_round`)."""
        self._hands, self._dealer = hands, dealer

    def round_settled(self) -> None:
        """A round ended: its hands go to the tray in table order, the dealer's last."""
        if not self.shoes:
            return
        shoe = self.shoes[-1]
        placed = sorted(self._hands.items())
        hands = [cards for _, cards in placed]
        shoe.rounds.append(hands + ([self._dealer] if self._dealer else []))
        if len(shoe.boxes) == len(shoe.rounds) - 1:  # kept in step (a shoe from an older snapshot has none)
            shoe.boxes.append([box for (box, _), _ in placed] + ([0] if self._dealer else []))
        shoe.round_ends.append(len(shoe.dealt))
        self._hands, self._dealer = {}, []


@dataclass(frozen=True)
class ShoeReport:
    """What the room found in one shoe."""

    shoe: str
    shuffled_at: datetime | None
    cards: int
    rounds: int
    slug: SlugSummary | None  # None for the table's first shoe: nothing to compare with
    quality: ShuffleQuality
    running_count: int  # Hi-Lo, of every card read, when the shoe ended
    true_count: float
    cards_before_cut: int  # at the shuffle that ended the shoe (0 or less: the cut card was out)

    @property
    def alarms(self) -> tuple[SlugAlarm, ...]:
        """The slug alarms raised while the shoe was dealt."""
        return self.slug.alarms if self.slug is not None else ()


def count_of_remaining(remaining_by_rank: dict[str, int], pack: int = 52) -> tuple[int, float]:
    """The Hi-Lo running and true count from the cards still in the shoe, by rank (as the table's view gives
    them: a closed card counts as still in the shoe). Hi-Lo is balanced, so the running count is minus the
    count of what remains; the true count divides it by the packs left."""
    running, left = 0, 0
    for rank, n in remaining_by_rank.items():
        running -= HI_LO.get(rank_value(rank), 0) * n
        left += n
    return running, round(running / (left / pack), 2) if left else 0.0


def _count(cards: Sequence[Card], decks: int, pack: int) -> tuple[int, float]:
    running = sum(HI_LO.get(c.value, 0) for c in cards)
    left = max(decks * pack - len(cards), 1)
    return running, round(running / (left / pack), 2)


def previous_orders(shoe: ShoeCards) -> list[tuple[Order, list[Card]]]:
    """Every order of ``shoe`` the slug watch follows in the shoe after it (``discards.slug_orders``)."""
    boxes = shoe.boxes if len(shoe.boxes) == len(shoe.rounds) else None
    return slug_orders(shoe.dealt, shoe.rounds, burnt=shoe.burnt, bottom_card=shoe.bottom, boxes=boxes)


def examine(shoes: Sequence[ShoeCards], *, thresholds: SlugThresholds = SlugThresholds(),
            pick_up: PickUp = PickUp.THIRD_BASE_FIRST) -> list[ShoeReport]:
    """Each shoe against the one before it: the slug watch, the shuffle's quality, the count at its end."""
    reports = []
    before: ShoeCards | None = None
    for shoe in shoes:
        slug = None
        if before is not None:
            watch = SlugWatch(previous_orders(before), thresholds=thresholds, pack=shoe.pack)
            for card in shoe.dealt:
                watch.push(card)
            slug = watch.summary()
        quality = score(shoe, before, pick_up)
        running, true = _count(shoe.dealt, shoe.decks, shoe.pack)
        before_cut = 0 if shoe.cut_card_out else shoe.cut_card_at - len(shoe.dealt)
        reports.append(ShoeReport(shoe.shoe, shoe.shuffled_at, len(shoe.dealt), len(shoe.rounds), slug, quality,
                                  running, true, before_cut))
        before = shoe
    return reports


def score(shoe: ShoeCards, before: ShoeCards | None, pick_up: PickUp = PickUp.THIRD_BASE_FIRST) -> ShuffleQuality:
    """``shoe``'s shuffle score against the shoe ``before`` it (None: the table's first, the within-shoe
    statistics only), its discards rebuilt as ``pick_up`` gathers them, the other pick-ups followed too."""
    if before is None:
        return shuffle_quality(shoe.dealt, decks=shoe.decks, pack=shoe.pack)
    boxes = before.boxes if len(before.boxes) == len(before.rounds) else None
    return shuffle_quality(shoe.dealt, previous_dealt=before.dealt,
                           previous_discards=discard_order(before.rounds, pick_up, burnt=before.burnt,
                                                           bottom_card=before.bottom, boxes=boxes),
                           other_discards=other_discard_orders(before.rounds, pick_up, burnt=before.burnt,
                                                               bottom_card=before.bottom),
                           decks=shoe.decks, pack=shoe.pack)


def shuffle_records(table: str, shoes: Sequence[ShoeCards]) -> tuple[list[ShuffleRecord], list[RoundCount]]:
    """The preferential audit's input: each shuffle that ended a shoe, and each round's end before the cut card."""
    shuffles: list[ShuffleRecord] = []
    rounds: list[RoundCount] = []
    for shoe, following in zip(shoes, shoes[1:]):  # a shoe's end is known once the next is shuffled in
        shift = shift_of(following.shuffled_at)
        running, true = _count(shoe.dealt, shoe.decks, shoe.pack)
        before_cut = 0 if shoe.cut_card_out else shoe.cut_card_at - len(shoe.dealt)
        shuffles.append(ShuffleRecord(table, shift, shoe.shoe, before_cut, running, true))
        for end in shoe.round_ends[:-1]:  # the dealer dealt on after each of these
            if end < shoe.cut_card_at:
                r, t = _count(shoe.dealt[:end], shoe.decks, shoe.pack)
                rounds.append(RoundCount(table, shift, shoe.shoe, shoe.cut_card_at - end, r, t))
    return shuffles, rounds
