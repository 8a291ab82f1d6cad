"""The one writer under load, and how fast the table is back after a kill.

    .venv/bin/python benchmarks/writes.py [--clients 32] [--seconds 10] [--rounds 10000]

Starts `tablectl run` (a real uvicorn server, a real SQLite journal with synchronous=FULL,
no shoe attached) and prints:

- writes per second the single writer sustains with N keep-alive clients posting actions
  at once (accepted bets and refused stands, both journalled), and the p50/p99 of a write's
  answer as the clients saw it: driven by Debian's `wrk` when it is installed (a C client,
  so the figure is the service's, not the load generator's), else by Python threads;
- the seconds from starting `tablectl run` after a SIGKILL to its `{"ready": ...}` line;
- the same on a journal of `--rounds` settled rounds (built beforehand, keyed and chained);
- the service's RSS once ready.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tablectl.config import ApiKey  # noqa: E402

KEY = "bench-dealer-key"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config(directory: Path, port: int) -> Path:
    cfg = directory / "config.toml"
    cfg.write_text(
        f'[journal]\npath = "{directory / "journal.sqlite"}"\n'
        f'[shoe]\nport = "{directory / "no-shoe"}"\n'
        f'[api]\nport = {port}\n'
        f'[[api.keys]]\nname = "bench"\nrole = "supervisor"\nsha256 = "{ApiKey.hash(KEY)}"\n')
    return cfg


def start(cfg: Path) -> tuple[subprocess.Popen[bytes], float]:
    """`tablectl run` as a child; returns it and the seconds until it announced ready."""
    began = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "tablectl.cli", "run", "--config", str(cfg), "--no-gpio"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the service did not start")
        if line.startswith(b"{"):
            return proc, time.perf_counter() - began


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def hammer(api: str, clients: int, seconds: float) -> tuple[int, list[float], dict[int, int]]:
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def client(i: int) -> None:
        with httpx.Client(base_url=api, headers={"Authorization": f"Bearer {KEY}"}, timeout=30) as http:
            n = 0
            while time.monotonic() < end:
                body = {"type": "bet", "box": 1 + (i % 7), "amount": 10} if n % 2 else {"type": "stand"}
                t0 = time.perf_counter()
                r = http.post("/api/actions", json=body)
                dt = time.perf_counter() - t0
                with lock:
                    latencies.append(dt)
                    statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                n += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(latencies), latencies, statuses


WRK_SCRIPT = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer %s"
local n = 0
request = function()
  n = n + 1
  if n %% 2 == 0 then return wrk.format(nil, nil, nil, '{"type":"stand"}') end
  return wrk.format(nil, nil, nil, '{"type":"bet","box":' .. (1 + n %% 7) .. ',"amount":10}')
end
""" % KEY


def hammer_wrk(api: str, clients: int, seconds: float, directory: Path) -> str:
    script = directory / "post.lua"
    script.write_text(WRK_SCRIPT)
    out = subprocess.run(["wrk", f"-t{min(2, clients)}", f"-c{clients}", f"-d{seconds:g}s", "--latency",
                          "-s", str(script), api + "/api/actions"], capture_output=True, text=True).stdout
    rate = p50 = p99 = "?"
    for line in out.splitlines():
        words = line.split()
        if line.startswith("Requests/sec:"):
            rate = f"{float(words[1]):,.0f}"
        elif words[:1] == ["50%"]:
            p50 = words[1]
        elif words[:1] == ["99%"]:
            p99 = words[1]
    return f"{rate} writes/s; answer p50 {p50}, p99 {p99} (wrk)"


def build_long_journal(path: Path, rounds: int) -> None:
    """A keyed journal of `rounds` settled rounds, dealt from shuffled 6-deck shoes (no alerts).

    One box bets 10 and stands on its first two cards; the dealer draws as the rules say.
    Every shoe is cut after 15 rounds, so each holds only as many of a card as its decks do
    (a journal that repeated the same five cards would carry thousands of integrity alerts,
    and its start-up would measure them).
    """
    import random

    from controller import events as ev
    from games.blackjack.events import CloseInsurance
    from controller.authority import TableAuthority
    from controller.cards import parse_card
    from controller.engine import Phase
    from controller.phase import BETWEEN_ROUNDS
    from controller.journal import JournalKey
    from controller.rules import build_rules
    from datetime import datetime, timedelta, timezone

    key = JournalKey.generate(path.with_name(path.name + ".key"))
    a = TableAuthority.open(path, key, build_rules("ru-standard"), now=datetime.now(timezone.utc))
    a.journal.db.execute("PRAGMA synchronous=OFF")  # building the fixture only: the service writes FULL
    t = datetime(2026, 11, 30, 20, 0, tzinfo=timezone.utc)
    rng = random.Random(1)
    deck = [parse_card(r + s) for r in "23456789TJQKA" for s in "SHDC"]
    played = 0
    shoe = 0
    while played < rounds:
        shoe += 1
        cards = deck * 6
        rng.shuffle(cards)
        a.submit(ev.Shuffle(shoe_id=f"S{shoe}"), t)
        for _ in range(15):
            t += timedelta(seconds=1)
            a.submit(ev.PlaceBet(box=1, amount=10), t)
            a.submit(ev.CardDrawn(card=cards.pop()), t)
            while a.table.phase not in BETWEEN_ROUNDS:
                t += timedelta(seconds=1)
                phase = a.table.phase
                if phase in (Phase.PLAYERS, Phase.SURRENDER):
                    a.submit(ev.Stand(), t)
                elif phase is Phase.INSURANCE:
                    a.submit(CloseInsurance(), t)
                else:
                    a.submit(ev.CardDrawn(card=cards.pop()), t)
            played += 1
        a.submit(ev.CutCardOut(), t)
    a.journal.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        port = free_port()
        cfg = config(d, port)
        proc, ready = start(cfg)
        api = f"http://127.0.0.1:{port}"
        if shutil.which("wrk"):
            print(f"one writer, {args.clients} clients, {args.seconds:g} s: "
                  f"{hammer_wrk(api, args.clients, args.seconds, d)}")
        else:
            count, lat, statuses = hammer(api, args.clients, args.seconds)
            lat.sort()
            print(f"one writer, {args.clients} clients, {args.seconds:g} s: {count / args.seconds:,.0f} writes/s; "
                  f"answer p50 {1000 * statistics.median(lat):.1f} ms, p99 {1000 * lat[int(0.99 * len(lat))]:.1f} ms"
                  f" (Python threads; install wrk for the service's own figure); statuses {dict(sorted(statuses.items()))}")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]
        rows = json.loads(subprocess.run([sys.executable, "-m", "tablectl.cli", "journal", "verify", "--db",
                                          str(d / "journal.sqlite"), "--key", str(d / "journal.sqlite.key"),
                                          "--json"], capture_output=True, text=True).stdout)["rows"]
        proc, ready = start(cfg)
        print(f"restart after SIGKILL on that journal ({rows:,} rows): ready in {ready:.2f} s, "
              f"RSS {rss_mb(proc.pid):.1f} MB")
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        cfg = config(d, free_port())
        t0 = time.perf_counter()
        build_long_journal(d / "journal.sqlite", args.rounds)
        built = time.perf_counter() - t0
        proc, ready = start(cfg)
        print(f"start-up on a journal of {args.rounds:,} rounds (built in {built:.0f} s): ready in {ready:.2f} s, "
              f"RSS {rss_mb(proc.pid):.1f} MB")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]
        proc, ready = start(cfg)
        print(f"restart after SIGKILL on it: ready in {ready:.2f} s")
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]


if __name__ == "__main__":
    main()
