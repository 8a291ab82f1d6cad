"""`tablectl demo`: show the table working on this machine with nothing attached.

Until the live service lands, the demo replays the bundled example session
through the engine and prints the rounds as the pit would read them.
"""

from __future__ import annotations

import argparse
from importlib import resources

from controller.replay import replay_lines
from controller.replay_cli import format_rounds


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register demo's arguments."""
    p.add_argument("--session", help="session file to replay (default: the bundled example)")


def run(args: argparse.Namespace) -> int:
    """Replay the session and print it."""
    if args.session:
        with open(args.session, encoding="utf-8") as f:
            lines = f.read().splitlines()
    else:
        lines = resources.files("tablectl").joinpath("examples/session.jsonl").read_text().splitlines()
    result = replay_lines(lines)
    print(format_rounds(result.as_dict()))
    return 2 if result.error else 0
