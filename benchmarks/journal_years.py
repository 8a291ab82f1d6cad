"""A journal for years (issue 42): what a start, a verify and a dispute record cost as the history grows.

    .venv/bin/python benchmarks/journal_years.py [--rows 100000 1000000] [--dir test-output/journal-years]

Builds (once: cached under ``--dir``, each size grown from the one below it) a table's history of realistic
play through the engine and the journal's writer (a Hi-Lo counter, a casual player, a flat bettor and a parlay
bettor at boxes 1, 2, 3 and 5 of a 6-deck ru-standard table), an input every 1.7 s (the 0.6 rows a second of a
busy table: 10^6 rows are about 19 days), the writer archiving the live file at the first input of each gaming
day (06:00 UTC), as the service's writer does. Then, for each size, it prints:

- the history: rows, files, the live file's rows and size;
- ``tablectl run``: seconds from its start to its ready line, and its RSS then (the journal's live file alone is
  opened, verified and replayed, from the state kept at its first row);
- a card's commit: p50 and p99 of 300 appends of a card row to a copy of the live file, each committed
  (``synchronous=FULL``);
- ``tablectl journal verify`` as a process: wall time, rows per second, peak RSS (every file, every link, the round
  records by their tallies);
- a dispute record of a round in the middle of the history and of the last (`tablectl dispute` as a process):
  wall time and peak RSS.

Times are wall times on this machine (shared, loaded: say so beside the figures); one run each.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, time as dt_time, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tablectl.compiled_engine import use_compiled_engine  # noqa: E402  (before the engine is imported)

ENGINE = use_compiled_engine()

from controller import events as ev  # noqa: E402
from controller.authority import TableAuthority  # noqa: E402
from controller.cards import parse_card  # noqa: E402
from controller.dispute import DisputeOptions  # noqa: E402
from controller.journal import History, Journal, JournalKey, JournalReader, Rotation, archives, key_beside  # noqa: E402
from controller.rules import build_rules  # noqa: E402
from simulators.advantage_players import play_session, seat  # noqa: E402
from tablectl.dispute import make_record, render  # noqa: E402
from writes import config, free_port, rss_mb, start  # noqa: E402  (benchmarks/writes.py: the service as a child)

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=timezone.utc)
STEP = timedelta(seconds=1.7)
ROTATION = Rotation(zone=timezone.utc, starts=dt_time(6, 0))
LIVE = "journal.sqlite"


def _copy_history(src: Path, dst: Path) -> None:
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)


def build(directory: Path, sizes: list[int]) -> dict[int, Path]:
    """Each size's history (a folder holding journal.sqlite, its key and its archives), built or cached."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {n: directory / f"rows-{n}" for n in sizes}
    missing = [n for n in sorted(sizes) if not (paths[n] / LIVE).exists()]
    if not missing:
        return paths
    have = [n for n in sorted(sizes) if (paths[n] / LIVE).exists() and n < missing[0]]
    work = directory / "building"
    if have:
        _copy_history(paths[have[-1]], work)
        key = JournalKey.load(key_beside(work / LIVE))
    else:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        key = JournalKey.generate(key_beside(work / LIVE))
    authority = TableAuthority.open(work / LIVE, key, build_rules("ru-standard"), 50, now=T0)
    last = authority.journal.db.execute("SELECT received_at FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()[0]
    clock = [datetime.fromisoformat(last)]

    def submit(event: ev.Event) -> list[Any]:
        clock[0] += STEP
        return authority.submit(event, clock[0])[1]

    rng = random.Random(len(have))
    session = seat(authority.table.rules, {1: "counter", 2: "casual", 3: "flat", 5: "parlay"}, rng,
                   table=authority.table, submit=submit)
    started, rows0 = time.perf_counter(), authority.journal.head()[0]
    for target in missing:
        while authority.journal.head()[0] < target:
            if authority.rotate_if_due(ROTATION, clock[0] + STEP) is not None:
                pass
            authority.journal.db.execute("PRAGMA synchronous=OFF")  # (a benchmark's history, built once)
            with authority.journal.transaction():
                play_session(session, 50, rng)
            done = authority.journal.head()[0]
            rate = (done - rows0) / (time.perf_counter() - started)
            print(f"  building: {done:,} rows ({rate:,.0f} rows/s, {ENGINE.describe()})", end="\r", flush=True)
        authority.journal.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        _copy_history(work, paths[target])
        print(f"  built {paths[target]}: {authority.journal.head()[0]:,} rows, {len(archives(work / LIVE))} "
              f"archives, in {time.perf_counter() - started:,.0f} s" + " " * 20)
    authority.journal.close()
    shutil.rmtree(work, ignore_errors=True)
    return paths


def as_process(argv: list[str]) -> tuple[float, float, int, float]:
    """Run a command: its wall time, its peak RSS (MB), its exit status and its CPU seconds (user + system: on a
    loaded machine the wall time is mostly waiting for a core)."""
    began = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    return (time.perf_counter() - began, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status),
            usage.ru_utime + usage.ru_stime)


