"""What several floor workers' safety costs the PostgreSQL store (docs/floor.md, "Several workers").

    .venv/bin/python benchmarks/floor_writers.py [--tables 100] [--rows 60] [--batches 1,20,100]

A real PostgreSQL (Debian's, started as the tests start it: loopback, a temporary folder, no fsync), a
database a run. The same rows, every table's row n before any table's row n + 1 (as live tables publish),
stored in batches of B messages three ways, side by side:

- one writer: the store as a single floor process keeps it, its tables' tracks in memory between batches
  (PostgresDatabase.several_writers switched off for the run, as it was before several workers);
- several-writer safe, one store: each batch locks its tables and reads their tracks back first;
- two stores, batches dealt between them in turns: two workers (two connections) in one process.

It prints rows per second and milliseconds a batch, and the time a worker's dashboard takes to read every
table's track back (`FloorStore.refresh`). The store alone: no broker, no HTTP.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tests.support.fleet import make_rows, wire  # noqa: E402
from tests.support.floor import PostgresAt  # noqa: E402
from tests.support.postgres import PostgresServer  # noqa: E402

from tablectl.floor.database import PostgresDatabase  # noqa: E402

KEY = bytes.fromhex("5a" * 32)


def _run(server: PostgresServer, stream: list, keys: dict, batch: int, mode: str) -> tuple[float, float]:
    """Seconds to store `stream` in batches of `batch`, and seconds for one refresh afterwards."""
    PostgresDatabase.several_writers = mode != "one writer"
    at = PostgresAt(server, server.database())
    stores = [at.open(keys) for _ in range(2 if mode == "two stores" else 1)]
    try:
        started = time.perf_counter()
        for n, i in enumerate(range(0, len(stream), batch)):
            stores[n % len(stores)].ingest(stream[i:i + batch])
        took = time.perf_counter() - started
        started = time.perf_counter()
        stores[0].refresh()
        return took, time.perf_counter() - started
    finally:
        for s in stores:
            s.close()
        PostgresDatabase.several_writers = True
        server.drop(at.database)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--rows", type=int, default=60, help="rows a table")
    ap.add_argument("--batches", default="1,20,100", help="messages a batch, comma-separated")
    args = ap.parse_args()
    keys = {f"table-{i:03d}": KEY for i in range(1, args.tables + 1)}
    rows = {t: [wire(t, r) for r in make_rows(KEY, args.rows)] for t in keys}
    stream = [rows[t][n] for n in range(args.rows) for t in keys]
    print(f"load average {os.getloadavg()[0]:.2f}; {len(stream)} rows of {args.tables} tables")
    print(f"{'batch':>5}  {'mode':<26}{'rows/s':>8}{'ms a batch':>12}{'refresh ms':>12}")
    server = PostgresServer().start()
    try:
        for batch in (int(b) for b in args.batches.split(",")):
            for mode in ("one writer", "several-writer safe", "two stores"):
                took, refresh = _run(server, stream, keys, batch, mode)
                batches = -(-len(stream) // batch)
                shown = f"{1000 * refresh:.1f}" if mode != "one writer" else "-"
                print(f"{batch:>5}  {mode:<26}{len(stream) / took:>8.0f}{1000 * took / batches:>12.2f}{shown:>12}")
    finally:
        server.stop()
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
