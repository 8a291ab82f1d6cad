"""Baccarat's simulation (the registry's ``simulate`` part): coups dealt from shuffled shoes, every bet settled by
`settlement`, the house edge of each bet beside the exact figure off the top (`exact`).

Each shoe is shuffled from the seed (``random.Random``), burnt as the rules say and dealt to its cut card and
the coup after it, as the table deals it; each coup stakes one unit (100 cents) on every spot the table offers.
The standard error is of the mean result per coup (the coups of a shoe are not independent: a shoe's coups are
few against a run's, so the error is close; the exact figure beside is the check).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from typing import Any

from controller.cards import ALL_CARDS, Card
from controller.rules import Rules

from . import settlement as pay
from .exact import expectations, full_shoe
from .rules import BaccaratRules, LastCoup
from .tableau import BANKER, PLAYER, next_due

STAKE = 100


def _spots(rules: BaccaratRules) -> list[str]:
    return [s for s in pay.SPOTS if (s != pay.DRAGON7 or rules.dragon7) and (s != pay.PANDA8 or rules.panda8)]


def simulate(rules: BaccaratRules, coups: int, seed: int) -> dict[str, Any]:
    """Play ``coups`` coups; the result per spot: mean and standard error per unit staked, in per cent."""
    rng = random.Random(seed)
    spots = _spots(rules)
    sums = dict.fromkeys(spots, 0)
    squares = dict.fromkeys(spots, 0)
    played = 0
    pack = [c for c in ALL_CARDS] * rules.decks
    while played < coups:
        shoe: list[Card] = pack[:]
        rng.shuffle(shoe)
        pos = 0
        if rules.burn == "face_value":
            pos = 1 + shoe[0].value
        elif rules.burn.startswith("fixed:"):
            pos = int(rules.burn.partition(":")[2])
        cut = len(shoe) - rng.randint(rules.cut_card_from_end_min, rules.cut_card_from_end_max)
        after = None
        while played < coups and len(shoe) - pos >= 6:
            if after is None and pos >= cut:
                after = 1 if rules.last_coup is LastCoup.ONE_MORE else 0
            player: list[tuple[str, int]] = []
            banker: list[tuple[str, int]] = []
            while (due := next_due([v for _, v in player], [v for _, v in banker])) is not None:
                card = shoe[pos]
                pos += 1
                (player if due == PLAYER else banker).append((card.rank, card.value))
            coup = pay.Coup.of(player, banker)
            for s in spots:
                net = pay.settle_spot(s, STAKE, coup, rules).net
                sums[s] += net
                squares[s] += net * net
            played += 1
            if after is not None:
                if after == 0:
                    break
                after -= 1
    assert BANKER  # (the tableau's names: the hands the loop deals to)
    out: dict[str, Any] = {}
    for s in spots:
        mean = sums[s] / played
        var = squares[s] / played - mean * mean
        out[s] = {"edge_pct": -mean / STAKE * 100, "stderr_pct": math.sqrt(var / played) / STAKE * 100}
    return out


class BaccaratSimulation:
    """`tablectl simulate --rules punto-banco|ez-baccarat` (`simulators.parts.SimulatePart`)."""

    def run(self, args: argparse.Namespace, rules: Rules) -> int:
        """Play ``args.rounds`` coups and print each bet's house edge beside the exact figure off the top."""
        if args.players is not None or args.banker is not None:
            print("tablectl simulate: --players and --banker are for the club games; baccarat has no decisions",
                  file=sys.stderr)
            return 2
        assert isinstance(rules, BaccaratRules)
        began = time.perf_counter()
        result = simulate(rules, args.rounds, args.seed)
        seconds = time.perf_counter() - began
        exact = expectations(full_shoe(rules.decks), rules)
        for s, figures in result.items():
            figures["exact_off_the_top_pct"] = -exact[s] * 100
        doc = {"rules": rules.name, "coups": args.rounds, "seed": args.seed, "method": "coups dealt from shuffled "
               "shoes to the cut card, one unit on every spot; edge = -mean net per unit, s.e. of the mean",
               "spots": result, "coups_per_second": round(args.rounds / seconds) if seconds > 0 else None}
        if args.json:
            print(json.dumps(doc))
        else:
            print(f"{rules.name}: {args.rounds} coups (seed {args.seed}); house edge per spot, simulated ± 1 s.e. "
                  "against exact off the top:")
            for s, f in result.items():
                print(f"  {s:12} {f['edge_pct']:8.3f}% ± {f['stderr_pct']:.3f}%   exact {f['exact_off_the_top_pct']:.4f}%")
        return 0


SIMULATE = BaccaratSimulation()
