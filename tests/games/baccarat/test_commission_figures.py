"""The commission each player paid and still owes, in the shift's figures (`tablectl.figures.figures`, what
`GET /api/figures` serves), from a real journal: taken per coup, kept in the commission box until collected, and
none at all at EZ Baccarat."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from controller import events as ev
from controller.authority import TableAuthority
from controller.cards import parse_card
from controller.journal import JournalReader
from controller.rules import build_rules
from games.baccarat.events import CollectCommission
from tablectl.figures import figures
from tests.support.journals import T0, key_for

BANKER_NATURAL = "8S 9H 8D 9C"  # Player 6, Banker 8: every Banker bet wins


def _players(db: Path, profile: str, options: dict[str, Any], steps: list[Any]) -> dict[str, dict[str, Any]]:
    authority = TableAuthority.open(db, key_for(db), build_rules(profile, {"burn": "none", **options}), 50, now=T0)
    clock = [T0]

    def submit(event: ev.Event) -> None:
        clock[0] += timedelta(seconds=5)
        authority.submit(event, clock[0])

    submit(ev.Shuffle(shoe_id="s1"))
    for step in steps:
        if isinstance(step, str):
            for code in step.split():
                submit(ev.CardDrawn(card=parse_card(code)))
        else:
            submit(step)
    authority.journal.close()
    with JournalReader(db, key_for(db)) as reader:
        shift = figures(reader, clock[0] + timedelta(minutes=1), 8)
    return {p["player"]: p for p in shift["players"]}


def _bet(box: int, player: str, amount: int, spot: str = "banker") -> ev.PlaceBet:
    return ev.PlaceBet(box=box, amount=Decimal(amount), spot=spot, player=player)


def test_commission_kept_in_the_box_is_owed_until_collected_then_paid(tmp_path: Path) -> None:
    players = _players(tmp_path / "t.sqlite", "punto-banco", {"commission_collect": "end_of_shoe"}, [
        _bet(1, "ann", 100), _bet(2, "bob", 30), BANKER_NATURAL,  # ann owes 5, bob 1.5
        _bet(1, "ann", 100), _bet(2, "bob", 30, "player"), BANKER_NATURAL,  # ann owes 10; bob's Player bet lost
        CollectCommission(box=1, player="ann"),
    ])
    assert players["ann"]["commission_paid"] == "10" and players["ann"]["commission_owed"] == "0"
    assert players["bob"]["commission_paid"] == "0" and players["bob"]["commission_owed"] == "1.5"


def test_commission_taken_per_coup_is_paid_at_once(tmp_path: Path) -> None:
    players = _players(tmp_path / "t.sqlite", "punto-banco", {}, [_bet(1, "ann", 100), BANKER_NATURAL,
                                                                  _bet(1, "ann", 40), BANKER_NATURAL])
    assert players["ann"]["commission_paid"] == "7" and players["ann"]["commission_owed"] == "0"


def test_ez_baccarat_takes_none_and_shows_none(tmp_path: Path) -> None:
    players = _players(tmp_path / "t.sqlite", "ez-baccarat", {}, [_bet(1, "ann", 100), BANKER_NATURAL])
    assert "commission_paid" not in players["ann"] and "commission_owed" not in players["ann"]
