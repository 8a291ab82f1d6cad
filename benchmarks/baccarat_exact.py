"""How long baccarat's exact analysis of the next coup takes (games/baccarat/exact.py): off the top of 8 and 6
decks, and from shoes part dealt (random compositions, seeded), on this machine; every bet's edge off the top.

    .venv/bin/python benchmarks/baccarat_exact.py [--shoes N] [--seed S]

Prints the median and the slowest time per analysis (wall clock, one process) and the figures off the top. A Pi 4
runs this pure Python about 4 to 6 times slower than a desktop core: docs/baccarat.md keeps the figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from controller.cards import RANKS
from controller.rules import build_rules
from games.baccarat.exact import expectations, full_shoe
from games.baccarat.rules import BaccaratRules


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shoes", type=int, default=20, help="part-dealt shoes to time (default 20)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    rng = random.Random(args.seed)
    for profile, options in (("punto-banco", {}), ("punto-banco", {"decks": 6}), ("ez-baccarat", {})):
        rules = build_rules(profile, options)
        assert isinstance(rules, BaccaratRules)
        e = expectations(full_shoe(rules.decks), rules)
        print(f"{profile} {rules.decks} decks, off the top (house edge, %): "
              + ", ".join(f"{k} {-v * 100:.4f}" for k, v in e.items()))
    rules = build_rules("ez-baccarat")
    assert isinstance(rules, BaccaratRules)
    times = []
    for _ in range(args.shoes):
        cards = [r for r in RANKS for _ in range(32)]
        rng.shuffle(cards)
        left = cards[rng.randint(0, 380):]
        comp = {r: left.count(r) for r in RANKS}
        began = time.perf_counter()
        expectations(comp, rules)
        times.append(time.perf_counter() - began)
    print(f"exact analysis of the next coup, every bet: {len(times)} part-dealt 8-deck shoes, median "
          f"{statistics.median(times) * 1000:.0f} ms, slowest {max(times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
