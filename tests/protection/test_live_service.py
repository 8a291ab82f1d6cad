"""Issue 25, Tests: a slug dealt through the real service on a virtual shoe raises the alarm mid-shoe,
journalled, and the report names the shoes and positions.

`tablectl demo --shuffle false-slug:20` runs the real service, the virtual shoe (its own process, on a
pseudo-terminal) shuffling its second shoe falsely, and the virtual dealer. The table raises the
`slug` alarm while the slug is dealt (rounds of the same shoe follow it); the journal, replayed,
raises it at the same place; `tablectl protect report` names both shoes and the positions.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.deadlines import scaled
from tests.support.harness import tablectl

SLUG_DEMO = ("demo", "--rounds", "50", "--pace", "fast", "--seed", "4", "--shuffle", "false-slug:20")


def test_a_false_shuffle_rings_the_alarm_while_the_slug_is_dealt(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite"
    out = tablectl(*SLUG_DEMO, "--db", str(db), timeout=scaled(180))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    lines = out.stdout.strip().splitlines()
    # (every shoe after the first is shuffled falsely: 50 rounds may reach a third shoe and its slug too)
    assert set(json.loads(lines[-1])["alerts"]) == {"slug"}
    live = next(line for line in lines if line.startswith("alert: ALARM") and "possible slug" in line)

    export = tablectl("journal", "export", "--db", str(db))
    session = tmp_path / "session.jsonl"
    session.write_text(export.stdout)
    replayed = tablectl("replay", str(session)).stdout.splitlines()
    at = next(i for i, line in enumerate(replayed) if "alarm: possible slug" in line)
    assert replayed[at].split("alarm: ", 1)[1] in live  # the same alarm, from the journal alone
    shoe = replayed[at + 1].split("shoe ", 1)[1]
    later = [line for line in replayed[at + 1:] if line.startswith("Round ")]
    assert len(later) > 1 and all(line.endswith(f"shoe {shoe}") for line in later[:2])  # mid-shoe, not after it

    report = tablectl("protect", "report", "--db", str(db), "--json")
    assert report.returncode == 0, report.stderr
    shoes = json.loads(report.stdout)["shoes"]
    [slugged] = [s for s in shoes if s["shoe"] == shoe]
    assert shoes[0]["slug"] is None and shoes.index(slugged) == 1
    first = slugged["slug"]["alarms"][0]
    assert first["key"] == "rank and suit" and first["at_card"] == first["start"] + 6
    assert f"cards {first['start']}-{first['at_card']} of this shoe" in live
    assert f"from its card {first['previous_start']}" in live


def test_the_demo_refuses_a_shuffle_it_does_not_know() -> None:
    out = tablectl("demo", "--shuffle", "sloppy")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "false-slug:N" in out.stderr


def test_the_readmes_slug_demo_reaches_its_slug(tmp_path: Path) -> None:
    """Issue 38: `./scripts/demo --shuffle false-slug:20` (here at the fast pace: the same rounds) plays, by default,
    until the shoe the virtual shoe shuffled falsely is dealt out and the next is shuffled in, so the slug alarm it
    promises rings whatever the seed puts the slug and the cut card (30 rounds did not always reach it)."""
    out = tablectl("demo", "--pace", "fast", "--shuffle", "false-slug:20", "--db", str(tmp_path / "demo.sqlite"),
                   timeout=scaled(180))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    lines = out.stdout.strip().splitlines()
    assert any(line.startswith("alert: ALARM") and "possible slug" in line for line in lines), lines[-5:]
    summary = json.loads(lines[-1])
    assert "slug" in summary["alerts"] and summary["rounds"] > 30  # past the old default, to the third shoe
