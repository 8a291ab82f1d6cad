"""How long building a profile's basic strategy takes (the first decision of a table pays it).

    .venv/bin/python benchmarks/strategy.py

Prints, per built-in profile, the seconds to build its strategy tables from scratch
(the tests check only that a strategy is cached per set of rules, never a speed).
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from controller.rules import build_rules, profiles  # noqa: E402
from simulators.strategy import BasicStrategy  # noqa: E402


def main() -> None:
    """Print each profile's build time."""
    print(f"{'profile':<18} {'build s':>8}")
    for name in profiles("blackjack"):
        started = time.perf_counter()
        BasicStrategy(build_rules(name))
        print(f"{name:<18} {time.perf_counter() - started:>8.3f}")


if __name__ == "__main__":
    main()
