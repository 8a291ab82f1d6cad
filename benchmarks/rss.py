"""The table service's memory at READY, and what its imports cost.

    .venv/bin/python benchmarks/rss.py [--runs 3] [--top 12] [--no-gpio] [--tree DIR]

Starts a virtual shoe on a pty and `tablectl run --config CFG` against it (a temporary
config: the shoe's pty, a fresh journal, the API on a free loopback port, mock GPIO pins
with the MAX7219 chain as on a Pi, less lgpio) and prints:

- the service's RSS (VmRSS of /proc/PID/status, in MB of 2**20 bytes as writes.py and
  docs/service.md give it) the moment it announces READY, each of `--runs` starts (a fresh
  journal each time);
- what the imports cost: the order the service finished loading its modules in (`python -X
  importtime`), each module then imported alone in that order in a fresh interpreter with the
  RSS read after each, summed per top-level package (so a package's dependencies are charged
  to themselves, not to it), the modules that add the most, and the import time per package;
- every top-level package loaded at READY.

RSS grows in steps (malloc's arenas), so a single module's figure is rough; a package's sum
and the total are what to compare.

`--tree DIR` runs another checkout's `tablectl` with this venv (before/after: run it once with
`--tree` on the old checkout, once without). The figures are this machine's (x86-64); a Pi's
64-bit Python is close, not equal.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
MB = 1024 * 1024  # a "MB" here is 2**20 bytes, as in writes.py and the figures in docs/service.md
sys.path.insert(0, str(HERE))

from simulators.shoe.process import SimProcess  # noqa: E402

# The child behind the import costs: it imports the modules named in a file, in that order (the order
# they finished loading in the service, so each module's own imports come before it), and prints the
# RSS after each one.
IMPORTER = """
import importlib, json, os, sys
page = os.sysconf("SC_PAGE_SIZE")
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page
out = [["(interpreter)", rss()]]
for name in open(sys.argv[1]).read().split():
    if name not in sys.modules:
        try:
            importlib.import_module(name)
        except Exception:
            continue
    out.append([name, rss()])
print(json.dumps(out))
"""


def free_port() -> int:
    """A free TCP port on loopback."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_config(directory: Path, shoe: str, extra: str = "", name: str = "config.toml") -> Path:
    """A table's config: the virtual shoe, a fresh journal, the API on a free port, mock pins."""
    cfg = directory / name
    cfg.write_text(f'[shoe]\nport = "{shoe}"\n[journal]\npath = "{directory / "journal.sqlite"}"\n'
                   f'[api]\nport = {free_port()}\n[gpio]\npin_factory = "mock"\n{extra}')
    return cfg


def fresh_journal(directory: Path) -> None:
    """Each start makes its journal anew (a start on a journal of 10,000 rounds is writes.py's)."""
    for p in directory.glob("journal.sqlite*"):
        p.unlink()


def status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in kB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[key] = int(value.split()[0])
    return out


def start(argv: list[str], tree: Path, stderr: Path, prefix: list[str] | None = None,
          ready_within: float = 60) -> subprocess.Popen[bytes]:
    """The service as a child, run from `tree`; returns once it has printed its ready line (SystemExit, with its
    log's tail, when it ends first or is not ready within ``ready_within`` seconds)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with open(stderr, "wb") as err:
        proc = subprocess.Popen([*(prefix or [sys.executable, "-m", "tablectl.cli"]), *argv], cwd=tree, env=env,
                                stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    deadline = time.monotonic() + ready_within
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"the service did not start:\n{stderr.read_text()[-2000:]}")
        if line.startswith(b'{"ready"'):
            return proc
    raise SystemExit(f"the service did not get ready in {ready_within:g} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM and wait."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def import_order(log: Path) -> list[tuple[str, float]]:
    """(module, self import time in ms) in the order the imports finished, from `-X importtime` output."""
    out = []
    for line in log.read_text().splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _, name = line.removeprefix("import time:").split("|")
        out.append((name.strip(), int(self_us) / 1000))
    return out


def by_package(pairs: list[tuple[str, float]]) -> dict[str, float]:
    """Figures per module summed per top-level package."""
    out: dict[str, float] = {}
    for name, value in pairs:
        top = name.split(".")[0]
        out[top] = out.get(top, 0.0) + value
    return out


def import_costs(order: list[str], tree: Path, tmp: Path) -> tuple[list[tuple[str, float]], float, float]:
    """(module, MB its import added), the interpreter's own RSS and the RSS after every import (MB)."""
    names = tmp / "modules.txt"
    names.write_text("\n".join(n for n in order if not n.startswith("__")))
    out = subprocess.run([sys.executable, "-c", IMPORTER, str(names)], cwd=tree, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tree)}, timeout=120, check=True)
    steps = json.loads(out.stdout)
    costs = [(name, (rss - before) / MB) for (_, before), (name, rss) in zip(steps, steps[1:])]
    return costs, steps[0][1] / MB, steps[-1][1] / MB


