"""Which engine runs: a compiled build only while its stamp is the sources' (tablectl/compiled_engine.py).

No build here (tests/engine/test_compiled.py has the real one): a build directory is faked with a
stamp and an engine module that fails on import, so running it would show.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl import compiled_engine
from tests.support.deadlines import scaled

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache of builds of the test's own: the machine's may hold a real build of these very sources."""
    monkeypatch.setenv("TABLECTL_COMPILED_CACHE", str(tmp_path / "cache"))


def _fake_build(path: Path, stamp: str) -> Path:
    """A build directory whose engine would fail on import, with this stamp."""
    (path / "controller").mkdir(parents=True)
    (path / "controller" / "__init__.py").write_text("raise ImportError('the stale build was imported')\n")
    (path / compiled_engine.STAMP).write_text(json.dumps({"stamp": stamp, "by": "scripts/_venv.sh"}))
    return path


def _simulate(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("TABLECTL_COMPILED", "TABLECTL_ENGINE")}
    return subprocess.run([sys.executable, "-m", "tablectl.cli", "simulate", "--rounds", "300", "--workers", "1"],
                          cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=scaled(120))


def test_an_out_of_date_build_is_never_run_and_simulate_says_so(tmp_path: Path) -> None:
    stale = _fake_build(tmp_path / "build", "0" * 64)
    out = _simulate({"TABLECTL_COMPILED": str(stale)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip().endswith(
        "; engine: pure Python (compiled build is out of date; scripts/_venv.sh rebuilds it)"), out.stdout


def test_a_build_with_the_sources_stamp_is_the_one_run(tmp_path: Path) -> None:
    """The same fake build, stamped with the sources' own stamp: now it is imported (and fails, as it is fake)."""
    current = _fake_build(tmp_path / "build", compiled_engine.sources_stamp(compiled_engine.package_dirs()))
    out = _simulate({"TABLECTL_COMPILED": str(current)})
    assert out.returncode != 0 and "the stale build was imported" in out.stderr


def test_no_build_simulate_says_so(tmp_path: Path) -> None:
    out = _simulate({"TABLECTL_COMPILED": str(tmp_path / "none")})
    assert out.returncode == 0 and "; engine: pure Python (no compiled build; scripts/_venv.sh or " \
        "deploy/install.sh builds it)" in out.stdout, out.stdout + out.stderr


def test_any_edit_of_the_packages_or_another_python_changes_the_stamp(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    dirs = {}
    for name, source in compiled_engine.package_dirs().items():
        dirs[name] = tmp_path / name
        shutil.copytree(source, dirs[name], ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"))
    stamp = compiled_engine.sources_stamp(dirs)
    assert stamp == compiled_engine.sources_stamp(compiled_engine.package_dirs())  # caches are not sources
    rules = dirs["controller"] / "rules.py"  # not a compiled module: the build holds its copy all the same
    rules.write_text(rules.read_text() + "\n")
    edited = compiled_engine.sources_stamp(dirs)
    assert edited != stamp
    (dirs["simulators"] / "new_module.py").write_text("")
    assert compiled_engine.sources_stamp(dirs) not in (stamp, edited)
    monkeypatch.setattr(compiled_engine, "python_identity", lambda: "3.99.0 .cpython-399-x86_64-linux-gnu.so")
    (dirs["simulators"] / "new_module.py").unlink()
    assert compiled_engine.sources_stamp(dirs) != edited


def test_without_a_compiler_the_install_step_says_why_once_and_removes_a_stale_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = _fake_build(tmp_path / "build", "0" * 64)
    monkeypatch.delenv("TABLECTL_ENGINE", raising=False)
    monkeypatch.setattr(compiled_engine, "missing_tools", lambda: "no C compiler (cc; Debian: apt-get install gcc)")
    line = compiled_engine.ensure(target, by="deploy/install.sh")
    assert line == ("compiled engine: not built: no C compiler (cc; Debian: apt-get install gcc); "
                    "tablectl simulate runs the pure-Python engine")
    assert not (target / "controller").exists()  # the stale build is gone
    assert compiled_engine.ensure(target, by="deploy/install.sh") == ""  # said once for these sources
    found = compiled_engine.status(target)
    assert not found.current
    assert found.why == "compiled engine not built: no C compiler (cc; Debian: apt-get install gcc)"


def test_a_failed_build_is_said_and_not_tried_again_for_the_same_sources(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    tries = []

    def failing(target: Path, by: str, log: Path) -> float:
        tries.append(target)
        log.write_text("error: mypyc: something went wrong\n")
        raise subprocess.CalledProcessError(1, ["mypyc"])

    monkeypatch.delenv("TABLECTL_ENGINE", raising=False)
    monkeypatch.setattr(compiled_engine, "missing_tools", lambda: None)
    monkeypatch.setattr(compiled_engine, "build", failing)
    target = tmp_path / "build"
    line = compiled_engine.ensure(target)
    assert line.startswith("compiled engine: not built: the build failed (error: mypyc: something went wrong; ")
    assert compiled_engine.ensure(target) == "" and len(tries) == 1
    assert compiled_engine.status(target).why.startswith("compiled engine not built: the build failed")


def test_tablectl_engine_pure_builds_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLECTL_ENGINE", "pure")
    assert compiled_engine.ensure(tmp_path / "build") == (
        "compiled engine: not built (TABLECTL_ENGINE=pure); tablectl simulate runs the pure-Python engine")
    assert not (tmp_path / "build").exists()


def test_a_torn_stamp_is_no_build(tmp_path: Path) -> None:
    """A stamp that is not JSON (a write cut short, an edit) counts as no build: simulate runs and says so."""
    torn = _fake_build(tmp_path / "build", "0" * 64)
    (torn / compiled_engine.STAMP).write_text('{"stamp": "ab')
    out = _simulate({"TABLECTL_COMPILED": str(torn)})
    assert out.returncode == 0 and "; engine: pure Python (no compiled build; " in out.stdout, out.stdout + out.stderr


def test_the_caches_build_of_these_sources_is_copied_not_built_again(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    stamp = compiled_engine.sources_stamp(compiled_engine.package_dirs())
    _fake_build(tmp_path / "cache" / stamp, stamp)
    _fake_build(tmp_path / "cache" / ("1" * 64), "1" * 64)  # another state of the sources: not this one's
    monkeypatch.delenv("TABLECTL_ENGINE", raising=False)
    monkeypatch.setattr(compiled_engine, "missing_tools", lambda: "no C compiler (a copy needs none)")
    monkeypatch.setattr(compiled_engine, "build", lambda *a, **k: pytest.fail("built again"))
    target = tmp_path / "venv" / "tablectl-compiled"
    line = compiled_engine.ensure(target, by="deploy/install.sh")
    assert line == (f"compiled engine: the build of these very sources copied from {tmp_path / 'cache' / stamp} "
                    f"into {target}")
    found = compiled_engine.status(target)
    assert found.current and found.by == "deploy/install.sh"
    assert (target / "controller" / "__init__.py").read_text().startswith("raise ImportError")  # that very build
    assert compiled_engine.ensure(target) == ""


def test_a_new_build_goes_to_the_cache_which_keeps_the_latest(tmp_path: Path) -> None:
    for n in range(compiled_engine.CACHE_KEEP + 2):
        build = _fake_build(tmp_path / f"build{n}", str(n) * 64)
        compiled_engine._keep(build, str(n) * 64)
        os.utime(tmp_path / "cache" / (str(n) * 64), (1_000_000 + n, 1_000_000 + n))  # made in this order
    kept = sorted(d.name[0] for d in (tmp_path / "cache").iterdir())
    assert kept == [str(n) for n in range(2, compiled_engine.CACHE_KEEP + 2)]
