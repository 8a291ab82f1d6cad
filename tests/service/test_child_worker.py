"""The service's helper process (tablectl.child_worker) and the lifeline every child keeps to its parent
(simulators.lifeline), part by part (issue 36, item 2). The whole trees, killed, are in test_no_orphans.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from simulators.lifeline import PARENT_ENV, child_env
from tablectl.child_worker import ChildWorker
from tests.support.deadlines import scaled, wait_until

ECHO = "tests.support.echo_worker:main"


class Answers:
    """What a ChildWorker hands on, as it arrives from its owner thread."""

    def __init__(self) -> None:
        self.got: list[tuple[str, Any, Any]] = []
        self.lock = threading.Lock()

    def answer(self, about: Any, value: Any) -> None:
        with self.lock:
            self.got.append(("answer", about, value))

    def failure(self, about: Any, message: str) -> None:
        with self.lock:
            self.got.append(("failure", about, message))

    def last(self) -> tuple[str, Any, Any] | None:
        with self.lock:
            return self.got[-1] if self.got else None


def _gone(pid: int) -> bool:
    """The process has ended and been reaped (not even a zombie is left)."""
    return not os.path.exists(f"/proc/{pid}")


def test_the_worker_answers_and_is_reaped_when_closed() -> None:
    answers = Answers()
    worker: ChildWorker[str] = ChildWorker(ECHO, "echo", answers.answer, answers.failure)
    worker.ask({"cards": [1, 2, 3]}, "first")
    wait_until(answers.last, 60, "the first answer")
    assert answers.got == [("answer", "first", {"cards": [1, 2, 3]})]
    worker.ask("fail", "second")  # a request it cannot answer: said, and the child carries on
    wait_until(lambda: len(answers.got) == 2, 60, "the second answer")
    assert answers.got[1] == ("failure", "second", "ValueError: asked to fail")
    pid = worker.pid
    assert pid is not None
    worker.close()
    assert _gone(pid) and worker.pid is None


def test_a_close_with_a_job_in_flight_drops_it_and_reaps_the_child() -> None:
    answers = Answers()
    worker: ChildWorker[str] = ChildWorker(ECHO, "echo", answers.answer, answers.failure)
    worker.ask(("sleep", 3600.0), "long")
    pid = wait_until(lambda: worker.pid, 60, "the child")
    worker.close()
    assert _gone(pid) and answers.got == []  # no answer, and no failure reported for a stop


def test_a_worker_that_dies_is_said_and_started_again_on_the_next_request() -> None:
    answers = Answers()
    worker: ChildWorker[str] = ChildWorker(ECHO, "echo", answers.answer, answers.failure)
    try:
        worker.ask(1, "one")
        wait_until(answers.last, 60, "the first answer")
        first = worker.pid
        assert first is not None
        worker.ask(("sleep", 3600.0), "stuck")
        # Killed once its owner has taken the request to the child (the job in flight): a child killed while idle
        # is found dead at the next request and another started for it, which is not this case.
        wait_until(lambda: worker._pending is None, 60, "the request taken to the child")
        os.kill(first, signal.SIGKILL)  # as the OOM killer does
        wait_until(lambda: len(answers.got) == 2, 60, "the death reported")
        assert answers.got[1][:2] == ("failure", "stuck") and "ended" in answers.got[1][2]
        worker.ask(3, "three")
        wait_until(lambda: len(answers.got) == 3, 60, "an answer from a new child")
        assert answers.got[2] == ("answer", "three", 3) and worker.started == 2
        assert worker.pid not in (None, first) and _gone(first)
    finally:
        worker.close()


def test_only_the_newest_request_waits_for_a_busy_worker(tmp_path: Path) -> None:
    answers = Answers()
    worker: ChildWorker[int] = ChildWorker(ECHO, "echo", answers.answer, answers.failure)
    gate = tmp_path / "gate"
    try:
        worker.ask(("gate", str(gate)), 0)
        wait_until(lambda: worker.pid, 60, "the child")  # (started with request 0 taken: it is sent)
        for n in range(1, 6):  # asked while it is busy: each replaces the one before
            worker.ask(n, n)
        gate.touch()
        wait_until(lambda: answers.last() == ("answer", 5, 5), 60, "the newest answer")
        assert [about for _, about, _ in answers.got] == [0, 5]
    finally:
        worker.close()


PROBE = "from simulators.lifeline import end_with_parent; print(end_with_parent()); import os; print(os.environ.get({name!r}))"


def test_a_child_whose_parent_is_already_gone_ends_at_once() -> None:
    """The race the parent-death signal leaves open: the parent died before the child asked for the signal.
    The child is told a parent that is not its own (as it would find after being adopted): it must end."""
    env = {**os.environ, PARENT_ENV: "1"}  # init, never this test's process
    out = subprocess.run([sys.executable, "-c", PROBE.format(name=PARENT_ENV)], env=env, capture_output=True,
                         text=True, timeout=scaled(60))
    assert out.returncode == 128 + signal.SIGTERM and out.stdout == "", out


def test_a_child_of_a_living_parent_runs_on_and_hands_its_children_no_parent() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE.format(name=PARENT_ENV)], env=child_env(), capture_output=True,
                         text=True, timeout=scaled(60))
    assert out.returncode == 0 and out.stdout.split() == ["True", "None"], out


def test_a_child_ends_when_its_parent_is_killed() -> None:
    """The parent-death signal itself: a parent that SIGKILLs itself, and its child (which waits on nothing
    of the parent's, so no pipe could tell it) must end."""
    parent = ("import subprocess, sys, os, signal\n"
              "from simulators.lifeline import child_env\n"
              "child = subprocess.Popen([sys.executable, '-c', 'import sys, time; from simulators.lifeline import "
              "end_with_parent; end_with_parent(); print(flush=True); time.sleep(3600)'], env=child_env(), "
              "stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)\n"
              "child.stdout.readline()\n"
              "print(child.pid, flush=True)\n"
              "os.kill(os.getpid(), signal.SIGKILL)\n")
    out = subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True, timeout=scaled(60))
    assert out.returncode == -signal.SIGKILL
    child = int(out.stdout)
    try:
        wait_until(lambda: _gone(child) or _state(child) == "Z", 30, f"the orphaned child {child} to end")
    finally:
        if _state(child) not in ("gone", "Z"):
            os.kill(child, signal.SIGKILL)


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"
