"""One helper process that answers a service's requests off its path, and never outlives it (issue 36).

The table service hands work it must not wait for (the exact edge of the next round, tablectl.edge) to a
child process. This is that child's owner: one plain process (no multiprocessing pool, so no resource
tracker beside it) fed requests on its stdin and answering on its stdout, with only the newest request
kept waiting (an older one is out of date by the time the child is free), restarted on the next request
if it died, and reaped whenever it ends.

No child outlives the service, whatever ends the service:
- stopped in order: `close` terminates the child (a job in flight is dropped) and reaps it;
- killed (SIGKILL, the OOM killer, a watchdog, a power cut of the process): the child asked the kernel for
  SIGTERM when its parent dies (`simulators.lifeline`, first thing in the child, checked against the race
  with the parent's own death), and the thread that starts it is this owner's, which lives until the child
  is reaped; and on its next read the child also finds its request pipe closed, and ends (portably).
The child runs in its own process group, so a Ctrl-C at the terminal (sent to the whole foreground group)
reaches only the service, which stops it in order rather than leaving a traceback from it on the screen.

Requests and answers are JSON lines, read as data both ways: nothing the child receives is code (the project
keeps its processes' exchanges, like its journals and snapshots, explicit data).
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
from typing import IO, Any, Callable, Generic, TypeVar

log = logging.getLogger(__name__)
A = TypeVar("A")

STOP_SECONDS = 5.0  # a terminated child is gone in milliseconds; this only bounds a stop that goes wrong
GIVE_UP_AFTER = 3  # children in a row that died before answering: the work is off until the next start

# The child's first line: the parent's import path exactly (as multiprocessing's spawn passes it), so the
# child imports the very modules the service runs, whatever the directory it was started from.
_BOOT = "import json, sys; sys.path[:] = json.loads(sys.argv[1]); import {module} as m; sys.exit(m.{function}())"


class ChildWorker(Generic[A]):
    """The parent's side: `ask` (never blocks on the child), `close`; answers reach `on_answer` from its thread.

    ``target`` is ``"module:function"``: the function the child runs (it calls `serve`). ``on_answer(about,
    value)`` and ``on_failure(about, message)`` are called from the owner's thread with the ``about`` the
    request was asked with.
    """

    def __init__(self, target: str, name: str, on_answer: Callable[[A, Any], None],
                 on_failure: Callable[[A, str], None]) -> None:
        module, function = target.split(":")
        self._command = [sys.executable, "-c", _BOOT.format(module=module, function=function), json.dumps(sys.path)]
        self.name = name
        self._on_answer, self._on_failure = on_answer, on_failure
        self._cond = threading.Condition()
        self._pending: tuple[object, A] | None = None
        self._closed = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None
        self._deaths = 0  # children in a row that ended without answering
        self.started = 0  # children started so far (one, unless one died)

    @property
    def pid(self) -> int | None:
        """The child's pid while it runs (for a technician's `ps`, and the tests)."""
        proc = self._proc
        return proc.pid if proc is not None and proc.returncode is None else None

    def ask(self, request: object, about: A) -> None:
        """Have the child answer ``request``: in place of any request not yet sent to it. Starts the child
        (with the owner's thread) on the first request."""
        with self._cond:
            if self._closed:
                return
            self._pending = (request, about)
            if self._thread is None:
                self._thread = threading.Thread(target=self._own, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify()

    def close(self) -> None:
        """Stop the child (a job in flight is dropped) and reap it before returning."""
        with self._cond:
            self._closed = True
            self._pending = None
            proc, thread = self._proc, self._thread
            self._cond.notify()
        if proc is not None and proc.returncode is None:
            try:
                proc.terminate()
            except ProcessLookupError:  # (already ended: reaped below)
                pass
        if thread is not None:
            thread.join(STOP_SECONDS * 2)
        if proc is not None:
            _reap(proc)  # (the owner's thread has done it, unless it was stuck)

    def _own(self) -> None:
        """The owner's thread: starts the child (so the parent-death signal is tied to a thread that outlives
        it), sends each newest request, hands each answer on, and reaps the child when it ends."""
        proc: subprocess.Popen[bytes] | None = None
        try:
            while True:
                with self._cond:
                    while self._pending is None and not self._closed:
                        self._cond.wait()
                    if self._closed:
                        return
                    assert self._pending is not None
                    request, about = self._pending
                    self._pending = None
                    if proc is None or proc.poll() is not None:
                        if self._deaths >= GIVE_UP_AFTER:
                            return
                        proc = self._proc = self._start()
                answer = _exchange(proc, request)
                if answer is None:  # the child ended
                    if self._closed:
                        return
                    _reap(proc)
                    self._deaths += 1
                    message = f"the worker process ended (status {proc.returncode})"
                    if self._deaths >= GIVE_UP_AFTER:
                        message += f"; {GIVE_UP_AFTER} in a row, so {self.name} is off until the service restarts"
                    self._on_failure(about, message)
                    continue
                self._deaths = 0
                if "error" in answer:
                    self._on_failure(about, str(answer["error"]))
                else:
                    self._on_answer(about, answer.get("value"))
        except Exception:  # a bug here must not end the service: said, and the child reaped below
            log.exception("%s: its owner thread failed", self.name)
        finally:
            if proc is not None:
                _reap(proc)

    def _start(self) -> subprocess.Popen[bytes]:
        from simulators.lifeline import child_env

        self.started += 1
        return subprocess.Popen(self._command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None,
                                env=child_env(), process_group=0, close_fds=True)


def _exchange(proc: subprocess.Popen[bytes], request: object) -> dict[str, Any] | None:
    """Send one request and read its answer; None when the child has ended (or answers nonsense)."""
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
    except (OSError, ValueError):  # BrokenPipeError: it ended; ValueError: its pipe was closed by `close`
        return None
    try:
        answer = json.loads(line) if line else None
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """End the child if it still runs, wait for it (no zombie left) and close its pipes."""
    if proc.poll() is None:
        for pipe in (proc.stdin,):
            try:
                if pipe is not None:
                    pipe.close()  # its end of the requests: it leaves on its own
            except OSError:
                pass
        try:
            proc.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        try:
            if pipe is not None:
                pipe.close()
        except OSError:
            pass


def serve(compute: Callable[[Any], Any]) -> int:
    """The child's side: end with the parent, then answer each request on stdin with ``compute``'s value
    (or the error) as one JSON line on stdout, until stdin ends (the parent closed it, or died)."""
    from simulators.lifeline import end_with_parent

    end_with_parent()
    # Lowest priority but one: the service's writer (and a card's latency) comes first on a Pi's few cores.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(10)
    except OSError:  # not allowed here: the work is still done, at the same priority
        pass
    requests: IO[bytes] = sys.stdin.buffer
    answers: IO[bytes] = sys.stdout.buffer
    while True:
        line = requests.readline()
        if not line:  # the parent closed its end, or is gone
            return 0
        answer: dict[str, Any]
        try:
            request = json.loads(line)
        except ValueError as exc:  # (never from the service: said, and the child carries on)
            answer = {"error": f"not a JSON request: {exc}"}
        else:
            try:
                answer = {"value": compute(request)}
            except Exception as exc:  # a request it cannot answer: said to the parent, the child carries on
                answer = {"error": f"{type(exc).__name__}: {exc}"}
        try:
            answers.write(json.dumps(answer).encode() + b"\n")
            answers.flush()
        except BrokenPipeError:  # the parent is gone
            return 0
