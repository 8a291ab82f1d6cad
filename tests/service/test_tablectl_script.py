"""`./scripts/tablectl` is the README's `tablectl` without activating the venv (issue 23): it does
scripts/demo's setup and runs the venv's tablectl with every argument, its stdout the command's own."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from tests.support.deadlines import scaled

ROOT = Path(__file__).resolve().parents[2]


def _ready_venv(tmp_path: Path) -> Path:
    """A venv that scripts/_venv.sh finds installed (its stamp matches pyproject.toml), so the test installs
    nothing: its python is this one and its tablectl runs this checkout's."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / ".tablectl-installed").write_text(hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest() + "\n")
    entry = venv / "bin" / "tablectl"
    entry.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tablectl.cli "$@"\n')
    entry.chmod(0o755)
    return venv


def _script(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # TABLECTL_ENGINE=pure: the setup builds no compiled engine (this fake venv's python is the suite's, whose
    # prefix is not the venv's); what it says goes to stderr with the rest of the setup.
    env = {**os.environ, "TABLECTL_VENV": str(_ready_venv(tmp_path)), "TABLECTL_ENGINE": "pure",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([str(ROOT / "scripts" / "tablectl"), *args], capture_output=True, text=True,
                          timeout=scaled(60), env=env, cwd=tmp_path)


def test_scripts_tablectl_help_lists_the_subcommands(tmp_path):
    out = _script(tmp_path, "--help")
    assert out.returncode == 0, out.stderr
    for command in ("demo", "run", "status", "journal", "replay", "floor"):
        assert command in out.stdout, command
    assert out.stdout.startswith("usage: "), out.stdout  # nothing of the setup before the command's own output


def test_scripts_tablectl_passes_every_argument_and_its_exit_status(tmp_path):
    out = _script(tmp_path, "status", "--db", str(tmp_path / "no such dir" / "j.sqlite"))
    assert out.returncode == 2, out  # status's own refusal, passed on by the wrapper
    assert "no such dir" in out.stderr, out.stderr  # the argument with its spaces reached tablectl whole
