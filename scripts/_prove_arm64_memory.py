"""The table service, run by this file, writing its own memory every 2 s (scripts/prove-arm64's run step).

    python _prove_arm64_memory.py --out FILE -- run --config CFG

Runs ``tablectl`` with the arguments after ``--`` in this very process (the venv's interpreter, the
installed package: what ``tablectl run`` runs), with one thread more, which appends a JSON line to
FILE every 2 s: ``{"own_kib": ..., "process_kib": ...}``.

Under qemu user-mode emulation the kernel's RSS of the service's process (VmRSS) is the emulator's
process: the guest's pages and qemu's own (its translated code, its heap), so more than on a Pi.
``own_kib`` is the guest's own: the RSS the kernel counts in the mappings the guest has, which qemu
lists in the guest's ``/proc/self/maps`` (at guest addresses), summed from the kernel's smaps of this
process (which qemu passes through when it is named by thread: ``/proc/self/task/TID/smaps``; its own
``/proc/self/smaps`` gives 0 for every Rss). Natively the two views are the same file, and ``own_kib``
is VmRSS. ``process_kib`` is VmRSS, the emulator included.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

PERIOD = 2.0


def _ranges(lines: list[str]) -> list[tuple[int, int, int, str]]:
    """(start, end, offset, path) of each mapping line of a maps or smaps file."""
    out = []
    for line in lines:
        head = line.split(maxsplit=5)
        if len(head) < 5 or "-" not in head[0] or head[0].endswith(":"):
            continue
        try:
            start, end = (int(x, 16) for x in head[0].split("-"))
            offset = int(head[2], 16)
        except ValueError:
            continue
        out.append((start, end, offset, head[5].strip() if len(head) > 5 else ""))
    return out


def own_kib() -> tuple[int, int]:
    """(the RSS of the guest's own mappings, VmRSS), in KiB: see the module's docstring."""
    tid = threading.get_native_id()
    with open("/proc/self/maps") as f:  # (under qemu: the guest's mappings, at guest addresses)
        guest = _ranges(f.readlines())
    with open(f"/proc/self/task/{tid}/smaps") as f:  # (the kernel's, for the whole process)
        smaps = f.read().splitlines()
    with open(f"/proc/self/task/{tid}/status") as f:
        process = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    host: list[tuple[int, int, int]] = []  # (start, end, rss_kib)
    rss_of: dict[tuple[int, int, int, str], int] = {}
    current: tuple[int, int, int, str] | None = None
    for line in smaps:
        if line.startswith("Rss:") and current is not None:
            rss_of[current] = int(line.split()[1])
        elif not line[:1].isupper():
            found = _ranges([line])
            current = found[0] if found else None
    for mapping, rss in rss_of.items():
        host.append((mapping[0], mapping[1], rss))
    # qemu may place the guest at an offset in its own address space (guest_base): the interpreter's
    # first mapping, the same file at the same offset in both views, says where.
    executable = os.path.realpath(sys.executable)
    base = 0
    for start, _, offset, path in guest:
        if path == executable and offset == 0:
            base = next((m[0] - start for m in rss_of if m[3] == path and m[2] == 0), 0)
            break
    spans = sorted((start + base, end + base) for start, end, _, _ in guest)
    total = 0.0
    for start, end, rss in host:
        covered = sum(max(0, min(end, e) - max(start, s)) for s, e in spans if s < end and e > start)
        if covered:
            total += rss * covered / (end - start)
    return round(total), process


def _sample(out: str) -> None:
    while True:
        try:
            own, process = own_kib()
            line = json.dumps({"at": time.monotonic(), "own_kib": own, "process_kib": process})
        except (OSError, ValueError, StopIteration) as exc:
            line = json.dumps({"at": time.monotonic(), "error": repr(exc)})
        with open(out, "a") as f:
            f.write(line + "\n")
        time.sleep(PERIOD)


def main() -> int:
    """Start the sampling thread, then run tablectl with the arguments after ``--``."""
    args = sys.argv[1:]
    if len(args) < 3 or args[0] != "--out" or args[2] != "--":
        print("usage: _prove_arm64_memory.py --out FILE -- TABLECTL-ARGS...", file=sys.stderr)
        return 2
    threading.Thread(target=_sample, args=(args[1],), name="prove-arm64-memory", daemon=True).start()
    from tablectl.cli import main as tablectl

    sys.argv = ["tablectl", *args[3:]]
    return tablectl(args[3:])


if __name__ == "__main__":  # (the exact edge's worker imports this file as its __mp_main__: it runs nothing)
    sys.exit(main())
