"""How long the exact analysis of one shoe composition takes, beside the analyser before it and the previous model; effects of removal.

    .venv/bin/python benchmarks/exact.py [--no-eor] [--no-before]

Prints, for 1, 2, 6 and 8 decks of ru-standard's rules (no hole card, resplits to four hands,
resplit aces, DAS, three sevens), full and half-dealt (a seeded random half of the shoe gone),
the CPU seconds of ``simulators.exact.analyse`` under basic strategy and under
composition-dependent optimal play:

* ``first``: the first composition analysed for the profile and play, which builds and caches
  their hands (the basic strategy and the dealer's plans are built before the timing, once);
* ``next``: any further composition (the best of three runs): what a table re-analysing its
  shoe round after round pays;
* ``before``: the analyser before it was made fast (``benchmarks/exact_previous.py``), same
  composition, same run;

and the previous model (``simulators.strategy_edge``'s evaluator, behind ``python -m
simulators.strategy_cli``), with the expectation each gives. Then the effects of removal in six
decks beside the Wizard of Odds' table (its Appendix 7: 6 decks, double any two, DAS, one split,
composition-dependent play; with late surrender, which the page does not state but its figures
need), each the change in the player's expectation, in %, when one card of the value is taken out.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Callable

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import benchmarks.exact_previous as before  # noqa: E402
import simulators.exact as exact  # noqa: E402
from controller.rules import build_rules  # noqa: E402
from games.blackjack.rules import RuleProfile  # noqa: E402
from simulators.exact import analyse, full_shoe  # noqa: E402
from simulators.strategy import strategy_for  # noqa: E402
from simulators.strategy_edge import _Evaluator  # noqa: E402

# https://wizardofodds.com/games/blackjack/appendix/7/ (S17 and H17 columns), aces first.
WIZARD_EOR_6D_S17 = [-0.094, 0.069, 0.082, 0.110, 0.141, 0.079, 0.041, -0.008, -0.040, -0.091]
WIZARD_EOR_6D_H17 = [-0.084, 0.071, 0.086, 0.117, 0.143, 0.084, 0.038, -0.010, -0.045, -0.097]


def _rules(profile: str, **options: object) -> RuleProfile:
    rules = build_rules(profile, dict(options))
    assert isinstance(rules, RuleProfile)
    return rules


def previous_model(rules: RuleProfile, counts: list[int]) -> float:
    """The previous model's expectation of a composition: strategy_edge.house_edge's loop on ``counts``."""
    evaluator = _Evaluator(rules, strategy_for(rules))
    shoe = [0, *counts]
    total = sum(shoe)
    ev = 0.0
    for up in range(1, 11):
        if not shoe[up]:
            continue
        rest = shoe.copy()
        rest[up] -= 1
        n = total - 1
        for a in range(1, 11):
            for b in range(a, 11):
                p = (rest[a] * (rest[a] - 1) if a == b else 2 * rest[a] * rest[b]) / (n * (n - 1))
                if p <= 0:
                    continue
                counts_ab = rest.copy()
                counts_ab[a] -= 1
                counts_ab[b] -= 1
                ev += shoe[up] / total * p * evaluator.deal(counts_ab, up, a, b)
    return ev


def half_dealt(decks: int, seed: int) -> list[int]:
    """A shoe of ``decks`` with a seeded random half of its cards gone."""
    cards = [v for v, k in enumerate(full_shoe(decks), start=1) for _ in range(k)]
    random.Random(seed).shuffle(cards)
    left = cards[: len(cards) // 2]
    return [left.count(v) for v in range(1, 11)]


def timed(run: Callable[[], float], repeat: int = 1) -> tuple[float, float]:
    """(CPU seconds, result) of calling ``run``; the best of ``repeat`` calls."""
    best = float("inf")
    value = 0.0
    for _ in range(repeat):
        started = time.process_time()
        value = run()
        best = min(best, time.process_time() - started)
    return best, value


def timings(with_before: bool) -> None:
    """One line per deck count and shoe: each analysis's CPU seconds, and the expectations."""
    started = time.process_time()
    exact._dealer_plan(False)
    print(f"the dealer's plans (once per soft-17 rule, for every profile): {time.process_time() - started:.3f} s")
    print("CPU seconds per composition, ru-standard's rules; expectation in % (equal across columns but for "
          "rounding)")
    print(f"{'':>23} {'exact, basic strategy':^33}  {'exact, optimal play':^33}")
    print(f"{'decks':>5} {'shoe':<11} {'cards':>5} {'first':>8} {'next':>8} {'before':>8} {'ev %':>7}  "
          f"{'first':>8} {'next':>8} {'before':>8} {'ev %':>7}  {'previous model':>15}")
    for decks in (1, 2, 6, 8):
        rules = _rules("ru-standard", decks=decks)
        strategy_for(rules)  # built once per profile, not per composition
        exact._hands.cache_clear()  # the first composition of each play builds its hands
        for label, counts in (("full", list(full_shoe(decks))), ("half-dealt", half_dealt(decks, 2026 + decks))):
            cells = []
            for play in exact.PLAYS:
                first = "" if label != "full" else f"{timed(lambda: analyse(rules, counts, play).ev)[0]:.3f}"
                seconds, ev = timed(lambda: analyse(rules, counts, play).ev, repeat=3)
                was = f"{timed(lambda: before.analyse(rules, counts, play).ev)[0]:.3f}" if with_before else "-"
                cells.append(f"{first:>8} {seconds:8.3f} {was:>8} {ev * 100:+7.4f}")
            if with_before:
                seconds, ev = timed(lambda: previous_model(rules, counts))
                cells.append(f"{seconds:6.3f} {ev * 100:+8.4f}")
            print(f"{decks:>5} {label:<11} {sum(counts):>5} " + "  ".join(cells), flush=True)


