"""The project's layering, read from the source: who may import whom, and no import cycle.

Every module of the project's packages is parsed with ``ast``; every import counts, at the top or
inside a function (a lazy import still ties the modules together), except those under
``if TYPE_CHECKING:``, which never run. The layers (``ALLOWED``, the one place that says them):

* ``controller`` (the engine), ``firmware_bridge`` (the shoe link) and ``display`` (the box
  displays) stand alone: none imports another package of the project (``display`` not even
  the engine; the composition root translates between them);
* ``simulators`` may import ``controller`` and ``firmware_bridge``;
* ``games``, one folder per game (its engine and its presentation), may import ``controller``,
  ``display`` and ``simulators``; nothing imports a game: the registry (``controller.registry``)
  finds each by its entry point, and every consumer takes a game's parts from it;
* ``tablectl`` is the composition root and may import everything but the games, except that its top floor
  does not import sideways: ``TOP_FLOOR`` names its sub-layers (the shared web layer below the
  table's API and the floor's, which never import each other; the fleet's wire below the table's
  publisher and the floor) and what each may import of the rest of ``tablectl``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "firmware_bridge", "display", "simulators", "games", "tablectl")
ALLOWED: dict[str, set[str]] = {
    "controller": set(),
    "firmware_bridge": set(),
    "display": set(),
    "simulators": {"controller", "firmware_bridge"},
    "games": {"controller", "display", "simulators"},
    "tablectl": {"controller", "firmware_bridge", "display", "simulators"},
}
# tablectl's top floor: each sub-layer (a module, or a package with its submodules but for those
# named apart) and what of tablectl outside itself it may import. A module of tablectl under none
# of these (the table's composition root: run, service, the command lines) may import any of them.
TOP_FLOOR: dict[str, set[str]] = {
    # the web layer both APIs stand on (keys, error envelope, edge): the settings' types and the socket only
    "tablectl.web": {"tablectl.config", "tablectl.listening"},
    # the table's API: the web layer, the table's service and settings, its figures and metrics, the ledger's wire
    "tablectl.api": {"tablectl.web", "tablectl.config", "tablectl.service", "tablectl.figures", "tablectl.metrics",
                     "tablectl.fleet", "tablectl.dispute", "tablectl.zones", "tablectl.parts",
                     "tablectl.ratings", "tablectl.shift"},
    # each game's parts, as the composition root takes them from the registry: nothing of tablectl
    "tablectl.parts": set(),
    # the table's metrics (/metrics, mounted by the table's API): the web layer's roles
    "tablectl.metrics": {"tablectl.web"},
    # the floor: the web layer, the fleet's wire, broker and settings, the [api] settings' type, the log's format
    "tablectl.floor": {"tablectl.web", "tablectl.fleet", "tablectl.config", "tablectl.logs"},
    # the fleet's wire, broker and settings, spoken by the table's publisher and the floor alike: nothing above
    "tablectl.fleet": set(),
    # what a table publishes (its view, figures, a game's tile part, the rating slips of sessions ended): never an
    # API, nor the floor
    "tablectl.fleet.source": {"tablectl.figures", "tablectl.parts", "tablectl.ratings"},
    # the table's publisher: the wire, the broker and its source; never an API, nor the floor
    "tablectl.fleet.publisher": {"tablectl.fleet", "tablectl.fleet.source"},
    # the shift's figures, from the journal alone: below the table's API and its publisher
    "tablectl.figures": set(),
    # the rating slips, from the journal alone (issue 41): below the table's API and `tablectl ratings`
    "tablectl.ratings": set(),
    # the shift report (issue 41), from the journal alone: the figures, the rating slips and the pit's books as JSON
    "tablectl.shift": {"tablectl.figures", "tablectl.ratings", "tablectl.pit_json"},
    # the pit's books (inventory, buy-ins) as JSON: below the command lines and the shift report
    "tablectl.pit_json": set(),
    # the record of a disputed round, made from the journal and rendered: below the table's API and `tablectl dispute`
    "tablectl.dispute": {"tablectl.parts"},  # (each game's section of the record: its registry part)
    # the settings: the fleet's section only (FleetSettings), nothing that serves
    "tablectl.config": {"tablectl.fleet", "tablectl.zones"},
    # time zones by name, from the system's database: for the settings and the dispute record alike
    "tablectl.zones": set(),
    # where an API listens, checked without the web stack
    "tablectl.listening": set(),
    # the log's one format, for the table's service and the floor alike
    "tablectl.logs": set(),
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


def _imports(module: str, path: Path, type_checking: bool = False) -> set[str]:
    """The project modules ``module`` imports (``type_checking``: those under ``if TYPE_CHECKING:`` too)."""
    tree = ast.parse(path.read_text(), str(path))
    skip = set() if type_checking else _type_checking_only(tree)
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
# The same with the imports only the type checker follows: a cycle there is a cycle all the same (the two
# modules cannot be understood apart), so it is refused too.
TYPE_GRAPH = {module: _imports(module, path, type_checking=True) for module, path in MODULES.items()}

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
    offenders = sorted(  # (an import for the type checker only crosses the layers all the same)
        f"{module} imports {target}"
        for module, targets in TYPE_GRAPH.items() if module.split(".")[0] == package
        for target in targets
        if target.split(".")[0] != package and target.split(".")[0] not in ALLOWED[package]
    )
    assert offenders == []


def _sub_layer(module: str) -> str | None:
    """The TOP_FLOOR sub-layer `module` belongs to: the longest one that is it or holds it."""
    holders = [s for s in TOP_FLOOR if module == s or module.startswith(s + ".")]
    return max(holders, key=len) if holders else None


def test_the_top_floor_is_named() -> None:
    """Every sub-layer names a module that exists (a rename must not loosen the rules), and the table keeps
    the two APIs apart and the table's publisher below both."""
    assert sorted(s for s in TOP_FLOOR if s not in MODULES) == []
    assert sorted(a for allowed in TOP_FLOOR.values() for a in allowed if a not in MODULES) == []
    assert not {"tablectl.floor"} & TOP_FLOOR["tablectl.api"]
    assert not {"tablectl.api", "tablectl.metrics"} & TOP_FLOOR["tablectl.floor"]
    for s in ("tablectl.web", "tablectl.fleet", "tablectl.fleet.source", "tablectl.fleet.publisher"):
        assert not {"tablectl.api", "tablectl.floor", "tablectl.metrics"} & TOP_FLOOR[s], s
    assert not {"tablectl.fleet.source", "tablectl.fleet.publisher"} & TOP_FLOOR["tablectl.floor"]


