"""The optional compiled engine (mypyc) gives exactly the pure-Python engine's results.

The build (scripts/build_compiled.py, about a minute) goes to a temporary directory; the
scenario and snapshot tests then run again against it, and a simulation prints the same
figures both ways. Skipped where mypyc or a C compiler is missing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("mypyc") is None or shutil.which("cc") is None,
                       reason="mypyc or a C compiler is not installed"),
]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import build_compiled
    finally:
        sys.path.pop(0)
    return build_compiled.build(tmp_path_factory.mktemp("compiled"))


def _python(code: str, path: Path | None) -> str:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    out = subprocess.run([sys.executable, "-c", code], cwd=path or ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


SIMULATE = """
import json, controller.engine, simulators.simulate as s
from controller.rules import build_rules, profiles
out = {"compiled": controller.engine.__file__.endswith(".so") and s.__file__.endswith(".so")}
for name in profiles("blackjack"):
    out[name] = s.simulate(build_rules(name), 4000, 7, boxes=2, chunk_rounds=1500).as_dict()
    del out[name]["rounds_per_second"]
print(json.dumps(out))
"""


def test_compiled_simulation_gives_the_same_figures(compiled: Path) -> None:
    fast = json.loads(_python(SIMULATE, compiled))
    pure = json.loads(_python(SIMULATE, None))
    assert fast.pop("compiled") is True and pure.pop("compiled") is False
    assert fast == pure


def test_scenarios_and_snapshots_pass_on_the_compiled_engine(compiled: Path, tmp_path: Path) -> None:
    which = tmp_path / "test_which_engine.py"
    which.write_text("def test_the_compiled_engine_is_the_one_tested():\n"
                     "    import controller.engine, controller.legality\n"
                     "    assert controller.engine.__file__.endswith('.so'), controller.engine.__file__\n"
                     "    assert controller.legality.__file__.endswith('.so')\n")
    tests = ["tests/engine/test_rules_scenarios.py", "tests/engine/test_snapshot.py", "tests/engine/test_view.py",
             "tests/engine/test_club21_scenarios.py", "tests/engine/test_club36_scenarios.py"]
    # --import-mode=append: the default (prepend) puts the repository first on sys.path when it loads
    # tests/conftest.py, ahead of the compiled copy, and the pure engine would be the one tested.
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=append",
         "-o", f"pythonpath={compiled} {ROOT}",
         str(which), *[str(ROOT / t) for t in tests], "-k", "not every_kind"],
        cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout
