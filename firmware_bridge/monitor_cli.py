"""`tablectl shoe-monitor`: the technician's tool.

Opens the shoe's port, acknowledges every card event at once, prints each
message (one JSON line each with --json), reports link faults on stderr and
exits 0 after --count card events (cards and unreadable cards).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

from firmware_bridge.codecs import LinkTiming, UnknownCodec, codec_names
from firmware_bridge.link import LinkStopped, ShoeLink
from firmware_bridge.messages import Card, Fault, LinkDown, LinkUp, ShoeMessage, StoredPosition, to_json
from firmware_bridge.port import Port, PortError

log = logging.getLogger(__name__)


def _resume_point(text: str) -> StoredPosition:
    shoe_id, sep, pos = text.rpartition(":")
    if not sep or not shoe_id or not pos.isdigit():
        raise argparse.ArgumentTypeError(f"expected SHOE_ID:POSITION, got {text!r}")
    return StoredPosition(shoe_id, int(pos))


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """Add shoe-monitor's options to ``parser``."""
    parser.add_argument("--port", required=True, metavar="PATH", help="device path, symlink or pyserial URL")
    parser.add_argument("--codec", default="framed", help="wire protocol: framed (default) or lines")
    parser.add_argument("--count", type=int, metavar="N", help="exit after N card events (default: run until Ctrl-C)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per line")
    parser.add_argument("--baud", type=int, default=115200, help="baud rate (default 115200)")
    parser.add_argument("--resume", type=_resume_point, metavar="SHOE_ID:POS", help="already stored up to here")
    parser.add_argument("--no-status", action="store_true", help="do not print the STATUS heartbeats")
    parser.add_argument("--heartbeat-timeout", type=float, default=3.0, metavar="S", help="link down after S s of silence")


def _describe(msg: ShoeMessage) -> str:
    data = to_json(msg)
    kind = data.pop("type")
    return f"{kind:12} " + " ".join(f"{k}={v}" for k, v in data.items())


def run(args: argparse.Namespace) -> int:
    """Monitor the port until --count card events arrived; returns the exit code."""
    logging.basicConfig(level=logging.ERROR, format="shoe-monitor: %(message)s")
    if args.codec not in codec_names():
        print(f"shoe-monitor: unknown codec {args.codec!r} (known: {', '.join(codec_names())})", file=sys.stderr)
        return 2
    if not args.heartbeat_timeout > 0:
        print("shoe-monitor: --heartbeat-timeout must be more than 0", file=sys.stderr)
        return 2
    if args.count is not None and args.count < 1:
        print("shoe-monitor: --count must be at least 1", file=sys.stderr)
        return 2
    # Open once up front so a wrong path is a clear error now, not endless retries.
    try:
        Port(args.port, args.baud).close()
    except PortError as exc:
        print(f"shoe-monitor: {exc}", file=sys.stderr)
        return 1
    timing = LinkTiming(heartbeat_timeout=args.heartbeat_timeout)
    try:
        link = ShoeLink(args.port, codec=args.codec, baudrate=args.baud, resume_from=args.resume, timing=timing)
    except UnknownCodec as exc:
        print(f"shoe-monitor: {exc}", file=sys.stderr)
        return 2
    link.start()
    cards = 0
    try:
        while args.count is None or cards < args.count:
            try:
                msg = link.get_blocking(timeout=1.0)
            except TimeoutError:
                continue
            if isinstance(msg, (LinkUp, LinkDown)):
                print(f"shoe-monitor: {_describe(msg)}", file=sys.stderr, flush=True)
                continue
            if args.no_status and type(msg).__name__ == "Status":
                continue
            # A card, or an unreadable card's fault (the one fault with a position), is acknowledged.
            if isinstance(msg, (Card, Fault)) and msg.position is not None:
                link.ack(msg.shoe_id, msg.position)
                cards += 1
            if args.json:
                print(json.dumps(to_json(msg)), flush=True)
            else:
                print(_describe(msg), flush=True)
    except (KeyboardInterrupt, LinkStopped):
        pass
    finally:
        link.stop()
        s = link.stats
        print(
            f"shoe-monitor: {cards} card events; frames {s.frames}, bad frames {s.bad_frames}, "
            f"duplicates {s.duplicates}, NAKs {s.naks_sent}, link-ups {s.reconnects}",
            file=sys.stderr,
        )
    return 0
