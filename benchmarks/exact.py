"""The exact analyser beside Eric Farmer's engine: CPU seconds per composition, and max |dEV| over 54 cases.

    .venv/bin/python benchmarks/exact.py [--farmer PROGRAM] [--repeat R] [--no-accuracy] [--eor]

**Timing.** Six decks, S17, double any two, DAS, no resplit of aces, peek on ace and ten, no
surrender (``us-holecard`` with ``decks=6, split_by=value, double_after_split=true``), splits to 2
and to 4 hands: the CPU seconds of one composition after the first call for the rules and play
(which builds the cached hands; it is printed too), the best of R calls, for a full shoe and for a
seeded half-dealt one, under this project's basic strategy, CDP1 (``play="cdp1"``, what "optimal"
names) and CDZ- (``play="cdz-"``); beside, in the same run, Farmer's engine on the same composition
with the same rules: basic (this project's basic strategy given to it as its strategy), CDP1 and CDZ-.

**Accuracy.** 54 cases, each split rule (to 2 and to 4 hands) on: 1, 2, 6 and 8 full decks (S17, DAS,
no surrender); six decks H17, with late surrender, without DAS; and 20 seeded depletions of a
six-deck shoe (26 to 260 cards out, S17, DAS, late surrender). For each play, the largest
|this project − Farmer| over the 27 cases of each split rule, in % of the bet.

**Farmer's engine** is not part of this project (GPL; nothing of it is here): ``--farmer PROGRAM``
runs a program built outside it (his v7.6 ``blackjack.cpp`` with a small driver, ``g++ -O2``) that
reads lines on its standard input and answers on its standard output:

* ``strategy N`` then N lines, the basic strategy to play: ``two A B UP DD SP SU SPLIT ACTION`` (a
  two-card hand A-B, A ≤ B, or for a split hand (SPLIT 1) A the pair card and B the second card;
  DD, SP, SU: 1 where double, split, surrender are allowed) and ``multi HARD ACE UP ACTION`` (three
  cards or more); ACTION 1 stand, 2 hit, 3 double, 4 split, 5 surrender (Farmer's BJ_* codes);
* ``job H17 DAS HANDS LS PLAY R C1 ... C10``: the composition's expectation under PLAY (``cdz``,
  ``cdp1`` or ``basic``: the last strategy sent) with the dealer hitting soft 17 (H17 = 1), double
  after split, splits to HANDS (aces to 2), late surrender; answered ``EV BEST FIRST MISSING``: the
  expectation, the best and the first of R CPU times (``CLOCK_PROCESS_CPUTIME_ID`` around a
  ``BJPlayer`` made or reset), and how many of the engine's questions the strategy did not answer.

Without ``--farmer`` the Farmer columns are blank and no accuracy is printed (docs/house-edge.md
gives a run's figures). ``--eor`` adds the effects of removal beside the Wizard of Odds' table.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from typing import Callable

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import simulators.exact as exact  # noqa: E402
from controller.rules import build_rules  # noqa: E402
from games.blackjack.rules import RuleProfile  # noqa: E402
from simulators.exact import analyse, full_shoe  # noqa: E402
from simulators.strategy import DOUBLE, HIT, SPLIT, STAND, SURRENDER, strategy_for  # noqa: E402

# https://wizardofodds.com/games/blackjack/appendix/7/ (S17 and H17 columns), aces first.
WIZARD_EOR_6D_S17 = [-0.094, 0.069, 0.082, 0.110, 0.141, 0.079, 0.041, -0.008, -0.040, -0.091]
WIZARD_EOR_6D_H17 = [-0.084, 0.071, 0.086, 0.117, 0.143, 0.084, 0.038, -0.010, -0.045, -0.097]

CODE = {STAND: 1, HIT: 2, DOUBLE: 3, SPLIT: 4, SURRENDER: 5}
FARMER_PLAY = {"basic": "basic", "cdp1": "cdp1", "cdz-": "cdz"}


def farmer_rules(decks: int, hands: int, h17: bool = False, das: bool = True, late: bool = False) -> RuleProfile:
    """The project's rules for Farmer's game: peek on ace and ten, pairs by value, no resplit of aces, 3:2."""
    rules = build_rules("us-holecard", dict(decks=decks, split_by="value", double_after_split=das, max_hands=hands,
                                            resplit_aces=False, dealer_hits_soft17=h17,
                                            surrender="late" if late else "none"))
    assert isinstance(rules, RuleProfile)
    return rules


def depleted(decks: int, seed: int) -> list[int]:
    """A shoe of ``decks`` with a seeded random 26 to 260 cards gone."""
    rng = random.Random(seed)
    cards = [v for v, k in enumerate(full_shoe(decks), start=1) for _ in range(k)]
    rng.shuffle(cards)
    left = cards[rng.randint(26, 260):]
    return [left.count(v) for v in range(1, 11)]


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


def strategy_lines(rules: RuleProfile) -> list[str]:
    """This project's basic strategy for ``rules``, in the lines the Farmer program reads."""
    s = strategy_for(rules)
    lines = []
    for up in range(1, 11):
        for a in range(1, 11):
            for b in range(a, 11):
                for dd in (0, 1):
                    for sp in ((0, 1) if a == b else (0,)):
                        for su in (0, 1):
                            act = s.decide([a, b], up, can_double=bool(dd), can_split=bool(sp), can_surrender=bool(su))
                            lines.append(f"two {a} {b} {up} {dd} {sp} {su} 0 {CODE[act]}")
        for pair in range(2, 11):
            for x in range(1, 11):
                for dd in (0, 1):
                    act = s.decide([pair, x], up, can_double=bool(dd), can_split=False, can_surrender=False,
                                   hands_in_box=2, is_split_hand=True)
                    lines.append(f"two {pair} {x} {up} {dd} 0 0 1 {CODE[act]}")
        for ace in (0, 1):
            for hard in range(2, 22):
                cards = [1, hard - 1, 0] if ace else [hard, 0, 0]
                act = s.decide(cards, up, can_double=False, can_split=False, can_surrender=False)
                lines.append(f"multi {hard} {ace} {up} {CODE[act]}")
    return lines


