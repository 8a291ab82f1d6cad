"""High card's virtual dealer: bets, then cards until the round is settled; a shuffle when the shoe is spent."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from controller.rules import Rules
from simulators.dealer_moves import DEAL, SHUFFLE, Move, act, bets_to_place


class HighCardPlay:
    """The dealer at one table (`simulators.parts.TablePlay`)."""

    def __init__(self, rules: Rules, seed: int, max_boxes: int | None) -> None:
        self.rules, self.seed, self.max_boxes = rules, seed, max_boxes

    def move(self, t: dict[str, Any]) -> Move:
        shoe = t["shoe"]
        if shoe is None or t["shuffle_due"] or shoe["size"] - shoe["dealt"] - shoe["burned"] <= len(t["boxes"]) + 1:
            return SHUFFLE if t["round"] is None else DEAL
        if t["round"] is None:
            for box, amount in bets_to_place(t, self.rules, self.seed, self.max_boxes):
                return act({"type": "bet", "box": box, "amount": str(Decimal(amount))})
        return DEAL

    def dealt(self, t: dict[str, Any], shoe_id: str, position: int) -> None:
        pass

    def keep(self, t: dict[str, Any]) -> list[tuple[str, int]]:
        return []


class HighCardDealer:
    """`simulators.parts.DealerMoves` for high card."""

    needs_supervisor = False
    loads_packs = False
    in_memory = True

    def play(self, rules: Rules, seed: int, random_choice: float, max_boxes: int | None) -> HighCardPlay:
        return HighCardPlay(rules, seed, max_boxes)


DEALER = HighCardDealer()
