"""The table as people see it: JSON-ready views for the API, the status command and the displays.

`table_view(table, reveal_hole=False)` hides a hole card that the dealer has
not turned yet (`Table.hole_card_hidden`), and an alert's supervisor-only
detail; only a supervisor's view passes ``reveal_hole=True``.
"""

from __future__ import annotations

from typing import Any

from .cards import total_of
from .engine import Table
from .hand import Hand, Outcome
from .money import money
from .phase import PLAY, Phase
from .round import Round

HIDDEN = "XX"  # how a face-down card is shown


def _hand_view(hand: Hand, in_play: bool) -> dict[str, Any]:
    return {
        "cards": [c.code for c in hand.cards],
        "totals": total_of([c.value for c in hand.cards]).shown() if hand.cards else [],
        "bet": money(hand.stake),
        "doubled": hand.doubled,
        "split": hand.from_split,
        "blackjack": hand.is_blackjack,
        "bust": hand.is_bust,
        "done": hand.done,
        "in_play": in_play,
        "outcome": hand.outcome.value if hand.outcome else None,
        "net": money(hand.net) if hand.net is not None else None,
    }


def table_view(table: Table, reveal_hole: bool = False) -> dict[str, Any]:
    """The whole table now: phase, boxes and hands, dealer, whose turn, shoe, alerts, last round."""
    r = table.round
    boxes: list[dict[str, Any]] = []
    in_players = table.phase in PLAY
    if r is not None:
        for bi, box in enumerate(r.boxes):
            boxes.append({
                "box": box.number,
                "owner": box.owner,
                "bets": {p: money(a) for p, a in box.bets.items()},
                "insurance": money(box.insurance) if box.insurance is not None else None,
                "hands": [_hand_view(h, in_players and bi == r.box_i and hi == r.hand_i)
                          for hi, h in enumerate(box.hands)],
            })
    for number in sorted(table.pending):
        bets = table.pending[number]
        boxes.append({"box": number, "owner": next(iter(bets)), "bets": {p: money(a) for p, a in bets.items()},
                      "insurance": None, "hands": [], "next_round": True})
    dealer: dict[str, Any] = {"cards": [], "totals": [], "hole_hidden": False, "blackjack": False, "bust": False,
                              "done": False}
    if r is not None:
        cards = [c.code for c in r.dealer.cards]
        values = [c.value for c in r.dealer.cards]
        if table.hole_card_hidden and not reveal_hole:
            cards[1] = HIDDEN
            values = values[:1]
            dealer["hole_hidden"] = True
        dealer["cards"] = cards
        dealer["totals"] = total_of(values).shown() if values else []
        if not dealer["hole_hidden"]:  # a blackjack behind a face-down card is never told
            dealer.update(_dealer_marks(r))
    turn = None
    if in_players and r is not None:
        turn = {"box": r.boxes[r.box_i].number, "hand": r.hand_i}
    elif table.phase is Phase.DEALER:
        turn = {"dealer": True}
    shoe = table.shoe
    shoe_view = None
    if shoe is not None:
        remaining = shoe.remaining_by_rank()
        if dealer["hole_hidden"] and r is not None:
            # The face-down card has left the shoe, but its rank must not show in the counts.
            remaining[r.dealer.cards[1].rank] += 1
        shoe_view = {
            "id": shoe.shoe_id,
            "decks": shoe.decks,
            "size": shoe.size,
            "dealt": shoe.dealt,
            "burned": shoe.burned,
            "penetration": round(shoe.penetration, 4),
            "cut_card_out": shoe.cut_card_out,
            "cut_card_position": shoe.cut_card_position,
            # Where the cut card lies is known only once it is out; before, the rules say where it may lie.
            "cut_card_zone": [round(shoe.size * table.rules.cut_card_min), round(shoe.size * table.rules.cut_card_max)],
            "remaining_by_rank": remaining,
        }
    return {
        "phase": table.phase.value,
        "rules": table.rules.name,
        "round": r.number if r is not None else None,
        "rounds_played": table.rounds_played,
        "boxes": boxes,
        "dealer": dealer,
        "turn": turn,
        "legal_actions": [a.value for a in table.legal_actions()],
        "next_card": table.next_card(),
        "shoe": shoe_view,
        "shuffle_due": table.phase is Phase.WAITING_FOR_SHUFFLE,
        "right_to_cut": table.right_to_cut,
        "locked": table.locked,
        "gate_held": table.gate_held,
        "lock_reasons": table.lock_reasons(),
        "held_cards": [c.code for c in table.held],
        "alerts": [a.as_dict(reveal_hole) for a in table.open_alerts()],
        "reservations": {str(b): p for b, (p, _) in table.reservations.items()},
        "last_round": table.last_round,
        "settled": settled_view(table.previous) if r is None and table.previous is not None else None,
        "limits": {"min": money(table.rules.table_min_cents), "max": money(table.rules.table_max_cents)},
    }


def _dealer_marks(r: Round) -> dict[str, bool]:
    return {"blackjack": r.dealer.is_blackjack, "bust": r.dealer.is_bust}


def settled_view(r: Round) -> dict[str, Any]:
    """The last settled round as it lies on the felt until the next round's first card.

    Every hand with its marks, outcome and net, each box's net with its insurance, and the
    dealer's hand; nets are the players' (the pit shows them from the house's side).
    """
    boxes = []
    for box in r.boxes:
        hands = [_hand_view(h, False) for h in box.hands]
        for view, hand in zip(hands, box.hands):
            view["surrendered"] = hand.outcome is Outcome.SURRENDER
        boxes.append({
            "box": box.number,
            "owner": box.owner,
            "bets": {p: money(a) for p, a in box.bets.items()},
            "insurance": money(box.insurance) if box.insurance is not None else None,
            "insurance_net": money(box.insurance_net) if box.insurance_net is not None else None,
            "hands": hands,
            "net": money(box.net()),
        })
    d = r.dealer
    return {
        "number": r.number,
        "void": r.voided,
        "dealer": {"cards": [c.code for c in d.cards], "hole_hidden": False,
                   "totals": total_of([c.value for c in d.cards]).shown() if d.cards else [], "done": True,
                   **_dealer_marks(r)},
        "boxes": boxes,
        "net": money(r.net()),
    }
