"""The type checker and the linter are part of the test command: any finding of either fails it.

Both read their settings from pyproject.toml: mypy checks the five packages (strict for
``controller``, ``firmware_bridge`` and ``display``), ruff lints the whole repository. Two tests,
so that pytest-xdist runs them on different workers. mypy keeps its cache in ``.mypy_cache``
at the root (ignored by git): the first run on a clean clone checks everything, later ones only
what changed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from tests.support.deadlines import scaled

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=scaled(600))


def test_mypy_finds_no_error() -> None:
    r = _run("mypy", "--config-file", "pyproject.toml")
    assert r.returncode == 0, f"mypy failed (exit {r.returncode}):\n{r.stdout}{r.stderr}"


def test_ruff_finds_nothing() -> None:
    r = _run("ruff", "check", ".")
    assert r.returncode == 0, f"ruff failed (exit {r.returncode}):\n{r.stdout}{r.stderr}"
