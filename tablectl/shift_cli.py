"""`tablectl shift`: the shift report a supervisor signs, from the table's journal (docs/pit.md, "The shift report").

`shift report` makes the report of ``--from``..``--to`` (or the gaming day ``--day``, from ``--day-starts`` UTC)
from the verified journal, in HTML, PDF or JSON, English or Russian, with the digest a supervisor signs
(`sign_shift`, a supervisor's action through the API) and every signature of that shift, each checked against the
journal. `shift verify` checks the signatures only: exit 0 when every one verifies, 1 when one does not (or
there is none), 2 cannot, 3 the journal is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

from controller.journal import JournalError

from .journal_cli import open_verified, parse_time, refuse_overwriting_journal, tool_status


def _window_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", required=True, help="the table's journal")
    p.add_argument("--key", help="its key (default: the one beside it, DB.key)")
    p.add_argument("--from", dest="start", help="the shift's start, ISO-8601 (UTC unless zoned)")
    p.add_argument("--to", dest="end", help="the shift's end, ISO-8601")
    p.add_argument("--day", help="a whole gaming day YYYY-MM-DD instead (from --day-starts UTC, 24 hours)")
    p.add_argument("--day-starts", default="06:00", help="HH:MM UTC the gaming day starts (default 06:00)")
    p.add_argument("--table", help="the table's name (default: the journal file's name)")


def configure_parser(p: argparse.ArgumentParser) -> None:
    """The `shift` command's options."""
    sub = p.add_subparsers(dest="shift_command", metavar="COMMAND", required=True)
    report = sub.add_parser("report", help="the shift report (HTML, PDF or JSON, en or ru) and its digest to sign")
    _window_options(report)
    report.add_argument("--format", choices=("html", "pdf", "json"), default="html")
    report.add_argument("--lang", choices=("en", "ru"), default="en", help="the report's language (default en)")
    report.add_argument("--out", metavar="FILE", help="write here (default: standard output; a PDF needs --out)")
    verify = sub.add_parser("verify", help="check each signature of the shift against the journal")
    _window_options(verify)


def window(args: argparse.Namespace) -> tuple[datetime, datetime]:
    """The shift the options name; ValueError in one line."""
    if args.day:
        day = date.fromisoformat(args.day)
        hours, minutes = map(int, args.day_starts.split(":"))
        start = datetime.combine(day, time(hours, minutes), tzinfo=timezone.utc)
        return start, start + timedelta(days=1)
    if not (args.start and args.end):
        raise ValueError("give --from and --to, or --day")
    start, end = parse_time(args.start, "--from"), parse_time(args.end, "--to")
    if end <= start:
        raise ValueError("--to is not after --from")
    return start, end


def run(args: argparse.Namespace) -> int:
    """Write the report, or check the signatures; the exit status says what happened (module docstring)."""
    from tablectl.shift import PdfUnavailable, make_report, to_html, to_pdf, verify

    tool = f"shift {args.shift_command}"
    table = args.table or Path(args.db).stem
    try:
        start, end = window(args)
        if getattr(args, "out", None):
            refuse_overwriting_journal(Path(args.out), Path(args.db))
        elif getattr(args, "format", None) == "pdf":
            raise ValueError("a PDF is written to a file: give --out FILE")
        with open_verified(args.db, args.key, tool) as reader:
            checked = verify(reader, start, end, table)
            report = make_report(reader, start, end, table) if args.shift_command == "report" else None
    except (JournalError, ValueError, OSError) as exc:
        print(f"tablectl {tool}: {exc}", file=sys.stderr)
        return tool_status(exc) if isinstance(exc, (JournalError, OSError)) else 2
    if report is None:
        for s in checked:
            print(f"signed by {s['by']} at {s['at']} (row {s['row']}): "
                  f"{'verified' if s['verified'] else 'DOES NOT MATCH the journal'}")
        if not checked:
            print("this shift has no signature")
        return 0 if checked and all(s["verified"] for s in checked) else 1
    from tablectl.shift import digest

    try:
        if args.format == "json":
            data = (json.dumps({"report": report, "digest": digest(report), "signatures": checked}, indent=1,
                               ensure_ascii=False) + "\n").encode()
        elif args.format == "html":
            data = to_html(report, args.lang, checked).encode()
        else:
            data = to_pdf(report, args.lang, checked)
    except PdfUnavailable as exc:
        print(f"tablectl {tool}: {exc}", file=sys.stderr)
        return 2
    if args.out:
        Path(args.out).write_bytes(data)
    else:
        sys.stdout.write(data.decode())  # (html or json: a PDF is written to --out)
    return 0
