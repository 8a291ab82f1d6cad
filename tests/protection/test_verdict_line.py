"""`protect report` and `protect players` open with one line that says what was found (issue 41), before the
statistics: a slug's shoe named with what to do, or that nothing was found; the players flagged, or nobody."""

from __future__ import annotations

import argparse
import contextlib
import io
import random
from datetime import timedelta
from pathlib import Path

from tablectl import protect_cli
from tests.support.journals import T0, open_authority, play_rounds
from tests.support.shoes_dealt import deal_shoe, fresh_shoe, with_slug


def _text(*argv: str) -> list[str]:
    parser = argparse.ArgumentParser()
    protect_cli.configure_parser(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert protect_cli.run(parser.parse_args(list(argv))) == 0
    return out.getvalue().splitlines()


def _journal(db: Path, slug: bool) -> None:
    rng = random.Random(25)
    authority = open_authority(db)
    submit = lambda e: authority.submit(e, e.at)  # noqa: E731
    first = deal_shoe(authority.table, submit, "S1", fresh_shoe(rng), T0)
    second = fresh_shoe(rng)
    if slug:
        second = with_slug(second, first, 60, 20, at=40)
    deal_shoe(authority.table, submit, "S2", second, T0 + timedelta(hours=1))
    authority.journal.close()


def test_the_report_says_first_what_it_found(tmp_path: Path) -> None:
    _journal(tmp_path / "slug.sqlite", slug=True)
    first = _text("report", "--db", str(tmp_path / "slug.sqlite"))[0]
    assert first.startswith("In one line: POSSIBLE FALSE SHUFFLE (slug alarm) in shoe(s) S2"), first
    _journal(tmp_path / "fair.sqlite", slug=False)
    first = _text("report", "--db", str(tmp_path / "fair.sqlite"))[0]
    assert first == "In one line: nothing found in 2 shoe(s): no slug, no weak shuffle, no preferential shuffling"


def test_the_players_evidence_says_first_whether_anyone_is_flagged(tmp_path: Path) -> None:
    authority = open_authority(tmp_path / "t.sqlite")
    play_rounds(authority, 5)
    authority.journal.close()
    first = _text("players", "--db", str(tmp_path / "t.sqlite"))[0]
    assert first.startswith("In one line: nobody flagged among 1 players and boxes"), first
    assert "evidence, not a verdict" in first
