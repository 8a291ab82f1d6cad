"""`tablectl replay` as a user runs it: a real process, real files, exit codes and JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.engine_dsl import session

EXAMPLE = Path(__file__).resolve().parents[2] / "tablectl" / "examples" / "session.jsonl"


def tablectl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablectl.cli", *args], capture_output=True, text=True,
                          input=stdin, timeout=60)


def test_example_session_matches_the_documented_output():
    out = tablectl("replay", str(EXAMPLE), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc == {
        "rounds": [{
            "number": 1, "shoe_id": "S1",
            "dealer": {"cards": ["AS", "KD"], "total": 21},
            "hands": [
                {"box": 1, "cards": ["TS", "6H"], "bet": "10", "outcome": "lose", "net": "-10"},
                {"box": 2, "cards": ["9C", "9D"], "bet": "10", "outcome": "lose", "net": "-10"},
            ],
            "insurance": [{"box": 2, "amount": "5", "net": "10"}],
            "net": "-10",
        }],
        "phase": "betting",
        "alerts": [],
    }


def test_illegal_line_stops_with_exit_2_after_settled_rounds(tmp_path):
    lines = session("bet 1 10", "cards TS 6D TC", "stand", "cards TD 2D",  # round 1 settles
                    "bet 1 10", "cards 5S 6D 4C", "card 2H", "double")  # double on three cards
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join(lines) + "\n")
    out = tablectl("replay", str(f), "--json")
    assert out.returncode == 2
    doc = json.loads(out.stdout)
    assert len(doc["rounds"]) == 1
    assert doc["error"]["line"] == len(lines)
    assert doc["error"]["code"] == "double_not_allowed"
    assert "first two cards" in doc["error"]["message"]


def test_bad_json_and_unknown_event_are_clear_errors(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_text('{"type":"shuffle"}\n{"type":"hit"}\n')
    out = tablectl("replay", str(f), "--json")
    assert out.returncode == 2
    assert json.loads(out.stdout)["error"]["code"] == "unknown_event"
    f.write_text('{"type":"shuffle"}\nnot json\n')
    out = tablectl("replay", str(f), "--json")
    assert json.loads(out.stdout)["error"] == {"line": 2, "code": "bad_json",
                                               "message": "not valid JSON: Expecting value at column 1"}
    assert "Traceback" not in out.stderr


def test_rules_and_set_override_and_bad_option_named(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join(session("bet 1 10", "cards 5S 6D 4C", "double")) + "\n")
    assert tablectl("replay", str(f), "--json").returncode == 0
    out = tablectl("replay", str(f), "--json", "--set", "double=10-11")
    assert json.loads(out.stdout)["error"]["code"] == "double_not_allowed"
    out = tablectl("replay", str(f), "--set", "double=12")
    assert out.returncode == 2 and "'double'" in out.stderr and "Traceback" not in out.stderr


def test_readable_output_without_json():
    out = tablectl("replay", str(EXAMPLE))
    assert out.returncode == 0
    assert "dealer   AS KD" in out.stdout and "insurance" in out.stdout
