"""The compiled engine: the engine's hot modules built with mypyc, and which engine `tablectl simulate` runs.

Every command imports the pure-Python packages ``controller``, ``simulators`` and ``games``. A *build*
copies the packages into a directory of its own and compiles `modules` there (MODULES and each game's
own) to C extensions with mypyc (as black and mypy ship themselves); with that directory first on
``sys.path`` the same imports
load the compiled modules, which give exactly the pure modules' results
(tests/engine/test_compiled.py).

A build is used only while it is *current*: its stamp (the hash of every file of the
packages it copied, of this module, which lists the modules compiled and builds them, and of the
Python it was built for) equals the stamp of the sources that would be imported otherwise. After
any edit of ``controller/``, ``simulators/`` or ``games/`` the pure engine runs, and `tablectl simulate`
says why, until the build is made again: never old compiled code in place of the sources.

Where: ``<venv>/tablectl-compiled`` (the venv of the Python running: ``.venv/`` for the README's
commands, a release's venv on the Pi), or the directory ``TABLECTL_COMPILED`` names. Every build is
also kept by its stamp in a cache (`cache_dir`), so the same sources are built once on a machine.
``TABLECTL_ENGINE=pure`` runs the pure engine and builds nothing.

    python -m tablectl.compiled_engine ensure --by scripts/_venv.sh   # build if not current (install steps)
    python -m tablectl.compiled_engine status                        # the engine simulate would run (exit 1: pure)
    python -m tablectl.compiled_engine check-tools [--no-mypyc]      # why a build cannot be made here (exit 1)
    python -m tablectl.compiled_engine build [DIR]                    # build now (default: where it is looked for)

This module imports nothing of the engine: the choice is made before the engine is imported.
"""

from __future__ import annotations

import argparse
import ast
import fcntl
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

PACKAGES = ("controller", "simulators", "games")

# The engine's hot path, the live protection watch it feeds every card, and the simulators' loops with
# the players' basic strategy. Not compiled: the pydantic models (rules, events, snapshot), I/O
# (journal, replay), the strategy model, and the enums of findings (plain data). An interpreted class
# cannot inherit a compiled one, nor a compiled one an interpreted one: a class here and every subclass of
# it are compiled together (simulation's shoe and each game's simulated shoe).
MODULES = [
    "controller/cards.py", "controller/hand.py", "controller/round.py", "controller/legality.py",
    "controller/shoe.py", "controller/phase.py", "controller/money.py",
    "controller/alerts.py", "controller/effects.py", "controller/engine.py", "controller/errors.py",
    "controller/game.py",
    "controller/protection/live.py", "controller/protection/slug.py", "controller/protection/shoes.py",
    "controller/protection/quality.py", "controller/protection/discards.py",
    "simulators/simulation.py", "simulators/strategy.py",
]
# Each game's hot modules are its own to say: its folder's __init__.py declares them, by file name in the folder,
#     COMPILED = ("game.py", "simulate.py", "outcomes.py", "actions.py")
# A game's own outcomes and actions (enums extending controller.hand.GameOutcome, controller.legality.GameAction)
# are compiled with its engine: compiled code refuses an interpreted subclass of a compiled module's enum where it
# checks a value's type ("tuple[GameOutcome, int] object expected; got tuple[BlackjackOutcome, int]").
# read here as text (this module imports no game), so a new game's folder adds its own, naming no other file.
COMPILED = "COMPILED"


def game_modules(games: Path) -> list[str]:
    """The hot modules every game folder under ``games`` declares (its ``COMPILED``), as paths from the package's
    parent (``games/<folder>/<file>``), in folder order; a declaration that is not a literal tuple or list of file
    names in the folder is refused (ValueError: the build says which folder)."""
    found: list[str] = []
    for init in sorted(games.glob("*/__init__.py")):
        tree = ast.parse(init.read_text(), str(init))
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == COMPILED for t in node.targets):
                try:
                    names = ast.literal_eval(node.value)
                except ValueError:
                    names = None
                if not isinstance(names, (tuple, list)) or not all(
                        isinstance(n, str) and "/" not in n and (init.parent / n).is_file() for n in names):
                    raise ValueError(f"{init}: {COMPILED} is not a literal list of the folder's own module files")
                found += [f"{games.name}/{init.parent.name}/{n}" for n in names]
    return found


def modules(dirs: dict[str, Path]) -> list[str]:
    """What a build of these packages compiles: the engine's MODULES and every game's own."""
    return MODULES + game_modules(dirs["games"])


