"""`tablectl protect players`: each player's advantage-play evidence from a verified journal (issue 26, part 2).

A Hi-Lo counter (box 1) and a basic-strategy flat bettor (box 3) play 250 rounds through the real engine and
journal. The command, from the journal alone, flags the counter and not the flat bettor, each signal with its
n and p, under a header that says it is evidence, not a verdict; ``--since`` books only the later rounds; a
missing journal is a one-line error with exit 2.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from controller import events as ev
from controller.effects import Effect
from tablectl import protect_cli
from tests.support.journals import T0, open_authority
from games.blackjack.advantage_players import play_session, seat


def _run(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    protect_cli.configure_parser(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = protect_cli.run(parser.parse_args(["players", *argv]))
    return status, out.getvalue()


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("players") / "table-9.sqlite"
    authority = open_authority(db)
    clock = [T0]

    def submit(event: ev.Event) -> list[Effect]:
        clock[0] += timedelta(seconds=2)  # one event every 2 s: 250 rounds take about 2 hours
        return authority.submit(event, clock[0])[1]

    rng = random.Random(9)
    with authority.journal.transaction():  # one commit, as the service's writer groups its inputs
        play_session(seat(authority.table.rules, {1: "counter", 3: "flat"}, rng, table=authority.table,
                          submit=submit), 250, rng)
    authority.journal.close()
    return db


def test_the_counter_is_flagged_and_the_flat_bettor_is_not(journal: Path) -> None:
    status, out = _run("--db", str(journal), "--json")
    assert status == 0
    report = json.loads(out)
    assert report["table"] == "table-9" and report["note"] == "advantage-play evidence, not a verdict"
    players = {p["subject"]: p for p in report["players"]}
    assert set(players) == {"counter", "flat", "box 1", "box 3"}
    counter, flat = players["counter"], players["flat"]
    assert counter["flagged"] and counter["rounds"] == 250 and counter["combined_p"] < 0.001
    assert not flat["flagged"] and flat["rounds"] == 250
    signals = {s["name"]: s for s in counter["signals"]}
    assert signals["bet_vs_true_count"]["n"] == 250 and signals["bet_vs_true_count"]["p"] < 0.001
    assert signals["index_plays"]["n"] > 0 and all(set(s) == {"name", "statistic", "n", "p", "explanation"}
                                                  for s in counter["signals"])


def test_the_text_says_evidence_not_a_verdict_with_each_signals_n_and_p(journal: Path) -> None:
    status, out = _run("--db", str(journal))
    assert status == 0
    lines = out.splitlines()
    assert "evidence, not a verdict" in lines[0]
    assert any(line.startswith("player counter: 250 rounds") and line.endswith("FLAGGED") for line in lines)
    assert any(line.startswith("player flat: 250 rounds") and "FLAGGED" not in line for line in lines)
    assert any("bet_vs_true_count" in line and " n   250 " in line and " p " in line for line in lines)
    assert "box 1: 250 rounds, the same as player counter FLAGGED" in lines


def test_since_books_only_the_later_rounds(journal: Path) -> None:
    since = (T0 + timedelta(hours=1)).isoformat()
    status, out = _run("--db", str(journal), "--json", "--since", since)
    assert status == 0
    players = {p["subject"]: p for p in json.loads(out)["players"]}
    assert 0 < players["counter"]["rounds"] < 250
    status, out = _run("--db", str(journal), "--json", "--since", (T0 + timedelta(days=1)).isoformat())
    assert status == 0 and json.loads(out)["players"] == []


def test_no_journal_is_a_one_line_error(tmp_path: Path, capsys: Any) -> None:
    status, _ = _run("--db", str(tmp_path / "none.sqlite"))
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("tablectl protect players: ") and err.count("\n") == 1
