"""`tablectl mtl`: the multiple transaction log of a gaming day, from the table's journal (docs/pit.md).

The journal is verified with its key and replayed through the engine (`controller.mtl`): per person, every
buy-in of the day (time, box, method, amount, who entered it), the cash, marker and chips totals, and the log's
alerts with who acknowledged each and how long it waited. Exit 0 printed (a day with no buy-in prints that it
has none); 2 cannot (no journal, no key, a bad --day); 3 the journal is refused (a row does not verify).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date

from controller.alerts import age_text
from controller.engine import IllegalAction, Table
from controller.event_codec import dump_event
from controller.journal import JournalError, JournalReader
from controller.money import money
from controller.mtl import MtlBook, PersonDay, feed
from controller.replay import session_rules
from controller.rules import build_rules

from .journal_cli import open_verified, tool_status
from .pit_json import iso as _iso
from .pit_json import person_json


def configure_parser(p: argparse.ArgumentParser) -> None:
    """The `mtl` command's options."""
    p.add_argument("--db", required=True, help="the table's journal")
    p.add_argument("--key", help="its key (default: the one beside it, DB.key)")
    p.add_argument("--day", required=True, metavar="YYYY-MM-DD", help="the gaming day (it starts at the config's "
                                                                     "[table] gaming_day_starts, as stamped on each buy-in)")
    p.add_argument("--json", action="store_true", help="one JSON document instead of text")


def mtl_book(reader: JournalReader) -> MtlBook:
    """The journal replayed through the engine into the log."""
    book = MtlBook()
    entries = reader.entries()
    first = next(entries, None)
    if first is None:
        return book
    profile, options = session_rules([json.dumps(dump_event(first.event))])
    table = Table(build_rules(profile, options))  # watched as the live table is: every alert's id is its
    for entry in (first, *entries):
        try:
            feed(book, table, entry.event)
        except IllegalAction:
            continue  # a verified journal's accepted rows replay
    return book




def _text(day: str, people: list[PersonDay]) -> str:
    if not people:
        return f"gaming day {day}: no buy-in"
    lines = [f"gaming day {day}: {len(people)} person(s)"]
    for p in people:
        lines.append(f"{p.person}: cash {money(p.total('cash'))}, marker {money(p.total('marker'))}, "
                     f"chips {money(p.total('chips'))}")
        for e in p.entries:
            where = f"box {e.box}" if e.box is not None else "no box"
            lines.append(f"  {_iso(e.at)}  {where:<6}  {e.method:<6} {money(e.amount):>10}  by {e.entered_by or '-'}")
        for a in p.alerts:
            seen = (f"acknowledged by {a.acknowledged_by} after {age_text(a.waited_seconds)}"
                    if a.waited_seconds is not None else "NOT acknowledged")
            lines.append(f"  ALERT {a.kind} #{a.id} at {_iso(a.raised_at)}: {a.message} ({seen})")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Print the day's log; the exit status says what happened (module docstring)."""
    try:
        day = date.fromisoformat(args.day).isoformat()
    except ValueError:
        print(f"tablectl mtl: --day {args.day!r} is not a date (YYYY-MM-DD)", file=sys.stderr)
        return 2
    try:
        with open_verified(args.db, args.key, "mtl") as reader:
            people = mtl_book(reader).day(day)
    except (JournalError, ValueError, OSError) as exc:
        print(f"tablectl mtl: {exc}", file=sys.stderr)
        return tool_status(exc)
    if args.json:
        print(json.dumps({"gaming_day": day, "people": [person_json(p) for p in people]}, indent=1,
                         ensure_ascii=False))
    else:
        print(_text(day, people))
    return 0
