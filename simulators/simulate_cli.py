"""`tablectl simulate --rules PROFILE --rounds N --seed S [--boxes K] [--set OPTION=VALUE ...] [--json]`."""

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
    p.add_argument("--set", metavar="OPTION=VALUE", action="append", default=[], help="override a rule option")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    """Run the simulation and print the house edge."""
    from .simulate import simulate  # the strategy tables are built only when needed

    try:
        rules = build_rules(args.rules, parse_set_options(args.set))
    except RuleError as exc:
        print(f"tablectl simulate: {exc}", file=sys.stderr)
        return 2
    if args.rounds < 1 or not 1 <= args.boxes <= rules.boxes:
        print(f"tablectl simulate: --rounds must be at least 1 and --boxes 1 to {rules.boxes}", file=sys.stderr)
        return 2
    progress = None
    if sys.stderr.isatty():
        def progress(done: int) -> None:
            width = 30
            filled = width * done // args.rounds
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{args.rounds} rounds")
            sys.stderr.flush()
    result = simulate(rules, args.rounds, args.seed, boxes=args.boxes, progress=progress)
    if progress is not None:
        sys.stderr.write("\n")
    if args.json:
        print(json.dumps(result.as_dict()))
    else:
        d = result.as_dict()
        print(f"{rules.name}: {d['rounds']} rounds, house edge {d['house_edge_pct']:.3f}% "
              f"± {d['stderr_pct']:.3f}% (1 s.e.), {d['rounds_per_second']:.0f} rounds/s")
    return 0