@pytest.mark.parametrize("sub_layer", sorted(TOP_FLOOR))
def test_the_top_floor_imports_no_sideways(sub_layer: str) -> None:
    """A sub-layer of tablectl imports, of the rest of tablectl, only what TOP_FLOOR lets it (lazy imports too)."""
    offenders = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items() if _sub_layer(module) == sub_layer
        for target in targets
        if target.split(".")[0] == "tablectl"
        and (_sub_layer(target) or target) not in TOP_FLOOR[sub_layer] | {sub_layer}
    )
    assert offenders == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Depth-first search over a module graph; each back edge is a cycle, in full."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return cycles


def test_no_import_cycle() -> None:
    """No cycle among the imports that run; a known one (KNOWN_CYCLES) must still be there."""
    cycles = _cycles(GRAPH)
    known = [c for c in cycles if tuple(sorted(set(c))) in KNOWN_CYCLES]
    new = [c for c in cycles if c not in known]
    assert new == [], "\n".join(" -> ".join(c) for c in new)
    assert {tuple(sorted(set(c))) for c in known} == KNOWN_CYCLES, "a known cycle is gone: take it off the list"


def test_no_import_cycle_even_for_the_type_checker() -> None:
    """No cycle either once the imports under ``if TYPE_CHECKING:`` count (issue 39: closed.py and snapshot.py
    imported the engine's Table, and the games' seam a union of every game's rules, for their annotations)."""
    assert any(GRAPH[m] != TYPE_GRAPH[m] for m in MODULES)  # the reader sees the type checker's imports
    cycles = _cycles(TYPE_GRAPH)
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)
