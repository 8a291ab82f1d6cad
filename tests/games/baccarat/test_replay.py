"""`tablectl replay` of a baccarat journal (issue 40, item 4) reads each coup in baccarat's words: the Player's and
the Banker's cards and points, the result, each spot's bet and net; not blackjack's dealer and boxes of cards."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from controller import events as ev
from controller.authority import TableAuthority, export_session
from controller.cards import parse_card
from controller.journal import JournalKey
from controller.rules import build_rules
from tablectl.cli import main

from tests.games.baccarat.support import T0

COUPS = (
    ("5D 3C 2S 3H", [(1, "banker", 40, "ann"), (2, "player", 30, None)]),  # Player 7, Banker 6: both stand
    ("2S 9H 3D KC", [(1, "banker", 40, "ann"), (3, "tie", 5, None)]),  # Banker 9, a natural
    ("4S 4H 3D 3C", [(1, "banker", 40, "ann"), (3, "tie", 5, None)]),  # 7 each: a tie
)


def _session(tmp_path: Path) -> Path:
    live = TableAuthority.open(tmp_path / "j.sqlite", JournalKey.generate(tmp_path / "k"),
                               build_rules("punto-banco", {"burn": "none"}), now=T0)
    live.submit(ev.Shuffle(shoe_id="s1", at=T0), T0)
    for cards, bets in COUPS:
        for box, spot, amount, player in bets:
            live.submit(ev.PlaceBet(box=box, amount=Decimal(amount), spot=spot, player=player, at=T0), T0)
        for code in cards.split():
            live.submit(ev.CardDrawn(card=parse_card(code), at=T0), T0)
    assert live.table.rounds_played == 3
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in export_session(live.journal)))
    live.journal.close()
    return path


def test_a_coup_reads_in_baccarat_s_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(_session(tmp_path))]) == 0
    text = capsys.readouterr().out
    first = text.split("Round 1  shoe s1  baccarat\n")[1].split("Round 2")[0].splitlines()
    assert first == [
        "  Player   5D 2S                    7",
        "  Banker   3C 3H                    6",
        "  Player 7, Banker 6: Player wins",
        "  box 1    Banker       bet     40  lose  net -40  (ann)",
        "  box 2    Player       bet     30  win   net +30",
        "  House +10",
    ]
    assert "  Player 5, Banker 9: Banker wins" in text
    assert "  box 1    Banker       bet     40  win   net +38  commission 2  (ann)" in text
    assert "  Player 7, Banker 7: Tie" in text
    assert "  box 1    Banker       bet     40  push  net 0  (ann)" in text
    assert "  box 3    Tie          bet      5  win   net +40" in text
    assert "dealer" not in text  # (blackjack's words: a baccarat coup has no dealer's hand)
    print(text)
