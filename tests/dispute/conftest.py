"""A table's journal with a round to dispute: eleven plain rounds, then round 12 at two boxes (a double, a refused
split, a hostile player's name, the pit called and a supervisor answering), then round 13; all at known times."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from controller import events as ev
from controller.cards import parse_card
from controller.engine import IllegalAction
from controller.journal import JournalKey, key_beside
from tests.support.journals import T0, key_for, open_authority

HOSTILE = '<script>alert("x")</script>&amp;'  # a player's name, as typed at the table
SUITS = "SHDC"
DISPUTED = 12


@dataclass
class Played:
    """The journal and what was put into it, for the tests to compare the record with."""

    path: Path
    key: JournalKey
    dealt_before: list[str] = field(default_factory=list)  # every card before round 12's, in shoe order
    times: dict[str, datetime] = field(default_factory=dict)  # when each of round 12's cards came (by code)
    bet_at: dict[int, datetime] = field(default_factory=dict)
    settle_seq: int = 0
    ack_alert: int = 0


def _plain_round(k: int) -> list[str]:
    """Round k+1 at box 1: 9-9 (18) stands against the dealer's 6, who draws 4 and 7 (17): the box wins 10."""
    s = lambda i: SUITS[(k + i) % 4]  # noqa: E731  (each card's suit turns, so no card is seen too often)
    return [f"9{s(0)}", f"6{s(2)}", f"9{s(1)}", f"4{s(3)}", f"7{s(0)}"]


def play_disputed(path: Path, start: datetime = T0) -> Played:
    """The journal at ``path`` (with its key beside it), played as the module says, a second a row from ``start``."""
    authority = open_authority(path)
    played = Played(path, key_for(path))
    t = start
    position = 0

    def at() -> datetime:
        nonlocal t
        t += timedelta(seconds=1)
        return t

    def card(code: str) -> datetime:
        nonlocal position
        position += 1
        when = at()
        authority.submit(ev.CardDrawn(card=parse_card(code), position=position), when, shoe_id="S1", position=position)
        return when

    authority.submit(ev.DealerIn(dealer="D-1042", actor="supervisor:pit"), at())
    authority.submit(ev.Shuffle(shoe_id="S1"), at())
    for k in range(DISPUTED - 1):
        cards = _plain_round(k)
        authority.submit(ev.PlaceBet(box=1, amount=10, player="Ann"), at())
        for code in cards[:3]:
            card(code)
        authority.submit(ev.Stand(), at())
        for code in cards[3:]:
            card(code)
        played.dealt_before += cards
    # Round 12: box 1 (Ann, 20) and box 3 (the hostile name, 10); 5H TS 7S 6C 8D, box 1 doubles (TD: 21), box 3's
    # split is refused (T-8 is no pair) and it stands; the dealer draws KH (17).
    played.bet_at[1] = at()
    authority.submit(ev.PlaceBet(box=1, amount=20, player="Ann"), played.bet_at[1])
    played.bet_at[3] = at()
    authority.submit(ev.PlaceBet(box=3, amount=10, player=HOSTILE), played.bet_at[3])
    for code in ("5H", "TS", "7S", "6C", "8D"):
        played.times[code] = card(code)
    authority.submit(ev.CallPit(actor="dealer:console"), at())
    played.ack_alert = authority.table.open_alerts()[-1].id
    authority.submit(ev.AcknowledgeAlert(alert_id=played.ack_alert, actor="supervisor:sam"), at())
    authority.submit(ev.Double(), at())
    played.times["TD"] = card("TD")
    with pytest.raises(IllegalAction):
        authority.submit(ev.Split(actor="dealer:console"), at())
    authority.submit(ev.Stand(), at())
    played.times["KH"] = card("KH")
    played.settle_seq = authority.journal.head()[0]
    # Round 13, so the journal's head lies past the disputed round.
    authority.submit(ev.PlaceBet(box=1, amount=10), at())
    for code in ("9S", "6H", "9D"):
        card(code)
    authority.submit(ev.Stand(), at())
    card("4S")
    card("7C")
    authority.journal.close()
    return played


@pytest.fixture(scope="module")
def played_journal(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The journal, made once for a module (the tests only read it; one that alters it takes a `copy_of` it)."""
    return play_disputed(tmp_path_factory.mktemp("dispute") / "table-7.sqlite")


def copy_of(played: Played, where: Path) -> Path:
    """A copy of the journal and its key in ``where``, for a test that alters it."""
    copy = where / played.path.name
    shutil.copyfile(played.path, copy)
    shutil.copy2(key_beside(played.path), key_beside(copy))  # (its mode too: 0600, so no warning is printed)
    return copy
