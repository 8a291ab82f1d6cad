"""Issue 38: recorded shoes and session files as keyed journals the offline tools read, marked imported; and the
protection reports asked of a part of the journal (``--until``, ``--rounds``).

The shoes come from the independent generator (tests/support/casino.py): a fair shoe, then one with a 20-card slug
of its discards gathered from first base and turned over, then a fair one. Imported as a recorded shoe sequence,
`protect report` finds the slug in the second shoe and says the journal is imported, as do `players`, `dealers`,
`replay` and `dispute`; the service refuses to run on it; a bad line stops the import with its number and leaves
nothing behind.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from controller import events as ev
from controller.authority import ImportedJournal
from controller.engine import IllegalAction, Table
from controller.journal import JournalReader, key_beside
from controller.replay import replay_lines
from controller.rules import build_rules
from tablectl import journal_cli, protect_cli
from tests.support import casino
from tests.support.journals import T0, open_authority, play_rounds


def _cli(module: Any, *argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    module.configure_parser(parser)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = module.run(parser.parse_args(list(argv)))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def shoes() -> tuple[list[casino.PlayedShoe], int]:
    """Three played shoes, the second with a slug; and the slug's first card's place in the second shoe (from 0)."""
    rng = random.Random(38)
    how = casino.Gathering(from_third_base=False)
    t = casino.trial("slug:20", rng, how=how, slug_turned=True, boxes=5)
    assert t.previous_shoe is not None and t.new_shoe is not None and t.slug_at is not None
    third = casino.play(casino.new_shoe(rng), rng, cut_card=210, boxes=(2, 4))
    return [t.previous_shoe, t.new_shoe, third], t.slug_at


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory, shoes: tuple[list[casino.PlayedShoe], int]) -> Path:
    folder = tmp_path_factory.mktemp("import")
    source = folder / "recorded.jsonl"
    source.write_text("\n".join(casino.recorded_shoes(shoes[0], players={1: "ann"})) + "\n")
    db = folder / "bj-7.sqlite"
    status, out, err = _cli(journal_cli, "import", str(source), "--db", str(db), "--said", "table 7, Acme recorder")
    assert status == 0, err
    assert "3 shoes" in out and "marked imported" in out
    return db


def test_a_recorded_shoe_sequence_becomes_a_journal_the_report_reads_and_says_imported(
        imported: Path, shoes: tuple[list[casino.PlayedShoe], int]) -> None:
    status, out, err = _cli(protect_cli, "report", "--db", str(imported), "--json")
    assert status == 0, err
    report = json.loads(out)
    assert report["imported"]["format"] == "recorded-shoes" and "recorded.jsonl: table 7, Acme recorder" in \
        report["imported"]["source"]
    assert [s["shoe"] for s in report["shoes"]] == ["S1", "S2", "S3"]
    [alarm] = report["shoes"][1]["slug"]["alarms"][:1]
    assert alarm["order"] == "discards first-base-first, turned over" and alarm["turned"] is True
    assert alarm["at_card"] == shoes[1] + 7  # on the slug's 7th card, counted from the shoe's first
    assert not report["shoes"][2]["slug"]["alarms"]
    status, text, _ = _cli(protect_cli, "report", "--db", str(imported))
    assert text.splitlines()[0].startswith("IMPORTED: not a live table's record")
    # the journal verifies with the key made beside it
    with JournalReader(imported, journal_cli.key_for(str(imported), None, "test")) as reader:
        assert reader.verify().rows > 100


def test_every_offline_tool_says_the_journal_is_imported(imported: Path, tmp_path: Path) -> None:
    for tool in ("players", "dealers"):
        status, out, err = _cli(protect_cli, tool, "--db", str(imported), "--json")
        assert status == 0, err
        assert json.loads(out)["imported"]["sha256"]
    status, out, _ = _cli(protect_cli, "players", "--db", str(imported))
    assert out.startswith("IMPORTED:") and "player ann" in out
    session = tmp_path / "s.jsonl"
    assert _cli(journal_cli, "export", "--db", str(imported), "--out", str(session))[0] == 0
    doc = replay_lines(session.read_text().splitlines()).as_dict()
    assert doc["imported"]["format"] == "recorded-shoes" and len(doc["rounds"]) > 30
    from tablectl import dispute_cli

    record = tmp_path / "round-3.json"
    status, out, err = _cli(dispute_cli, "--db", str(imported), "--round", "3", "--format", "json", "--out", str(record))
    assert status == 0, err
    assert json.loads(record.read_text())["imported"]["source"].startswith("recorded.jsonl") and "IMPORTED" in err
    html = tmp_path / "round-3.html"
    assert _cli(dispute_cli, "--db", str(imported), "--round", "3", "--out", str(html))[0] == 0
    assert "IMPORTED: this journal is not a live table's record" in html.read_text()


def test_the_table_never_runs_on_an_imported_journal(imported: Path, tmp_path: Path) -> None:
    """The service refuses it (exit 3, the journal is refused), and a live table's own journal is never marked."""
    from tablectl.config import settings_from_dict
    from tablectl.service import TableService

    settings = settings_from_dict({"table": {"name": "t"}, "shoe": {"port": str(tmp_path / "shoe")},
                                   "journal": {"path": str(imported), "key_file": str(key_beside(imported))}})
    with pytest.raises(ImportedJournal, match="journal import"):
        TableService(settings)
    table = Table(build_rules("ru-standard"))
    table.apply(ev.Shuffle(shoe_id="S1", at=T0))
    with pytest.raises(IllegalAction, match="imported"):
        table.apply(ev.Imported(source="x", format="session", sha256="0" * 64, at=T0))
    from tablectl.api.actions import action_events
    from pydantic import TypeAdapter, ValidationError

    with pytest.raises(ValidationError):  # a person's action can never be an import mark
        TypeAdapter(action_events()).validate_python({"type": "imported", "source": "x", "format": "session",
                                                  "sha256": "0" * 64})


