"""`tablectl journal export --db PATH [--since TIME] [--out FILE]` and `tablectl status --db PATH`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime, timezone

from controller.authority import TableAuthority, export_session
from controller.journal import Journal, JournalError
from controller.replay_cli import format_rounds
from controller.rules import build_rules
from controller.view import table_view


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register `journal export`."""
    sub = p.add_subparsers(dest="journal_command", metavar="SUBCOMMAND")
    sub.required = True
    export = sub.add_parser("export", help="write the journal as a session file (what `tablectl replay` reads)")
    export.add_argument("--db", required=True, help="journal file")
    export.add_argument("--since", help="start at the first shuffle at or after this ISO-8601 time")
    export.add_argument("--out", help="output file (default: standard output)")


def _open(path: str) -> TableAuthority:
    journal = Journal(path)  # refuses a damaged or foreign file with a clear message
    if journal.last_seq == 0:
        journal.close()
        raise JournalError(f"{path} holds no events")
    # The rules line journalled first says the profile; restoring needs nothing else.
    return TableAuthority(journal, build_rules())


def run(args: argparse.Namespace) -> int:
    """Export the journal's accepted events as JSON Lines."""
    try:
        since = _parse_time(args.since) if args.since else None
        if not os.path.exists(args.db):
            raise JournalError(f"no journal at {args.db}")
        journal = Journal(args.db)
        out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
        try:
            for line in export_session(journal, since):
                out.write(json.dumps(line, separators=(",", ":")) + "\n")
        finally:
            if args.out:
                out.close()
    except (JournalError, ValueError) as exc:
        print(f"tablectl journal export: {exc}", file=sys.stderr)
        return 2
    return 0


def _parse_time(text: str) -> datetime:
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--since {text!r} is not an ISO-8601 time (e.g. 2026-11-30T20:00:00Z)") from None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


# ---------------------------------------------------------------- tablectl status

def configure_status_parser(p: argparse.ArgumentParser) -> None:
    """Register `status`."""
    p.add_argument("--db", required=True, help="journal file")
    p.add_argument("--json", action="store_true", help="print JSON")


def run_status(args: argparse.Namespace) -> int:
    """Print the table's state as the journal leaves it, without the service."""
    try:
        if not os.path.exists(args.db):
            raise JournalError(f"no journal at {args.db}")
        authority = _open(args.db)
    except JournalError as exc:
        print(f"tablectl status: {exc}", file=sys.stderr)
        return 2
    view = table_view(authority.table, reveal_hole=True)
    if args.json:
        print(json.dumps(view))
    else:
        shoe = view["shoe"] or {}
        print(f"phase {view['phase']}  rules {view['rules']}  rounds {view['rounds_played']}  "
              f"shoe {shoe.get('id')} dealt {shoe.get('dealt')}/{shoe.get('size')}")
        for alert in view["alerts"]:
            print(f"alert {alert['id']} [{alert['kind']}] {alert['message']}")
        if view["last_round"]:
            print(format_rounds({"rounds": [view["last_round"]], "phase": view["phase"], "alerts": []}))
    return 0
