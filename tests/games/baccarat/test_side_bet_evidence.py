"""`tablectl protect players` at a baccarat table: each player's Dragon 7 bets when its exact expectation was positive
against the rest, with Fisher's exact test (one-sided), in the players' report and its one-line verdict.

Four one-deck EZ Baccarat shoes (seeded shuffles: one deck swings the Dragon 7 positive in about a coup in four) through the
real engine and journal. "ap" bets the Dragon 7 big (100) exactly when it is positive (computed as surveillance
does, from the cards left) and small (5) otherwise; "fan" alternates 5 and 100 whatever the shoe. The command, from
the journal alone, flags ap and not fan.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from controller import events as ev
from controller.authority import TableAuthority
from controller.cards import ALL_CARDS
from controller.phase import Phase
from controller.rules import build_rules
from games.baccarat.exact import expectations
from tablectl import protect_cli
from tests.support.journals import T0, key_for

SHOES = 4


def _run(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    protect_cli.configure_parser(parser)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = protect_cli.run(parser.parse_args(["players", *argv]))
    return status, out.getvalue()


@dataclass
class Journal:
    db: Path
    coups: int  # coups dealt (each with one Dragon 7 bet by each player)
    positive: int  # of them, those whose Dragon 7 was positive before the first card


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Journal:
    db = tmp_path_factory.mktemp("baccarat-players") / "table-b.sqlite"
    rules = build_rules("ez-baccarat", {"decks": 1, "burn": "none"})
    authority = TableAuthority.open(db, key_for(db), rules, 50, now=T0)
    clock = [T0]

    def submit(event: ev.Event) -> None:
        clock[0] += timedelta(seconds=2)
        authority.submit(event, clock[0])

    table = authority.table
    coups = positives = 0
    with authority.journal.transaction():
        for seed in range(SHOES):
            submit(ev.Shuffle(shoe_id=f"s{seed}"))
            cards = list(ALL_CARDS)
            random.Random(seed).shuffle(cards)
            deck = iter(cards)
            while table.phase is not Phase.WAITING_FOR_SHUFFLE:
                assert table.shoe is not None
                if table.shoe.size - table.shoe.dealt < 14 and not table.shoe.cut_card_out:
                    submit(ev.CutCardOut())  # the last coup follows (and one more, as the rules say)
                positive = expectations(table.shoe.remaining_by_rank(), table.rules)["dragon7"] > 0
                submit(ev.PlaceBet(box=1, amount=Decimal(100 if positive else 5), spot="dragon7", player="ap"))
                submit(ev.PlaceBet(box=2, amount=Decimal(100 if coups % 2 else 5), spot="dragon7", player="fan"))
                coups += 1
                positives += positive
                while True:
                    submit(ev.CardDrawn(card=next(deck)))
                    if table.round is None:
                        break
    authority.journal.close()
    return Journal(db, coups, positives)


def test_the_side_bettor_at_the_positive_coups_is_flagged_and_the_other_is_not(journal: Path) -> None:
    status, out = _run("--db", str(journal.db), "--json")
    assert status == 0, out
    players = {p["subject"]: p for p in json.loads(out)["players"]}
    ap = {s["name"]: s for s in players["ap"]["signals"]}["side bet dragon7"]
    fan = {s["name"]: s for s in players["fan"]["signals"]}["side bet dragon7"]
    n, k = journal.coups, journal.positive
    assert n > 30 and 5 < k < n - 5
    assert ap["n"] == fan["n"] == n  # every coup of the four shoes, each with one Dragon 7 bet per player
    assert ap["statistic"] == k and ap["p"] < 1e-6 and players["ap"]["flagged"]
    assert fan["p"] > 0.05 and not players["fan"]["flagged"]
    assert f"at a positive expectation: {k} bet(s), median 100; otherwise {n - k}, median 5" in ap["explanation"]
    assert "Fisher exact, one-sided" in ap["explanation"]


def test_the_text_gives_the_verdict_first_then_the_side_bet_line(journal: Path) -> None:
    status, out = _run("--db", str(journal.db))
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("In one line: ") and ": ap " in lines[0] + " " and "fan" not in lines[0]
    ap = lines.index(next(x for x in lines if x.startswith("player ap:")))
    assert lines[ap].endswith("FLAGGED")
    line = next(x for x in lines[ap:] if x.strip().startswith("side bet dragon7"))
    assert f" n {journal.coups:5} " in line and f"{journal.positive} bet(s), median 100" in line
