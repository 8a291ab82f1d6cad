"""The virtual dealer's moves at a baccarat table, from the dealer key's view alone (pure).

Between coups: seeded bets, one a box, on the Player or the Banker (now and then the Tie); a shuffle when the
table waits for one; a card whenever the table waits for one (the burn, the coup's cards by the tableau: the
engine says which hand takes it); under the squeeze, the reveal once the cards are down. In attention it waits
for the supervisor. No clock, no socket: the virtual dealer carries each move out.
"""

from __future__ import annotations

from typing import Any

from controller.rules import Rules
from simulators.dealer_moves import DEAL, SHUFFLE, WAIT, Move, act, bets_to_place, seeded

from .rules import BaccaratRules

__all__ = ["DEALER", "BaccaratDealer", "baccarat_move"]


def baccarat_move(t: dict[str, Any], rules: BaccaratRules, seed: int, max_boxes: int | None = None) -> Move:
    """The dealer's next move at a baccarat table, from ``t`` (a table view as the dealer's key sees it)."""
    phase = t["phase"]
    if phase == "attention":
        return WAIT
    if phase == "waiting_for_shuffle":
        return SHUFFLE
    if phase in ("betting", "settled") and t["round"] is None:
        missing = bets_to_place(t, rules, seed, max_boxes)
        if missing:
            box, amount = missing[0]
            rng = seeded(seed, "spot", t["rounds_played"], box)
            spot = rng.choice(("banker", "banker", "player", "player", "tie"))
            if spot == "tie":
                amount = min(amount, rules.tie_max)
                amount = max(amount, rules.side_min)
            return act({"type": "bet", "box": box, "amount": str(amount), "spot": spot})
    if "reveal" in t["legal_actions"]:
        return act({"type": "reveal"})
    if t["next_card"]:
        return DEAL
    return WAIT


class _BaccaratPlay:
    """The dealer's play at one baccarat table."""

    def __init__(self, rules: BaccaratRules, seed: int, max_boxes: int | None) -> None:
        self.rules, self.seed, self.max_boxes = rules, seed, max_boxes

    def move(self, t: dict[str, Any]) -> Move:
        """The next move from the view."""
        return baccarat_move(t, self.rules, self.seed, self.max_boxes)

    def dealt(self, t: dict[str, Any], shoe_id: str, position: int) -> None:
        """Nothing to keep: the dealer never needs to remember a card."""

    def keep(self, t: dict[str, Any]) -> list[tuple[str, int]]:
        """A new shoe is whole."""
        return []


class BaccaratDealer:
    """Baccarat's virtual dealer (the registry's ``dealer`` part, `simulators.parts.DealerMoves`)."""

    needs_supervisor = False
    loads_packs = False
    in_memory = True  # the fleet's in-process dealer drives it (`tablectl fleet-sim --rules punto-banco`)

    def play(self, rules: Rules, seed: int, random_choice: float, max_boxes: int | None) -> _BaccaratPlay:
        """The dealer's play at a table of these (baccarat's) rules (no player decides anything)."""
        assert isinstance(rules, BaccaratRules)  # (the registry hands this part baccarat's tables only)
        return _BaccaratPlay(rules, seed, max_boxes)


DEALER = BaccaratDealer()