def main() -> int:
    """Measure and print."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="starts measured (default 3)")
    p.add_argument("--top", type=int, default=12, help="packages listed in each ranking (default 12)")
    p.add_argument("--no-gpio", action="store_true", help="start the service with --no-gpio")
    p.add_argument("--tree", type=Path, default=HERE, help="the checkout whose tablectl runs (default: this one)")
    args = p.parse_args()
    tree = args.tree.resolve()
    extra = ["--no-gpio"] if args.no_gpio else []
    with tempfile.TemporaryDirectory(prefix="tablectl-rss-") as tmp:
        d = Path(tmp)
        sim = SimProcess(d).start()
        try:
            cfg = write_config(d, sim.link)
            argv = ["run", "--config", str(cfg), *extra]
            ready = []
            for _ in range(args.runs):
                fresh_journal(d)
                proc = start(argv, tree, d / "service.log")
                ready.append(status(proc.pid))
                stop(proc)
            fresh_journal(d)
            # The exact edge's worker (a process of its own, spawned with this interpreter's -X options) off:
            # its imports (numpy, 10 MB) would be written to the same log and counted as the service's.
            quiet = write_config(d, sim.link, "[table]\nexact_edge = false\n", "importtime.toml")
            proc = start(["run", "--config", str(quiet), *extra], tree, d / "importtime.log",
                         [sys.executable, "-X", "importtime", "-m", "tablectl.cli"])
            stop(proc)
        finally:
            sim.stop()
        order = import_order(d / "importtime.log")
        costs, bare, imported = import_costs([n for n, _ in order], tree, d)
    rss = [r["VmRSS"] / 1024 for r in ready]
    at_ready = statistics.median(rss)
    print(f"tablectl run {'--no-gpio ' if args.no_gpio else ''}(tree {tree}): virtual shoe on a pty, fresh journal, "
          "mock pins")
    print(f"RSS at READY: {at_ready:.1f} MB median (runs: {', '.join(f'{r:.1f}' for r in rss)}); "
          f"anon {ready[-1]['RssAnon'] / 1024:.1f} MB, file {ready[-1]['RssFile'] / 1024:.1f} MB")
    print(f"of which: the interpreter {bare:.1f} MB, the modules loaded at READY {imported - bare:.1f} MB "
          f"(imported alone, in the service's order: {imported:.1f} MB), the rest ({at_ready - imported:.1f} MB) "
          "the app, the journal, the threads")
    print("\nRSS each top-level package's modules add (imported in the order the service finished loading them):")
    for pkg, mb in sorted(by_package(costs).items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {mb:6.2f} MB  {pkg}")
    print("\nthe modules that add the most:")
    for name, mb in sorted(costs, key=lambda kv: -kv[1])[:args.top]:
        print(f"  {mb:6.2f} MB  {name}")
    print("\nimport time by top-level package (self times summed):")
    for pkg, ms in sorted(by_package(order).items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {ms:7.1f} ms  {pkg}")
    third = sorted({n.split(".")[0] for n, _ in costs} - set(sys.stdlib_module_names) - {"_distutils_hack"}
                   - {n for n in {n.split(".")[0] for n, _ in costs} if n.startswith("__editable__")})
    print(f"\npackages loaded at READY besides the standard library ({len(third)}): {', '.join(third)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
