"""What a dispute record and the players' evidence cost on a long journal: 10^5, 10^6 and 10^7 rows (issue 37).

    .venv/bin/python benchmarks/big_journal.py [--rows 100000 1000000 10000000] [--dir test-output/big-journals]

Builds (once: cached under ``--dir``, each size grown from the one below it) a table's journal of realistic play
through the engine and the journal's writer: a Hi-Lo counter, a casual player, a flat bettor and a parlay bettor at
boxes 1, 2, 3 and 5 of a 6-deck ru-standard table, 2 s an input, rows signed with the key, round records,
the states and checkpoints the writer keeps. About 20 rows a round; the build runs at a few thousand rows a
second (the compiled engine when its build is current: it says which), so 10^7 rows take the better part of an
hour the first time.

Then, for each size, it prints:

- ``dispute round N (route)``: `tablectl.dispute.make_record` and the JSON rendering, what the table's
  `GET /api/rounds/{n}/dispute?format=json` runs in its worker thread: wall time and the peak of Python's
  allocations (tracemalloc), for an early round, a middle one and the last settled;
- ``players 8 h (route)``: `tablectl.figures.player_book` over the last 8 hours, what `GET /api/players` runs;
- ``tablectl dispute`` and ``tablectl protect players --since`` (8 h before the journal's end) as processes:
  wall time and their peak RSS (the kernel's maxrss of the child);
- the journal's rows, rounds, kept states and size on disk.

Times are wall times on this machine (shared, loaded: the figures say what the work is, not a Pi's speed).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import time
import tracemalloc
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tablectl.compiled_engine import use_compiled_engine  # noqa: E402  (before the engine is imported)

ENGINE = use_compiled_engine()

from controller import events as ev  # noqa: E402
from controller.authority import TableAuthority  # noqa: E402
from controller.dispute import DisputeOptions  # noqa: E402
from controller.journal import JournalKey, JournalReader, key_beside  # noqa: E402
from controller.rules import build_rules  # noqa: E402
from simulators.advantage_players import play_session, seat  # noqa: E402
from tablectl.dispute import make_record, render  # noqa: E402
from tablectl.figures import player_book, player_json  # noqa: E402

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=timezone.utc)
STEP = timedelta(seconds=2)


def _rows(path: Path) -> int:
    with JournalReader(path) as reader:
        return reader.head()[0]


def build(directory: Path, sizes: list[int]) -> dict[int, Path]:
    """The journals of at least each size of rows, built (or taken from the cache) in increasing order."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {n: directory / f"rows-{n}.sqlite" for n in sizes}
    missing = [n for n in sorted(sizes) if not paths[n].exists()]
    if not missing:
        return paths
    have = [n for n in sorted(sizes) if paths[n].exists() and n < missing[0]]
    work = directory / "building.sqlite"
    for p in (work, key_beside(work), *(work.with_name(work.name + s) for s in ("-wal", "-shm"))):
        p.unlink(missing_ok=True)
    if have:
        shutil.copy(paths[have[-1]], work)
        shutil.copy(key_beside(paths[have[-1]]), key_beside(work))
        key = JournalKey.load(key_beside(work))
    else:
        key = JournalKey.generate(key_beside(work))
    authority = TableAuthority.open(work, key, build_rules("ru-standard"), 50, now=T0)
    with authority.journal.transaction():
        pass
    clock = [datetime.fromisoformat(authority.journal.db.execute(
        "SELECT received_at FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()[0])]

    def submit(event: ev.Event) -> list[Any]:
        clock[0] += STEP
        return authority.submit(event, clock[0])[1]

    rng = random.Random(len(have))
    session = seat(authority.table.rules, {1: "counter", 2: "casual", 3: "flat", 5: "parlay"}, rng,
                   table=authority.table, submit=submit)
    authority.journal.db.execute("PRAGMA synchronous=OFF")  # (a benchmark's journal, built once)
    started, rows0 = time.perf_counter(), authority.journal.head()[0]
    for target in missing:
        while authority.journal.head()[0] < target:
            with authority.journal.transaction():
                play_session(session, 200, rng)
            done = authority.journal.head()[0]
            rate = (done - rows0) / (time.perf_counter() - started)
            print(f"  building: {done:,} rows ({rate:,.0f} rows/s, {ENGINE.describe()})", end="\r", flush=True)
        authority.journal.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copy(work, paths[target])
        shutil.copy(key_beside(work), key_beside(paths[target]))
        print(f"  built {paths[target]}: {authority.journal.head()[0]:,} rows in "
              f"{time.perf_counter() - started:,.0f} s" + " " * 20)
    authority.journal.close()
    return paths


def in_process(label: str, work: Any) -> Any:
    """Run ``work()``: print its wall time and the peak of Python's allocations."""
    tracemalloc.start()
    start = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"  {label:<44} {seconds:8.2f} s   peak allocations {peak / 1e6:8.1f} MB")
    return result


def as_process(label: str, argv: list[str]) -> None:
    """Run a command: print its wall time and the child's peak RSS."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    note = "" if code == 0 else f"   exit {code}: {err.strip().splitlines()[-1] if err.strip() else ''}"
    print(f"  {label:<44} {seconds:8.2f} s   peak RSS {usage.ru_maxrss / 1024:8.1f} MB{note}")


def measure(path: Path) -> None:
    key = JournalKey.load(key_beside(path))
    with JournalReader(path, key) as reader:
        rows = reader.head()[0]
        rounds = reader.db.execute("SELECT MAX(number) FROM rounds").fetchone()[0]
        states = reader.db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0]
        end = datetime.fromisoformat(reader.db.execute("SELECT MAX(received_at) FROM ledger").fetchone()[0])
    print(f"{path.name}: {rows:,} rows, {rounds:,} rounds, {states:,} kept states, "
          f"{path.stat().st_size / 1e6:,.0f} MB")
    for number in (3, rounds // 2, rounds):
        def record(number: int = number) -> bytes:
            with JournalReader(path, key) as reader:
                return render(make_record(reader, DisputeOptions(
                    round_number=number, table=path.stem, exported_by="benchmark",
                    exported_at=datetime.now(timezone.utc))), "json")
        in_process(f"dispute round {number:,} (route)", record)
    since = end - timedelta(hours=8)

    def players() -> int:
        with JournalReader(path, key) as reader:
            return len([player_json(r) for r in player_book(reader, since).report()])
    in_process("players 8 h (route)", players)
    cli = [sys.executable, "-m", "tablectl.cli"]
    as_process(f"tablectl dispute --round {rounds // 2:,}",
               [*cli, "dispute", "--db", str(path), "--round", str(rounds // 2), "--format", "json",
                "--out", os.devnull])
    as_process("tablectl protect players --since (8 h)",
               [*cli, "protect", "players", "--db", str(path), "--since", since.isoformat(), "--json"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000],
                        help="journal sizes, in rows (default 10^5 10^6 10^7)")
    parser.add_argument("--dir", type=Path, default=ROOT / "test-output" / "big-journals",
                        help="where the journals are built and kept")
    args = parser.parse_args()
    print(f"engine: {ENGINE.describe()}; this process's RSS now "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    paths = build(args.dir, args.rows)
    for n in sorted(args.rows):
        measure(paths[n])


if __name__ == "__main__":
    main()
