"""`tablectl protect report` reads a table's journal and names a slug's shoe and positions (issue 25).

Two shoes are dealt through the real engine and journal: the second keeps a block of the first's dealt
order (a false shuffle). The report, from the verified journal alone, raises the slug alarm on the card
that makes the run reach the threshold, and names where the run starts in both shoes; fair shoes raise
nothing, and a journal that is not there is a one-line error with exit 2.
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

from controller.authority import TableAuthority
from controller.rules import build_rules
from simulators.exact import analyse
from controller.cards import Card
from tablectl import protect_cli
from tests.support.journals import T0, open_authority
from tests.support.shoes_dealt import deal_shoe, fresh_shoe, with_slug



def _deal_shoe(authority: TableAuthority, shoe_id: str, cards: list[Card], start: int) -> list[Card]:
    """Shuffle ``cards`` in and play rounds on box 1 through the authority (journalled) until about 180 cards are out."""
    return deal_shoe(authority.table, lambda e: authority.submit(e, e.at), shoe_id, cards,
                     T0 + timedelta(minutes=start))


def _report(db: Path) -> tuple[int, dict[str, Any]]:
    parser = argparse.ArgumentParser()
    protect_cli.configure_parser(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = protect_cli.run(parser.parse_args(["report", "--db", str(db), "--json"]))
    return status, json.loads(out.getvalue()) if status == 0 else {}


def test_a_slug_is_named_with_its_shoe_and_positions(tmp_path: Path) -> None:
    rng = random.Random(25)
    authority = open_authority(tmp_path / "table-7.sqlite")
    first = _deal_shoe(authority, "S1", fresh_shoe(rng), 0)
    second = fresh_shoe(rng)
    second = with_slug(second, first, 60, 20, at=40)  # 20 cards left in the first shoe's order, from card 41
    _deal_shoe(authority, "S2", second, 60)
    authority.journal.close()

    status, report = _report(tmp_path / "table-7.sqlite")
    assert status == 0
    shoes = {s["shoe"]: s for s in report["shoes"]}
    assert shoes["S1"]["slug"] is None  # the table's first shoe: nothing to compare with
    alarms = {a["key"]: a for a in shoes["S2"]["slug"]["alarms"] if a["reference"] == "dealt"}
    suited = alarms["rank and suit"]
    assert suited["start"] <= 41 and suited["previous_start"] <= 61  # where the run starts, in both shoes
    assert suited["at_card"] == suited["start"] + 6 < 41 + 10  # raised on its 7th card, before the slug's 10th
    assert suited["at_card"] - suited["start"] + 1 == suited["length"] == 7


def test_fair_shoes_raise_nothing(tmp_path: Path) -> None:
    rng = random.Random(7)
    authority = open_authority(tmp_path / "t.sqlite")
    dealt = [_deal_shoe(authority, f"S{n + 1}", fresh_shoe(rng), n * 60) for n in range(3)]
    authority.journal.close()
    status, report = _report(tmp_path / "t.sqlite")
    assert status == 0 and [s["shoe"] for s in report["shoes"]] == ["S1", "S2", "S3"]
    assert all(s["slug"] is None or s["slug"]["alarms"] == [] for s in report["shoes"])
    assert all(not s["quality"]["weak"] for s in report["shoes"])
    assert report["preferential"] and all(0 <= a["p"] <= 1 for a in report["preferential"])
    # Issue 27: the player's exact edge of the round that would have come next when each shoe was shuffled away.
    for shoe, cards in zip(report["shoes"][:2], dealt[:2]):
        left = [24] * 9 + [96]
        for card in cards:
            left[min(card.value, 10) - 1] -= 1
        assert shoe["exact_edge_at_end_pct"] == pytest.approx(100 * analyse(build_rules("ru-standard"), left).ev,
                                                             abs=1e-4)
    assert report["shoes"][2]["exact_edge_at_end_pct"] is None  # the shoe in play: not shuffled away


def test_no_journal_is_a_one_line_error(tmp_path: Path, capsys: Any) -> None:
    parser = argparse.ArgumentParser()
    protect_cli.configure_parser(parser)
    status = protect_cli.run(parser.parse_args(["report", "--db", str(tmp_path / "none.sqlite")]))
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("tablectl protect report: ") and err.count("\n") == 1
