"""`tablectl run` in the arm64 root, as systemd starts it, playing rounds: READY, watchdog pings, a shift
of rounds dealt by the virtual dealer from the virtual shoe, its memory, a clean stop (scripts/prove-arm64).

Runs inside the root under its own python3 (stdlib only). It starts the virtual shoe on a pty and the
installed service, both as the user tablectl, the service with NOTIFY_SOCKET and WATCHDOG_USEC set as
the unit's Type=notify and WatchdogSec would; waits for READY=1 and two WATCHDOG=1; has the virtual
dealer play ``--rounds`` rounds through the API and the shoe (at the fast pace), the watchdog pinging
all along; then sends SIGTERM and waits for STOPPING=1 and exit status 0. Prints one ``key=value`` a
line for the proof's figures; any failure is one line on stderr and exit status 1.

The service is started through ``--memory-helper`` (scripts/_prove_arm64_memory.py), which runs the
installed tablectl in the same interpreter and writes the service's own memory every 2 s. Under qemu
user-mode emulation the kernel's RSS of the service's process is the emulator's process (the
service's pages and qemu's, its translated code among them); ``rss_*`` is the service's own, the
RSS of its (the guest's) mappings, what a Pi's kernel would count; ``qemu_rss_*`` is the whole.
"""

from __future__ import annotations

import argparse
import grp
import json
import os
import pwd
import signal
import socket
import subprocess
import sys
import time
from typing import Callable

