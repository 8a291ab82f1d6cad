"""How long the exact analysis of one shoe composition takes, beside the previous model; effects of removal.

    .venv/bin/python benchmarks/exact.py [--no-eor]

Prints, for 1, 2, 6 and 8 decks of ru-standard's rules (no hole card, resplits to four hands,
resplit aces, DAS, three sevens), full and half-dealt (a seeded random half of the shoe gone):
the CPU seconds of ``simulators.exact.analyse`` under basic strategy and under
composition-dependent optimal play, and of the previous model (``simulators.strategy_edge``'s
evaluator, the one behind ``python -m simulators.strategy_cli``) on the same composition, with
the expectations each gives. Then the effects of removal in six decks beside the Wizard of Odds'
table (its Appendix 7: 6 decks, S17, double any two, DAS, one split, optimal play; peek), each
the change in the player's expectation, in %, when one card of the value is taken out.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from controller.rules import RuleProfile, build_rules  # noqa: E402
from simulators.exact import analyse, full_shoe  # noqa: E402
from simulators.strategy import strategy_for  # noqa: E402
from simulators.strategy_edge import _Evaluator  # noqa: E402

# https://wizardofodds.com/games/blackjack/appendix/7/ (S17 column), aces first.
WIZARD_EOR_6D_S17 = [-0.094, 0.069, 0.082, 0.110, 0.141, 0.079, 0.041, -0.008, -0.040, -0.091]


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


def timed(run: object) -> tuple[float, float]:
    """(CPU seconds, result) of calling ``run``."""
    started = time.process_time()
    value = run()  # type: ignore[operator]
    return time.process_time() - started, value


def timings() -> None:
    """One line per deck count and shoe: the three analyses' CPU seconds and expectations."""
    print("CPU seconds per composition, ru-standard's rules (expectation in % beside each)")
    print(f"{'decks':>5} {'shoe':<11} {'cards':>5} {'exact basic':>20} {'exact optimal':>20} {'previous model':>20}")
    for decks in (1, 2, 6, 8):
        rules = _rules("ru-standard", decks=decks)
        strategy_for(rules)  # built once per profile, not per composition
        for label, counts in (("full", list(full_shoe(decks))), ("half-dealt", half_dealt(decks, 2026 + decks))):
            cells = []
            for run in (lambda: analyse(rules, counts, "basic").ev, lambda: analyse(rules, counts, "optimal").ev,
                        lambda: previous_model(rules, counts)):
                seconds, ev = timed(run)
                cells.append(f"{seconds:7.3f} s {ev * 100:+8.4f}")
            print(f"{decks:>5} {label:<11} {sum(counts):>5} " + " ".join(f"{c:>20}" for c in cells))


def effects_of_removal() -> None:
    """Six decks, the Wizard's rules: each value's effect of removal, optimal play, beside his table."""
    rules = _rules("us-holecard", decks=6, double_after_split=True, max_hands=2, split_by="value",
                   dealer_bj_takes="all")
    full = list(full_shoe(6))
    base = analyse(rules, full, "optimal").ev
    print(f"\nEffect of removal, 6 decks S17 DAS DOA one split, peek, optimal play (off the top: "
          f"{-base * 100:.4f} % house edge)")
    print(f"{'card':>4} {'exact %':>9} {'Wizard %':>9} {'diff':>8}")
    for v in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1):
        less = full.copy()
        less[v - 1] -= 1
        eor = (analyse(rules, less, "optimal").ev - base) * 100
        wiz = WIZARD_EOR_6D_S17[v - 1]
        print(f"{'A' if v == 1 else v:>4} {eor:+9.4f} {wiz:+9.3f} {eor - wiz:+8.4f}")


def main() -> None:
    """Print the timings, then the effects of removal (unless --no-eor)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-eor", action="store_true", help="skip the effects of removal (about a minute)")
    args = parser.parse_args()
    timings()
    if not args.no_eor:
        effects_of_removal()


if __name__ == "__main__":
    main()