class Farmer:
    """Farmer's engine, run as a separate program outside the project (see the module's docstring)."""

    def __init__(self, program: str) -> None:
        self.proc = subprocess.Popen([program], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.strategy: RuleProfile | None = None

    def ev(self, rules: RuleProfile, counts: list[int], play: str, repeat: int = 1) -> tuple[float, float]:
        """(expectation, best CPU seconds of ``repeat``) of ``counts`` under ``play``."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if play == "basic" and self.strategy != rules:
            lines = strategy_lines(rules)
            self.proc.stdin.write(f"strategy {len(lines)}\n" + "\n".join(lines) + "\n")
            self.strategy = rules
        self.proc.stdin.write(f"job {int(rules.dealer_hits_soft17)} {int(rules.double_after_split)} "
                              f"{rules.max_hands} {int(rules.surrender.value == 'late')} {FARMER_PLAY[play]} {repeat} "
                              f"{' '.join(map(str, counts))}\n")
        self.proc.stdin.flush()
        ev, best, _, missing = self.proc.stdout.readline().split()
        if int(missing):
            raise RuntimeError(f"the strategy did not answer {missing} of the engine's questions")
        return float(ev), float(best)

    def close(self) -> None:
        """Stop the program."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def stops_resplitting(rules: RuleProfile) -> list[str]:
    """Where basic strategy splits a pair but stops resplitting before the most hands (Farmer's engine always
    resplits to the most): such a case would not be the same play in both."""
    s = strategy_for(rules)
    out = []
    for up in range(1, 11):
        for pair in range(2, 11):
            if s.decide([pair, pair], up, can_double=False, can_split=True, can_surrender=False) is not SPLIT:
                continue
            for h in range(2, rules.max_hands):
                if s.decide([pair, pair], up, can_double=False, can_split=True, can_surrender=False, hands_in_box=h,
                            is_split_hand=True) is not SPLIT:
                    out.append(f"{pair}-{pair} v {up} at {h} hands")
                    break
    return out


def timings(farmer: Farmer | None, repeat: int) -> None:
    """CPU seconds per six-deck composition, this project beside Farmer's engine, one line per split rule."""
    print(f"CPU seconds per six-deck composition after the first call (best of {repeat}); S17, DAS, no RSA, peek, "
          "no surrender; load average before: {:.1f}".format(os.getloadavg()[0]))
    plays = exact.PLAYS
    head = " ".join(f"{'project ' + p:>14} {'Farmer ' + p:>14}" for p in plays)
    print(f"{'split to':>8} {'shoe':<10} {head}   first call (project: {', '.join(plays)})")
    for hands in (2, 4):
        rules = farmer_rules(6, hands)
        strategy_for(rules)  # built once per profile, not per composition
        firsts = []
        for play in plays:
            exact._hands.cache_clear()
            firsts.append(timed(lambda: analyse(rules, full_shoe(6), play).ev)[0])
        for label, counts in (("full", list(full_shoe(6))), ("half-dealt", half_dealt(6, 2042))):
            cells = []
            for play in plays:
                mine, _ = timed(lambda: analyse(rules, counts, play).ev, repeat)
                theirs = f"{farmer.ev(rules, counts, play, repeat)[1]:14.3f}" if farmer else f"{'-':>14}"
                cells.append(f"{mine:14.3f} {theirs}")
            first = ", ".join(f"{f:.3f}" for f in firsts) if label == "full" else ""
            print(f"{hands:>8} {label:<10} {' '.join(cells)}   {first}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def accuracy(farmer: Farmer) -> None:
    """The largest |dEV| against Farmer's engine over the 54 cases, per play and split rule."""
    print("\nmax |this project - Farmer| in % of the bet, 27 cases per split rule (1, 2, 6, 8 decks; 6 decks H17, "
          "LS, no DAS; 20 depleted six-deck shoes)")
    print(f"{'split to':>8} " + " ".join(f"{p:>12}" for p in exact.PLAYS) + "   cases   largest at")
    for hands in (2, 4):
        cases: list[tuple[str, RuleProfile, list[int]]] = []
        for decks in (1, 2, 6, 8):
            cases.append((f"{decks}D", farmer_rules(decks, hands), list(full_shoe(decks))))
        cases.append(("6D H17", farmer_rules(6, hands, h17=True), list(full_shoe(6))))
        cases.append(("6D LS", farmer_rules(6, hands, late=True), list(full_shoe(6))))
        cases.append(("6D no DAS", farmer_rules(6, hands, das=False), list(full_shoe(6))))
        for seed in range(20):
            counts = depleted(6, 4200 + seed)
            cases.append((f"6D LS -{312 - sum(counts)}", farmer_rules(6, hands, late=True), counts))
        worst = {p: (0.0, "") for p in exact.PLAYS}
        for name, rules, counts in cases:
            for play in exact.PLAYS:
                if play == "basic" and stops_resplitting(rules):
                    print(f"  {name}: basic strategy stops resplitting ({'; '.join(stops_resplitting(rules))}): "
                          "not the same play in Farmer's engine")
                    continue
                diff = abs(analyse(rules, counts, play).ev - farmer.ev(rules, counts, play)[0]) * 100
                if diff >= worst[play][0]:
                    worst[play] = (diff, name)
        cells = " ".join(f"{worst[p][0]:12.1e}" for p in exact.PLAYS)
        print(f"{hands:>8} {cells}   {len(cases):>5}   " + "; ".join(f"{p}: {worst[p][1]}" for p in exact.PLAYS),
              flush=True)


def effects_of_removal() -> None:
    """Six decks, the Wizard's rules: each value's effect of removal, optimal play, beside his table."""
    base = dict(decks=6, double_after_split=True, max_hands=2, split_by="value", dealer_bj_takes="all")
    columns = (
        ("S17, LS", build_rules("us-holecard", dict(surrender="late", **base)), WIZARD_EOR_6D_S17),
        ("H17, LS", build_rules("us-holecard", dict(surrender="late", dealer_hits_soft17=True, **base)),
         WIZARD_EOR_6D_H17),
        ("S17, no surr.", build_rules("us-holecard", dict(base)), WIZARD_EOR_6D_S17),
    )
    full = list(full_shoe(6))
    print("\nEffect of removal, 6 decks, double any two, DAS, one split, peek, optimal play (CDP1); % of the bet")
    eors = []
    for name, rules, _ in columns:
        assert isinstance(rules, RuleProfile)
        ev = analyse(rules, full, "cdp1").ev
        print(f"  {name}: house edge off the top {-ev * 100:.4f} %")
        row = []
        for v in range(1, 11):
            less = full.copy()
            less[v - 1] -= 1
            row.append((analyse(rules, less, "cdp1").ev - ev) * 100)
        eors.append(row)
    print(f"{'card':>4} " + " ".join(f"{name:>23}" for name, _, _ in columns))
    print(f"{'':>4} " + " ".join(f"{'exact':>7} {'Wizard':>7} {'diff':>7}" for _ in columns))
    for v in (2, 3, 4, 5, 6, 7, 8, 9, 10, 1):
        cells = [f"{row[v - 1]:+7.4f} {wizard[v - 1]:+7.3f} {row[v - 1] - wizard[v - 1]:+7.4f}"
                 for row, (_, _, wizard) in zip(eors, columns)]
        print(f"{'A' if v == 1 else v:>4} " + " ".join(cells))


def main() -> None:
    """Print the timings, the accuracy against Farmer's engine (with --farmer), the effects of removal (--eor)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--farmer", help="Farmer's engine with the driver described above, built outside the project")
    parser.add_argument("--repeat", type=int, default=5, help="calls per timing (the best is printed)")
    parser.add_argument("--no-accuracy", action="store_true", help="skip the 54 cases against Farmer's engine")
    parser.add_argument("--eor", action="store_true", help="the effects of removal beside the Wizard of Odds' table")
    args = parser.parse_args()
    farmer = Farmer(args.farmer) if args.farmer else None
    try:
        timings(farmer, args.repeat)
        if farmer and not args.no_accuracy:
            accuracy(farmer)
    finally:
        if farmer:
            farmer.close()
    if args.eor:
        effects_of_removal()


if __name__ == "__main__":
    main()
