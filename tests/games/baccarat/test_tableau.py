"""The tableau, row by row (tableau.json cites each), dealt through the table: the shoe's cards alone decide."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.engine import Phase
from games.baccarat.tableau import banker_draws, next_due

from tests.games.baccarat.support import bet, deal, nets, table

SCENARIOS = json.loads(Path(__file__).with_name("tableau.json").read_text())["scenarios"]


@pytest.mark.parametrize("s", SCENARIOS, ids=[s["cite"] for s in SCENARIOS])
def test_each_row_of_the_tableau(s: dict) -> None:
    t = table("ez-baccarat")
    for spot in ("player", "banker", "tie", "player_pair", "banker_pair", "dragon7", "panda8"):
        bet(t, 1, spot, 25 if spot in ("player", "banker") else 5)
    deal(t, s["cards"])
    # Settled on the last card the tableau calls for: not one card sooner, not one later.
    assert t.round is None and t.phase is Phase.BETTING, s["cite"]
    record = t.previous.record
    assert record["player_hand"]["cards"] == s["player"].split()
    assert record["dealer"]["cards"] == s["banker"].split()
    assert record["result"] == s["result"]
    won = {spot for _, spot, outcome, _ in nets(t) if outcome == "win"}
    assert ("player_pair" in won) == s.get("player_pair", False)
    assert ("banker_pair" in won) == s.get("banker_pair", False)
    assert ("dragon7" in won) == s.get("dragon7", False)
    assert ("panda8" in won) == s.get("panda8", False)
    assert ("tie" in won) == (s["result"] == "tie")


def test_the_scenarios_cover_every_row_of_the_banker_tableau() -> None:
    """Every Banker total 0-7 against a Player third card appears, and the Player's stand and draw."""
    rows = set()
    for s in SCENARIOS:
        cards = s["cards"].split()
        if len(cards) >= 5 and len(s["player"].split()) == 3:
            values = [min(10, "A23456789TJQK".index(c[0]) + 1) % 10 for c in cards]
            rows.add((values[1] + values[3]) % 10)
    assert {0, 2, 3, 4, 5, 6, 7} <= rows
    assert any("Player stands on 6" in s["cite"] for s in SCENARIOS)
    assert any("Player draws on 0-5" in s["cite"] for s in SCENARIOS)


def test_the_banker_table_whole() -> None:
    """The published drawing table (rows: Banker's total 0-7; columns: the Player's third card 0-9)."""
    table_text = {
        7: "SSSSSSSSSS", 6: "SSSSSSHHSS", 5: "SSSSHHHHSS", 4: "SSHHHHHHSS",
        3: "HHHHHHHHSH", 2: "HHHHHHHHHH", 1: "HHHHHHHHHH", 0: "HHHHHHHHHH"}
    for banker, row in table_text.items():
        assert [banker_draws(banker, third) for third in range(10)] == [c == "H" for c in row], banker
    assert [banker_draws(b, None) for b in range(8)] == [True] * 6 + [False] * 2


def test_deal_order_is_player_banker_player_banker() -> None:
    assert [next_due(p, b) for p, b in (([], []), ([1], []), ([1], [1]), ([1, 1], [1]))] == [
        "player", "banker", "player", "banker"]
