"""`tablectl shoe-sim`: run a virtual smart shoe on a pseudo-terminal.

On start it prints one JSON line on stdout, e.g.
``{"device": "/dev/pts/5", "link": "/tmp/shoe", "control": "/tmp/shoe.control", ...}``,
then serves until SIGINT/SIGTERM or a ``{"cmd": "quit"}`` on the control channel.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from types import FrameType

from simulators.shoe.core import ShoeConfig
from simulators.shoe.deck import check_pack
from simulators.shoe.faults import FaultRates
from simulators.shoe.pty_link import LinkPathError
from simulators.shoe.server import ShoeSimulator, SimOptions
from simulators.shuffles import SHUFFLE_HELP, BadShuffle, ShuffleSpec, parse_shuffle

log = logging.getLogger(__name__)


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a probability is between 0 and 1, got {text}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def _pack(text: str) -> int:
    try:
        return check_pack(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a pack has 36 or 52 cards, got {text!r}") from None


def _zone(text: str) -> tuple[int, int]:
    least, dash, most = text.partition("-")
    if not dash or not least.isdigit() or not most.isdigit() or not 1 <= int(least) <= int(most):
        raise argparse.ArgumentTypeError(f"--cut-zone takes A-B, the least and most cards before the cut card "
                                         f"(1 <= A <= B), got {text!r}")
    return int(least), int(most)


def _shuffle(text: str) -> ShuffleSpec:
    try:
        return parse_shuffle(text)
    except BadShuffle as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """Add shoe-sim's options to ``parser``."""
    parser.add_argument("--pty", action="store_true", help="serve on a pseudo-terminal (the only transport; default)")
    parser.add_argument("--link", metavar="PATH", help="keep a symlink to the current pty here (re-pointed on replug)")
    parser.add_argument("--control", metavar="PATH", help="control socket path (default: LINK.control or /tmp/...)")
    parser.add_argument("--seed", type=int, default=1, help="shuffle seed (default 1)")
    parser.add_argument("--decks", type=_positive_int, default=6, help="packs per shoe (default 6)")
    parser.add_argument("--pack", type=_pack, default=52, metavar="{36,52}",
                        help="cards in one pack: 52 (two to ace, default) or 36 (six to ace, club-21-36)")
    parser.add_argument("--shuffle", type=_shuffle, default=ShuffleSpec(), metavar="SPEC",
                        help=f"how the shoe is shuffled from its second shoe on: {SHUFFLE_HELP} (default fair; "
                        "docs/protection.md)")
    parser.add_argument("--cut-at", type=_positive_int, metavar="K",
                        help="the cut card sits before card K: K-1 cards come out before it (default: --cut-zone)")
    parser.add_argument("--cut-zone", type=_zone, metavar="A-B",
                        help="cards dealt before the cut card, drawn per shoe from A to B (default: ru-standard's, "
                             "200-220 of 312, scaled to the shoe)")
    parser.add_argument("--auto-deal", type=_positive_float, metavar="RATE", help="release RATE cards per second on its own")
    parser.add_argument("--wait-for-host", action="store_true", help="start auto-dealing only once a host has connected")
    parser.add_argument("--cards", type=_positive_int, metavar="N", help="stop auto-dealing after N cards")
    parser.add_argument("--log", metavar="FILE", help="write every released card to FILE (JSON lines)")
    parser.add_argument("--corrupt", type=_probability, default=0.0, metavar="P", help="corrupt a frame with probability P")
    parser.add_argument("--drop", type=_probability, default=0.0, metavar="P", help="drop a frame (either way) with probability P")
    parser.add_argument("--duplicate", type=_probability, default=0.0, metavar="P", help="send a frame twice with probability P")
    parser.add_argument("--disconnect-every", type=_positive_int, metavar="N", help="unplug after every N cards")
    parser.add_argument("--unplug-seconds", type=float, default=0.3, metavar="S", help="how long an unplug lasts (0.3)")
    parser.add_argument("--unreadable", type=_probability, default=0.0, metavar="P", help="a card is unreadable with probability P")
    parser.add_argument("--fault-seed", type=int, help="seed of the fault injection (default: --seed)")
    parser.add_argument("--heartbeat", type=_positive_float, default=1.0, metavar="S", help="STATUS interval (1.0 s)")
    parser.add_argument("--retransmit", type=_positive_float, default=0.5, metavar="S", help="retransmit timeout (0.5 s)")
    parser.add_argument("--boot-id", type=int, help="boot id (default: random)")
    parser.add_argument("--serial", default="SIM-0001", help="serial number in HELLO")
    parser.add_argument("-v", "--verbose", action="store_true", help="log link events on stderr")


def run(args: argparse.Namespace) -> int:
    """Run the simulator until stopped; returns the exit code."""
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="shoe-sim: %(message)s")
    total = args.decks * args.pack
    if args.cut_at is not None and args.cut_at > total:
        print(f"shoe-sim: --cut-at {args.cut_at} is beyond the {total} cards of {args.decks} "
              f"{args.pack}-card packs", file=sys.stderr)
        return 2
    if args.cut_zone is not None and args.cut_zone[1] >= total:
        print(f"shoe-sim: --cut-zone {args.cut_zone[0]}-{args.cut_zone[1]} reaches the end of the {total} cards of "
              f"{args.decks} {args.pack}-card packs", file=sys.stderr)
        return 2
    if args.cut_zone is not None and args.cut_at is not None:
        print("shoe-sim: --cut-at and --cut-zone place the same cut card: give one", file=sys.stderr)
        return 2
    if not 0 <= args.unplug_seconds <= 60:
        print("shoe-sim: --unplug-seconds must be from 0 to 60", file=sys.stderr)
        return 2
    boot_id = args.boot_id if args.boot_id is not None else int.from_bytes(os.urandom(4), "big")
    if not 0 <= boot_id <= 0xFFFFFFFF:
        print("shoe-sim: --boot-id must fit in 32 bits", file=sys.stderr)
        return 2
    config = ShoeConfig(
        seed=args.seed,
        decks=args.decks,
        pack=args.pack,
        cut_at=args.cut_at,
        cut_zone=args.cut_zone,
        boot_id=boot_id,
        serial=args.serial,
        heartbeat=args.heartbeat,
        retransmit=args.retransmit,
        unreadable=args.unreadable,
        shuffle=args.shuffle,
    )
    options = SimOptions(
        link_path=args.link,
        control_path=args.control,
        auto_deal=args.auto_deal,
        max_cards=args.cards,
        log_path=args.log,
        faults=FaultRates(corrupt=args.corrupt, drop=args.drop, duplicate=args.duplicate),
        fault_seed=args.fault_seed if args.fault_seed is not None else args.seed,
        disconnect_every=args.disconnect_every,
        unplug_seconds=args.unplug_seconds,
        wait_for_host=args.wait_for_host,
    )
    try:
        sim = ShoeSimulator(config, options)
    except LinkPathError as exc:
        print(f"shoe-sim: {exc}", file=sys.stderr)
        return 1
    try:
        ready = sim.open()
    except (LinkPathError, OSError) as exc:
        sim.close()  # do not leave a symlink or socket behind
        print(f"shoe-sim: cannot start: {exc}", file=sys.stderr)
        return 1

    def _stop(signum: int, frame: FrameType | None) -> None:
        sim.request_stop()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        print(json.dumps(ready), flush=True)
        print(
            f"shoe-sim: serving on {ready['device']}"
            + (f" (link {ready['link']})" if ready["link"] else "")
            + f"; control channel {ready['control']}",
            file=sys.stderr,
            flush=True,
        )
        sim.run()
    finally:
        sim.close()
    return 0
