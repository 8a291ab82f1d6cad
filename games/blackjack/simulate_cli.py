"""`tablectl simulate` for a blackjack profile (the registry's ``simulate`` part): the command's options, progress bar
and output around `games.blackjack.simulate` (compiled: its rounds' loop), which stays free of the command's
libraries (tqdm has no types in a release's build of the compiled engine).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from controller.rules import Rules
from simulators.simulate_cli import checked_workers, engine_figures

from .rules import RuleProfile
from .simulate import simulate


class BlackjackSimulation:
    """`tablectl simulate` for a blackjack profile (the registry's ``simulate`` part): the boxes play the profile's
    basic strategy; the house edge, with its standard error."""

    def run(self, args: argparse.Namespace, rules: Rules) -> int:
        """Play the rounds and print the figures (exit 2: an option blackjack does not take)."""
        if args.players is not None or args.banker is not None:
            print("tablectl simulate: --players and --banker are for the club games; blackjack is played by basic "
                  "strategy", file=sys.stderr)
            return 2
        assert isinstance(rules, RuleProfile)  # (the registry hands this part blackjack's tables only)
        workers = checked_workers(args, rules)
        if workers is None:
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
        d: dict[str, Any] = dict(result.as_dict())
        engine = engine_figures(args, d)
        if args.json:
            print(json.dumps(d))
        else:
            print(f"{rules.name}: {d['rounds']} rounds, house edge {d['house_edge_pct']:.3f}% "
                  f"± {d['stderr_pct']:.3f}% (1 s.e.), {d['rounds_per_second']:.0f} rounds/s on {d['workers']} "
                  "worker(s)" + engine)
        return 0


SIMULATE = BlackjackSimulation()
