"""The import graph against the declared dependencies: shipped code imports only what an install without the test
extra brings.

Every import of a third-party package in the shipped packages (at module level, or lazily inside a function) must
resolve, through the installed distributions (`importlib.metadata.packages_distributions()`, so `serial` is pyserial
and `paho` is paho-mqtt), to a base dependency of pyproject.toml; or to a runtime extra (`postgresql`), and then only
lazily and under a `try` that turns its ImportError into a clear error. A package of the test or bench extra, or one
declared nowhere, fails here, naming the file and line. Each base dependency is pinned in deploy/requirements.lock
and imported by shipped code: the set holds exactly what the code imports. This is the cheap form; the proof is
tests/deploy/test_clean_install.py, which installs without any extra and starts every subcommand.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from dataclasses import dataclass
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
SHIPPED = ("controller", "firmware_bridge", "display", "simulators", "games", "tablectl")
# The extras an operator installs to run something (each guarded by a clear error when missing); the rest
# (test, bench) are for developers, and shipped code never imports them.
RUNTIME_EXTRAS = {"postgresql"}
DEVELOPER_EXTRAS = {"test", "bench"}


def canonical(name: str) -> str:
    """A distribution's name as pip compares names (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Import:
    """One import of a top-level module: where, and how (lazily; under a try that catches ImportError)."""

    module: str
    file: str
    line: int
    lazy: bool
    guarded: bool

    def where(self) -> str:
        return f"{self.file}:{self.line}"


_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in _IMPORT_ERRORS for t in types)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path, root: Path) -> list[Import]:
    """Every absolute import in a file that runs (not under `if TYPE_CHECKING:`), with how it is made."""
    found: list[Import] = []
    rel = str(path.relative_to(root))

    def visit(node: ast.AST, lazy: bool, guarded: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:  # (the body is for the type checker only)
                visit(child, lazy, guarded)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            lazy = True
        if isinstance(node, ast.Try):
            catches = any(_catches_import_error(h) for h in node.handlers)
            for child in node.body:
                visit(child, lazy, guarded or catches)
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                visit(child, lazy, guarded)
            return
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))
              and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            names = [node.args[0].value]  # importlib.import_module("name"), a literal name
        for name in names:
            found.append(Import(name.split(".")[0], rel, node.lineno, lazy, guarded))  # type: ignore[attr-defined]
        for child in ast.iter_child_nodes(node):
            visit(child, lazy, guarded)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=rel), False, False)
    return found


def third_party_imports(root: Path, packages: tuple[str, ...] = SHIPPED) -> list[Import]:
    """The imports of third-party modules in the shipped packages under `root`."""
    first_party = set(packages)
    out = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            for imp in imports_of(path, root):
                if imp.module in sys.stdlib_module_names or imp.module in first_party or imp.module == "__future__":
                    continue
                out.append(imp)
    return out


