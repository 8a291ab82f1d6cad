"""The club games' simulated house edge for each stated players' rule, with the time it took.

    .venv/bin/python benchmarks/club.py [--rounds N] [--seed S] [--workers N]

Plays `club-21` and `club-21-36` with the sighted rule (below-17) and the virtual dealer's blind
rule (cards-3) through the engine, and prints each edge, its standard error and the rounds per
second. The figures hold for those strategies only (docs/house-edge.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.append(os.path.join(os.path.dirname(__file__), ".."))  # the checkout, when it is not installed

from tablectl.compiled_engine import use_compiled_engine  # noqa: E402

ENGINE = use_compiled_engine()  # as `tablectl simulate`: the compiled build when it is current (said below)

from controller.rules import build_rules  # noqa: E402
from games.club.simulate import simulate_club  # noqa: E402
from simulators.club_strategy import parse_players_rule  # noqa: E402
from simulators.simulation import default_workers  # noqa: E402


def main() -> None:
    """Run every club game with each players' rule and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=default_workers())
    args = parser.parse_args()
    if args.rounds < 1 or args.workers < 1:
        parser.error("--rounds and --workers must be at least 1")
    print(f"engine: {ENGINE.describe()}")
    for profile in ("club-21", "club-21-36"):
        rules = build_rules(profile)
        for rule in ("below-17", "cards-3"):
            started = time.perf_counter()
            result = simulate_club(rules, args.rounds, args.seed, players=parse_players_rule(rule),
                                   workers=args.workers)
            took = time.perf_counter() - started
            print(f"{profile:11s} {rule:9s} banker stands at {result.banker_stands_at}: edge "
                  f"{result.house_edge_pct:+8.3f}% ± {result.stderr_pct:.3f}%  {took:6.1f} s  "
                  f"{result.rounds_per_second:8.0f} rounds/s")


if __name__ == "__main__":
    main()
