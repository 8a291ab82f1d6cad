"""The simulated house edge of each built-in profile beside the model's exact figure, with the time.

    .venv/bin/python benchmarks/house_edge.py [--rounds N] [--seed S] [--workers N] [--profile NAME]

With `reshuffle_every_round = true` every round is dealt off the top of a fresh shoe,
which is what the published figures and simulators.strategy_edge compute. Prints the
edge, its standard error, how many standard errors it lies from the model, and the
seconds the simulation took on `--workers` processes (default: every core).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.append(os.path.join(os.path.dirname(__file__), ".."))  # the checkout, when it is not installed

from tablectl.compiled_engine import use_compiled_engine  # noqa: E402

ENGINE = use_compiled_engine()  # as `tablectl simulate`: the compiled build when it is current (said below)

from controller.rules import build_rules, profiles  # noqa: E402
from games.blackjack.simulate import simulate  # noqa: E402
from simulators.simulation import default_workers  # noqa: E402
from simulators.strategy_edge import house_edge  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--profile", action="append", choices=sorted(profiles("blackjack")), help="only these (repeatable)")
    args = parser.parse_args()
    print(f"engine: {ENGINE.describe()}")
    print(f"{'profile':<18} {'simulated %':>12} {'± s.e.':>8} {'exact %':>9} {'z':>6} {'rounds':>10} "
          f"{'seconds':>8} {'rounds/s':>9}", flush=True)
    for name in args.profile or profiles("blackjack"):
        rules = build_rules(name, {"reshuffle_every_round": True})
        exact = 100 * house_edge(rules).house_edge
        started = time.perf_counter()
        r = simulate(rules, args.rounds, args.seed, workers=args.workers)
        seconds = time.perf_counter() - started
        z = (r.house_edge_pct - exact) / r.stderr_pct
        print(f"{name:<18} {r.house_edge_pct:>12.4f} {r.stderr_pct:>8.4f} {exact:>9.4f} {z:>6.2f} {r.rounds:>10} "
              f"{seconds:>8.1f} {r.rounds_per_second:>9.0f}", flush=True)


if __name__ == "__main__":
    main()
