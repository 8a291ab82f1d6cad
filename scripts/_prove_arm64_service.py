"""`tablectl run` in the arm64 root, as systemd starts it: READY, watchdog pings, a clean stop (scripts/prove-arm64).

Runs inside the root under its own python3 (stdlib only). It starts the installed service as the
user tablectl with NOTIFY_SOCKET and WATCHDOG_USEC set as the unit's Type=notify and WatchdogSec
would, waits for READY=1 and two WATCHDOG=1, reads the service's memory, sends SIGTERM and waits
for STOPPING=1 and exit status 0. Prints one ``key=value`` a line for the proof's figures; any
failure is one line on stderr and exit status 1.

Under qemu user-mode emulation the memory read from /proc is the emulator's process: the
service's own pages plus qemu's (its translated code among them), so more than on a Pi.
"""

from __future__ import annotations

import argparse
import grp
import os
import pwd
import signal
import socket
import subprocess
import sys
import time
from typing import Callable

GROUPS = ["dialout", "gpio", "spi", "i2c"]  # the unit's SupplementaryGroups


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of ``pid`` in KiB (what /proc says)."""
    out: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True)
    p.add_argument("--exe", default="/opt/tablectl/current/venv/bin/tablectl")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for READY (qemu is slow)")
    p.add_argument("--log", default="/tmp/prove-arm64-service.log")
    args = p.parse_args()

    os.makedirs("/run/tablectl", mode=0o750, exist_ok=True)  # the unit's RuntimeDirectory (LG_WD)
    user = pwd.getpwnam("tablectl")
    os.chown("/run/tablectl", user.pw_uid, user.pw_gid)
    groups = [g for g in GROUPS if _group_exists(g)]

    path = "/run/prove-arm64-notify"
    if os.path.exists(path):
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    os.chmod(path, 0o666)  # the service runs as tablectl
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000",
           "LG_WD": "/run/tablectl", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    with open(args.log, "w") as log:
        proc = subprocess.Popen([args.exe, "run", "--config", args.config], env=env, cwd="/var/lib/tablectl",
                                stdout=log, stderr=subprocess.STDOUT, user="tablectl", group="tablectl",
                                extra_groups=groups, umask=0o077)
    got: list[str] = []
    try:
        ready_s = _wait(sock, got, proc, started + args.timeout, lambda: any(m.startswith("READY=1") for m in got))
        if ready_s is None:
            return _fail(f"no READY=1 within {args.timeout:.0f} s (service log: {args.log})", got, proc)
        ready_s -= started
        ready_at = next(i for i, m in enumerate(got) if m.startswith("READY=1"))
        if _wait(sock, got, proc, time.monotonic() + 30, lambda: got[ready_at:].count("WATCHDOG=1") >= 2) is None:
            return _fail("READY=1 but fewer than 2 WATCHDOG=1 in 30 s (pings every 2 s expected)", got, proc)
        mem = memory_kib(proc.pid)
        stop_at = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        if _wait(sock, got, proc, stop_at + 60, lambda: any(m.startswith("STOPPING=1") for m in got)) is None:
            return _fail("SIGTERM sent, but no STOPPING=1 within 60 s", got, proc)
        status = proc.wait(timeout=60)
        stop_s = time.monotonic() - stop_at
    except subprocess.TimeoutExpired:
        return _fail("SIGTERM sent, STOPPING=1 came, but the service did not exit within 60 s", got, proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sock.close()
        os.unlink(path)
    if status != 0:
        return _fail(f"the service exited with status {status} after SIGTERM (service log: {args.log})", got, proc)
    print(f"ready_s={ready_s:.1f}")
    print(f"watchdog_pings={got.count('WATCHDOG=1')}")
    print(f"rss_kib={mem.get('VmRSS', 0)}")
    print(f"hwm_kib={mem.get('VmHWM', 0)}")
    print(f"stop_s={stop_s:.1f}")
    print("exit_status=0")
    return 0


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def _wait(sock: socket.socket, got: list[str], proc: subprocess.Popen[bytes], deadline: float,
          done: Callable[[], bool]) -> float | None:
    """Collect notify messages until ``done()`` or the deadline or the service's exit; the time, or None."""
    while not done():
        left = deadline - time.monotonic()
        if left <= 0 or (proc.poll() is not None and not _pending(sock)):
            return None
        sock.settimeout(min(left, 1.0))
        try:
            got.extend(sock.recv(4096).decode().split("\n"))
        except TimeoutError:
            continue
    return time.monotonic()


def _pending(sock: socket.socket) -> bool:
    sock.settimeout(0.2)
    try:
        sock.recv(4096, socket.MSG_PEEK)
    except (TimeoutError, BlockingIOError):
        return False
    return True


def _fail(message: str, got: list[str], proc: subprocess.Popen[bytes]) -> int:
    status = proc.poll()
    print(f"prove-arm64 service: {message}; notify messages: {[m for m in got if m][:12]}"
          + ("" if status is None else f"; it exited with status {status}"), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
