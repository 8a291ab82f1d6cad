"""What the virtual dealer does next, in any game: the answer of the pure decision modules.

Each game's dealer (the registry's ``dealer`` part, `simulators.parts.DealerMoves`: blackjack's,
the club games') reads one table view and says the one `Move` to make; whoever holds the table carries it out (the virtual dealer over the
API and the shoe's control channel, the in-process dealer through the service, the tests on an
engine in memory). The bets are the same in every game: drawn from the seed and the round
number, so a dealer that restarts places the same ones again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

MoveKind = Literal["deal", "act", "supervise", "shuffle", "wait"]

RANDOM_CHOICE = 0.05  # the share of the players' decisions taken at random among the legal ones


@dataclass(frozen=True, slots=True)
class Move:
    """What the dealer does next: deal a card, send an action (``event``; ``supervise``: one the pit's
    key must send, the bank's opening and closing), shuffle, or wait."""

    kind: MoveKind
    event: dict[str, Any] | None = None


DEAL, SHUFFLE, WAIT = Move("deal"), Move("shuffle"), Move("wait")


def act(event: dict[str, Any]) -> Move:
    """Send ``event`` with the dealer's key."""
    return Move("act", event)


def seeded(seed: int, *parts: object) -> random.Random:
    """The random choices of one decision: drawn from the seed and the table's own state (``parts``),
    so the same decision comes out again after a restart."""
    return random.Random(":".join(str(p) for p in (seed, *parts)))


def bets_to_place(t: dict[str, Any], rules: Any, seed: int, max_boxes: int | None = None) -> list[tuple[int, Decimal]]:
    """This round's planned bets (drawn from the seed and the round number) not yet on the table.

    Some of the first ``max_boxes`` boxes (all of them when None), each a whole number of table
    minimums up to ten of them (or the table maximum); in club-21-36 a stake is at most the bank.
    """
    rng = seeded(seed, "bets", t["rounds_played"])
    boxes = list(range(1, rules.boxes + 1))[: max_boxes or rules.boxes]
    chosen = sorted(rng.sample(boxes, rng.randint(1, len(boxes))))
    steps = max(1, int(min(rules.table_max, rules.table_min * 10) / rules.table_min))
    plan = [(box, rules.table_min * rng.randint(1, steps)) for box in chosen]
    bank = t.get("bank")
    if bank is not None and bank["open"]:  # club-21-36: a stake is at most the bank (all of it: va-banque)
        balance = Decimal(bank["balance"])
        plan = [(box, min(amount, balance)) for box, amount in plan]
    placed = {b["box"] for b in t["boxes"] if b.get("next_round")}
    return [(box, amount) for box, amount in plan if box not in placed]
