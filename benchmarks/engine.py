"""Rounds per second of `tablectl simulate` through the authoritative engine, on one core.

    .venv/bin/python benchmarks/engine.py [--rounds N] [--repeat K]

Prints, per built-in profile, the best of K runs (the least disturbed by the machine),
and the share of time the engine itself takes (the rest is the virtual shoe and players).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from controller.rules import PROFILES, build_rules  # noqa: E402
from simulators.simulate import simulate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'profile':<18} {'rounds/s':>10} {'engine share':>13}")
    for name in PROFILES:
        rules = build_rules(name)
        simulate(rules, 1000, 0)  # build the strategy tables outside the timing
        best = max(simulate(rules, args.rounds, seed).rounds_per_second for seed in range(1, args.repeat + 1))
        prof = cProfile.Profile()
        prof.enable()
        simulate(rules, min(args.rounds, 20_000), 99)
        prof.disable()
        stats = pstats.Stats(prof)
        total = stats.total_tt  # type: ignore[attr-defined]
        engine = sum(v[3] for k, v in stats.stats.items() if k[2] == "apply" and "controller" in k[0])  # type: ignore[attr-defined]
        print(f"{name:<18} {best:>10.0f} {engine / total:>12.0%}")


if __name__ == "__main__":
    main()
