"""`tablectl --version`: the release's version and its build stamp, what a technician or surveillance reads to
know which source a table or a floor runs.

An installed build carries tablectl/build_stamp.txt, written when it was built (_build_stamp.py at the root of
the source): the commit, its date, whether the tree had changes, and when it was built; so a release with no .git
beside it still says. Run from a checkout (an editable install, ./scripts/tablectl), the file is its placeholder,
and the checkout's own commit is read from git and said as a checkout.
"""

from __future__ import annotations

import subprocess
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

PLACEHOLDER = "$Format:"  # the file as committed (git archive replaces it; a build writes over it)


def _installed_version() -> str:
    try:
        return version("tablectl")
    except PackageNotFoundError:  # (run from a tree no installer has seen)
        return "unknown version"


def _stamp() -> dict[str, str]:
    try:
        text = resources.files(__package__).joinpath("build_stamp.txt").read_text(encoding="utf-8")
    except OSError:
        return {}
    if text.startswith(PLACEHOLDER):
        return {}
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def _checkout() -> str | None:
    """The commit of the checkout this package runs from, if it runs from one: ``534bf67, 2026-12-07[, modified]``."""
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        return None
    try:
        def git(*args: str) -> str:
            return subprocess.run(["git", "-c", f"safe.directory={root}", "-C", str(root), *args],
                                  capture_output=True, text=True, timeout=10, check=True).stdout.strip()

        commit, date = git("log", "-1", "--format=%h %cs").split()
        modified = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError, ValueError):
        return "commit unknown: git cannot read it"
    return f"{commit}, {date}" + (", modified" if modified else "")


def version_line() -> str:
    """``tablectl 0.1.0 (commit 534bf67c1d2e, 2026-12-07; built 2026-12-07T13:05:00Z)``, or ``(checkout: ...)``."""
    head = f"tablectl {_installed_version()}"
    stamp = _stamp()
    if stamp.get("commit", "unknown") != "unknown":
        modified = ", with changes not committed" if stamp.get("modified") == "yes" else ""
        return f"{head} (commit {stamp['commit']}, {stamp.get('date', 'unknown')}{modified}; built {stamp.get('built', 'unknown')})"
    checkout = _checkout()
    if checkout is not None:
        return f"{head} (checkout: {checkout})"
    if stamp:
        return f"{head} (built {stamp.get('built', 'unknown')} from a source without its commit: no .git, no archive stamp)"
    return f"{head} (no build stamp)"
