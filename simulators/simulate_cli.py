"""`tablectl simulate --rules PROFILE --rounds N --seed S [--boxes K] [--workers N] [--set OPTION=VALUE ...] [--json]`.

Blackjack profiles are played by basic strategy; the club game `club-21` by the stated
players' rule (``--players``, default ``below-17``) and the banker's rule its ``banker_*``
options give (`simulators.club_strategy`), or his best play (``--banker optimal``).
"""

from __future__ import annotations

import argparse
import json
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


def _workers(args: argparse.Namespace, rules: Any) -> int | None:
    """The worker processes asked for (every core by default), or None, said on stderr, when
    ``--rounds``, ``--workers`` or ``--boxes`` is out of range for the table."""
    from games.blackjack.simulate import default_workers

    workers = default_workers() if args.workers is None else args.workers
    if args.rounds < 1 or not 1 <= args.boxes <= rules.boxes or workers < 1:
        print(f"tablectl simulate: --rounds and --workers must be at least 1 and --boxes 1 to {rules.boxes}",
              file=sys.stderr)
        return None
    return workers


def _engine(args: argparse.Namespace, figures: dict[str, Any]) -> str:
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
    try:
        rules = build_rules(args.rules, parse_set_options(args.set))
    except RuleError as exc:
        print(f"tablectl simulate: {exc}", file=sys.stderr)
        return 2
    runner = SIMULATED.get(rules.game)
    if runner is None:
        print(f"tablectl simulate: {rules.name} is not simulated yet (simulated: {', '.join(SIMULATED)})",
              file=sys.stderr)
        return 2
    return runner(args, rules)


def _run_blackjack(args: argparse.Namespace, rules: Any) -> int:
    """Blackjack by the profile's basic strategy: the house edge, with its standard error."""
    from games.blackjack.simulate import simulate  # the strategy tables are built only when needed

    if args.players is not None or args.banker is not None:
        print("tablectl simulate: --players and --banker are for the club games; blackjack is played by basic "
              "strategy", file=sys.stderr)
        return 2
    workers = _workers(args, rules)
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
    engine = _engine(args, d)
    if args.json:
        print(json.dumps(d))
    else:
        print(f"{rules.name}: {d['rounds']} rounds, house edge {d['house_edge_pct']:.3f}% "
              f"± {d['stderr_pct']:.3f}% (1 s.e.), {d['rounds_per_second']:.0f} rounds/s on {d['workers']} worker(s)"
              + engine)
    return 0


def _run_club(args: argparse.Namespace, rules: Any) -> int:
    """The club game's simulation: the stated players' and banker's rules, the house edge for them."""
    from games.club.simulate import simulate_club
    from .club_strategy import SIGHTED_PLAYERS, parse_banker_rule, parse_players_rule

    try:
        players = SIGHTED_PLAYERS if args.players is None else parse_players_rule(args.players)
    except ValueError as exc:
        print(f"tablectl simulate: --players: {exc}", file=sys.stderr)
        return 2
    try:
        optimal = None if args.banker is None else parse_banker_rule(args.banker)
    except ValueError as exc:
        print(f"tablectl simulate: --banker: {exc}", file=sys.stderr)
        return 2
    if optimal is not None and rules.game != "club-21":
        print(f"tablectl simulate: --banker optimal is for club-21 (the banker of {rules.game} is bound to his "
              f"totals)", file=sys.stderr)
        return 2
    workers = _workers(args, rules)
    if workers is None:
        return 2
    result = simulate_club(rules, args.rounds, args.seed, boxes=args.boxes, players=players, workers=workers,
                           optimal=optimal)
    d = dict(result.as_dict())
    engine = _engine(args, d)
    if args.json:
        print(json.dumps(d))
    else:
        banker = (f"stands at {d['banker_stands_at']}" if d["banker_stands_at"] is not None
                  else f"plays {d['banker']}")
        print(f"{rules.name}: {d['rounds']} rounds, players {d['players']}, banker {banker}: house edge {d['house_edge_pct']:.3f}% ± {d['stderr_pct']:.3f}% (1 s.e.), "
              f"{d['voids']} void, "
              + (f"{d['pack_outs']} spent-pack rounds, " if rules.game == "club-21" else f"{d['shuffles']} packs, ")
              + f"{d['rounds_per_second']:.0f} rounds/s "
              f"on {d['workers']} worker(s){engine}. These figures hold for these strategies only.")
    return 0


# How each game is simulated: a game with no line here is refused with the list of those that are.
SIMULATED = {
    "blackjack": _run_blackjack,
    "club-21": _run_club,
    "club-21-36": _run_club,
}
