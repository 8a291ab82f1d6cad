"""`tablectl demo` (the README's first command) plays, stops by itself, and leaves a reviewable journal."""

from __future__ import annotations

import json
from decimal import Decimal

from tests.support.harness import tablectl

from controller.replay import replay_lines


def test_fast_demo_plays_its_rounds_and_the_journal_replays(tmp_path):
    db = tmp_path / "demo.sqlite"
    out = tablectl("demo", "--rounds", "12", "--pace", "fast", "--seed", "3", "--db", str(db), timeout=180)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert "API http://127.0.0.1:" in lines[0]
    assert sum(line.startswith("round ") for line in lines) == 12
    summary = json.loads(lines[-1])
    assert summary["rounds"] == 12 and summary["alerts"] in ([], ["shuffle_due"])
    export = tablectl("journal", "export", "--db", str(db))
    result = replay_lines(export.stdout.splitlines())
    assert result.error is None and len(result.rounds) == 12
    assert str(-sum(Decimal(r["net"]) for r in result.rounds)) == summary["house_result"]
    assert "Traceback" not in out.stderr
