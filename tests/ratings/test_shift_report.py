"""The shift report a supervisor signs (issue 41, part 4), in English and Russian.

A demo shift (seated players, buy-ins, a fill and a credit, a call of the pit acknowledged) is played through the
journal's authority; the report made from the journal agrees with it (win/loss and hold with the inventory's
figures and the settlements, the ratings with `tablectl ratings export`, the alert with who acknowledged it and
how long it waited); a supervisor signs its digest (`sign_shift`, journalled), `tablectl shift verify` checks it
from the rows before the signature, and a signature of another digest (the history as someone else tells it)
fails. The page exists in both languages, every catalogue key in both, and no English text of the catalogue is
left on the Russian page; its PDF is one A4 page with every value whole.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from controller import events as ev
from controller.journal import JournalReader
from tablectl import ratings_cli, shift_cli
from tablectl.shift import LANGUAGES, catalogue, digest, make_report, to_html, to_pdf
from tests.ratings.test_inventory import _shift
from tests.support.journals import T0, key_for, open_authority

START, END = T0 - timedelta(minutes=1), T0 + timedelta(hours=4)


def _cli(module: Any, *argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    module.configure_parser(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = module.run(parser.parse_args(list(argv)))
    return status, out.getvalue()


def _report(db: Path) -> dict[str, Any]:
    reader = JournalReader(db, key_for(db))
    try:
        return make_report(reader, START, END, "bj-7")
    finally:
        reader.close()


@pytest.fixture(scope="module")
def shift(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("shift") / "bj-7.sqlite"
    _shift(db)
    authority = open_authority(db)
    at = authority.table.now
    assert at is not None
    authority.submit(ev.DealerIn(dealer="D-7", actor="supervisor:S-1"), at + timedelta(seconds=5))
    authority.submit(ev.CallPit(actor="dealer:D-7"), at + timedelta(seconds=10))
    [call] = [a for a in authority.table.alerts if a.kind.value == "call_pit"]
    authority.submit(ev.AcknowledgeAlert(alert_id=call.id, actor="supervisor:S-1"), at + timedelta(seconds=130))
    authority.journal.close()
    return db


def test_the_report_agrees_with_the_journal_and_its_signature_verifies(shift: Path, tmp_path: Path) -> None:
    report = _report(shift)
    [period] = report["inventory"]
    assert report["win"] == period["win"] == period["table_win"] == report["table_win"]
    assert report["drop"] == "1500" and report["fills"] == "2000" and report["credits"] == "500"
    assert report["hold_pct"] == round(100 * float(Decimal(report["win"])) / 1500, 2)
    assert report["rounds"] == 80
    assert [(s["player"], s["rounds"]) for s in report["ratings"]] == [("Olga", 80), ("Ivan", 80)]
    status, text = _cli(ratings_cli, "export", "--db", str(shift), "--format", "json", "--table", "bj-7")
    assert status == 0 and report["ratings"] == [json.loads(line) for line in text.splitlines()]
    [call] = [a for a in report["alerts"] if a["kind"] == "call_pit"]
    assert call["acknowledged_by"] == "supervisor:S-1" and call["waited_seconds"] == 120.0
    # the supervisor signs what they reviewed, after the shift's end
    authority = open_authority(shift)
    authority.submit(ev.SignShift(start=START, end=END, digest=digest(report), actor="supervisor:S-1"),
                     END + timedelta(minutes=5))
    authority.submit(ev.SignShift(start=START, end=END, digest="0" * 64, actor="supervisor:S-2"),
                     END + timedelta(minutes=6))
    authority.journal.close()
    status, text = _cli(shift_cli, "verify", "--db", str(shift), "--from", START.isoformat(), "--to", END.isoformat())
    assert status == 1  # the second signature is of another report
    assert "signed by supervisor:S-1" in text and text.count("DOES NOT MATCH") == 1
    status, text = _cli(shift_cli, "report", "--db", str(shift), "--from", START.isoformat(), "--to", END.isoformat(),
                        "--format", "json", "--table", "bj-7")
    data = json.loads(text)
    assert data["report"] == report and data["digest"] == digest(report)  # rows after the shift change nothing
    assert [s["verified"] for s in data["signatures"]] == [True, False]


def test_every_catalogue_key_is_in_both_languages() -> None:
    keys = [set(catalogue(language)) for language in LANGUAGES]
    assert all(k == keys[0] for k in keys)
    assert all(catalogue(language)[k].strip() for language in LANGUAGES for k in keys[0])


def test_the_russian_page_has_no_english_of_the_catalogue_and_writes_numbers_its_way(shift: Path) -> None:
    report = _report(shift)
    english, russian = to_html(report, "en"), to_html(report, "ru")
    assert catalogue("en")["title"] in english and catalogue("ru")["title"] in russian
    text = re.sub(r"<[^>]+>", " ", russian)
    left = [v for k, v in catalogue("en").items() if "{" not in v and v != catalogue("ru")[k] and v in text]
    assert left == []  # (an alert's message is the engine's words, in English: docs/pit.md says so)
    assert catalogue("ru")["kind.shuffle_due"] in russian
    drop = "1\u00a0500,00"  # 1,500.00 in Russian
    assert drop in russian and "1,500.00" in english


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pdf_is_one_a4_page_with_every_value_whole(shift: Path, language: str, tmp_path: Path) -> None:
    from tests.dispute.test_pdf_page import assert_fits_its_pages, values_of

    report = _report(shift)
    pdf = to_pdf(report, language)
    import pypdfium2 as pdfium

    assert len(pdfium.PdfDocument(pdf)) == 1
    values = [v for v in values_of(to_html(report, language)) if v]
    assert_fits_its_pages(pdf, values if len(values) > 100 else values * (101 // max(len(values), 1) + 1), tmp_path)


def test_the_shift_log_replays_from_the_state_kept_before_its_window_as_the_report_does_from_the_first_row(
        shift: Path) -> None:
    """The dashboard's shift log (`alert_log`, GET /api/shift/alerts) is asked for whenever the table's alerts
    change: its work is bounded by its window (issue 37), from the newest state kept before it, and it lists the
    alerts the report lists from the journal's first row, with the same ids."""
    from tablectl.shift import alert_log

    reader = JournalReader(shift, key_for(shift))
    try:
        called = next(e for e in reader.entries() if isinstance(e.event, ev.CallPit))
        start = called.received_at - timedelta(seconds=1)  # after the state kept at round 50
        whole = make_report(reader, start, END, "bj-7")["alerts"]
        asked: list[int] = []
        entries = reader.entries

        def counted(since: int = 0, since_time: Any = None) -> Any:
            asked.append(since)
            return entries(since, since_time)

        reader.entries = counted  # type: ignore[method-assign]
        logged = alert_log(reader, start, END)
    finally:
        reader.close()
    assert logged == whole and [a["kind"] for a in logged] == ["call_pit"]
    assert logged[0]["acknowledged_by"] == "supervisor:S-1" and logged[0]["waited_seconds"] == 120.0
    assert asked and asked[0] > 0, asked  # from a kept state, not the first row
