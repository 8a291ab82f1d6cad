"""The compiled engine (mypyc) gives exactly the pure-Python engine's results, and `tablectl simulate` runs it.

The build is the installed one (scripts/_venv.sh makes it in the venv) when it is current for these
sources, so `./scripts/test` builds once; otherwise (an edit since, or another checkout's venv) the
cache's build of these sources, or one built here into a temporary directory, about a minute, with
its time printed (`-s`). The
scenario, snapshot and protection tests then run again against it, and simulations of every
profile print the same figures both ways, through the library and through the command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl import compiled_engine
from tests.support.deadlines import scaled

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A current build: the installed one, else the cache's build of these sources, else one built now."""
    found = compiled_engine.status()
    if found.current:
        print(f"\nthe installed compiled build: {found.path}")
        return found.path
    target = tmp_path_factory.mktemp("compiled") / "build"
    line = compiled_engine.ensure(target, by="tests/engine/test_compiled.py")
    assert compiled_engine.status(target).current, line  # (a build that failed, or no compiler: the line says)
    print(f"\n{line} (the installed one: {found.why})")
    return target


def _python(code: str, path: Path | None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("TABLECTL_COMPILED", "TABLECTL_ENGINE")}
    env["PYTHONPATH"] = os.pathsep.join([str(path), str(ROOT)] if path is not None else [str(ROOT)])
    out = subprocess.run([sys.executable, "-c", code], cwd=path or ROOT, env=env, capture_output=True,
                         text=True, timeout=scaled(600))
    assert out.returncode == 0, out.stderr
    return out.stdout


SIMULATE = """
import json, controller.engine, controller.protection.slug, games.blackjack.simulate as s, simulators.strategy
from controller.rules import build_rules, profiles
from games.club.simulate import simulate_club
modules = (controller.engine, controller.protection.slug, s, simulators.strategy)
out = {"compiled": [m.__file__.endswith(".so") for m in modules]}
for name in profiles("blackjack"):
    out[name] = s.simulate(build_rules(name), 4000, 7, boxes=2, chunk_rounds=1500).as_dict()
for name in ("club-21", "club-21-36"):
    out[name] = simulate_club(build_rules(name), 3000, 7, boxes=2, chunk_rounds=1000).as_dict()
for name in out:
    if name != "compiled":
        del out[name]["rounds_per_second"]
print(json.dumps(out))
"""


def test_compiled_simulation_gives_the_same_figures(compiled: Path) -> None:
    fast = json.loads(_python(SIMULATE, compiled))
    pure = json.loads(_python(SIMULATE, None))
    assert fast.pop("compiled") == [True] * 4 and pure.pop("compiled") == [False] * 4
    assert fast == pure and len(fast) == 6


def _simulate(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("TABLECTL_COMPILED", "TABLECTL_ENGINE")}
    return subprocess.run([sys.executable, "-m", "tablectl.cli", "simulate", *args], cwd=ROOT,
                          env={**clean, **env}, capture_output=True, text=True, timeout=scaled(300))


def test_simulate_runs_the_current_build_and_says_so(compiled: Path) -> None:
    """`tablectl simulate` picks the build itself (no PYTHONPATH; its forked workers inherit it), names the
    engine and prints the pure engine's figures; with TABLECTL_ENGINE=pure it runs the pure engine and says why."""
    args = ("--rules", "ru-surrender", "--rounds", "51000", "--seed", "11", "--json")  # two chunks of rounds
    runs = {}
    for name, env, workers in (("compiled", {"TABLECTL_COMPILED": str(compiled)}, "2"),
                               ("pure", {"TABLECTL_ENGINE": "pure"}, "1")):
        out = _simulate(env, *args, "--workers", workers)
        assert out.returncode == 0, out.stderr
        runs[name] = json.loads(out.stdout)
        assert runs[name].pop("engine") == name and runs[name].pop("workers") == int(workers)
        del runs[name]["rounds_per_second"]
    assert runs["pure"].pop("engine_note") == "TABLECTL_ENGINE=pure"
    assert runs["compiled"] == runs["pure"]
    text = _simulate({"TABLECTL_COMPILED": str(compiled)}, "--rules", "club-21", "--rounds", "2000", "--workers", "1")
    assert text.returncode == 0 and "; engine: compiled (mypyc)." in text.stdout, text.stdout + text.stderr


def test_scenarios_snapshots_and_protection_pass_on_the_compiled_engine(compiled: Path, tmp_path: Path) -> None:
    which = tmp_path / "test_which_engine.py"
    which.write_text("def test_the_compiled_engine_is_the_one_tested():\n"
                     "    import controller.engine, controller.legality, controller.protection.live\n"
                     "    for m in (controller.engine, controller.legality, controller.protection.live):\n"
                     "        assert m.__file__.endswith('.so'), m.__file__\n")
    tests = ["tests/engine/test_rules_scenarios.py", "tests/engine/test_snapshot.py", "tests/engine/test_view.py",
             "tests/engine/test_club21_scenarios.py", "tests/engine/test_club36_scenarios.py",
             "tests/protection/test_live.py", "tests/protection/test_slug.py", "tests/protection/test_quality.py"]
    # --import-mode=append: the default (prepend) puts the repository first on sys.path when it loads
    # tests/conftest.py, ahead of the compiled copy, and the pure engine would be the one tested.
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--import-mode=append",
         "-o", f"pythonpath={compiled} {ROOT}",
         str(which), *[str(ROOT / t) for t in tests], "-k", "not every_kind"],
        cwd=ROOT, capture_output=True, text=True, timeout=scaled(900))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout
