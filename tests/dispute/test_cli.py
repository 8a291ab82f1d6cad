"""`tablectl dispute`: the record written in each format, its options from the config, and each exit status.

Run in the test's process (`tablectl.cli.main`), the clock frozen: the CLI reads it once, for the export's time.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from freezegun import freeze_time

from controller.journal import key_beside
from tablectl.cli import main
from tests.dispute.conftest import DISPUTED, Played, copy_of

NOW = "2026-12-02T09:15:30+00:00"


def dispute(*argv: str) -> int:
    with freeze_time(NOW):
        return main(["dispute", *argv])


def test_the_json_record_with_the_configs_zone_camera_and_offset(played_journal: Played, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nname = "table-7"\ntime_zone = "America/New_York"\n'
                      f'[journal]\npath = "{played_journal.path}"\n'
                      f'[dispute]\ncamera = "NVR-2 channel 14"\nrecorder_offset_s = 2.5\n')
    out = tmp_path / "r.json"
    assert dispute("--config", str(config), "--round", str(DISPUTED), "--format", "json", "--out", str(out),
                   "--by", "ivan") == 0
    r = json.loads(out.read_text())
    assert r["table"] == "table-7" and r["round"] == DISPUTED
    assert r["camera"]["reference"] == "NVR-2 channel 14" and r["camera"]["recorder_offset_s"] == 2.5
    assert r["camera"]["time_zone"] == "America/New_York"
    card = r["cards"][0]  # 2026-11-30 20:01:22 UTC: 15:01:22 in New York, and the recorder 2.5 s ahead of it
    assert (card["at"]["utc"], card["at"]["local"], card["at"]["recorder"]) == (
        "2026-11-30T20:01:22Z", "2026-11-30T15:01:22-05:00", "2026-11-30 15:01:24.500")
    assert r["exported"]["by"] == "ivan" and r["exported"]["at"]["utc"] == "2026-12-02T09:15:30Z"
    assert "wrote the record of round 12" in capsys.readouterr().err


def test_without_a_zone_local_times_are_utc_and_the_record_says_so(played_journal: Played,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert dispute("--db", str(played_journal.path), "--round", str(DISPUTED), "--format", "json") == 0
    r = json.loads(capsys.readouterr().out)
    assert r["camera"]["time_zone"] == "UTC" and "no time zone is configured" in r["camera"]["note"]
    assert r["cards"][0]["at"]["local"] == "2026-11-30T20:01:22+00:00"
    assert r["table"] == "table-7" and r["exported"]["by"]  # the journal's name; the OS user


def test_the_html_and_the_pdf_are_written(played_journal: Played, tmp_path: Path) -> None:
    for fmt in ("html", "pdf"):
        out = tmp_path / f"r.{fmt}"
        assert dispute("--db", str(played_journal.path), "--round", str(DISPUTED), "--format", fmt, "--out",
                       str(out), "--copy", "surveillance") == 0
        data = out.read_bytes()
        assert data.startswith(b"%PDF-") if fmt == "pdf" else b"Record of a disputed round" in data


def test_a_journal_that_does_not_verify_is_exit_3_with_one_line(played_journal: Played, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_of(played_journal, tmp_path)
    db = sqlite3.connect(path)
    db.execute("UPDATE ledger SET body = replace(body, 'Ann', 'Bob') WHERE seq = 81")
    db.commit()
    db.close()
    out = tmp_path / "r.pdf"
    assert dispute("--db", str(path), "--round", str(DISPUTED), "--format", "pdf", "--out", str(out)) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ledger row 81 does not verify" in err
    assert not out.exists()


def test_no_journal_or_no_key_is_exit_2(played_journal: Played, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert dispute("--db", str(tmp_path / "none.sqlite"), "--round", "1") == 2
    assert "no journal at" in capsys.readouterr().err
    keyless = tmp_path / "keyless.sqlite"
    keyless.write_bytes(played_journal.path.read_bytes())
    assert not key_beside(keyless).exists()
    assert dispute("--db", str(keyless), "--round", "1") == 2
    assert "is verified only with the key that signed it" in capsys.readouterr().err
    assert dispute("--db", str(played_journal.path), "--round", "1", "--tz", "Mars/Olympus") == 2
    assert "not a time zone" in capsys.readouterr().err


def test_a_round_that_is_not_there_is_exit_1_with_the_rounds_there(played_journal: Played,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert dispute("--db", str(played_journal.path), "--round", "99") == 1
    assert capsys.readouterr().err.strip() == ("tablectl dispute: the journal holds no round 99: rounds 1 to 13 are in "
                                               "it")


def test_the_record_is_never_written_over_the_journal(played_journal: Played, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = copy_of(played_journal, tmp_path)
    before = path.read_bytes()
    assert dispute("--db", str(path), "--round", str(DISPUTED), "--out", str(path)) == 2
    assert "refusing to write over it" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_the_configs_time_zone_and_recorder_offset_are_checked() -> None:
    from tablectl.config import ConfigError, settings_from_dict

    with pytest.raises(ConfigError, match=r"table.time_zone: .*'Mars/Olympus' is not a time zone"):
        settings_from_dict({"table": {"time_zone": "Mars/Olympus"}})
    with pytest.raises(ConfigError, match="dispute.recorder_offset_s"):
        settings_from_dict({"dispute": {"recorder_offset_s": 100000}})
    settings = settings_from_dict({"table": {"time_zone": "Asia/Kolkata"}, "dispute": {"camera": "NVR-2"}})
    assert (settings.table.time_zone, settings.dispute.camera, settings.dispute.recorder_offset_s) == (
        "Asia/Kolkata", "NVR-2", 0.0)


def test_without_weasyprint_a_pdf_is_exit_2_saying_what_to_install(played_journal: Played, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "weasyprint", None)  # (import weasyprint fails, as without pango)
    out = tmp_path / "r.pdf"
    assert dispute("--db", str(played_journal.path), "--round", str(DISPUTED), "--format", "pdf", "--out",
                   str(out)) == 2
    assert "a PDF cannot be made on this machine" in capsys.readouterr().err and not out.exists()
    assert dispute("--db", str(played_journal.path), "--round", str(DISPUTED), "--out", str(tmp_path / "r.html")) == 0
