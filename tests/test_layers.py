"""The project's layering, read from the source: who may import whom, and no import cycle.

Every module of the five packages is parsed with ``ast``; every import counts, at the top or
inside a function (a lazy import still ties the modules together), except those under
``if TYPE_CHECKING:``, which never run. The layers:

* ``controller`` (the engine), ``firmware_bridge`` (the shoe link) and ``display`` (the box
  displays) stand alone: none imports another package of the project (``display`` not even
  the engine; the composition root translates between them);
* ``simulators`` may import ``controller`` and ``firmware_bridge``;
* ``tablectl`` is the composition root and may import everything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "firmware_bridge", "display", "simulators", "tablectl")
ALLOWED: dict[str, set[str]] = {
    "controller": set(),
    "firmware_bridge": set(),
    "display": set(),
    "simulators": {"controller", "firmware_bridge"},
    "tablectl": {"controller", "firmware_bridge", "display", "simulators"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


MODULES = _modules()


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside ``if TYPE_CHECKING:`` blocks."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                for child in node.body:
                    for inner in ast.walk(child):
                        skip.add(id(inner))
    return skip


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path) -> set[str]:
    """The project modules ``module`` imports."""
    tree = ast.parse(path.read_text(), str(path))
    skip = _type_checking_only(tree)
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node)
            # `from pkg import sub` imports the submodule when there is one, else a name of pkg.
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for target in targets:
            # `import a.b.c` names a.b.c; keep the longest prefix that is a project module.
            parts = target.split(".")
            while parts and ".".join(parts) not in MODULES:
                parts.pop()
            if parts and ".".join(parts) != module:
                out.add(".".join(parts))
    return out


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}

# Cycles left to their owners' work, each named so that a new one still fails the test and a
# fixed one must be taken off the list: the dashboard imports the API's error helpers lazily,
# while the API mounts the dashboard.
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def test_the_graph_is_read() -> None:
    """The parser finds the imports it must (a broken reader would pass every other test)."""
    assert "controller.engine" in GRAPH["controller.replay"]
    assert "controller.legality" in GRAPH["simulators.strategy"]
    assert "firmware_bridge.framed" in GRAPH["firmware_bridge.codecs"]
    assert len(MODULES) > 60


@pytest.mark.parametrize("package", PACKAGES)
def test_layering(package: str) -> None:
    offenders = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items() if module.split(".")[0] == package
        for target in targets
        if target.split(".")[0] != package and target.split(".")[0] not in ALLOWED[package]
    )
    assert offenders == []


def test_no_import_cycle() -> None:
    """Depth-first search over the module graph; a back edge is a cycle, printed in full."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)
    known = [c for c in cycles if tuple(sorted(set(c))) in KNOWN_CYCLES]
    new = [c for c in cycles if c not in known]
    assert new == [], "\n".join(" -> ".join(c) for c in new)
    assert {tuple(sorted(set(c))) for c in known} == KNOWN_CYCLES, "a known cycle is gone: take it off the list"
