"""A child process that ends with its parent, whatever ends the parent (issue 36, item 2).

A process that starts a helper (the demo's virtual shoe, the table service's exact-edge worker, a
simulation's workers) names itself in the child's environment (`child_env`); the child, first thing,
calls `end_with_parent`, which asks Linux for a signal when its parent dies (PR_SET_PDEATHSIG) and then
checks that the parent it was started by is still its parent: a parent that died between the fork and
the request (the race the signal alone leaves open) is seen at once, and the child ends.

Why the kernel's signal and not only a watch on a pipe: it reaches a child that is busy or stuck (a
watch is only read between jobs), it needs no thread in the child, and it covers a SIGKILL of the
parent, an OOM kill or a watchdog alike. The signal is tied to the *thread* that started the child
(Linux sends it when that thread ends), so a parent starts such a child from a thread that lives at
least as long as the child: its main thread, or a thread that owns the child until it has reaped it
(tablectl.edge). Where the call is not available (not Linux), the child keeps running as before; the
exact-edge worker also ends on the end of its request pipe, portably.

It lives here, the lowest package that starts a child (the virtual shoe's owner,
`simulators.shoe.process`), so that the table's composition root uses the same one.
"""

from __future__ import annotations

import os
import signal
import sys

PARENT_ENV = "TABLECTL_PARENT_PID"  # in the child's environment: the pid of the parent it ends with
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a child that must end with this process: ``base`` (this process's by default)
    naming this process as its parent."""
    return {**(os.environ if base is None else base), PARENT_ENV: str(os.getpid())}


def parent_death_signal(sig: int) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent (the thread that started it) ends;
    False where that cannot be asked (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # (here: a process that was not asked to end with a parent never loads it)

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def end_with_parent(parent: int | None = None, sig: int = signal.SIGTERM) -> bool:
    """In a child: end (with ``sig``) when the parent that started it dies; True when that is arranged.

    ``parent`` is the pid of that parent; by default it is read from the environment (`child_env`) and
    taken out of it, so that this process's own children are not handed a parent that is not theirs.
    Without one, nothing is done (a command started by a person, or by a supervisor that did not ask).
    SIGTERM by default: the child's own handler (the virtual shoe's) tidies up, as on any stop.
    """
    if parent is None:
        named = os.environ.pop(PARENT_ENV, None)
        if named is None or not named.isdigit():
            return False
        parent = int(named)
    armed = parent_death_signal(sig)
    # Checked after the signal is asked for, never before: a parent that died in between would send
    # nothing, and this child would run on, adopted by init (or by a subreaper).
    if os.getppid() != parent:
        os._exit(128 + sig)  # first thing in the child: nothing made yet that an exit should tidy
    return armed
