"""The discard order: the previous shoe's cards in the order the dealer picked them up.

A false shuffle keeps a block of the discard tray as it lies, so the slug watch compares the
new shoe with this order as well as with the dealt order. The engine knows each round's hands;
how the dealer gathers them is a fact of the house's procedure, given as a ``PickUp``:

* the players' boxes from the dealer's right (third base, the last box) to the dealer's left
  (first base, box 1), then the dealer's own hand: what dealers are taught (they settle and
  pick up from their right to their left and turn their own hand over last), the default;
* the other three combinations, for houses that teach otherwise.

A split box's two hands lie side by side, the one played first on the dealer's left: gathered from
third base they come as they lie (the second played first) or, by a dealer who takes a box at a
time, in the order they were played (``split_as_played``); the two agree but where a box split.

Within a hand the cards go in the order they were dealt (the hand is scooped as it lies, the
first card at the bottom of the spread): a house that gathers hands the other way round breaks
runs at every hand; say so in its profile.

Burnt cards go to the tray first, before the first round's cards. A club game's bottom card lies
face up under the pack until the shuffle, so it is gathered last, after the last round.

A dealer may gather otherwise than the house says, and may turn the tray over before shuffling it,
so the slug watch follows every order here, each as it lies and turned over (``slug_orders``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import Enum

from controller.cards import Card
from controller.protection.findings import Order


class PickUp(str, Enum):
    """The order in which the dealer gathers a round's hands into the discard tray."""

    THIRD_BASE_FIRST = "third-base-first"  # last box to box 1, then the dealer's hand (the default)
    FIRST_BASE_FIRST = "first-base-first"  # box 1 to the last box, then the dealer's hand
    DEALER_THEN_THIRD_BASE = "dealer-then-third-base"  # the dealer's hand, then last box to box 1
    DEALER_THEN_FIRST_BASE = "dealer-then-first-base"  # the dealer's hand, then box 1 to the last box


def round_pick_up(hands: Sequence[Sequence[Card]], pick_up: PickUp = PickUp.THIRD_BASE_FIRST,
                  boxes: Sequence[int] | None = None, *, split_as_played: bool = False) -> list[Card]:
    """One round's cards in the order they go into the tray.

    ``hands`` are the round's hands in table order: box 1 to the last box (a split box's hands
    in the order they were played), then the dealer's (or the banker's) hand last. ``boxes`` gives
    each hand's box (the dealer's last, any number): with ``split_as_played`` a box's hands keep
    their playing order when the boxes are gathered from third base; without ``boxes`` each hand
    is its own box.
    """
    if not hands:
        return []
    *players, dealer = hands
    if boxes is None or len(boxes) != len(hands):
        groups = [[hand] for hand in players]
    else:
        groups = []
        last: int | None = None
        for box, hand in zip(boxes, players):
            if groups and box == last:
                groups[-1].append(hand)
            else:
                groups.append([hand])
            last = box
    if pick_up in (PickUp.THIRD_BASE_FIRST, PickUp.DEALER_THEN_THIRD_BASE):
        groups = [group if split_as_played else group[::-1] for group in groups[::-1]]
    gathered = [hand for group in groups for hand in group]
    order = [dealer, *gathered] if pick_up in (PickUp.DEALER_THEN_THIRD_BASE, PickUp.DEALER_THEN_FIRST_BASE) \
        else [*gathered, dealer]
    return [card for hand in order for card in hand]


def discard_order(rounds: Iterable[Sequence[Sequence[Card]]], pick_up: PickUp = PickUp.THIRD_BASE_FIRST, *,
                  burnt: Sequence[Card] = (), bottom_card: Card | None = None,
                  boxes: Sequence[Sequence[int]] | None = None, split_as_played: bool = False) -> list[Card]:
    """The shoe's cards in the order they went into the discard tray.

    ``rounds`` gives each round's hands in table order (see ``round_pick_up``), ``boxes`` each
    hand's box, round by round (None: unknown, each hand its own box); ``burnt`` the cards burnt
    after the shuffle (first in the tray); ``bottom_card`` a club pack's bottom card (gathered last).
    """
    order = list(burnt)
    for i, hands in enumerate(rounds):
        its = boxes[i] if boxes is not None and i < len(boxes) else None
        order += round_pick_up(hands, pick_up, its, split_as_played=split_as_played)
    if bottom_card is not None:
        order.append(bottom_card)
    return order


def slug_orders(dealt: Sequence[Card], rounds: Sequence[Sequence[Sequence[Card]]], *, burnt: Sequence[Card] = (),
                bottom_card: Card | None = None,
                boxes: Sequence[Sequence[int]] | None = None) -> list[tuple[Order, list[Card]]]:
    """Every order of the previous shoe a false shuffle may keep, each once: the dealt order and the discard
    order of every pick-up (a split box's hands as they lie and as played), each as it lies and turned over.

    Orders with the same cards in the same order are followed once, under the first name (without a split
    the two ways with split hands are one order). The dealt order comes first, then ``PickUp``'s order.
    """
    found: list[tuple[Order, list[Card]]] = []
    seen: set[tuple[int, ...]] = set()
    candidates: list[tuple[Order, list[Card]]] = [(Order("dealt"), list(dealt))]
    for pick_up in PickUp:
        for as_played in (False, True):
            order = discard_order(rounds, pick_up, burnt=burnt, bottom_card=bottom_card, boxes=boxes,
                                  split_as_played=as_played)
            candidates.append((Order(pick_up.value, split_as_played=as_played), order))
    for turned in (False, True):
        for name, cards in candidates:
            way = cards[::-1] if turned else cards
            codes = tuple(card.index for card in way)
            if len(way) < 2 or codes in seen:
                continue
            seen.add(codes)
            found.append((Order(name.gathered, turned=turned, split_as_played=name.split_as_played), way))
    return found


def other_discard_orders(rounds: Sequence[Sequence[Sequence[Card]]], pick_up: PickUp = PickUp.THIRD_BASE_FIRST, *,
                         burnt: Sequence[Card] = (), bottom_card: Card | None = None) -> list[list[Card]]:
    """The shoe's discard order as each ``PickUp`` but ``pick_up`` would have gathered it.

    The riffle statistic follows these too (``quality.shuffle_quality``), so a house that gathers
    otherwise than its profile says still has its riffles caught.
    """
    return [discard_order(rounds, other, burnt=burnt, bottom_card=bottom_card) for other in PickUp if other is not pick_up]