STAMP = "STAMP.json"  # in a build: what it was built from
NOT_BUILT = "NOT-BUILT.json"  # in place of a build: why there is none
DEFAULT_BY = "scripts/_venv.sh"  # who makes the build, for the messages (deploy/install.sh on a Pi)


def build_dir() -> Path:
    """Where the build is looked for: ``TABLECTL_COMPILED``, else ``tablectl-compiled`` in this Python's venv."""
    named = os.environ.get("TABLECTL_COMPILED")
    return Path(named).resolve() if named else Path(sys.prefix) / "tablectl-compiled"


def package_dirs(build: Path | None = None) -> dict[str, Path]:
    """The directory of each pure package, as this process would import it without the build ``build``."""
    skip = build.resolve() if build is not None else None
    saved = sys.path[:]
    # Every finder, as an import would ask them (an editable install's finder comes after sys.path's),
    # with the build off the path; not importlib.util.find_spec, which answers with what is imported.
    sys.path[:] = [p for p in saved if skip is None or Path(p or ".").resolve() != skip]
    try:
        dirs = {}
        for name in PACKAGES:
            spec = None
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                spec = find(name, None) if find is not None else None
                if spec is not None:
                    break
            if spec is None or not spec.submodule_search_locations:
                raise RuntimeError(f"the package {name} is not importable here")
            dirs[name] = Path(list(spec.submodule_search_locations)[0])
        return dirs
    finally:
        sys.path[:] = saved


def python_identity() -> str:
    """The Python a build is for: its full version and its extension modules' suffix."""
    return f"{sys.version} {sysconfig.get_config_var('EXT_SUFFIX')}"


def _package_files(root: Path) -> list[Path]:
    """The files a build copies of a package: all but caches and built extensions."""
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".so"))


def sources_stamp(dirs: dict[str, Path]) -> str:
    """The stamp of these sources: every file of each package (path and content), the Python, and this
    module (MODULES and how they are built; each game's own are in its files)."""
    digest = hashlib.sha256()
    digest.update(json.dumps([MODULES, python_identity()]).encode())
    digest.update(Path(__file__).read_bytes())
    for name in sorted(dirs):
        for path in _package_files(dirs[name]):
            digest.update(f"\0{name}/{path.relative_to(dirs[name]).as_posix()}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class Status:
    """The build at ``path`` against the sources this process would import: ``current``, else why not."""

    path: Path
    current: bool
    why: str  # empty when current
    built: dict[str, object] | None = None  # the build's stamp file, when there is a build

    @property
    def by(self) -> str:
        """Who makes this build (the install step that runs ``ensure``)."""
        recorded = (self.built or {}).get("by")
        return str(recorded) if recorded else DEFAULT_BY


def _read(path: Path) -> dict[str, object] | None:
    """A JSON object from ``path``, or None when there is none or it is not one (a torn write, an edit)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def status(path: Path | None = None) -> Status:
    """Whether the build at ``path`` (default `build_dir`) may run in place of the sources imported here."""
    path = path or build_dir()
    if os.environ.get("TABLECTL_ENGINE") == "pure":
        return Status(path, False, "TABLECTL_ENGINE=pure")
    built = _read(path / STAMP)
    if built is None:
        note = _read(path / NOT_BUILT)
        if note is not None:
            return Status(path, False, f"compiled engine not built: {note.get('why', '?')}")
        return Status(path, False, f"no compiled build; {DEFAULT_BY} or deploy/install.sh builds it")
    if built.get("stamp") != sources_stamp(package_dirs(path)):
        by = built.get("by") or DEFAULT_BY
        return Status(path, False, f"compiled build is out of date; {by} rebuilds it", built)
    return Status(path, True, "", built)


@dataclass(frozen=True)
class Engine:
    """The engine a command runs: ``compiled`` or ``pure``, and why pure (``note``)."""

    name: str
    note: str

    def describe(self) -> str:
        """In words, for a command's output: 'compiled (mypyc)' or 'pure Python (why)'."""
        return "compiled (mypyc)" if self.name == "compiled" else f"pure Python ({self.note})"


def use_compiled_engine() -> Engine:
    """Put the build first on ``sys.path`` when it is current; call before anything imports the engine.

    Forked worker processes inherit the choice. When the engine was imported already (a test calling
    the command in its own process), that engine runs and is named.
    """
    found = status()
    if found.current and not any(name in sys.modules for name in PACKAGES):
        sys.path.insert(0, str(found.path))
    return engine_loaded(found.why or "the pure engine was imported before the compiled build could be chosen")


def engine_loaded(why_pure: str = "") -> Engine:
    """The engine this process imports (or imported): compiled when the engine's module is a C extension."""
    spec = sys.modules["controller.engine"].__spec__ if "controller.engine" in sys.modules \
        else importlib.util.find_spec("controller.engine")
    compiled = spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)
    return Engine("compiled", "") if compiled else Engine("pure", why_pure or "no compiled build on the path")


