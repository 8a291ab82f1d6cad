"""Rounds per second of `tablectl simulate` beside py21's, on the same rules, in one run, per core:
the pure-Python engine, the engine as installed (the compiled build, when it is current), and py21.

    .venv/bin/pip install -e '.[bench]'      # py21 (and what it imports) is a benchmark extra
    .venv/bin/python benchmarks/engine.py [--rounds N] [--repeat K] [--profiles]

Each of K rounds of runs plays py21 in this process, then `tablectl simulate --rules ru-standard
--workers 1 --json` as a fresh process twice: with TABLECTL_ENGINE=pure, and as installed (it
says which engine it ran; its rate counts the rounds' time only, not the start nor the strategy
tables). One core each; the best run of each is kept (the least disturbed by the machine) and
the ratios are of those. The rules are
ru-standard's as far as py21 can take them: 6 decks, a cut card (py21 reshuffles once 0.327
of the shoe is left, the middle of ru-standard's 200-220 of 312 dealt), one box, the dealer
stands on soft 17, double on any two, double after split, split to 4 hands, no surrender.
What differs: py21 peeks for a dealer blackjack (a hole-card game) and ru-standard does not;
py21 has no three-sevens bonus and no resplit of aces (split aces take one card in both);
py21 counts cards and collects per-hand data as it plays, which it cannot be told not to do.
`tablectl simulate` also checks every event through the engine (legality, the shoe's make-up,
alerts) and settles by the engine's rules, as the live table does.

With --profiles it also prints each built-in profile's rate and the engine's share of the time
(the pure engine, in this process: the profiler sees no time inside compiled code).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # after PYTHONPATH: a compiled build wins (--profiles)

from controller.rules import build_rules, profiles  # noqa: E402
from games.blackjack.simulate import play_chunk, simulate  # noqa: E402

PY21_RULES = {
    "num_decks": 6,
    "shuffle_freq": 1 - 210 / 312,  # reshuffle with 102 of 312 cards left
    "burn": False,
    "soft_stand": True,
    "stand_total": 17,
    "double_after_split": True,
    "max_split_hands": 3,  # three splits: four hands
    "hit_split_aces": False,
    "surrender_allowed": False,
    "insurance_allowed": False,  # neither simulator's player insures
}


def py21_rate(rounds: int, seed: int) -> float:
    """Rounds per second of py21 1.6.0's own play loop (Game.play_round) with its basic strategy."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from py21 import Game, Player
    game = Game([Player(10**15)], PY21_RULES, seed=seed)
    started = time.perf_counter()
    for _ in range(rounds):
        game.play_round()
    return rounds / (time.perf_counter() - started)


def simulate_run(rounds: int, seed: int, engine: str) -> dict[str, object]:
    """`tablectl simulate --rules ru-standard --workers 1 --json` as a fresh process: ``pure``
    (TABLECTL_ENGINE=pure) or ``installed`` (the engine it chooses); its figures, with the engine it ran."""
    env = dict(os.environ)
    if engine == "pure":
        env["TABLECTL_ENGINE"] = "pure"
    out = subprocess.run([sys.executable, "-m", "tablectl.cli", "simulate", "--rules", "ru-standard", "--rounds",
                          str(rounds), "--seed", str(seed), "--workers", "1", "--json"],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    figures: dict[str, object] = json.loads(out.stdout)
    return figures


def engine_share(name: str, rounds: int) -> float:
    """The share of a simulation's time spent inside Table.apply (the rest: shoe and players)."""
    prof = cProfile.Profile()
    prof.enable()
    play_chunk(build_rules(name), rounds, "profile")
    prof.disable()
    stats = pstats.Stats(prof)
    total = stats.total_tt  # type: ignore[attr-defined]
    engine = sum(v[3] for k, v in stats.stats.items() if k[2] == "apply" and "controller" in k[0])  # type: ignore[attr-defined]
    return engine / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profiles", action="store_true", help="also every built-in profile alone")
    args = parser.parse_args()
    load_before = os.getloadavg()
    py21_rate(2000, 0)  # py21's imports and first shoe outside the timing
    rates: dict[str, list[float]] = {"py21": [], "pure": [], "installed": []}
    installed: dict[str, object] = {}
    for k in range(1, args.repeat + 1):
        rates["py21"].append(py21_rate(args.rounds, k))
        for engine in ("pure", "installed"):
            run = simulate_run(args.rounds, k, engine)
            rates[engine].append(float(run["rounds_per_second"]))  # type: ignore[arg-type]
            if engine == "installed":
                installed = run
    best = {name: max(runs) for name, runs in rates.items()}
    load_after = os.getloadavg()
    engine = "compiled (mypyc)" if installed.get("engine") == "compiled" else f"pure Python ({installed.get('engine_note')})"
    print(f"ru-standard-like rules, one box, one core, {args.rounds} rounds, best of {args.repeat}; "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"  {'':34} {'rounds/s':>9} {'x py21':>7}   runs")
    rows = [("py21 1.6.0", "py21"), ("tablectl simulate, pure Python", "pure"),
            ("tablectl simulate, as installed", "installed")]
    for label, name in rows:
        runs = ", ".join(f"{x:.0f}" for x in rates[name])
        print(f"  {label:<34} {best[name]:>9.0f} {best[name] / best['py21']:>7.2f}   ({runs})")
    print(f"  as installed, the engine was: {engine}")
    if args.profiles:
        print(f"\n{'profile':<18} {'rounds/s':>10} {'engine share':>13}   (pure engine, in this process)")
        for name in profiles("blackjack"):
            rules = build_rules(name)
            simulate(rules, 1000, 0)
            rate = max(simulate(rules, args.rounds, seed).rounds_per_second for seed in range(1, args.repeat + 1))
            print(f"{name:<18} {rate:>10.0f} {engine_share(name, min(args.rounds, 20_000)):>12.0%}")


if __name__ == "__main__":
    main()
