"""Closed cards are masked in one place: every path out of the process asks `controller.closed`.

Read from the source with ``ast``: the marker's text ``"XX"`` is written once (controller/cards.py,
which controller.closed re-exports), and a card is hidden in an event or effect dict (``d["card"] = ...``,
``{..., "card": HIDDEN}``) only in controller/closed.py. The authority's exports, the SSE stream and the
fleet's wire call its `mask_event` / `mask_effects`; a new path that masked on its own would fail here.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "firmware_bridge", "display", "simulators", "games", "tablectl")
MARKER_HOME = Path("controller/cards.py")
MASKING_HOME = Path("controller/closed.py")


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(path.relative_to(ROOT), ast.parse(path.read_text(), str(path)))
            for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]


def _is_card_key(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == "card"


def test_the_marker_is_written_once():
    found = [f"{path}:{node.lineno}" for path, tree in _sources() if path != MARKER_HOME
             for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value == "XX"]
    assert found == [], f"the closed-card marker is controller.closed.HIDDEN, not its own text: {found}"


def test_cards_are_hidden_only_by_controller_closed():
    found = []
    for path, tree in _sources():
        if path == MASKING_HOME:
            continue
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Subscript) and _is_card_key(t.slice) for t in targets):
                found.append(f"{path}:{node.lineno} sets [\"card\"]")
            if isinstance(node, ast.Dict) and any(_is_card_key(k) and isinstance(v, ast.Name) and v.id == "HIDDEN"
                                                  for k, v in zip(node.keys, node.values)):
                found.append(f"{path}:{node.lineno} builds {{\"card\": HIDDEN}}")
    assert found == [], f"mask a card with controller.closed.mask_event / mask_effects: {found}"
