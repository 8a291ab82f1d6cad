"""display/ must never import the engine: the composition root maps between them."""

from __future__ import annotations

import ast
from pathlib import Path

import display


def test_display_never_imports_controller_or_tablectl() -> None:
    root = Path(display.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in {"controller", "tablectl"}]
    assert offenders == []
