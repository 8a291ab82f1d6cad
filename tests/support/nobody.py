"""An interpreter the unprivileged user ``nobody`` can run, with this project's runtime dependencies.

For the tests that run a tool as another user than root (tests/journal/test_read_only_media.py). The
suite's own interpreter may sit where ``nobody`` cannot reach it (a pyenv under /root, a checkout under
/root), so these tests skipped on such a machine. They never skip now: a virtual environment is made from
Debian's own /usr/bin/python3 (package python3-venv, scripts/system-packages.txt) with the pinned runtime
dependencies (deploy/requirements.lock, from test-output/wheelhouse that scripts/test downloads, else from
the configured index), once, in a folder every user can read: test-output/nobody when the checkout is open
to others, else /var/tmp/tablectl-tests. It is reused while the lock file and the interpreter stay the
same. The project's own packages are copied beside it for each session (`sources`), as they change with
every edit.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import importlib.metadata
import shutil
import subprocess
import uuid
from pathlib import Path

from tests.support.deadlines import scaled

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "deploy" / "requirements.lock"
WHEELHOUSE = ROOT / "test-output" / "wheelhouse"
SYSTEM_PYTHON = "/usr/bin/python3"
PACKAGES = ("controller", "firmware_bridge", "display", "simulators", "games", "tablectl")
NOBODY = 65534


def _open_to_others(path: Path) -> bool:
    """Whether any user may reach ``path``: every folder on the way is searchable by others."""
    for folder in [path, *path.parents]:
        if folder.exists() and not folder.stat().st_mode & 0o001:
            return False
    return True


def home() -> Path:
    """Where the environment and the sources' copies live: a folder every user can read."""
    place = ROOT / "test-output" / "nobody" if _open_to_others(ROOT) else Path("/var/tmp/tablectl-tests")
    place.mkdir(parents=True, exist_ok=True)
    place.chmod(0o755)
    return place


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=scaled(600), stdin=subprocess.DEVNULL)


def python() -> Path:
    """Debian's interpreter in a virtual environment with the runtime dependencies, made if need be."""
    assert os.access(SYSTEM_PYTHON, os.X_OK), f"{SYSTEM_PYTHON} is missing: Debian's python3 (scripts/test installs it)"
    version = _run([SYSTEM_PYTHON, "-c", "import sys, platform; print(sys.version, platform.machine())"]).stdout
    key = hashlib.sha256(LOCK.read_bytes() + version.encode()).hexdigest()[:16]
    base = home()
    venv = base / f"venv-{key}"
    if (venv / ".ready").exists():
        return venv / "bin" / "python"
    with open(base / ".lock", "w") as lock:  # one builder at a time (xdist workers, or two runs at once)
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".ready").exists():
            _build(venv)
    return venv / "bin" / "python"


def _build(venv: Path) -> None:
    building = venv.with_name(f"{venv.name}.building-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    made = _run([SYSTEM_PYTHON, "-m", "venv", str(building)])
    assert made.returncode == 0, f"python3 -m venv failed (Debian's python3-venv?): {made.stderr}"
    pip = [str(building / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
           "--no-deps", "-r", str(LOCK)]
    done = _run([*pip, "--no-index", "--find-links", str(WHEELHOUSE)]) if WHEELHOUSE.is_dir() else None
    if done is None or done.returncode != 0:  # no wheelhouse, or its wheels are for another interpreter
        done = _run(pip)
    assert done.returncode == 0, f"the runtime dependencies did not install for {SYSTEM_PYTHON}: {done.stderr[-2000:]}"
    subprocess.run(["chmod", "-R", "a+rX", str(building)], check=True)
    shutil.rmtree(venv, ignore_errors=True)
    building.rename(venv)  # (a venv's own paths are found from where its python is: it may be renamed)
    (venv / ".ready").write_text("")


def sources() -> Path:
    """A copy of the project's packages that every user can read, for PYTHONPATH; the caller removes it."""
    copy = home() / f"src-{uuid.uuid4().hex[:12]}"
    copy.mkdir(mode=0o755)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    # The games are found through the install's entry points (controller.registry): a bare copy on PYTHONPATH
    # carries the project's metadata as an install does, entry_points.txt with it.
    dist = importlib.metadata.distribution("tablectl")
    info = copy / "tablectl-0.dist-info"
    info.mkdir()
    for name in ("METADATA", "entry_points.txt"):
        (info / name).write_text(dist.read_text(name) or "")
    subprocess.run(["chmod", "-R", "a+rX", str(copy)], check=True)
    return copy


def as_nobody(interpreter: Path, source: Path) -> list[str]:
    """The command prefix that runs this project's CLI as ``nobody`` with ``interpreter`` on ``source``."""
    assert shutil.which("setpriv"), "setpriv is missing (util-linux, on every Debian)"
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
            "env", f"PYTHONPATH={source}", "HOME=/nonexistent", "PYTHONDONTWRITEBYTECODE=1",
            str(interpreter), "-m", "tablectl.cli"]
