"""`tablectl protect dealers`: each dealer's pace, corrections and shoes, per shift (issue 26, part 1).

Two dealers deal a shoe each through the real engine and journal, at one event every 5 s. The report,
from the verified journal alone, books each round to the dealer who dealt it, leaves the shuffle and an
idle silence out of the dealing time, counts a refused action and a void to the dealer on duty, and
gives each dealer the shuffle score of the shoe they shuffled in.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from controller import events as ev
from controller.engine import IllegalAction
from tablectl import protect_cli
from tests.support.journals import T0, open_authority
from tests.support.shoes_dealt import deal_shoe, fresh_shoe


def _dealers(db: Path, *extra: str) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    protect_cli.configure_parser(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = protect_cli.run(parser.parse_args(["dealers", "--db", str(db), "--json", *extra]))
    assert status == 0
    return json.loads(out.getvalue())


def test_each_dealer_gets_their_rounds_pace_corrections_and_shoe(tmp_path: Path) -> None:
    rng = random.Random(26)
    authority = open_authority(tmp_path / "table-3.sqlite")
    submit = lambda e: authority.submit(e, e.at)  # noqa: E731 (the writer's path, as the service takes it)
    submit(ev.DealerIn(dealer="D-1", at=T0))
    shoe_1 = fresh_shoe(rng)
    dealt = deal_shoe(authority.table, submit, "S1", shoe_1, T0 + timedelta(seconds=1))
    rounds_1 = authority.table.rounds_played
    at = authority.table.now
    assert at is not None
    # An idle table: 20 minutes with nothing journalled, then a round that is voided after its first card.
    submit(ev.PlaceBet(box=1, amount=Decimal(10), at=at + timedelta(minutes=20)))
    submit(ev.CardDrawn(card=shoe_1[len(dealt)], at=at + timedelta(minutes=20, seconds=3)))
    submit(ev.VoidRound(at=at + timedelta(minutes=20, seconds=5)))
    submit(ev.CutCardOut(at=at + timedelta(minutes=20, seconds=10)))  # a shuffle is due from here
    submit(ev.DealerIn(dealer="D-2", at=at + timedelta(minutes=21)))
    with pytest.raises(IllegalAction):  # refused: 1 is below the table's minimum
        submit(ev.PlaceBet(box=1, amount=Decimal(1), at=at + timedelta(minutes=22)))
    start_2 = at + timedelta(minutes=30, seconds=10)  # the shuffle: 10 minutes after it was due
    deal_shoe(authority.table, submit, "S2", fresh_shoe(rng), start_2)
    rounds_2 = authority.table.rounds_played - rounds_1 - 1  # less the voided one
    authority.journal.close()

    report = _dealers(tmp_path / "table-3.sqlite")
    assert report["table"] == "table-3"
    d1, d2 = report["dealers"]  # by dealer, one shift each (the times fall in 16-24 UTC)
    assert (d1["dealer"], d2["dealer"]) == ("D-1", "D-2") and d1["shift"] == d2["shift"] == "2026-11-30 16-24"
    assert (d1["rounds"], d1["voids"], d1["refused"]) == (rounds_1, 1, 0)
    assert (d2["rounds"], d2["voids"], d2["refused"]) == (rounds_2, 0, 1)
    # D-2 took over while the shuffle was due: the 9 min 10 s until the shuffle are shuffle time, not dealing.
    assert d2["shuffle_minutes"] == pytest.approx(9 + 10 / 60, abs=0.05)
    assert d1["idle_minutes"] == pytest.approx(20, abs=0.05)
    # Dealing time is what is left: every 5 s step of the shoe (one box, one hand and the dealer's a round).
    assert d1["hands"] == 2 * rounds_1 and d1["boxes_per_round"] == 1.0
    assert d1["published_rounds_per_hour"] == pytest.approx(418 / 2, abs=0.1)
    assert d1["rounds_per_hour"] == pytest.approx(rounds_1 / d1["dealing_hours"], rel=0.01)
    assert (d1["shoes"], d2["shoes"]) == (1, 1) and d1["weak_shoes"] == d2["weak_shoes"] == 0


def test_nobody_signed_in_is_booked_as_such_and_since_counts_from_then(tmp_path: Path) -> None:
    rng = random.Random(3)
    authority = open_authority(tmp_path / "t.sqlite")
    submit = lambda e: authority.submit(e, e.at)  # noqa: E731
    deal_shoe(authority.table, submit, "S1", fresh_shoe(rng), T0)
    at = authority.table.now
    assert at is not None
    submit(ev.DealerIn(dealer="D-9", at=at + timedelta(seconds=5)))
    deal_shoe(authority.table, submit, "S2", fresh_shoe(rng), at + timedelta(seconds=10))
    authority.journal.close()

    everyone = {d["dealer"] for d in _dealers(tmp_path / "t.sqlite")["dealers"]}
    assert everyone == {"(no dealer signed in)", "D-9"}
    since = (at + timedelta(seconds=5)).isoformat()
    assert [d["dealer"] for d in _dealers(tmp_path / "t.sqlite", "--since", since)["dealers"]] == ["D-9"]
