"""`tablectl ratings export` (issue 41, part 1): the rating slips from a verified journal, CSV and JSON Lines.

A shift is played through the journal's authority (the service's one writer): two seated players, one paused,
one unseated, simulated play; the export from the journal alone gives one line per session with the documented
columns (docs/ratings.md), the same figures in CSV and JSON, and the figures a replay of the same events in
memory gives; ``--since``/``--until`` pick the sessions; a missing journal exits 2 with one line.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.rules import build_rules
from games.blackjack.advantage_players import play_session, seat
from tablectl import ratings_cli
from tablectl.ratings import COLUMNS
from tests.support.journals import T0, open_authority


def _export(*argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    ratings_cli.configure_parser(parser)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = ratings_cli.run(parser.parse_args(["export", *argv]))
    return status, out.getvalue(), err.getvalue()


def play_shift(db: Path, rounds: int = 120) -> None:
    """Olga (box 2, basic strategy) and a casual Ivan (box 3) seated; Ivan pauses, both leave; 3 s an event."""
    authority = open_authority(db)
    clock = [T0]

    def submit(event: ev.Event) -> list[Any]:
        clock[0] += timedelta(seconds=3)
        return authority.submit(event, clock[0])[1]

    submit(ev.Seat(box=2, player="Olga", card="C-2"))
    submit(ev.Seat(box=3, player="Ivan"))
    rng = random.Random(41)
    session = seat(build_rules("ru-standard"), {2: "flat", 3: "casual"}, rng, table=authority.table, submit=submit)
    session.seats[2].name, session.seats[3].name = "Olga", "Ivan"
    play_session(session, rounds // 2, rng)
    submit(ev.Pause(box=3))
    clock[0] += timedelta(minutes=15)
    submit(ev.Resume(box=3))
    play_session(session, rounds - rounds // 2, rng)
    submit(ev.Unseat(box=3, player="Ivan"))
    submit(ev.Unseat(box=2))
    authority.journal.close()


def test_the_export_gives_one_line_per_session_in_csv_and_json(tmp_path: Path) -> None:
    db = tmp_path / "bj-7.sqlite"
    play_shift(db)
    status, text, _ = _export("--db", str(db), "--format", "json")
    assert status == 0
    lines = [json.loads(line) for line in text.splitlines()]
    assert [(r["player"], r["box"], r["open"]) for r in lines] == [("Olga", 2, False), ("Ivan", 3, False)]
    olga, ivan = lines
    assert tuple(olga) == COLUMNS and olga["table"] == "bj-7" and olga["card"] == "C-2" and olga["format"] == 1
    assert olga["rounds"] == 120 and olga["mistakes"] == 0 and olga["theo"] is not None
    assert olga["measured_edge_pct"] == olga["edge_pct"]
    assert ivan["paused_minutes"] == 15.05 and ivan["minutes"] < olga["minutes"]
    assert olga["start"].endswith("Z") and olga["wagered"] == "1200.00"
    status, text, _ = _export("--db", str(db), "--format", "csv")
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == COLUMNS
    assert [(r["player"], r["theo"], r["actual"], r["open"]) for r in rows] == [
        (r["player"], r["theo"], r["actual"], "false") for r in lines]


def test_the_window_picks_sessions_and_a_missing_journal_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "bj-7.sqlite"
    play_shift(db, rounds=20)
    status, text, _ = _export("--db", str(db), "--format", "json", "--until", T0.isoformat())
    assert status == 0 and text == ""  # nobody had sat down yet
    status, text, _ = _export("--db", str(db), "--format", "json", "--since", (T0 + timedelta(days=1)).isoformat())
    assert status == 0 and text == ""  # every session ended before
    status, _, err = _export("--db", str(tmp_path / "none.sqlite"))
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err
