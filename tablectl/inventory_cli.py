"""`tablectl inventory`: the table's inventory periods from its journal (docs/pit.md, "The table's inventory").

The journal is verified with its key and replayed through the engine (`controller.inventory`): per period (an
opener to its closer), the opener, the fills and credits with their two signatures, the closer, the drop,
win/loss and hold, the table's own figure from the settlements beside it, the difference flagged over
``--tolerance``; and every change of the table's limits, with who and when. Exit 0, 2 cannot, 3 refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from decimal import Decimal, InvalidOperation
from typing import Any

from controller.engine import IllegalAction, Table
from controller.event_codec import dump_event
from controller.inventory import InventoryBook
from controller.journal import JournalError, JournalReader
from controller.money import money, to_cents
from controller.replay import session_rules
from controller.rules import build_rules

from .journal_cli import open_verified, tool_status
from .pit_json import iso as _iso
from .pit_json import period_json


def configure_parser(p: argparse.ArgumentParser) -> None:
    """The `inventory` command's options."""
    p.add_argument("--db", required=True, help="the table's journal")
    p.add_argument("--key", help="its key (default: the one beside it, DB.key)")
    p.add_argument("--tolerance", default="0", metavar="AMOUNT",
                   help="flag a period whose inventory win and the table's own figure differ by more (default 0)")
    p.add_argument("--json", action="store_true", help="one JSON document instead of text")


def inventory_book(reader: JournalReader) -> InventoryBook:
    """The journal replayed through the engine into the inventory book."""
    book = InventoryBook()
    entries = reader.entries()
    first = next(entries, None)
    if first is None:
        return book
    profile, options = session_rules([json.dumps(dump_event(first.event))])
    table = Table(build_rules(profile, options))
    for entry in (first, *entries):
        try:
            effects = table.apply(entry.event)
        except IllegalAction:
            continue  # a verified journal's accepted rows replay
        rules = table.rules
        book.event(entry.event, effects, (money(rules.table_min_cents), money(rules.table_max_cents)))
    return book





def _text(data: dict[str, Any]) -> str:
    lines = []
    for n, p in enumerate(data["periods"], 1):
        flag = "  ** DIFFERS from the table's figure **" if p["flagged"] else ""
        lines.append(f"period {n}: opened {p['opened_at']} by {p['opened_by']}, closed {p['closed_at']} by "
                     f"{p['closed_by']}")
        lines.append(f"  opener {p['opener']}  fills {p['fills']}  credits {p['credits']}  closer {p['closer']}  "
                     f"drop {p['drop']} (buy-ins {p['expected_drop']})")
        lines.append(f"  win/loss {p['win']}  hold {p['hold_pct']} %  table's own figure {p['table_win']} over "
                     f"{p['rounds']} rounds  difference {p['difference']}{flag}")
        for s in p["slips"]:
            state = "complete" if s["complete"] else "NOT complete"
            lines.append(f"  {s['kind']} slip {s['slip']}: {s['amount']}, signed {s['signed']} ({state})")
    for change in data["limit_changes"]:
        lines.append(f"limits {change['from']} -> {change['to']} at {change['at']} by {change['by']}")
    return "\n".join(lines) or "no inventory in this journal"


def run(args: argparse.Namespace) -> int:
    """Print the inventory; the exit status says what happened (module docstring)."""
    try:
        tolerance = to_cents(Decimal(args.tolerance))
        if tolerance is None or tolerance < 0:
            raise InvalidOperation
    except (InvalidOperation, ValueError):
        print(f"tablectl inventory: --tolerance {args.tolerance!r} is not an amount in cents", file=sys.stderr)
        return 2
    try:
        with open_verified(args.db, args.key, "inventory") as reader:
            book = inventory_book(reader)
    except (JournalError, ValueError, OSError) as exc:
        print(f"tablectl inventory: {exc}", file=sys.stderr)
        return tool_status(exc)
    data = {"periods": [period_json(p, tolerance) for p in book.periods],
            "limit_changes": [{"at": _iso(c.at), "by": c.by, "from": list(c.before), "to": list(c.after)}
                              for c in book.limits]}
    print(json.dumps(data, indent=1, ensure_ascii=False) if args.json else _text(data))
    return 0
