"""The processes a test started, found by a mark in their environment (issue 36, item 2).

A process's children inherit its environment, and a child orphaned by its parent's death keeps it
while it is adopted by init: a mark set for a process (or for the whole test run) finds every process
of its tree afterwards, by reading ``/proc/PID/environ``, however the tree was broken. (The test run's
processes run as this user or as root, so their environments are readable.)
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass

from tests.support.deadlines import scaled


@dataclass(frozen=True)
class Proc:
    """One live process: its pid, its parent's, its state letter and its command line."""

    pid: int
    ppid: int
    state: str
    command: str

    def __str__(self) -> str:
        return f"pid {self.pid} (parent {self.ppid}, {self.state}): {self.command[:200]}"


def new_mark() -> str:
    """A value no other process on the machine carries."""
    return uuid.uuid4().hex


def _environ(pid: str) -> list[bytes]:
    with open(f"/proc/{pid}/environ", "rb") as f:
        return f.read().split(b"\0")


def marked(name: str, value: str, *, exclude: set[int] | frozenset[int] = frozenset()) -> list[Proc]:
    """Every live process whose environment has ``name=value`` (zombies, already ended, are not)."""
    want = f"{name}={value}".encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) in exclude:
            continue
        try:
            if want not in _environ(pid):
                continue
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:  # ended meanwhile, or not ours to read
            continue
        if stat[0] in ("Z", "X"):
            continue
        found.append(Proc(int(pid), int(stat[1]), stat[0], command))
    return sorted(found, key=lambda p: p.pid)


def survivors(name: str, value: str, seconds: float, *, exclude: set[int] | frozenset[int] = frozenset()) -> list[Proc]:
    """The processes marked ``name=value`` still alive once they have had ``scaled(seconds)`` to end (a
    process that is ending is given that grace; the wait stops as soon as none is left)."""
    end = time.monotonic() + scaled(seconds)
    while True:
        left = marked(name, value, exclude=exclude)
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.05)


def env_of(pid: int, name: str) -> str | None:
    """The value of ``name`` in the process's environment (as it was started), None when it has none."""
    try:
        entries = _environ(str(pid))
    except OSError:
        return None
    prefix = name.encode() + b"="
    for entry in entries:
        if entry.startswith(prefix):
            return entry[len(prefix):].decode(errors="replace")
    return None


def kill_all(procs: list[Proc], name: str, value: str) -> None:
    """SIGKILL each of ``procs`` that still carries the mark (a pid reused meanwhile is left alone)."""
    still = {p.pid for p in marked(name, value)}
    for proc in procs:
        if proc.pid in still:
            try:
                os.kill(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