GROUPS = ["dialout", "gpio", "spi", "i2c"]  # the unit's SupplementaryGroups
WORK = "/run/prove-arm64"  # the shoe's pty link and control socket, the memory samples


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True, help="the service's config: its [shoe] port is WORK/shoe")
    p.add_argument("--exe", default="/opt/tablectl/current/venv/bin/tablectl")
    p.add_argument("--python", default="/opt/tablectl/current/venv/bin/python")
    p.add_argument("--memory-helper", default="/usr/local/lib/prove-arm64/prove_arm64_memory.py")
    p.add_argument("--dealer-key", required=True, help="an API key of the config with the dealer role")
    p.add_argument("--rounds", type=int, default=200, help="rounds the virtual dealer plays (default 200)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for READY (qemu is slow)")
    p.add_argument("--play-timeout", type=float, default=3600.0, help="seconds the rounds may take at most")
    p.add_argument("--log", default="/tmp/prove-arm64-service.log")
    args = p.parse_args()

    user = pwd.getpwnam("tablectl")
    for folder in ("/run/tablectl", WORK):  # the unit's RuntimeDirectory (LG_WD); the shoe's and the samples'
        os.makedirs(folder, mode=0o750, exist_ok=True)
        os.chown(folder, user.pw_uid, user.pw_gid)
    memory = f"{WORK}/memory.jsonl"
    if os.path.exists(memory):
        os.unlink(memory)
    groups = [g for g in GROUPS if _group_exists(g)]
    as_tablectl = {"user": "tablectl", "group": "tablectl", "extra_groups": groups, "umask": 0o077}
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LG_WD": "/run/tablectl", "PYTHONUNBUFFERED": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}

    path = "/run/prove-arm64-notify"
    if os.path.exists(path):
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    os.chmod(path, 0o666)  # the service runs as tablectl
    log = open(args.log, "w")
    shoe = subprocess.Popen([args.exe, "shoe-sim", "--pty", "--link", f"{WORK}/shoe", "--control",
                             f"{WORK}/shoe.control", "--seed", "1"], env=env, cwd=WORK, stdout=subprocess.PIPE,
                            stderr=log, **as_tablectl)
    proc: subprocess.Popen[bytes] | None = None
    got: list[str] = []
    try:
        assert shoe.stdout is not None
        if not shoe.stdout.readline():  # its ready line, once it serves
            return _fail(f"the virtual shoe did not start (log: {args.log})", got, shoe)
        started = time.monotonic()
        proc = subprocess.Popen([args.python, args.memory_helper, "--out", memory, "--", "run", "--config",
                                 args.config], env={**env, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"},
                                cwd="/var/lib/tablectl", stdout=log, stderr=subprocess.STDOUT,
                                **as_tablectl)
        ready_s = _wait(sock, got, proc, started + args.timeout, lambda: any(m.startswith("READY=1") for m in got))
        if ready_s is None:
            return _fail(f"no READY=1 within {args.timeout:.0f} s (service log: {args.log})", got, proc)
        ready_s -= started
        ready_at = next(i for i, m in enumerate(got) if m.startswith("READY=1"))
        if _wait(sock, got, proc, time.monotonic() + 30, lambda: got[ready_at:].count("WATCHDOG=1") >= 2) is None:
            return _fail("READY=1 but fewer than 2 WATCHDOG=1 in 30 s (pings every 2 s expected)", got, proc)
        at_ready = _samples(memory)[-1:]

        # The shift: the virtual dealer plays through the API and the shoe's control channel. The watchdog's
        # pings are read meanwhile (the service would block on a full notify socket, as under systemd never).
        api = f"http://127.0.0.1:{_api_port(args.config)}"
        play_at = time.monotonic()
        pings_before = got.count("WATCHDOG=1")
        dealer = subprocess.Popen([args.exe, "virtual-dealer", "--api", api, "--key", args.dealer_key,
                                   "--shoe-control", f"{WORK}/shoe.control", "--rounds", str(args.rounds),
                                   "--pace", "fast"], env=env, cwd=WORK, stdout=subprocess.PIPE, stderr=log,
                                  **as_tablectl)
        if _wait(sock, got, proc, play_at + args.play_timeout, lambda: dealer.poll() is not None) is None:
            dealer.kill()
            dealer.wait()
            return _fail(f"{args.rounds} rounds not played in {args.play_timeout:.0f} s, or the service exited "
                         f"(service log: {args.log})", got, proc)
        play_s = time.monotonic() - play_at
        out = dealer.stdout.read().decode() if dealer.stdout is not None else ""
        if dealer.returncode != 0:
            return _fail(f"the virtual dealer exited with status {dealer.returncode} (log: {args.log})", got, proc)
        rounds = json.loads(out.strip().splitlines()[-1])["rounds"]
        pings_playing = got.count("WATCHDOG=1") - pings_before
        samples = _samples(memory)

        stop_at = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        if _wait(sock, got, proc, stop_at + 60, lambda: any(m.startswith("STOPPING=1") for m in got)) is None:
            return _fail("SIGTERM sent, but no STOPPING=1 within 60 s", got, proc)
        status = proc.wait(timeout=60)
        stop_s = time.monotonic() - stop_at
    except subprocess.TimeoutExpired:
        return _fail("SIGTERM sent, STOPPING=1 came, but the service did not exit within 60 s", got, proc)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        shoe.terminate()
        shoe.wait()
        sock.close()
        os.unlink(path)
        log.close()
    if status != 0:
        return _fail(f"the service exited with status {status} after SIGTERM (service log: {args.log})", got, proc)
    playing = [s for s in samples if "own_kib" in s]
    if not at_ready or not playing:
        return _fail(f"the service wrote no memory samples to {memory}", got, proc)
    print(f"ready_s={ready_s:.1f}")
    print(f"watchdog_pings={got.count('WATCHDOG=1')}")
    print(f"watchdog_pings_playing={pings_playing}")
    print(f"rounds={rounds}")
    print(f"play_s={play_s:.0f}")
    print(f"samples={len(playing)}")
    print(f"rss_ready_kib={at_ready[0]['own_kib']}")
    print(f"rss_max_kib={max(s['own_kib'] for s in playing)}")
    print(f"rss_last_kib={playing[-1]['own_kib']}")
    print(f"qemu_rss_ready_kib={at_ready[0]['process_kib']}")
    print(f"qemu_rss_max_kib={max(s['process_kib'] for s in playing)}")
    print(f"stop_s={stop_s:.1f}")
    print("exit_status=0")
    return 0


def _api_port(config: str) -> int:
    """The [api] port of the proof's config (tomllib: the root's Python is 3.11 or newer)."""
    import tomllib

    with open(config, "rb") as f:
        return int(tomllib.load(f)["api"]["port"])


def _samples(path: str) -> list[dict[str, float]]:
    """The memory samples written so far (see _prove_arm64_memory.py)."""
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except OSError:
        return []


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


def _fail(message: str, got: list[str], proc: subprocess.Popen[bytes] | None) -> int:
    status = proc.poll() if proc is not None else None
    print(f"prove-arm64 service: {message}; notify messages: {[m for m in got if m][:12]}"
          + ("" if status is None else f"; it exited with status {status}"), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
