"""`tablectl fleet-sim --tables N --broker URL`: N virtual tables publishing to a broker (see fleet_sim).

It plays `--rounds` rounds a table (20 by default, about 5.5 minutes at live pace) and stops; `--rounds 0`
plays until Ctrl-C. Ctrl-C or SIGTERM stops every table it started (they say offline on the broker), and it
exits 0 with its summary. It starts no broker and no floor, and no process: every table runs inside it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register fleet-sim's arguments."""
    p.add_argument("--tables", type=int, required=True, help="how many tables (1..500)")
    p.add_argument("--broker", required=True, help="mqtt://HOST:PORT")
    p.add_argument("--pace", choices=("live", "fast"), default="live", help="a step a second (live) or flat out")
    p.add_argument("--step-seconds", type=float, default=None,
                   help="mean seconds between a dealer's steps, instead of --pace (tests)")
    p.add_argument("--rounds", type=int, default=20,
                   help="rounds each table plays in all, counting earlier runs, then fleet-sim stops by itself "
                        "(default 20, about 5.5 min at live pace); 0: play until Ctrl-C")
    p.add_argument("--dir", required=True, help="tables' journals (DIR/table-NNN/) and keys (DIR/keys/)")
    p.add_argument("--first", type=int, default=1,
                   help="number of the first table (table-NNN): several fleet-sim processes share a floor")
    p.add_argument("--pit", default="", help="the pit every table of this process is in, e.g. A (the floor groups "
                   "its tiles by pit; several fleet-sim processes with --first make several pits)")
    p.add_argument("--prefix", default="tablectl", help="topic prefix (default tablectl)")
    p.add_argument("--seed", type=int, default=1, help="seed of the shoes and the dealers")
    p.add_argument("--rules", default="ru-standard", help="rule profile of every table")
    p.add_argument("--api-port", type=int, default=0,
                   help="serve each table's API and dashboard: the first table (--first) on PORT, the next on "
                        "PORT+1, and so on (the floor's tiles link to them)")
    p.add_argument("--floor-key-file", default=None,
                   help="with --api-port: each table's API lets the key in this file read its ledger as the floor "
                        "does (an [[api.keys]] of role floor), so a floor can fill its gaps from it")
    p.add_argument("--drain-seconds", type=float, default=30.0,
                   help="at the end, wait this long at most for the broker to have every row")
    p.add_argument("--log-level", default="WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def run(args: argparse.Namespace) -> int:
    """Play the tables; prints one JSON line when ready and one summary at the end."""
    from tablectl.config import ConfigError
    from tablectl.fleet.settings import BrokerSettings
    from tablectl.run import setup_logging

    if not 1 <= args.tables <= 500:
        print("tablectl fleet-sim: --tables must be 1..500", file=sys.stderr)
        return 2
    if args.rounds < 0:
        print("tablectl fleet-sim: --rounds must be 0 (play until Ctrl-C) or more", file=sys.stderr)
        return 2
    from controller import registry
    from simulators.parts import PartError, dealer_moves

    def in_memory(game: str) -> bool:
        try:
            return dealer_moves(game).in_memory
        except PartError:
            return False

    playable = [p for e in registry.entries() if in_memory(e.name) for p in registry.profiles(e.name)]
    if args.rules not in playable:
        # The fleet's in-process dealer drives only the games whose dealer says so (a club game's croupier
        # banks and loads his own packs, which it does not drive yet).
        print(f"tablectl fleet-sim: --rules {args.rules!r}: fleet-sim plays the profiles "
              f"{', '.join(playable)}", file=sys.stderr)
        return 2
    try:
        BrokerSettings(url=args.broker)
    except ValueError as exc:
        print(f"tablectl fleet-sim: --broker: {str(exc).splitlines()[-1].strip()}", file=sys.stderr)
        return 2
    from tablectl.fleet import check_pit

    try:
        check_pit(args.pit)
    except ValueError as exc:
        print(f"tablectl fleet-sim: --pit: {exc}", file=sys.stderr)
        return 2
    floor_key = ""
    if args.floor_key_file:
        from tablectl.config import ApiKey

        try:
            with open(args.floor_key_file, encoding="ascii") as f:
                secret = f.read(1100).strip()
        except (OSError, UnicodeDecodeError) as exc:
            print(f"tablectl fleet-sim: --floor-key-file: {exc}", file=sys.stderr)
            return 2
        if not secret or len(secret) > 1024 or not secret.isprintable() or " " in secret:
            print("tablectl fleet-sim: --floor-key-file: not a key (one line of visible characters)", file=sys.stderr)
            return 2
        floor_key = ApiKey.hash(secret)
    setup_logging(args.log_level)
    directory = Path(args.dir).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    try:
        results = asyncio.run(_main(args, directory, floor_key))
    except ConfigError as exc:
        print(f"tablectl fleet-sim: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"tables": len(results), "rounds": sum(r["rounds"] for r in results),
                      "rows": sum(r["last_seq"] for r in results), "per_table": results}), flush=True)
    return 0


async def _main(args: argparse.Namespace, directory: Path, floor_key: str) -> list[dict]:
    from tablectl.fleet_sim import run_fleet

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(json.dumps({"ready": True, "tables": args.tables, "keys": str(directory / "keys"),
                      "broker": args.broker, "rounds": args.rounds}), flush=True)
    # Said to the person at the terminal: the tables end by themselves, or not, and how to stop them.
    ends = (f"until each has played {args.rounds} rounds, then stops by itself" if args.rounds
            else "until stopped")
    print(f"tablectl fleet-sim: {args.tables} table{'s' * (args.tables != 1)} playing {ends}; "
          "Ctrl-C stops them all", file=sys.stderr, flush=True)
    return await run_fleet(args.tables, args.broker, first=args.first, pace=args.pace,
                           step_seconds=args.step_seconds, rounds=args.rounds, directory=directory,
                           prefix=args.prefix, seed=args.seed, profile=args.rules,
                           api_port=args.api_port or None, stop=stop,
                           drain_seconds=args.drain_seconds, floor_key_sha256=floor_key, pit=args.pit)