def declared(pyproject: Path) -> tuple[set[str], dict[str, set[str]]]:
    """pyproject's base dependencies and each extra's, as canonical distribution names."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    base = {canonical(Requirement(r).name) for r in project["dependencies"]}
    extras = {extra: {canonical(Requirement(r).name) for r in reqs}
              for extra, reqs in project.get("optional-dependencies", {}).items()}
    return base, extras


def violations(imports: list[Import], base: set[str], extras: dict[str, set[str]],
               distributions: dict[str, list[str]]) -> list[str]:
    """What is wrong with each import, a line each naming the file and line; empty when every import is declared."""
    runtime_extra = {d: e for e in RUNTIME_EXTRAS for d in extras.get(e, set())}
    developer = {d: e for e in DEVELOPER_EXTRAS for d in extras.get(e, set())}
    problems = []
    for imp in imports:
        dists = {canonical(d) for d in distributions.get(imp.module, [])}
        if not dists:
            problems.append(f"{imp.where()}: imports {imp.module}, which no installed distribution provides")
        elif dists & base:
            continue
        elif dists & runtime_extra.keys():
            extra = runtime_extra[sorted(dists & runtime_extra.keys())[0]]
            if not (imp.lazy and imp.guarded):
                problems.append(f"{imp.where()}: imports {imp.module} (extra [{extra}]) "
                                f"{'at module level' if not imp.lazy else 'without a try that catches ImportError'}: "
                                "an install without the extra must get a clear error, not a traceback")
        elif dists & developer.keys():
            extra = developer[sorted(dists & developer.keys())[0]]
            problems.append(f"{imp.where()}: imports {imp.module} ({', '.join(sorted(dists))}), which only the "
                            f"[{extra}] extra installs: an install without it fails (declare it in dependencies)")
        else:
            problems.append(f"{imp.where()}: imports {imp.module} ({', '.join(sorted(dists))}), which pyproject.toml "
                            "declares nowhere (a dependency of a dependency, at best): declare it in dependencies")
    return problems


def test_every_third_party_import_of_shipped_code_is_a_declared_runtime_dependency() -> None:
    base, extras = declared(REPO / "pyproject.toml")
    assert set(extras) == RUNTIME_EXTRAS | DEVELOPER_EXTRAS, "a new extra: is it for running, or for developers?"
    imports = third_party_imports(REPO)
    assert len({i.module for i in imports}) >= 10, "the import walk found too little to be looking at the code"
    problems = violations(imports, base, extras, packages_distributions())
    assert not problems, "\n".join(problems)


def test_each_base_dependency_is_imported_by_shipped_code_and_pinned_for_the_pi() -> None:
    """The set holds exactly what the code imports, and deploy/requirements.lock (install.sh's) pins each one."""
    base, _ = declared(REPO / "pyproject.toml")
    distributions = packages_distributions()
    imported = {canonical(d) for i in third_party_imports(REPO) for d in distributions.get(i.module, [])}
    assert sorted(base - imported) == [], "declared but imported by no shipped code"
    pinned = {canonical(line.split("==")[0]) for line in (REPO / "deploy/requirements.lock").read_text().splitlines()
              if "==" in line and not line.startswith("#")}
    assert sorted(base - pinned) == [], "a base dependency deploy/requirements.lock does not pin (bash deploy/lock.sh)"


def test_the_check_names_a_test_only_import_at_module_level_and_an_unguarded_extra(tmp_path: Path) -> None:
    """The check itself: planted in a copy, each kind of mistake is named with its file and line."""
    pkg = tmp_path / "tablectl"
    pkg.mkdir()
    (pkg / "recovery.py").write_text("from __future__ import annotations\nimport json\n\nimport httpx\n")
    (pkg / "store.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import psycopg\n\n"
        "def fine():\n    try:\n        import psycopg\n    except ImportError as exc:\n        raise SystemExit(exc)\n\n"
        "def bare():\n    import psycopg\n")
    (pkg / "pdf.py").write_text("def pdf():\n    from pypdfium2 import PdfDocument\n")
    (pkg / "ok.py").write_text("import importlib\nimport fastapi\nfrom tablectl import cli\n"
                               "importlib.import_module('tablectl.cli')\n")
    base = {"fastapi"}
    extras = {"postgresql": {"psycopg"}, "test": {"httpx", "pypdfium2"}, "bench": set()}
    dists = {"httpx": ["httpx"], "psycopg": ["psycopg"], "pypdfium2": ["pypdfium2"], "fastapi": ["fastapi"]}
    problems = violations(third_party_imports(tmp_path, ("tablectl",)), base, extras, dists)
    assert len(problems) == 3, problems
    assert any(p.startswith("tablectl/recovery.py:4: imports httpx") and "[test]" in p for p in problems)
    assert any(p.startswith("tablectl/store.py:12: imports psycopg (extra [postgresql])") for p in problems)
    assert any(p.startswith("tablectl/pdf.py:2: imports pypdfium2") for p in problems)
