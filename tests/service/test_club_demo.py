"""`tablectl demo --rules club-21` and `--rules club-21-36` play end to end: the virtual shoe with
the game's packs, the service, the virtual croupier (in club-21-36 with the pit's key for the
bank), and a journal that replays to the same rounds."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from tests.support.harness import tablectl

from controller.replay import replay_lines


# club-21-36: enough rounds of duels for its 36-card pack to run out in a round and be reloaded there
@pytest.mark.parametrize("profile, rounds", [("club-21", 6), ("club-21-36", 12)])
def test_the_club_demo_plays_its_rounds_and_the_journal_replays(tmp_path, profile, rounds):
    db = tmp_path / "demo.sqlite"
    out = tablectl("demo", "--rules", profile, "--rounds", str(rounds), "--pace", "fast", "--seed", "2",
                   "--db", str(db), timeout=240)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stdout.strip().splitlines()
    assert f"table '{profile}'" in lines[0]
    played = [line for line in lines if line.startswith("round ")]
    # club-21-36 plays a duel per box, each against its own banker cards ("box 2 9H 9S vs banker TC QD (20)")
    banker = " vs banker " if profile == "club-21-36" else ": banker "
    assert len(played) == rounds and all(banker in line for line in played), played
    summary = json.loads(lines[-1])
    assert summary["rounds"] == rounds and set(summary["alerts"]) <= {"shuffle_due"}, summary
    export = tablectl("journal", "export", "--db", str(db))
    replayed = replay_lines(export.stdout.splitlines())
    assert replayed.error is None and len(replayed.rounds) == rounds
    assert {r["game"] for r in replayed.rounds} == {profile}
    assert str(-sum(Decimal(r["net"]) for r in replayed.rounds)) == summary["house_result"]
    if profile == "club-21-36":  # the pit's bank paid and took every duel
        assert all(Decimal(r["bank"]["after"]) == Decimal(r["bank"]["before"]) - Decimal(r["net"])
                   for r in replayed.rounds)
        shuffles = [line for line in export.stdout.splitlines() if '"type":"shuffle"' in line]
        assert len(shuffles) >= 2  # the pack ran out and was loaded again
