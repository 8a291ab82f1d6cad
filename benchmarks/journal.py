"""What the keyed chain costs a write: the HMAC journal beside the plain SHA-256 chain it replaced.

    .venv/bin/python benchmarks/journal.py [--rows 2000] [--dir DIR]

In one run, on the same disk, with SQLite in WAL mode and synchronous=FULL (one commit per row,
as the table commits a card before it is acknowledged), it prints:

- commits per second and p50/p99 of one commit for
  1. `controller.journal.Journal.append_event` (schema 2: HMAC-SHA256 over every column and the
     previous row's MAC, the canonical row text, the position columns);
  2. the schema-1 shape it replaced: one `events` row whose plain SHA-256 chains body and
     previous hash (anyone can recompute it);
  3. the same rows with no chain at all (the floor: SQLite's own commit);
- the CPU time of the chain alone per row (no disk), for HMAC and for SHA-256.

Give `--dir` on the table's own storage (an SD card is much slower than this machine's disk).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from controller import events as ev  # noqa: E402
from controller.cards import parse_card  # noqa: E402
from controller.journal import Journal, JournalKey, LedgerRow, event_body, row_mac  # noqa: E402
from controller.rules import build_rules  # noqa: E402

T0 = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)
CARDS = [parse_card(c) for c in ("TS", "6D", "9C", "TD", "2H", "AS", "KH", "5C")]


def card(i: int) -> ev.CardDrawn:
    return ev.CardDrawn(card=CARDS[i % len(CARDS)], position=i + 1)


def figures(name: str, seconds: list[float]) -> None:
    seconds = sorted(seconds)
    p99 = seconds[min(len(seconds) - 1, int(len(seconds) * 0.99))]
    print(f"  {name:<44} {len(seconds) / sum(seconds):8.0f} commits/s   "
          f"p50 {statistics.median(seconds) * 1000:6.2f} ms   p99 {p99 * 1000:6.2f} ms")


def keyed(directory: Path, rows: int) -> list[float]:
    path = directory / "keyed.sqlite"
    journal = Journal(path, JournalKey.generate(directory / "keyed.key"), create=True, now=datetime.now(timezone.utc),
                      first=ev.SetRules(profile="ru-standard", options=build_rules("ru-standard").options()))
    out = []
    for i in range(rows):
        start = time.perf_counter()
        journal.append_event(card(i), T0 + timedelta(seconds=i), shoe_id="S1", position=i + 1)
        out.append(time.perf_counter() - start)
    journal.close()
    return out


def plain(directory: Path, rows: int, chained: bool) -> list[float]:
    path = directory / ("sha256.sqlite" if chained else "unchained.sqlite")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, received_at TEXT, body TEXT, shoe_id TEXT, "
               "position INTEGER, hash TEXT)")
    prev = ""
    out = []
    for i in range(rows):
        start = time.perf_counter()
        body = event_body(card(i))
        at = (T0 + timedelta(seconds=i)).isoformat()
        if chained:
            prev = hashlib.sha256((prev + body).encode()).hexdigest()
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", (i + 1, at, body, "S1", i + 1, prev))
        db.execute("COMMIT")
        out.append(time.perf_counter() - start)
    db.close()
    return out


def chain_cpu(rows: int) -> tuple[float, float]:
    secret = os.urandom(32)
    bodies = [event_body(card(i)) for i in range(rows)]
    start = time.perf_counter()
    prev = ""
    for i, body in enumerate(bodies):
        prev = row_mac(secret, prev, LedgerRow(i + 1, "event", "2026-12-01T20:00:00Z", body, "S1", i + 1, None, None, ""))
    hmac_us = (time.perf_counter() - start) / rows * 1e6
    start = time.perf_counter()
    prev = ""
    for body in bodies:
        prev = hashlib.sha256((prev + body).encode()).hexdigest()
    sha_us = (time.perf_counter() - start) / rows * 1e6
    return hmac_us, sha_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2000, help="rows (commits) per journal")
    parser.add_argument("--dir", type=Path, help="where to write the journals (default: a temporary folder)")
    args = parser.parse_args()
    if args.rows < 10:
        parser.error("--rows must be at least 10")
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        directory = Path(tmp)
        print(f"{args.rows} commits each, synchronous=FULL, WAL, in {directory}")
        # Interleaved twice so a disk that warms up or slows down favours no one.
        runs: dict[str, list[float]] = {"keyed": [], "sha256": [], "none": []}
        for attempt in range(2):
            sub = directory / str(attempt)
            sub.mkdir()
            runs["keyed"] += keyed(sub, args.rows // 2)
            runs["sha256"] += plain(sub, args.rows // 2, chained=True)
            runs["none"] += plain(sub, args.rows // 2, chained=False)
        figures("schema 2: HMAC-SHA256 ledger (Journal)", runs["keyed"])
        figures("schema 1 shape: plain SHA-256 chain", runs["sha256"])
        figures("no chain (SQLite's commit alone)", runs["none"])
    hmac_us, sha_us = chain_cpu(20000)
    print(f"  the chain alone, per row: HMAC-SHA256 {hmac_us:.1f} us, SHA-256 {sha_us:.1f} us (CPU, no disk)")


if __name__ == "__main__":
    main()
