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
from decimal import Decimal
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.authority import TableAuthority
from controller.cards import Card, parse_card
from controller.phase import READY, Phase
from tablectl import protect_cli
from tests.support.journals import T0, open_authority

RANKS, SUITS = "A23456789TJQK", "SHDC"
DEALT_PER_SHOE = 180


def _shoe(rng: random.Random) -> list[Card]:
    cards = [parse_card(r + s) for r in RANKS for s in SUITS] * 6
    rng.shuffle(cards)
    return cards


def _deal_shoe(authority: TableAuthority, shoe_id: str, cards: list[Card], start: int) -> list[Card]:
    """Shuffle ``cards`` in and play rounds on box 1 (the box stands) until about 180 cards are out."""
    at = T0 + timedelta(minutes=start)
    t = authority.table
    authority.submit(ev.Shuffle(shoe_id=shoe_id, at=at), at)
    out: list[Card] = []
    while len(out) < DEALT_PER_SHOE or t.round is not None:
        at += timedelta(seconds=5)
        if t.phase in READY and t.round is None and not t.pending and not t.burn_left:
            authority.submit(ev.PlaceBet(box=1, amount=Decimal(10), at=at), at)
        elif t.phase is Phase.INSURANCE:
            authority.submit(ev.CloseInsurance(at=at), at)
        elif t.phase in (Phase.PLAYERS, Phase.SURRENDER) and t.next_card() is None or (
                t.phase is Phase.PLAYERS and t.round is not None and t.round.hand.total >= 12):
            authority.submit(ev.Stand(at=at), at)
        else:
            card = cards[len(out)]
            authority.submit(ev.CardDrawn(card=card, position=len(out) + 1, at=at), at)
            out.append(card)
        assert t.phase is not Phase.ATTENTION, t.lock_reasons()
    return out


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
    first = _deal_shoe(authority, "S1", _shoe(rng), 0)
    second = _shoe(rng)
    slug = first[60:80]  # 20 cards the dealer left in the first shoe's order
    rest = [c for c in second]
    for card in slug:
        rest.remove(card)
    second = rest[:40] + slug + rest[40:]  # the slug comes out from the shoe's 41st card
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
    for n in range(3):
        _deal_shoe(authority, f"S{n + 1}", _shoe(rng), n * 60)
    authority.journal.close()
    status, report = _report(tmp_path / "t.sqlite")
    assert status == 0 and [s["shoe"] for s in report["shoes"]] == ["S1", "S2", "S3"]
    assert all(s["slug"] is None or s["slug"]["alarms"] == [] for s in report["shoes"])
    assert all(not s["quality"]["weak"] for s in report["shoes"])
    assert report["preferential"] and all(0 <= a["p"] <= 1 for a in report["preferential"])


def test_no_journal_is_a_one_line_error(tmp_path: Path, capsys: Any) -> None:
    parser = argparse.ArgumentParser()
    protect_cli.configure_parser(parser)
    status = protect_cli.run(parser.parse_args(["report", "--db", str(tmp_path / "none.sqlite")]))
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("tablectl protect report: ") and err.count("\n") == 1
