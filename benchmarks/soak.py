"""A shift at the table: the service's memory, processes and stop after many rounds.

    .venv/bin/python benchmarks/soak.py [--rounds 10000] [--every 500] [--seed 1] [--dashboard] [--tree DIR] [--log FILE]

Starts the virtual shoe on a pty and `tablectl run --config CFG` against it as its own process
(a temporary config: the shoe's pty, a fresh journal, the API on a free loopback port, mock GPIO
pins with the MAX7219 chain as on a Pi, the exact edge on as shipped: the demo's parts, the
service as systemd runs it), then has the virtual dealer (in this process, at the fast pace) play
`--rounds` rounds through the API and the shoe's control channel. It samples the service every
2 s and prints, at READY and each time `--every` more rounds have settled:

- the service's RSS (VmRSS of /proc/PID/status, in MiB: 2**20 bytes), its peak (VmHWM) and its
  anonymous part, and the RSS of the whole process tree (the exact-edge worker and
  multiprocessing's resource tracker are children of the service);
- the processes, threads and open file descriptors of that tree;
- the rounds played and the rounds an hour at this pace.

`--dashboard` also has the pit's dashboard open on the table for the whole run, reading what its
page reads (the event stream, held open; the table every 2 s; the rounds and the shift's figures
every 10 s; the dealers' figures, with a supervisor's key, every 60 s).

At the end: the largest RSS seen (every sample, not only the printed ones), the spread of the
samples after warm-up (the first `--warm-up` rounds, default 1,000, left out), and the stop:
the seconds from SIGTERM to the service's exit, and its exit status.

`--tree DIR` runs another checkout's `tablectl` with this venv (before/after). The figures are
this machine's (x86-64); benchmarks/rss.py says what the imports cost at READY.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024
sys.path.insert(0, str(HERE))

from simulators.shoe.process import SimProcess  # noqa: E402
from simulators.virtual_dealer import PACES, DealerStopped, VirtualDealer  # noqa: E402
from tablectl.config import ApiKey  # noqa: E402

from rss import free_port, start  # noqa: E402  (benchmarks/rss.py: this script's folder is on sys.path)

KEY = "soak-dealer-key"
SUPERVISOR_KEY = "soak-supervisor-key"


def write_config(directory: Path, shoe: str, port: int) -> Path:
    """The table's config: the virtual shoe, a fresh journal, the API, the dealer's key, mock pins."""
    cfg = directory / "config.toml"
    cfg.write_text(f'[shoe]\nport = "{shoe}"\n[journal]\npath = "{directory / "journal.sqlite"}"\n'
                   f'[api]\nport = {port}\n'
                   f'open_reads_on_loopback = true\n'
                   f'[[api.keys]]\nname = "virtual-dealer"\nrole = "dealer"\nsha256 = "{ApiKey.hash(KEY)}"\n'
                   f'[[api.keys]]\nname = "pit"\nrole = "supervisor"\nsha256 = "{ApiKey.hash(SUPERVISOR_KEY)}"\n'
                   '[gpio]\npin_factory = "mock"\n')
    return cfg


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS, VmHWM, RssAnon (kB) and Threads of a process (empty once it has gone)."""
    out: dict[str, int] = {}
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return out
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "Threads"):
            out[key] = int(value.split()[0])
    return out


def tree(pid: int) -> list[int]:
    """`pid` and every process descended from it (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def fds(pid: int) -> int:
    """Open file descriptors of a process (0 once it has gone)."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


@dataclass
class Sample:
    """One reading of the service and its tree."""

    rounds: int
    seconds: float
    rss: float  # MiB, the service's own process
    hwm: float
    anon: float
    tree_rss: float  # MiB, the service and its children
    processes: int
    threads: int
    fds: int


def sample(pid: int, rounds: int, seconds: float) -> Sample:
    """Read the service (`pid`) and its process tree now."""
    own = proc_status(pid)
    pids = tree(pid)
    statuses = [own] + [proc_status(p) for p in pids if p != pid]
    return Sample(rounds, seconds, own.get("VmRSS", 0) / 1024, own.get("VmHWM", 0) / 1024,
                  own.get("RssAnon", 0) / 1024, sum(s.get("VmRSS", 0) for s in statuses) / 1024,
                  len(pids), sum(s.get("Threads", 0) for s in statuses), sum(fds(p) for p in pids))


