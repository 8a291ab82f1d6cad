"""Build the optional compiled engine with mypyc: ``python scripts/build_compiled.py [DIR]``.

The typed pure engine (and the simulator's loop) compiled to C extensions, in a directory of
its own (default ``build/compiled``): put it first on the path to use it, e.g.
``PYTHONPATH=build/compiled tablectl simulate ...``. The pure-Python modules stay what the
project runs by default; tests/engine/test_compiled.py checks the two give the same results.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The engine's hot modules and the simulator's loop. Not compiled: the pydantic models
# (rules, events, snapshot), I/O (journal, replay) and the strategy builder.
MODULES = [
    "controller/cards.py", "controller/hand.py", "controller/round.py", "controller/legality.py",
    "controller/shoe.py", "controller/phase.py", "controller/money.py",
    "controller/alerts.py", "controller/effects.py", "controller/engine.py", "controller/errors.py",
    "controller/games/base.py", "controller/games/blackjack/game.py", "controller/games/blackjack/legality.py",
    "controller/games/blackjack/settlement.py", "controller/games/club/game.py",
    "controller/games/club21/game.py", "controller/games/club2136/game.py",
    "simulators/simulate.py",
]


def build(target: Path) -> Path:
    """Copy the packages to ``target`` and compile MODULES there; returns ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    for package in ("controller", "simulators"):
        shutil.rmtree(target / package, ignore_errors=True)
        shutil.copytree(ROOT / package, target / package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    subprocess.run([sys.executable, "-m", "mypyc", *MODULES], cwd=target, check=True,
                   stdout=subprocess.DEVNULL)
    return target


def main() -> int:
    """Build into the directory given (default build/compiled) and say how to use it."""
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "compiled"
    build(target.resolve())
    print(f"compiled engine in {target}; use it with PYTHONPATH={target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