def commit_times(live: Path, n: int = 300) -> list[float]:
    """Seconds each of `n` card rows took to append and commit, on a copy of the live file (synchronous=FULL)."""
    with tempfile.TemporaryDirectory(prefix="journal-years-") as tmp:
        copy = Path(tmp) / LIVE
        shutil.copy(live, copy)
        shutil.copy(key_beside(live), key_beside(copy))
        journal = Journal(copy, JournalKey.load(key_beside(copy)))
        at = datetime.fromisoformat(journal.db.execute("SELECT MAX(received_at) FROM ledger").fetchone()[0])
        out = []
        for i in range(n):
            at += STEP
            began = time.perf_counter()
            journal.append_event(ev.CardDrawn(card=parse_card("TS"), position=i + 1), at, shoe_id="bench",
                                 position=i + 1)
            out.append(time.perf_counter() - began)
        journal.close()
    return out


def measure(folder: Path) -> None:
    live = folder / LIVE
    history = History(live)
    with JournalReader(live) as reader:
        head = reader.head()[0]
        live_rows = head - reader.base + 1
        rounds = reader.db.execute("SELECT MAX(number) FROM rounds").fetchone()[0] or 0
    files = len(history.files)
    size = sum(p.stat().st_size for p in history.files) / 1e6
    print(f"{folder.name}: {head:,} rows in {files} files ({size:,.0f} MB); the live file {live_rows:,} rows, "
          f"{live.stat().st_size / 1e6:.1f} MB; {rounds:,} rounds")
    with tempfile.TemporaryDirectory(prefix="journal-years-run-") as tmp:
        copy = Path(tmp) / "history"  # (the service writes to its journal: a copy, the cache stays as built)
        _copy_history(folder, copy)
        cfg = config(Path(tmp), free_port())
        cfg.write_text(cfg.read_text().replace(str(Path(tmp) / "journal.sqlite"), str(copy / LIVE)))
        proc, ready = start(cfg)
        rss = rss_mb(proc.pid)
        ticks = [int(x) for x in Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13]]
        cpu = sum(ticks) / os.sysconf("SC_CLK_TCK")
        proc.terminate()
        proc.wait(timeout=60)
    print(f"  tablectl run: ready in {ready:6.2f} s (CPU {cpu:.2f} s), RSS {rss:6.1f} MB")
    times = sorted(commit_times(live))
    p99 = times[int(len(times) * 0.99) - 1]
    print(f"  a card's commit: p50 {statistics.median(times) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms (n = {len(times)})")
    cli = [sys.executable, "-m", "tablectl.cli"]
    seconds, peak, code, cpu = as_process([*cli, "journal", "verify", "--db", str(live)])
    print(f"  tablectl journal verify: {seconds:6.2f} s, {head / seconds:,.0f} rows/s; CPU {cpu:.2f} s, "
          f"{head / cpu:,.0f} rows per CPU second; peak RSS {peak:.1f} MB" + ("" if code == 0 else f" (exit {code})"))
    for number in (max(1, rounds // 2), rounds):
        segment = history.holding_round(number) or live
        tracemalloc.start()
        began = time.perf_counter()
        with JournalReader(segment, JournalKey.load(key_beside(live))) as reader:
            render(make_record(reader, DisputeOptions(round_number=number, table="bench", exported_by="benchmark",
                                                      exported_at=datetime.now(timezone.utc))), "json")
        took, peak_alloc = time.perf_counter() - began, tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"  dispute record of round {number:,} (the API's route, in process): {took:6.2f} s, peak allocations "
              f"{peak_alloc / 1e6:.1f} MB")
        seconds, peak, code, cpu = as_process([*cli, "dispute", "--db", str(live), "--round", str(number),
                                               "--format", "json", "--out", os.devnull])
        print(f"  tablectl dispute --round {number:,}: {seconds:6.2f} s (CPU {cpu:.2f} s), peak RSS {peak:.1f} MB"
              + ("" if code == 0 else f" (exit {code})"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000],
                        help="history sizes, in rows (default 10^5 10^6; 10^7 takes hours to build here)")
    parser.add_argument("--dir", type=Path, default=ROOT / "test-output" / "journal-years",
                        help="where the histories are built and kept")
    args = parser.parse_args()
    print(f"engine: {ENGINE.describe()}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    paths = build(args.dir, args.rows)
    for n in sorted(args.rows):
        measure(paths[n])


if __name__ == "__main__":
    main()
