"""`tablectl virtual-dealer --api URL --key KEY --shoe-control PATH [--rounds N] [--seed S] [--pace fast|live]
[--supervisor-key KEY]`."""

from __future__ import annotations

import argparse
import json


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register virtual-dealer's arguments."""
    p.add_argument("--api", required=True, help="the table's API, e.g. http://127.0.0.1:8080")
    p.add_argument("--key", required=True, help="an API key with the dealer role")
    p.add_argument("--shoe-control", required=True, metavar="PATH", help="the virtual shoe's control socket")
    p.add_argument("--rounds", type=int, default=100, help="rounds to play (default 100)")
    p.add_argument("--seed", type=int, default=1, help="seed of bets and random choices")
    p.add_argument("--pace", choices=sorted(("fast", "live")), default="live", help="table pace (default live)")
    p.add_argument("--boxes", type=int, help="use at most this many boxes")
    p.add_argument("--supervisor-key", metavar="KEY",
                   help="club-21-36: a supervisor key to open and close the bank (else the dealer waits for the pit)")


def run(args: argparse.Namespace) -> int:
    """Play the rounds, then print what was done."""
    from .virtual_dealer import PACES, VirtualDealer

    dealer = VirtualDealer(args.api, args.key, args.shoe_control, seed=args.seed, pace=PACES[args.pace],
                           max_boxes=args.boxes, supervisor_key=args.supervisor_key)
    try:
        table = dealer.run(args.rounds)
    except KeyboardInterrupt:
        return 130
    print(json.dumps({"rounds": table["rounds_played"], "actions": dealer.stats.actions,
                      "cards": dealer.stats.cards, "refused": dealer.stats.refused}))
    return 0