def start_service(cfg: Path, tree_dir: Path, log: Path) -> subprocess.Popen[bytes]:
    """`tablectl run --config CFG` as a child, from `tree_dir`; returns once it has printed its ready line."""
    return start(["run", "--config", str(cfg)], tree_dir, log, ready_within=120)


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) used so far by a process and by its children it has reaped (0 once gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def stop_service(proc: subprocess.Popen[bytes]) -> tuple[int | None, float, float]:
    """SIGTERM, and wait for the exit: (exit status or None if it took over 120 s, wall seconds, CPU seconds).

    The CPU time is what the service's tree used between the signal and its exit (its rusage, read
    as it is reaped, which holds its children's too, less what they had all used before the signal):
    on a machine other work loads, the wall time is that work's as much as ours.
    """
    before = sum(cpu_seconds(p) for p in tree(proc.pid))
    began = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    deadline = began + 120
    while time.monotonic() < deadline:
        pid, wait_status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(wait_status)
            return proc.returncode, time.monotonic() - began, usage.ru_utime + usage.ru_stime - before
        time.sleep(0.01)
    return None, time.monotonic() - began, 0.0


def dashboard(api: str, stop: threading.Event, errors: list[str]) -> list[threading.Thread]:
    """The pit's dashboard open on the table: its event stream held open, and its reads at the page's pace."""
    import urllib.request

    def get(path: str, key: str | None = None) -> None:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        try:
            with urllib.request.urlopen(urllib.request.Request(api + path, headers=headers), timeout=30) as r:
                r.read()
        except OSError as exc:
            errors.append(f"GET {path}: {exc}")

    def stream() -> None:
        while not stop.is_set():
            try:
                with urllib.request.urlopen(api + "/api/events", timeout=30) as r:
                    while not stop.is_set() and r.readline():
                        pass
            except OSError as exc:
                if not stop.is_set():
                    errors.append(f"GET /api/events: {exc}")
                    stop.wait(1)

    def poll() -> None:
        tick = 0
        while not stop.wait(2):
            get("/api/table")
            if tick % 5 == 0:
                get("/api/rounds?size=20&page=1")
                get("/api/figures?hours=8")
            if tick % 30 == 0:
                get("/api/dealers?hours=8", SUPERVISOR_KEY)
            tick += 1

    threads = [threading.Thread(target=f, name=f.__name__, daemon=True) for f in (stream, poll)]
    for t in threads:
        t.start()
    return threads


def line(s: Sample, label: str, rate: float | None) -> str:
    """One printed row."""
    pace = f"{rate:8.0f}" if rate is not None else f"{'':8}"
    return (f"{label:>8} {s.rounds:7d} {s.seconds:8.0f} {pace} {s.rss:8.1f} {s.hwm:8.1f} {s.anon:8.1f} "
            f"{s.tree_rss:9.1f} {s.processes:5d} {s.threads:7d} {s.fds:5d}")


def main() -> int:
    """Play the shift and print."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=10_000, help="rounds to play (default 10,000)")
    p.add_argument("--every", type=int, default=500, help="print a row each time this many more rounds settled")
    p.add_argument("--warm-up", type=int, default=1_000, help="rounds left out of the flatness figures")
    p.add_argument("--seed", type=int, default=1, help="the shoe's and the dealer's seed")
    p.add_argument("--dashboard", action="store_true", help="the pit's dashboard open on the table all along")
    p.add_argument("--sample-seconds", type=float, default=2.0, help="seconds between readings (default 2)")
    p.add_argument("--tree", type=Path, default=HERE, help="the checkout whose tablectl runs (default: this one)")
    p.add_argument("--log", type=Path, help="keep the service's log here (default: thrown away with the run)")
    args = p.parse_args()
    tree_dir = args.tree.resolve()
    with tempfile.TemporaryDirectory(prefix="tablectl-soak-") as tmp:
        d = Path(tmp)
        sim = SimProcess(d, "--seed", str(args.seed)).start()
        proc = None
        try:
            port = free_port()
            cfg = write_config(d, sim.link, port)
            log = args.log or d / "service.log"
            began = time.monotonic()
            proc = start_service(cfg, tree_dir, log)
            ready_s = time.monotonic() - began
            rounds = [0]
            stop = threading.Event()
            dealer = VirtualDealer(f"http://127.0.0.1:{port}", KEY, sim.control_path, seed=args.seed,
                                   pace=PACES["fast"], stop=stop,
                                   on_step=lambda t: rounds.__setitem__(0, int(t["rounds_played"])))
            failure: list[BaseException] = []

            def play() -> None:
                try:
                    table = dealer.run(args.rounds)
                    rounds[0] = int(table["rounds_played"])
                except DealerStopped:
                    pass
                except BaseException as exc:  # said below, the run ends
                    failure.append(exc)

            print(f"tablectl run (tree {tree_dir}) with the virtual shoe on a pty and the virtual dealer at the "
                  f"fast pace, {args.rounds} rounds, seed {args.seed}"
                  + (", the pit's dashboard open" if args.dashboard else "") + f"; READY in {ready_s:.1f} s")
            print("MiB = 2**20 bytes; rss/peak/anon: the service's own process; tree: it and its children\n")
            print(f"{'at':>8} {'rounds':>7} {'seconds':>8} {'rounds/h':>8} {'rss':>8} {'peak':>8} {'anon':>8} "
                  f"{'tree rss':>9} {'procs':>5} {'threads':>7} {'fds':>5}")
            samples = [sample(proc.pid, 0, 0.0)]
            print(line(samples[0], "READY", None), flush=True)
            watching: list[str] = []
            if args.dashboard:
                dashboard(f"http://127.0.0.1:{port}", stop, watching)
            player = threading.Thread(target=play, name="virtual-dealer", daemon=True)
            t0 = time.monotonic()
            player.start()
            next_row = args.every
            printed = 0
            while player.is_alive():
                player.join(args.sample_seconds)
                if proc.poll() is not None:
                    stop.set()
                    raise SystemExit(f"the service exited with status {proc.returncode} after {rounds[0]} "
                                     f"rounds:\n{log.read_text()[-2000:]}")
                s = sample(proc.pid, rounds[0], time.monotonic() - t0)
                samples.append(s)
                if s.rounds >= next_row or (not player.is_alive() and s.rounds != printed):
                    rate = s.rounds / s.seconds * 3600 if s.seconds else None
                    print(line(s, "", rate), flush=True)
                    printed = s.rounds
                    while next_row <= s.rounds:
                        next_row += args.every
            stop.set()
            if watching:
                print(f"the dashboard's reads failed {len(watching)} times; the first: {watching[0]}")
            if failure:
                raise SystemExit(f"the virtual dealer failed after {rounds[0]} rounds: {failure[0]!r}")
            status, stop_s, stop_cpu = stop_service(proc)
        finally:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc is not None and proc.stdout is not None:
                proc.stdout.close()
            sim.stop()
    peak = max(samples, key=lambda s: s.rss)
    warm = [s for s in samples if s.rounds >= args.warm_up]
    print(f"\nsamples: {len(samples)} (every {args.sample_seconds:g} s); the largest RSS: {peak.rss:.1f} MiB "
          f"at {peak.rounds} rounds (peak as the kernel kept it, VmHWM: {samples[-1].hwm:.1f} MiB)")
    if warm:
        rss = [s.rss for s in warm]
        first, last = warm[0], warm[-1]
        print(f"after warm-up ({args.warm_up} rounds; {len(warm)} samples, {first.rounds}..{last.rounds} rounds): "
              f"RSS {min(rss):.1f}..{max(rss):.1f} MiB, {last.rss - first.rss:+.1f} MiB from the first sample to "
              f"the last; processes {first.processes}..{last.processes}, threads {first.threads}..{last.threads}, "
              f"fds {first.fds}..{last.fds}")
    print(f"stop: SIGTERM to exit in {stop_s:.2f} s ({stop_cpu:.2f} s of the service's CPU), exit status "
          + (f"{status}" if status is not None else "none (killed after 120 s)"))
    print(json.dumps({"rounds": samples[-1].rounds, "max_rss_mib": round(peak.rss, 1),
                      "rss_at_ready_mib": round(samples[0].rss, 1), "last_rss_mib": round(samples[-1].rss, 1),
                      "stop_seconds": round(stop_s, 2), "stop_cpu_seconds": round(stop_cpu, 2),
                      "exit_status": status}))
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
