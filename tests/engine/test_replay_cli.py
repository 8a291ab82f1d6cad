"""`tablectl replay` as a user runs it: a real process, real files, exit codes and JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.deadlines import scaled
from tests.support.engine_dsl import session

EXAMPLE = Path(__file__).resolve().parents[2] / "tablectl" / "examples" / "session.jsonl"


def tablectl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablectl.cli", *args], capture_output=True, text=True,
                          input=stdin, timeout=scaled(60))


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
        "incidents": [],
        "totals": {"rounds_settled": 1, "rounds_voided": 0, "house_result": "10"},
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


# ---------------------------------------------------------------------------- the club games
CLUB21 = ("bet 1 10", "card 7H", "cards TS 5D 9C 6D", "stand", "banker_stand")  # box 19, the banker 11: he stands
DUELS = ("open_bank 1000", "bet 1 10", "cards TS 7D", "card 6C", "dark", "card 9H", "card 8D", "stand",
         "card 8S", "card 9C")  # a dark box over 21 and the banker 7-8-9 = 24


def _club_file(tmp_path: Path, steps: tuple[str, ...], profile: str) -> Path:
    f = tmp_path / f"{profile}.jsonl"
    f.write_text("\n".join(session(*steps, profile=profile)) + "\n")
    return f


def test_a_club21_session_replays(tmp_path):
    """tablectl replay of a club-21 session: the record has the game, the bottom card and the pack's totals."""
    out = tablectl("replay", str(_club_file(tmp_path, CLUB21, "club-21")), "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)["rounds"][0]
    assert rec["game"] == "club-21" and rec["bottom_card"] == "7H"
    assert [(h["cards"], h["total"], h["outcome"], h["net"]) for h in rec["hands"]] == [
        (["TS", "9C"], 19, "win", "10")]
    text = tablectl("replay", str(_club_file(tmp_path, CLUB21, "club-21"))).stdout
    assert "club-21" in text and "box 1" in text and "19" in text


def test_a_club36_session_replays_with_its_own_options(tmp_path):
    """tablectl replay of a club-21-36 session: each duel with the banker's cards and the bank after it; a
    --set of a club-21-36 option applies to the session's own profile (not ru-standard's options)."""
    f = _club_file(tmp_path, DUELS, "club-21-36")
    out = tablectl("replay", str(f), "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)["rounds"][0]
    assert rec["game"] == "club-21-36" and rec["bank"] == {"before": "1000", "after": "990", "closed": False,
                                                     "state": "open"}
    duel = rec["hands"][0]
    assert (duel["cards"], duel["banker"], duel["dark"], duel["outcome"], duel["bank_after"]) == (
        ["TS", "9H", "8D"], ["7D", "8S", "9C"], True, "win", "990")
    out = tablectl("replay", str(f), "--json", "--set", "dark_both_bust=banker")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["rounds"][0]["hands"][0]["outcome"] == "bust"
    out = tablectl("replay", str(f), "--set", "dark_both_bust=nobody")
    assert out.returncode == 2 and "dark_both_bust" in out.stderr and "Traceback" not in out.stderr
    text = tablectl("replay", str(f)).stdout
    assert "banker 7D 8S 9C" in text and "bank 1000 -> 990" in text