# ---------------------------------------------------------------------------------------------- building
def missing_tools(mypyc: bool = True) -> str | None:
    """Why a build cannot be made here (no C compiler, no Python headers, no mypyc), or None.

    The compiler and the headers first: they are the system's (deploy/install.sh installs mypy only for
    the build, and only where they are present).
    """
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler}; Debian: apt-get install gcc)"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.is_file():
        return f"no Python headers ({headers}; Debian: apt-get install python3-dev)"
    if mypyc and importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (it comes with mypy)"
    return None


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One build at a time into ``path`` (two install steps at once: the second waits, then finds it current)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f".{path.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def build(target: Path, by: str = DEFAULT_BY, log: Path | None = None) -> float:
    """Build into ``target`` (replaced whole when the build succeeds); returns the seconds it took.

    Copies the packages as this process would import them, compiles `modules` there, and writes the
    stamp. mypyc's output goes to ``log`` (default: beside ``target``); a failed build raises
    CalledProcessError and leaves ``target`` as it was.
    """
    started = time.perf_counter()
    target = target.resolve()
    dirs = package_dirs(target)
    stamp = sources_stamp(dirs)
    work = target.parent / f".{target.name}.new"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name, source in dirs.items():
        shutil.copytree(source, work / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"))
    if sources_stamp({name: work / name for name in dirs}) != stamp:  # an edit while copying
        raise RuntimeError("the sources changed while they were copied: build again")
    log = log or target.parent / f"{target.name}.log"
    # mypy's defaults, whatever lies around: without a config of its own here, mypy would take the first it
    # finds above (the checkout's pyproject.toml, when the venv is .venv/ inside it).
    (work / "mypy.ini").write_text("[mypy]\n")
    compiled = modules({name: work / name for name in dirs})
    with open(log, "w") as out:
        subprocess.run([sys.executable, "-m", "mypyc", *compiled], cwd=work, check=True, stdout=out,
                       stderr=subprocess.STDOUT)
    shutil.rmtree(work / "build", ignore_errors=True)  # mypyc's C sources and objects: the .so are in place
    shutil.rmtree(work / ".mypy_cache", ignore_errors=True)
    (work / "mypy.ini").unlink()
    seconds = time.perf_counter() - started
    (work / STAMP).write_text(json.dumps({
        "stamp": stamp, "python": python_identity(), "modules": compiled, "by": by,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seconds": round(seconds, 1),
    }, indent=1) + "\n")
    _put_in_place(work, target)
    _keep(target, stamp)
    return seconds


def _put_in_place(work: Path, target: Path) -> None:
    """``work`` becomes ``target``, replacing what was there (a reader sees the old build or the new one)."""
    old = target.parent / f".{target.name}.old"
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    work.rename(target)
    shutil.rmtree(old, ignore_errors=True)


# ------------------------------------------------------------------------------------------------ the cache
CACHE_KEEP = 4  # builds kept in the cache, the most recently made or used


def cache_dir() -> Path:
    """Builds kept by their stamp (TABLECTL_COMPILED_CACHE, else ~/.cache/tablectl/compiled).

    The stamp is the whole of what a build is made from, so a build found under it is the one a build
    would make: the same sources are never built twice on a machine (the checkout's venv, then the
    release install.sh makes from it, or a Pi's next release when only tablectl/ changed).
    """
    named = os.environ.get("TABLECTL_COMPILED_CACHE")
    if named:
        return Path(named)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tablectl" / "compiled"


def _keep(build: Path, stamp: str) -> None:
    """Copy a new build into the cache, and drop all but the CACHE_KEEP most recent (never an error: a cache)."""
    cache = cache_dir()
    try:
        cache.mkdir(parents=True, exist_ok=True)
        if not (cache / stamp).is_dir():
            tmp = cache / f".{stamp}.{os.getpid()}"
            shutil.copytree(build, tmp)
            tmp.rename(cache / stamp)
        kept = sorted((d for d in cache.iterdir() if not d.name.startswith(".")), key=lambda d: d.stat().st_mtime)
        for stale in kept[:-CACHE_KEEP]:
            shutil.rmtree(stale, ignore_errors=True)
    except OSError:
        pass


def _from_cache(target: Path, stamp: str, by: str) -> Path | None:
    """Put the cached build of ``stamp`` at ``target``; the cache's entry, or None when it has none."""
    cached = cache_dir() / stamp
    built = _read(cached / STAMP)
    if built is None or built.get("stamp") != stamp:
        return None
    work = target.parent / f".{target.name}.new"
    shutil.rmtree(work, ignore_errors=True)
    try:
        shutil.copytree(cached, work)
    except OSError:
        shutil.rmtree(work, ignore_errors=True)
        return None
    (work / STAMP).write_text(json.dumps({**built, "by": by, "copied_from": str(cached)}, indent=1) + "\n")
    _put_in_place(work, target)
    os.utime(cached)  # used: kept longer
    return cached


def _not_built(target: Path, why: str, by: str, stamp: str, failed: bool) -> None:
    """No build at ``target``, and why, for these sources (a stale build is removed: it would never run)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    (target / NOT_BUILT).write_text(json.dumps({"why": why, "by": by, "stamp": stamp, "failed": failed}) + "\n")


def ensure(target: Path, by: str = DEFAULT_BY) -> str:
    """Build into ``target`` unless its build is current or it cannot be built here; one line saying which.

    Never fails for want of a build: the pure engine runs, and the line says why. The line is said once
    for the same sources: a build that failed is not tried again (a minute each time) until they change
    (``build`` forces it), nor one that lacked a tool until the tool is there.
    """
    pure = "tablectl simulate runs the pure-Python engine"
    with _locked(target):
        if os.environ.get("TABLECTL_ENGINE") == "pure":
            return f"compiled engine: not built (TABLECTL_ENGINE=pure); {pure}"
        if status(target).current:
            return ""
        stamp = sources_stamp(package_dirs(target))
        cached = _from_cache(target, stamp, by)
        if cached is not None:
            return f"compiled engine: the build of these very sources copied from {cached} into {target}"
        why = missing_tools()
        note = _read(target / NOT_BUILT) or {}
        if note.get("stamp") == stamp and (note.get("failed") or note.get("why") == why):
            return ""  # said already, for these sources
        if why is not None:
            _not_built(target, why, by, stamp, failed=False)
            return f"compiled engine: not built: {why}; {pure}"
        log = target.parent / f"{target.name}.log"
        try:
            seconds = build(target, by, log)
        except (subprocess.CalledProcessError, RuntimeError, OSError) as exc:
            last = [line for line in log.read_text(errors="replace").splitlines() if line.strip()][-1:] \
                if log.is_file() else []
            why = f"the build failed ({last[0] if last else exc}; all of it in {log})"
            _not_built(target, why, by, stamp, failed=True)
            return f"compiled engine: not built: {why}; {pure}"
        return f"compiled engine: built in {seconds:.0f} s into {target} (tablectl simulate runs it)"


def main(argv: Sequence[str] | None = None) -> int:
    """``status``, ``ensure [--into DIR] [--by WHO]`` or ``build [DIR]``: see the module's docstring."""
    parser = argparse.ArgumentParser(prog="python -m tablectl.compiled_engine", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("status", help="the engine tablectl simulate would run, and why (exit 1: the pure one)")
    tools = sub.add_parser("check-tools", help="why a build cannot be made here (exit 1), or nothing (exit 0)")
    tools.add_argument("--no-mypyc", action="store_true", help="the system's tools only: the compiler, the headers")
    ens = sub.add_parser("ensure", help="build unless current or impossible here; one line saying which")
    ens.add_argument("--into", type=Path, default=None, help="the build's directory (default: where it is looked for)")
    ens.add_argument("--by", default=DEFAULT_BY, help="the install step that runs this, named in later messages")
    bld = sub.add_parser("build", help="build now")
    bld.add_argument("dir", type=Path, nargs="?", default=None)
    args = parser.parse_args(argv)
    if args.action == "status":
        found = status()
        print(f"engine: {'compiled (mypyc), ' + str(found.path) if found.current else 'pure Python (' + found.why + ')'}")
        return 0 if found.current else 1
    if args.action == "check-tools":
        why = missing_tools(mypyc=not args.no_mypyc)
        if why is not None:
            print(why)
        return 0 if why is None else 1
    if args.action == "ensure":
        line = ensure(args.into or build_dir(), args.by)
        if line:
            print(line, flush=True)
        return 0
    target = args.dir or build_dir()
    with _locked(target):
        seconds = build(target)
    print(f"compiled engine: built in {seconds:.0f} s into {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
