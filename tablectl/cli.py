"""The `tablectl` command line: one entry point, one subcommand per job.

Each subcommand lives in the package that owns the job and exposes two
functions, ``configure_parser(parser)`` and ``run(args) -> int``; this module
only dispatches, importing the owner lazily so that `tablectl replay` does not
pay for FastAPI or pyserial.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

# subcommand -> (module that implements it, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("controller.replay_cli", "replay a session file through the round engine"),
    "simulate": ("simulators.simulate_cli", "play many rounds with basic strategy and report the house edge"),
    "shoe-sim": ("simulators.shoe_cli", "run a virtual smart shoe on a pseudo-terminal"),
    "shoe-monitor": ("firmware_bridge.monitor_cli", "technician's tool: print every message a shoe sends"),
    "bringup": ("tablectl.bringup", "technician's bring-up before the service: the shoe, each display, the bell, "
                                    "the console"),
    "demo": ("tablectl.demo", "run the whole table on this machine with a virtual shoe and dealer"),
    "virtual-dealer": ("simulators.virtual_dealer_cli", "play a table through its API and a virtual shoe"),
    "run": ("tablectl.run", "run the table service (shoe, journal, engine, displays, API)"),
    "status": ("tablectl.status_cli", "print the table's state from the journal, without the service"),
    "journal": ("tablectl.journal_cli", "journal tools: init, verify, export, backup, keygen"),
    "dispute": ("tablectl.dispute_cli", "the record of a disputed round (HTML, PDF or JSON), verified as it is made"),
    "protect": ("tablectl.protect_cli", "game protection: shoes (slugs, shuffle scores, preferential shuffles) and dealers"),
    "ratings": ("tablectl.ratings_cli", "the players' rating slips the table measured (CSV or JSON Lines)"),
    "mtl": ("tablectl.mtl_cli", "the multiple transaction log of a gaming day: each person's buy-ins and alerts"),
    "inventory": ("tablectl.inventory_cli", "the table's inventory: opener, fills, credits, closer, drop, win and "
                                            "hold beside the table's own figure, limit changes"),
    "shift": ("tablectl.shift_cli", "the shift report a supervisor signs (HTML, PDF or JSON; en, ru) and its check"),
    "hash-key": ("tablectl.hash_key", "print the SHA-256 of an API key for the config"),
    "floor": ("tablectl.floor.cli", "the casino floor: every table from the broker, its store, dashboard and API"),
    "broker": ("tablectl.floor.broker_cli", "the floor's broker: its access rules (who may read, write, share) and "
                                            "client certificates"),
    "fleet-sim": ("tablectl.fleet_sim_cli", "play N virtual tables against a broker (each a real engine and journal)"),
}

# The commands that run the engine in bulk: the compiled engine, when its build is current, is put first
# on the path before they import anything of the engine (tablectl.compiled_engine). The table's service
# keeps the pure engine: the table's pace is a person's, and its process starts with no build step.
COMPILED_ENGINE_COMMANDS = {"simulate"}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Build the top-level parser; only ``command``'s own options are registered.

    Every subcommand is listed (name and help, for `tablectl --help`), but only
    the chosen one's module is imported: importing them all would make every
    subcommand pay for every other one's dependencies (FastAPI alone is ~1 s on
    a Pi), and `tablectl replay` must start at once.
    """
    parser = argparse.ArgumentParser(prog="tablectl", description="Blackjack table controller")
    parser.add_argument("--version", action=_Version, help="print the version and the build stamp (the commit it "
                                                           "was built from, its date, when it was built) and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        if name != command:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a job not built yet in this checkout
            if exc.name and module_name.startswith(exc.name):
                p.set_defaults(_missing=True)
                continue
            raise
        module.configure_parser(p)
    return parser


class _Version(argparse.Action):
    """--version, its line made only when asked (a checkout's asks git)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from .version import version_line

        print(version_line())
        parser.exit()


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``: its first word that is not an option."""
    for word in argv:
        if not word.startswith("-"):
            return word
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments and run the chosen subcommand; returns the exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    command = _chosen_command(words)
    engine = None
    if command in COMPILED_ENGINE_COMMANDS:
        from .compiled_engine import use_compiled_engine

        engine = use_compiled_engine()  # before the parser: registering the command's options imports the engine
    if argv is None:  # this process's own command line: started by a parent it must end with, when one asked
        # (after the engine's choice: `simulators` imported before it would rule the compiled build out)
        from simulators.lifeline import end_with_parent

        end_with_parent()
    parser = build_parser(command)
    args = parser.parse_args(words)
    if engine is not None:  # what the command prints of the engine it ran
        args.engine, args.engine_note = engine.name, engine.note
    if getattr(args, "_missing", False):
        print(f"tablectl {args.command}: not available in this build", file=sys.stderr)
        return 2
    module = importlib.import_module(args._module)
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
