"""The simulated house edge of each built-in profile against the model's exact figure.

    .venv/bin/python benchmarks/house_edge.py [--rounds N]

With `reshuffle_every_round = true` every round is dealt off the top of a fresh shoe,
which is what the published figures and simulators.strategy_edge compute. Prints
the edge, its standard error, and how many standard errors it lies from the model.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from controller.rules import PROFILES, build_rules  # noqa: E402
from simulators.simulate import simulate  # noqa: E402
from simulators.strategy_edge import house_edge  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    print(f"{'profile':<18} {'simulated %':>12} {'± s.e.':>8} {'model %':>9} {'z':>6} {'rounds/s':>9}")
    for name in PROFILES:
        rules = build_rules(name, {"reshuffle_every_round": True})
        model = house_edge(rules)
        model_pct = 100 * model.house_edge
        r = simulate(rules, args.rounds, args.seed)
        z = (r.house_edge_pct - model_pct) / r.stderr_pct
        print(f"{name:<18} {r.house_edge_pct:>12.3f} {r.stderr_pct:>8.3f} {model_pct:>9.3f} {z:>6.2f} "
              f"{r.rounds_per_second:>9.0f}")


if __name__ == "__main__":
    main()