def test_a_session_file_imports_to_the_same_rounds(tmp_path: Path) -> None:
    live = open_authority(tmp_path / "live.sqlite")
    play_rounds(live, 6)
    live.journal.close()
    session = tmp_path / "live.jsonl"
    assert _cli(journal_cli, "export", "--db", str(tmp_path / "live.sqlite"), "--out", str(session))[0] == 0
    db = tmp_path / "copy.sqlite"
    status, out, err = _cli(journal_cli, "import", str(session), "--db", str(db))
    assert status == 0, err and "imported session" in out
    again = tmp_path / "again.jsonl"
    assert _cli(journal_cli, "export", "--db", str(db), "--out", str(again))[0] == 0
    first, second = replay_lines(session.read_text().splitlines()), replay_lines(again.read_text().splitlines())
    assert first.rounds == second.rounds and second.as_dict()["imported"]["format"] == "session"
    # a session exported from an import is refused: its provenance would be two lines
    status, _, err = _cli(journal_cli, "import", str(again), "--db", str(tmp_path / "twice.sqlite"))
    assert status == 2 and "itself an import" in err and not (tmp_path / "twice.sqlite").exists()


def test_a_bad_line_stops_the_import_by_its_number_and_leaves_nothing(tmp_path: Path,
                                                                      shoes: tuple[list[casino.PlayedShoe], int]) -> None:
    lines = casino.recorded_shoes(shoes[0][:2])
    shoe = json.loads(lines[2])
    shoe["rounds"][3]["boxes"][0]["hands"][0].append("2C")  # a card the shoe's order never gave that hand
    lines[2] = json.dumps(shoe)
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join(lines) + "\n")
    db = tmp_path / "bad.sqlite"
    status, _, err = _cli(journal_cli, "import", str(source), "--db", str(db))
    assert status == 2 and "line 3:" in err and "round 4" in err, err
    assert list(tmp_path.iterdir()) == [source]  # no journal, no key, no half-made file
    existing = tmp_path / "existing.sqlite"
    existing.write_bytes(b"")
    status, _, err = _cli(journal_cli, "import", str(source), "--db", str(existing))
    assert status == 2 and "exists" in err


def test_the_report_asked_of_a_part_of_the_journal(imported: Path, shoes: tuple[list[casino.PlayedShoe], int]) -> None:
    """``--rounds -B``: the journal as it stood when round B settled ("flagged by round B?"); ``--rounds A-B`` reports
    the shoes that dealt those rounds; ``--until`` cuts the journal at a time; a bad range is one line, exit 2."""
    first_shoe_rounds = len(shoes[0][0].rounds)
    status, out, _ = _cli(protect_cli, "report", "--db", str(imported), "--json", "--rounds", f"-{first_shoe_rounds + 1}")
    report = json.loads(out)
    assert [s["shoe"] for s in report["shoes"]] == ["S1", "S2"]  # the second shoe, one round into it
    assert report["shoes"][1]["rounds"] == 1 and report["shoes"][1]["slug"]["alarms"] == []
    status, out, _ = _cli(protect_cli, "report", "--db", str(imported), "--json", "--from-round",
                          str(first_shoe_rounds + 1), "--to-round", str(first_shoe_rounds + 2))
    assert [s["shoe"] for s in json.loads(out)["shoes"]] == ["S2"]
    status, out, _ = _cli(protect_cli, "report", "--db", str(imported), "--json", "--until", "2026-12-01T20:05:00Z")
    assert json.loads(out)["shoes"][0]["rounds"] == 4  # rounds a minute apart from 20:01: four before 20:05
    status, out, _ = _cli(protect_cli, "players", "--db", str(imported), "--json", "--rounds", "1-5")
    booked = {p["subject"]: p["rounds"] for p in json.loads(out)["players"]}
    assert max(booked.values()) == 5 and "ann" not in booked  # ann sat at box 1 from the second shoe on
    status, _, err = _cli(protect_cli, "dealers", "--db", str(imported), "--from-round", "9", "--to-round", "3")
    assert status == 2 and "comes after" in err
