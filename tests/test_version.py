"""`tablectl --version`: the version and the build stamp (issue 36: it was an error).

A checkout says it is one, with its commit; a build carries the stamp written when it was built (_build_stamp.py:
from TABLECTL_BUILD_STAMP as deploy/install.sh passes it, from git in the tree being built, or from what `git
archive` wrote into tablectl/build_stamp.txt). The installed release, with no .git beside it, is
tests/deploy/test_clean_install.py's. And the checkers are pinned, so a new release cannot turn the suite red.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.support.harness import tablectl_in_process

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # (the build's own module, at the root of the source: not a package)
import _build_stamp  # noqa: E402


def test_a_checkout_says_so_with_its_commit() -> None:
    out = tablectl_in_process("--version")
    assert out.returncode == 0 and out.stderr == "", out
    head = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %cs"], capture_output=True, text=True,
                          check=True).stdout.split()
    assert re.fullmatch(rf"tablectl 0\.1\.0 \(checkout: {head[0]}, {head[1]}(, modified)?\)\n", out.stdout), out.stdout


def test_the_version_is_listed_in_the_help() -> None:
    assert "--version" in tablectl_in_process("--help").stdout


def test_the_build_takes_the_commit_install_sh_passes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TABLECTL_BUILD_STAMP", "commit=0123456789ab date=2026-12-07 modified=yes")
    assert _build_stamp.source_stamp(tmp_path) == {"commit": "0123456789ab", "date": "2026-12-07", "modified": "yes"}


def test_the_build_reads_git_in_a_checkout_and_knows_a_tree_with_neither(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    monkeypatch.delenv("TABLECTL_BUILD_STAMP", raising=False)
    assert _build_stamp.source_stamp(tmp_path)["commit"] == "unknown"  # a copy with no .git and no archive stamp
    found = _build_stamp.source_stamp(REPO)
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert found["commit"] == head and found["modified"] in ("yes", "no")


def test_a_release_archive_carries_its_commit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`git archive` (a release tarball) writes the commit into tablectl/build_stamp.txt (.gitattributes)."""
    monkeypatch.delenv("TABLECTL_BUILD_STAMP", raising=False)
    archive = tmp_path / "release.tar"
    subprocess.run(["git", "-C", str(REPO), "archive", "-o", str(archive), "HEAD", "tablectl/build_stamp.txt"],
                   check=True, timeout=60)
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "src", filter="data")
    head = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %cs"], capture_output=True, text=True,
                          check=True).stdout.split()
    assert _build_stamp.source_stamp(tmp_path / "src") == {"commit": head[0], "date": head[1], "modified": "no"}


def test_the_checkers_are_pinned_in_the_test_extra() -> None:
    """mypy, ruff and the stubs mypy reads: exact versions, so the suite's verdict changes only with this file."""
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    pins = {Requirement(r).name: str(Requirement(r).specifier) for r in extra}
    for checker in ("mypy", "ruff", "types-pyserial", "types-tqdm"):
        assert pins[checker].startswith("=="), (checker, pins[checker])
    # mypyc builds the compiled engine for a release from deploy/compile-requirements.lock: the same mypy.
    lock = (REPO / "deploy/compile-requirements.lock").read_text()
    assert f"mypy{pins['mypy']}\n" in lock
