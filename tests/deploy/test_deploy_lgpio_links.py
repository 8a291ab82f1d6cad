"""install.sh run again after python3-lgpio was removed: the venv's links to it point at nothing.

The table then has no lgpio (`import lgpio`: no module) and would stop at its first start with exit 7, while
install.sh said nothing and restarted it. A second run of install.sh notices, removes the dangling links and makes
them again to the OS's lgpio, reinstalled from the archive where it has python3-lgpio; where it cannot, it stops
with one clear line (exit 1), before anything switches. The system is faked as in test_deploy_install (apt-get,
apt-cache, systemctl, udevadm on PATH; the OS's lgpio a module folder).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.deploy.test_deploy_install import WHEELHOUSE, make_source, venv_python
from tests.deploy.test_deploy_install import FakeSystem as _FakeSystem

DEADLINE = 900  # seconds: ends a hung install.sh (a venv's build takes minutes on a loaded machine), never a measure


class FakeSystem(_FakeSystem):
    """test_deploy_install's faked system, its install.sh given a deadline that only a hang reaches."""

    def install(self, src: Path, root: Path, *args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "PATH": f"{self.bin}:{os.environ['PATH']}"}
        return subprocess.run(
            ["bash", str(src / "deploy/install.sh"), "--root", str(root), "--python", str(self.python), *args],
            capture_output=True, text=True, timeout=DEADLINE, env=env,
        )


def _remove_python3_lgpio(fake: FakeSystem) -> None:
    for name in ("lgpio.py", "_lgpio.py"):
        (fake.site / name).unlink()


def _links(root: Path) -> list[Path]:
    site = next((root / "opt/tablectl/current/venv/lib").glob("python3*/site-packages"))
    return sorted(p for p in site.iterdir() if p.is_symlink() and "lgpio" in p.name)


@pytest.mark.long
def test_links_dangling_after_python3_lgpio_was_removed_are_made_again(tmp_path: Path) -> None:
    """Raspberry Pi OS: the archive has python3-lgpio, so the second run reinstalls it and links it again."""
    assert WHEELHOUSE.is_dir(), f"{WHEELHOUSE} is missing: run ./scripts/test, which downloads it"
    src = make_source(tmp_path / "src")
    fake = FakeSystem(tmp_path, archive_has_lgpio=True)
    root = tmp_path / "root"
    first = fake.install(src, root, "--wheelhouse", str(WHEELHOUSE), "--no-compile")
    assert first.returncode == 0, first.stdout + first.stderr
    assert len(_links(root)) == 2 and venv_python(root, "import lgpio").returncode == 0

    _remove_python3_lgpio(fake)  # apt-get purge python3-lgpio
    assert "No module named 'lgpio'" in venv_python(root, "import lgpio").stderr  # the table has lost its pins

    again = fake.install(src, root, "--wheelhouse", str(WHEELHOUSE), "--no-compile")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "lgpio: the venv's links to the system's python3-lgpio point at nothing (it was removed)" in again.stdout
    assert fake.calls("apt-get")[-1] == "apt-get install -y -qq --no-install-recommends python3-lgpio"
    assert "lgpio: the system's python3-lgpio, linked into the venv" in again.stdout
    found = venv_python(root, "import lgpio; lgpio.gpiochip_open; print(lgpio.__file__)")
    assert found.returncode == 0 and Path(found.stdout.strip()).resolve() == fake.site / "lgpio.py"
    assert all(link.exists() for link in _links(root))


@pytest.mark.long
def test_links_dangling_where_the_archive_has_no_python3_lgpio_stop_install_sh_with_one_line(tmp_path: Path) -> None:
    """Plain Debian, python3-lgpio once installed by hand and removed since: no way to repair it, so it says so."""
    assert WHEELHOUSE.is_dir(), f"{WHEELHOUSE} is missing: run ./scripts/test, which downloads it"
    src = make_source(tmp_path / "src")
    fake = FakeSystem(tmp_path, archive_has_lgpio=False)
    fake.put_system_lgpio()  # installed by hand before the first run: linked
    root = tmp_path / "root"
    first = fake.install(src, root, "--wheelhouse", str(WHEELHOUSE), "--no-compile")
    assert first.returncode == 0 and len(_links(root)) == 2, first.stdout + first.stderr

    _remove_python3_lgpio(fake)
    again = fake.install(src, root, "--wheelhouse", str(WHEELHOUSE), "--no-compile")
    assert again.returncode == 1, again.stdout + again.stderr
    assert again.stderr.strip().splitlines() == [
        'install.sh: lgpio: python3-lgpio was removed and is not in this system\'s archive: pin_factory = "lgpio" '
        "cannot work (the dangling links are removed). Install python3-lgpio, then run install.sh again"]
    assert _links(root) == []  # no link to nothing is left for Python to trip on
    assert "No module named 'lgpio'" in venv_python(root, "import lgpio").stderr