def effects_of_removal() -> None:
    """Six decks, the Wizard's rules: each value's effect of removal, optimal play, beside his table."""
    base = dict(decks=6, double_after_split=True, max_hands=2, split_by="value", dealer_bj_takes="all")
    columns = (
        ("S17, LS", _rules("us-holecard", surrender="late", **base), WIZARD_EOR_6D_S17),
        ("H17, LS", _rules("us-holecard", surrender="late", dealer_hits_soft17=True, **base), WIZARD_EOR_6D_H17),
        ("S17, no surr.", _rules("us-holecard", **base), WIZARD_EOR_6D_S17),
    )
    full = list(full_shoe(6))
    print("\nEffect of removal, 6 decks, double any two, DAS, one split, peek, optimal play; % of the bet")
    eors = []
    for name, rules, _ in columns:
        ev = analyse(rules, full, "optimal").ev
        print(f"  {name}: house edge off the top {-ev * 100:.4f} %")
        row = []
        for v in range(1, 11):
            less = full.copy()
            less[v - 1] -= 1
            row.append((analyse(rules, less, "optimal").ev - ev) * 100)
        eors.append(row)
    print(f"{'card':>4} " + " ".join(f"{name:>23}" for name, _, _ in columns))
    print(f"{'':>4} " + " ".join(f"{'exact':>7} {'Wizard':>7} {'diff':>7}" for _ in columns))
    for v in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1):
        cells = [f"{row[v - 1]:+7.4f} {wizard[v - 1]:+7.3f} {row[v - 1] - wizard[v - 1]:+7.4f}"
                 for row, (_, _, wizard) in zip(eors, columns)]
        print(f"{'A' if v == 1 else v:>4} " + " ".join(cells))


def main() -> None:
    """Print the timings, then the effects of removal (unless --no-eor)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--no-eor", action="store_true", help="skip the effects of removal")
    parser.add_argument("--no-before", action="store_true",
                        help="skip the analyser before and the previous model (several minutes)")
    args = parser.parse_args()
    timings(not args.no_before)
    if not args.no_eor:
        effects_of_removal()


if __name__ == "__main__":
    main()
