"""`tablectl replay`'s text speaks as the house, as the dashboard, the floor and the demo do, and tells the
pit's part of the session among the rounds: a pit call, a shoe jam and its clearing, a held card and its
discard, a void, an acknowledgement; a total ends it (issue 23). Its JSON only gains fields."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from controller.replay import replay_lines
from controller.replay_cli import format_rounds
from tests.support.deadlines import scaled

T = "2026-12-01T20:%02d:%02d+00:00"


def _event(minute: int, second: int, **fields: object) -> str:
    return json.dumps({**fields, "at": T % (minute, second)})


# Round 1: box 1 (80) stands on 17 against the dealer's 20 (the house wins 80), a jam in between, cleared
# by the shoe and acknowledged by the pit. Then a card with no bet is held, the dealer calls the pit, the pit
# discards it; round 2 is voided.
SESSION = [
    json.dumps({"type": "rules", "profile": "ru-standard", "options": {}, "at": T % (0, 0)}),
    _event(0, 1, type="shuffle", shoe_id="S1"),
    _event(0, 2, type="bet", box=1, amount="80"),
    *[_event(0, 3 + i, type="card", card=c) for i, c in enumerate(["TS", "TD", "7C"])],
    _event(0, 8, type="shoe_fault", kind="jam", detail="card stuck at the gate", actor="shoe"),
    _event(0, 40, type="shoe_fault_cleared", kind="jam", actor="shoe"),
    _event(1, 10, type="ack_alert", alert_id=1, actor="pit:mia"),
    _event(1, 12, type="stand"),
    _event(1, 13, type="card", card="QH"),  # the dealer's 20
    _event(1, 20, type="card", card="4S"),  # no bet on the table: held
    _event(1, 25, type="call_pit", actor="dealer:ann"),
    _event(2, 0, type="discard_card", actor="pit:mia"),
    _event(2, 5, type="bet", box=2, amount="50"),
    _event(2, 6, type="card", card="2C"),
    _event(2, 7, type="void_round", actor="pit:mia"),
]


def _text() -> list[str]:
    result = replay_lines(SESSION)
    assert result.error is None, result.error
    return format_rounds(result.as_dict()).splitlines()


def test_the_round_and_its_hands_are_the_house_result_with_a_sign():
    lines = _text()
    assert "  House +80" in lines, lines  # the players lost 80: the house won it
    assert any(line.startswith("  box 1") and line.endswith("house +80") for line in lines), lines
    assert not any("for players" in line for line in lines)


def test_the_pit_call_the_jam_its_clearing_the_held_card_and_its_discard_are_told_in_order():
    lines = _text()
    jam = lines.index("-- 20:00:08 round 1: action: shoe fault jam: card stuck at the gate")
    cleared = next(i for i, line in enumerate(lines) if "20:00:40" in line and "jam cleared" in line)
    acked = next(i for i, line in enumerate(lines) if "pit:mia acknowledges alert 1" in line)
    assert lines[acked].endswith("after 1 min 02 s"), lines[acked]  # how long the pit took
    round_1 = lines.index("Round 1  shoe S1")
    held = next(i for i, line in enumerate(lines) if "held: unexpected card 4S" in line)
    call = lines.index("-- 20:01:25 action: dealer:ann calls the pit")
    discard = lines.index("-- 20:02:00 pit:mia discards the held card 4S")
    void = lines.index("-- 20:02:07 round 2: pit:mia voids round 2")
    round_2 = lines.index("Round 2  shoe S1  VOID: the supervisor voided it")  # and why
    assert jam < cleared < acked < round_1 < held < call < discard < void < round_2


def test_a_total_ends_the_text():
    lines = _text()
    assert lines[-3] == "Total: 1 round settled, 1 voided; House +80", lines
    assert lines[-2] == "phase: betting"


def test_the_json_keeps_every_field_and_its_meaning_and_adds_the_incidents_and_totals():
    doc = replay_lines(SESSION).as_dict()
    assert {"rounds", "phase", "alerts"} <= doc.keys()
    assert doc["rounds"][0]["net"] == "-80"  # a round's `net` is still the players'
    assert doc["totals"] == {"rounds_settled": 1, "rounds_voided": 1, "house_result": "80"}
    kinds = [i["type"] for i in doc["incidents"]]
    assert kinds == ["shoe_fault", "shoe_fault_cleared", "ack_alert", "card", "call_pit", "discard_card",
                     "void_round"]
    assert doc["incidents"][0] == {"at": "2026-12-01T20:00:08+00:00", "type": "shoe_fault", "round": 1,
                                   "after_rounds": 0, "level": "action", "alert": "shoe_fault",
                                   "text": "shoe fault jam: card stuck at the gate"}


def test_replay_as_a_command_prints_the_house_text(tmp_path: Path):
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join(SESSION) + "\n")
    out = subprocess.run([sys.executable, "-m", "tablectl.cli", "replay", str(f)], capture_output=True, text=True,
                         timeout=scaled(60))
    assert out.returncode == 0, out.stderr
    assert "  House +80" in out.stdout and "Total: 1 round settled, 1 voided; House +80" in out.stdout
