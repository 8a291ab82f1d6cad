"""The table as people see it: JSON-ready views for the API, the status command and the displays.

`table_view(table, reveal_closed=False)` hides every card dealt face down and not yet
turned (the dealer's hole card in a hole-card game, the players' closed cards and the
banker's in the club games: ``XX``, a closed hand with no total), from the shoe's counts
too, and an alert's supervisor-only detail; only a supervisor's view passes
``reveal_closed=True``. The round's part of the view is the game's (`Game.view`).

`head_view(head, masked, reveal)` is the journal's head as a role may see it: the MAC of
the last row is withheld below supervisor while any row holds a card face down, because
every MAC from that row on is chained over the card, and whoever holds a copy of the
table's key (the floor keeps one) could try the 52 cards against it.
"""

from __future__ import annotations

from typing import Any, Collection

from .closed import HIDDEN, closed_cards
from .engine import Table
from .game import ShoeFigure
from .money import money
from .phase import Phase

__all__ = ["HIDDEN", "head_view", "table_view"]


def head_view(head: tuple[int, str], masked: Collection[int], reveal: bool = False) -> dict[str, Any]:
    """The journal's head (``seq``, ``mac``) as a role sees it: ``mac`` None below supervisor while a
    row in ``masked`` (a card face down, not yet turned) lies at or before the head."""
    seq, mac = head
    withheld = not reveal and any(m <= seq for m in masked)
    return {"seq": seq, "mac": None if withheld else mac}


def table_view(table: Table, reveal_closed: bool = False) -> dict[str, Any]:
    """The whole table now: phase, boxes and hands, dealer, whose turn, shoe, alerts, last round."""
    game = table.game.view(table, reveal_closed)
    boxes = game.pop("boxes")
    main = table.game.spots[0].name
    for number in sorted(table.pending):
        bets = table.pending[number]
        pending: dict[str, Any] = {"box": number, "owner": next(iter(bets)),
                                   "bets": {p: money(sum(spots.values())) for p, spots in bets.items()},
                                   "insurance": None, "hands": [], "next_round": True}
        named = list(dict.fromkeys(s for spots in bets.values() for s in spots))
        if named != [main]:  # a bet on another spot than the main one: each spot's bets by player
            pending["spots"] = {s: {p: money(spots[s]) for p, spots in bets.items() if s in spots} for s in named}
        boxes.append(pending)
    shoe = table.shoe
    shoe_view = None
    if shoe is not None:
        remaining = shoe.remaining_by_rank()
        if not reveal_closed:
            for card in closed_cards(table):
                # A face-down card has left the shoe, but its rank must not show in the counts.
                remaining[card.rank] += 1
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
            "cut_card_zone": table.rules.cut_card_zone(shoe.size),
            "remaining_by_rank": remaining,
        }
    r = table.round
    return {
        "game": table.rules.game,
        "view_kind": table.game.view_kind,
        "phase": table.phase.value,
        "rules": table.rules.name,
        "round": r.number if r is not None else None,
        "rounds_played": table.rounds_played,
        "boxes": boxes,
        "dealer": game.pop("dealer"),
        # The person dealing (dealer_in), not the dealer's hand above.
        "dealer_on_duty": None if table.dealer_on_duty is None else {
            "dealer": table.dealer_on_duty,
            "since": table.dealer_since.isoformat() if table.dealer_since is not None else None},
        "turn": game.pop("turn"),
        "legal_actions": game.pop("legal_actions"),
        "next_card": table.next_card(),
        "shoe": shoe_view,
        "shuffle_due": table.phase is Phase.WAITING_FOR_SHUFFLE,
        "right_to_cut": table.right_to_cut,
        # Which shoe figures the game has (in one order): readers show these and ask nothing of the game's name.
        "shoe_figures": [f.value for f in ShoeFigure if f in table.game.shoe_figures],
        "dealer_title": table.game.dealer_title,
        "locked": table.locked,
        "gate_held": table.gate_held,
        "lock_reasons": table.lock_reasons(),
        "held_cards": [c.code for c in table.held],
        "alerts": [a.as_dict(reveal_closed) for a in table.open_alerts()],
        "reservations": {str(b): p for b, (p, _) in table.reservations.items()},
        "last_round": table.last_round,
        "settled": game.pop("settled"),
        "limits": {"min": money(table.rules.table_min_cents), "max": money(table.rules.table_max_cents)},
        **game,
    }
