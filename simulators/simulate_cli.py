"""`tablectl simulate --rules PROFILE --rounds N --seed S [--boxes K] [--workers N] [--set OPTION=VALUE ...] [--json]`."""

from __future__ import annotations

import argparse
import json
import sys

from controller.rules import RuleError, build_rules, parse_set_options


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register simulate's arguments."""
    p.add_argument("--rules", metavar="PROFILE", default="ru-standard", help="rule profile (default ru-standard)")
    p.add_argument("--rounds", type=int, default=100_000, help="rounds to play (default 100000)")
    p.add_argument("--seed", type=int, default=1, help="random seed: the same seed plays the same rounds")
    p.add_argument("--boxes", type=int, default=1, help="boxes in play each round (default 1)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes to play in (default: every core); the result does not depend on it")
    p.add_argument("--set", metavar="OPTION=VALUE", action="append", default=[], help="override a rule option")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    """Run the simulation and print the house edge."""
    from .simulate import default_workers, simulate  # the strategy tables are built only when needed

    try:
        rules = build_rules(args.rules, parse_set_options(args.set))
    except RuleError as exc:
        print(f"tablectl simulate: {exc}", file=sys.stderr)
        return 2
    if rules.game != "blackjack":
        print(f"tablectl simulate: {rules.name} is not simulated yet: its stated strategies come next",
              file=sys.stderr)
        return 2
    workers = default_workers() if args.workers is None else args.workers
    if args.rounds < 1 or not 1 <= args.boxes <= rules.boxes or workers < 1:
        print(f"tablectl simulate: --rounds and --workers must be at least 1 and --boxes 1 to {rules.boxes}",
              file=sys.stderr)
        return 2
    bar = None
    progress = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=args.rounds, unit=" rounds", unit_scale=True, file=sys.stderr, dynamic_ncols=True)

        def progress(done: int) -> None:
            bar.update(done - bar.n)
    try:
        result = simulate(rules, args.rounds, args.seed, boxes=args.boxes, progress=progress, workers=workers)
    finally:
        if bar is not None:
            bar.close()
    d = result.as_dict()
    if args.json:
        print(json.dumps(d))
    else:
        print(f"{rules.name}: {d['rounds']} rounds, house edge {d['house_edge_pct']:.3f}% "
              f"± {d['stderr_pct']:.3f}% (1 s.e.), {d['rounds_per_second']:.0f} rounds/s on {d['workers']} worker(s)")
    return 0
