"""`python -m simulators.strategy_cli --rules PROFILE [--set OPTION=VALUE ...]`: the chart and the edge.

Kept apart from `simulators.strategy` so that the strategy never imports the edge model
(which imports the strategy): the command line is the only place both meet.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence, cast

from controller.rules import build_rules, parse_set_options, profiles

from .blackjack_terms import BlackjackTerms
from .strategy import chart, strategy_for
from .strategy_edge import house_edge


def main(argv: Sequence[str] | None = None) -> int:
    """Print the chart and the computed house edge of a profile."""
    parser = argparse.ArgumentParser(prog="python -m simulators.strategy_cli", description=main.__doc__)
    parser.add_argument("--rules", default="ru-standard", choices=sorted(profiles("blackjack")))
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE")
    args = parser.parse_args(argv)
    # --rules offers only blackjack profiles, and build_rules never changes a profile's game.
    rules = cast(BlackjackTerms, build_rules(args.rules, parse_set_options(args.set)))
    started = time.perf_counter()
    strategy_for(rules)
    built = time.perf_counter() - started
    print(chart(rules))
    print(f"\nstrategy built in {built * 1000:.0f} ms")
    started = time.perf_counter()
    report = house_edge(rules)
    print(report.describe())
    print(f"(edge computed in {time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
