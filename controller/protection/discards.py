"""The discard order: the previous shoe's cards in the order the dealer picked them up.

A false shuffle keeps a block of the discard tray as it lies, so the slug watch compares the
new shoe with this order as well as with the dealt order. The engine knows each round's hands;
how the dealer gathers them is a fact of the house's procedure, given as a ``PickUp``:

* the players' boxes from the dealer's right (third base, the last box) to the dealer's left
  (first base, box 1), then the dealer's own hand: what dealers are taught (they settle and
  pick up from their right to their left and turn their own hand over last), the default;
* the other three combinations, for houses that teach otherwise.

Within a hand the cards go in the order they were dealt (the hand is scooped as it lies, the
first card at the bottom of the spread): a house that gathers hands the other way round breaks
runs at every hand, which the rank and value keys still bridge poorly; say so in its profile.

Burnt cards go to the tray first, before the first round's cards. A club game's bottom card lies
face up under the pack until the shuffle, so it is gathered last, after the last round.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import Enum

from controller.cards import Card


class PickUp(str, Enum):
    """The order in which the dealer gathers a round's hands into the discard tray."""

    THIRD_BASE_FIRST = "third-base-first"  # last box to box 1, then the dealer's hand (the default)
    FIRST_BASE_FIRST = "first-base-first"  # box 1 to the last box, then the dealer's hand
    DEALER_THEN_THIRD_BASE = "dealer-then-third-base"  # the dealer's hand, then last box to box 1
    DEALER_THEN_FIRST_BASE = "dealer-then-first-base"  # the dealer's hand, then box 1 to the last box


def round_pick_up(hands: Sequence[Sequence[Card]], pick_up: PickUp = PickUp.THIRD_BASE_FIRST) -> list[Card]:
    """One round's cards in the order they go into the tray.

    ``hands`` are the round's hands in table order: box 1 to the last box (a split box's hands
    in the order they were played), then the dealer's (or the banker's) hand last.
    """
    if not hands:
        return []
    *boxes, dealer = hands
    if pick_up in (PickUp.THIRD_BASE_FIRST, PickUp.DEALER_THEN_THIRD_BASE):
        boxes = boxes[::-1]
    order = [dealer, *boxes] if pick_up in (PickUp.DEALER_THEN_THIRD_BASE, PickUp.DEALER_THEN_FIRST_BASE) \
        else [*boxes, dealer]
    return [card for hand in order for card in hand]


def discard_order(rounds: Iterable[Sequence[Sequence[Card]]], pick_up: PickUp = PickUp.THIRD_BASE_FIRST, *,
                  burnt: Sequence[Card] = (), bottom_card: Card | None = None) -> list[Card]:
    """The shoe's cards in the order they went into the discard tray.

    ``rounds`` gives each round's hands in table order (see ``round_pick_up``); ``burnt`` the
    cards burnt after the shuffle (first in the tray); ``bottom_card`` a club pack's bottom card
    (gathered last).
    """
    order = list(burnt)
    for hands in rounds:
        order += round_pick_up(hands, pick_up)
    if bottom_card is not None:
        order.append(bottom_card)
    return order


def other_discard_orders(rounds: Sequence[Sequence[Sequence[Card]]], pick_up: PickUp = PickUp.THIRD_BASE_FIRST, *,
                         burnt: Sequence[Card] = (), bottom_card: Card | None = None) -> list[list[Card]]:
    """The shoe's discard order as each ``PickUp`` but ``pick_up`` would have gathered it.

    The riffle statistic follows these too (``quality.shuffle_quality``), so a house that gathers
    otherwise than its profile says still has its riffles caught.
    """
    return [discard_order(rounds, other, burnt=burnt, bottom_card=bottom_card) for other in PickUp if other is not pick_up]
