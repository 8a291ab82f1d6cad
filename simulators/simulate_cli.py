"""`tablectl simulate --rules PROFILE --rounds N --seed S [--boxes K] [--workers N] [--set OPTION=VALUE ...] [--json]`.

The profile's game plays its own simulation, the registry's ``simulate`` part (`simulators.parts`):
blackjack by basic strategy; the club games by the stated players' rule (``--players``, default
``below-17``) and the banker's rule the ``banker_*`` options give (`simulators.club_strategy`), or, in
club-21, his best play (``--banker optimal``). This module is the command: its options, the checks
every game's run shares (`checked_workers`) and the engine it ran (`engine_figures`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

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
    p.add_argument("--players", metavar="RULE", default=None,
                   help="club games: the boxes' rule, below-N (draw below total N; default below-17) or cards-N "
                        "(draw to N cards, blind, as the virtual dealer plays)")
    p.add_argument("--banker", metavar="RULE", default=None,
                   help="club-21: the banker's rule, options (the table's banker_* options: default stand at 17) or "
                        "optimal[-round][:PLAYERS] (his best play from what he sees: -round forgets earlier rounds; "
                        ":PLAYERS the rule he takes the boxes to play, default the one they play)")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def checked_workers(args: argparse.Namespace, rules: Any) -> int | None:
    """The worker processes asked for (every core by default), or None, said on stderr, when
    ``--rounds``, ``--workers`` or ``--boxes`` is out of range for the table."""
    from .simulation import default_workers

    workers = default_workers() if args.workers is None else args.workers
    if args.rounds < 1 or not 1 <= args.boxes <= rules.boxes or workers < 1:
        print(f"tablectl simulate: --rounds and --workers must be at least 1 and --boxes 1 to {rules.boxes}",
              file=sys.stderr)
        return None
    return workers


def engine_figures(args: argparse.Namespace, figures: dict[str, Any]) -> str:
    """Add the engine the command ran to its figures (chosen by `tablectl`, which sets ``args.engine``: compiled
    or pure, and why pure in ``engine_note``); the words for the text output."""
    name = getattr(args, "engine", None)
    if name is None:  # run() called without the command line's choice
        return ""
    note = getattr(args, "engine_note", "")
    figures["engine"] = name
    if note:
        figures["engine_note"] = note
    return "; engine: " + ("compiled (mypyc)" if name == "compiled" else f"pure Python ({note})")


def run(args: argparse.Namespace) -> int:
    """Run the simulation of the table's game and print the house edge."""
    from .parts import PartError, simulated_games, simulation

    try:
        rules = build_rules(args.rules, parse_set_options(args.set))
    except RuleError as exc:
        print(f"tablectl simulate: {exc}", file=sys.stderr)
        return 2
    try:
        part = simulation(rules.game)
    except PartError:
        print(f"tablectl simulate: {rules.name} is not simulated yet (simulated: {', '.join(simulated_games())})",
              file=sys.stderr)
        return 2
    return part.run(args, rules)
