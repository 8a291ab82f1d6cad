"""A child worker for the tests of `tablectl.child_worker`: answers each request with itself, or fails on
``"fail"``, sleeps on ``("sleep", seconds)`` (a job in flight when the owner stops) and waits on
``("gate", path)`` until that file exists (a worker kept busy until the test lets it go)."""

from __future__ import annotations

import os
import time
from typing import Any

from tablectl.child_worker import serve


def _answer(request: Any) -> Any:
    if request == "fail":
        raise ValueError("asked to fail")
    if isinstance(request, (list, tuple)) and request[0] == "sleep":
        time.sleep(request[1])
    if isinstance(request, (list, tuple)) and request[0] == "gate":
        while not os.path.exists(request[1]):
            time.sleep(0.01)
    return request


def main() -> int:
    """The child's entry (`ChildWorker("tests.support.echo_worker:main", ...)`)."""
    return serve(_answer)
