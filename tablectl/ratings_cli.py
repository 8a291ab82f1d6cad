"""`tablectl ratings export`: the rating slips a table measured, for a player-tracking system (docs/ratings.md).

The journal is verified with its key and replayed (`tablectl.ratings`); one line per session, CSV with a header
or JSON Lines. Exit statuses as every journal tool's: 0 written; 2 cannot (no journal, no key or not its key, a
bad option, the output cannot be written); 3 the journal is refused (a row does not verify).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.journal import JournalError

from .journal_cli import open_verified, parse_time, refuse_overwriting_journal, tool_status
from .exits import EXIT_CANNOT


def configure_parser(p: argparse.ArgumentParser) -> None:
    """The `ratings` command's options."""
    sub = p.add_subparsers(dest="ratings_command", metavar="COMMAND", required=True)
    export = sub.add_parser("export", help="one line per player's session: time, rounds, bets, actual and "
                                           "theoretical win (CSV or JSON Lines)")
    export.add_argument("--db", required=True, help="the table's journal")
    export.add_argument("--key", help="its key (default: the one beside it, DB.key)")
    export.add_argument("--format", choices=("csv", "json"), default="csv", help="csv (default, with a header) or "
                                                                              "json (JSON Lines, one object a line)")
    export.add_argument("--since", help="the sessions that ended at or after this ISO-8601 time (UTC unless zoned)")
    export.add_argument("--until", help="the journal as it stood at this ISO-8601 time: the sessions begun before")
    export.add_argument("--table", help="the table's name in each line (default: the journal file's name)")
    export.add_argument("--out", metavar="FILE", help="write here (default: standard output)")


def run(args: argparse.Namespace) -> int:
    """Write the export; the exit status says what happened (module docstring)."""
    from .ratings import rows, to_csv, to_json_lines

    try:
        since = parse_time(args.since) if args.since else None
        until = parse_time(args.until, "--until") if args.until else None
        if since is not None and until is not None and until <= since:
            raise ValueError(f"--until {args.until} is not after --since {args.since}: nothing is in between")
        if args.out:
            refuse_overwriting_journal(Path(args.out), Path(args.db))
        with open_verified(args.db, args.key, "ratings export") as reader:
            data = rows(reader, args.table or Path(args.db).stem, since, until)
    except (JournalError, ValueError, OSError) as exc:
        print(f"tablectl ratings export: {exc}", file=sys.stderr)
        return tool_status(exc)
    text = to_csv(data) if args.format == "csv" else to_json_lines(data)
    if args.out:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"tablectl ratings export: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_CANNOT
    else:
        sys.stdout.write(text)
    return 0
