"""The exact pre-round edge against the Hi-Lo estimate and a linear effect-of-removal estimate.

    .venv/bin/python benchmarks/edge_vs_count.py [--shoes 160] [--seed 2027] [--rules ru-standard]

Each sample is a 6-deck shoe shuffled at random and dealt to a random depth (26 to 260 cards out, as a
cut card between them allows), and the exact player's expectation of the next round computed from the
cards left (`simulators/exact.py`, basic strategy, what `tablectl/edge.py` gives surveillance live).
Beside it:

- **Hi-Lo**: -0.36 % + 0.57 % x true count, the rule of thumb of the research we have (residual sd
  0.39 % there); and the least-squares line of this run, fitted on the same samples;
- **linear effects of removal**: the full shoe's expectation plus, for each value, the cards of it
  removed times its effect of removal (computed here: one card of the value taken from the full shoe),
  scaled by the full shoe's size over the cards left (effects grow as the shoe shrinks; research: sd 0.14 %).

It prints the residual standard deviation (exact minus estimate) of each, with n. Time per composition
is `benchmarks/exact.py`'s.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from controller.rules import build_rules  # noqa: E402
from simulators.exact import analyse, full_shoe  # noqa: E402

HI_LO = {1: -1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 0, 8: 0, 9: 0, 10: -1}  # by value, aces first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shoes", type=int, default=160, help="random depletions (at least 140)")
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--rules", default="ru-standard")
    args = parser.parse_args()
    rules = build_rules(args.rules)
    if rules.decks != 6:
        parser.error("the comparison is for a 6-deck shoe")
    full = list(full_shoe(6))
    size = sum(full)
    started = time.process_time()
    e0 = analyse(rules, full).ev
    eor = {}
    for v in range(1, 11):
        less = list(full)
        less[v - 1] -= 1
        eor[v] = analyse(rules, less).ev - e0
    rng = random.Random(args.seed)
    cards = [v for v in range(1, 11) for _ in range(full[v - 1])]
    rows = []
    for _ in range(args.shoes):
        rng.shuffle(cards)
        out = rng.randint(26, 260)
        left = list(full)
        for v in cards[:out]:
            left[v - 1] -= 1
        n = size - out
        running = sum(HI_LO[v] for v in cards[:out])
        true = running / (n / 52)
        exact = analyse(rules, left).ev * 100
        hi_lo = -0.36 + 0.57 * true
        removed = sum((full[v - 1] - left[v - 1]) * eor[v] for v in range(1, 11))
        linear = (e0 + removed * size / n) * 100
        unscaled = (e0 + removed) * 100
        rows.append((exact, true, hi_lo, linear, unscaled))
    cpu = time.process_time() - started
    exact = [r[0] for r in rows]
    true = [r[1] for r in rows]
    fit = statistics.linear_regression(true, exact)
    print(f"{len(rows)} random depletions of a 6-deck shoe ({args.rules}, basic strategy; 26-260 cards out; "
          f"seed {args.seed}); {cpu:.1f} s of CPU")
    print(f"exact player's edge: mean {statistics.mean(exact):+.3f} %, sd {statistics.stdev(exact):.3f} %")
    print(f"{'estimate':<46} {'residual sd':>12} {'mean error':>11}")
    for name, est in (("Hi-Lo: -0.36 % + 0.57 % x TC", [r[2] for r in rows]),
                      (f"Hi-Lo, this run's line: {fit.intercept:+.3f} % + {fit.slope:.3f} % x TC",
                       [fit.intercept + fit.slope * t for t in true]),
                      ("linear effects of removal, scaled by size/left", [r[3] for r in rows]),
                      ("linear effects of removal, unscaled", [r[4] for r in rows])):
        errors = [x - e for x, e in zip(exact, est)]
        print(f"{name:<46} {statistics.stdev(errors):11.3f} % {statistics.mean(errors):+10.3f} %")


if __name__ == "__main__":
    main()
