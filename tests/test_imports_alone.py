"""Every engine module imports on its own, first: no import cycle waits for the order a caller happens to use.

The games import the table's shared modules, and `controller.rules` reads the game registry for each
game's options model; a shared module that imported `controller.rules` back would work only when
something else had loaded the rules first. Each module is imported into a clean `sys.modules`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from tests.support.deadlines import scaled

ROOT = Path(__file__).resolve().parent.parent

_SCRIPT = """
import importlib, sys
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m.split(".")[0] in ("controller", "games")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed.append(f"{name}: {type(exc).__name__}: {exc}")
print("\\n".join(failed))
"""


def test_each_engine_module_imports_first() -> None:
    names = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                   for package in ("controller", "games") for p in (ROOT / package).rglob("*.py"))
    assert "games.blackjack.rules" in names and "controller.rules" in names
    done = subprocess.run([sys.executable, "-c", _SCRIPT, *names], cwd=ROOT, capture_output=True, text=True,
                          timeout=scaled(120))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
