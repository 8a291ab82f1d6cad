"""The engine's state on the displays after settlement: each box's payout and the dealer's round
total stay until the next round's first card (through the next bets), or for [gpio] settled_seconds."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

import pytest

from controller import events as ev
from controller.cards import parse_card
from controller.engine import Table
from controller.rules import build_rules
from display.model import TableView
from display.render import render_table
from tablectl.outputs import DisplayOutput

# Fixed fixture times beside the journal and the table: they must hold at any wall-clock date.
pytestmark = pytest.mark.usefixtures("any_date")

AT = datetime(2025, 1, 1, tzinfo=timezone.utc)


def _apply(table: Table, out: DisplayOutput, *events: ev.Event) -> None:
    for e in events:
        out.handle(table.apply(e), table)


def _deal(*codes: str) -> list[ev.Event]:
    return [ev.CardDrawn(card=parse_card(c), at=AT) for c in codes]


def _table(out: DisplayOutput) -> Table:
    table = Table(build_rules("ru-standard", {"boxes": 3}))
    _apply(table, out, ev.Shuffle(shoe_id="s1"), ev.PlaceBet(box=1, amount=10), ev.PlaceBet(box=2, amount=10))
    # box 1: A, K = blackjack; box 2: 9, 9 stands on 18; dealer 10, then 7: 17
    _apply(table, out, *_deal("AS", "9H", "TD", "KC", "9D"), ev.Stand(), *_deal("7S"))
    assert table.round is None and table.previous is not None
    return table


def test_payouts_stay_through_the_next_bets_until_the_first_card() -> None:
    shown: list[TableView] = []
    out = DisplayOutput(shown.append)
    table = _table(out)
    texts = render_table(shown[-1], 8)
    assert texts["box1"] == "    P 15" and texts["box2"] == "    P 10" and texts["box3"] == " " * 8
    assert texts["dealer"] == "    P 25"  # the round's total (no room for bEtS beside it)
    _apply(table, out, ev.PlaceBet(box=3, amount=20), ev.PlaceBet(box=1, amount=10))
    texts = render_table(shown[-1], 8)
    assert texts["box1"] == "    P 15" and texts["box3"] == "      --"  # a new bet beside the old payouts
    _apply(table, out, *_deal("5H"))
    texts = render_table(shown[-1], 8)
    assert texts["box1"] == "       5" and texts["box2"] == " " * 8 and texts["box3"] == "      --"


def test_settled_seconds_end_the_payouts_earlier() -> None:
    shown: list[TableView] = []
    timers: list[tuple[float, Callable[[], None]]] = []
    out = DisplayOutput(shown.append, settled_seconds=4.0, call_later=lambda s, f: timers.append((s, f)))
    table = _table(out)
    assert [s for s, _ in timers] == [4.0] and render_table(shown[-1], 8)["box1"] == "    P 15"
    timers[0][1]()  # the event loop calls it 4 s later
    texts = render_table(shown[-1], 8)
    assert texts["box1"] == " " * 8 and texts["dealer"] == "  bEtS  "
    _apply(table, out, ev.PlaceBet(box=1, amount=10))
    assert render_table(shown[-1], 8)["box1"] == "      --"  # the expired round does not come back


def test_every_kind_of_alert_that_needs_a_person_rings_its_pattern():
    """A kind missing from the bell's table was a KeyError in the output, so the bell stayed silent.
    A notice (issue 23: a due shuffle, every shoe) is shown but never rung."""
    from controller.alerts import Alert, AlertKind, AlertLevel
    from controller.effects import AlertRaised
    from display.bell import BellSignal
    from tablectl.outputs import BellOutput

    rung: list[BellSignal] = []
    bell = BellOutput(rung.append)
    table = Table(build_rules("ru-standard"))
    loud = [k for k in AlertKind if Alert(1, k, "m", AT).level is not AlertLevel.NOTICE]
    for kind in AlertKind:
        bell.handle([AlertRaised(Alert(id=1, kind=kind, message="m", raised_at=AT))], table)
    assert len(rung) == len(loud) and all(isinstance(s, BellSignal) for s in rung)


def test_a_due_shuffle_does_not_ring_the_bell():
    """Issue 23: the shuffle due at every shoe rang the bell like a stopped table."""
    from controller.alerts import Alert, AlertKind
    from controller.effects import AlertRaised
    from tablectl.outputs import BellOutput

    rung: list[object] = []
    bell = BellOutput(rung.append)
    table = Table(build_rules("ru-standard"))
    bell.handle([AlertRaised(Alert(id=1, kind=AlertKind.SHUFFLE_DUE, message="m", raised_at=AT))], table)
    assert rung == []


def test_a_cleared_jam_leaves_the_displays_headline():
    """Issue 23: after the shoe's clear, the displays still said the shoe was faulted until a supervisor
    acknowledged the alert. The cause gone, the headline goes with it; the alert waits on the board."""
    from display.model import TableMessage
    from tablectl.display_views import display_view

    table = Table(build_rules("ru-standard"))
    table.apply(ev.Shuffle(shoe_id="S1", at=AT))
    table.apply(ev.ShoeFault(kind="jam", at=AT))
    assert TableMessage.SHOE_FAULT in display_view(table, True).messages
    table.apply(ev.ShoeFaultCleared(kind="jam", at=AT))
    assert TableMessage.SHOE_FAULT not in display_view(table, True).messages
    assert [a.active for a in table.open_alerts()] == [False]


def test_the_bell_pattern_follows_the_level():
    """Issue 23: a held card (action) rang the same bursts as an integrity alarm, and a jam (action) the
    same pattern as a lost link (alarm): the pit could not tell by ear whether it must come. The pattern
    is now the level's; the dealer's call keeps its own. A stopped table (storage) is an alarm."""
    from controller.alerts import ALERT_LEVEL, Alert, AlertKind, AlertLevel
    from controller.effects import AlertRaised
    from display.bell import BellSignal
    from tablectl.outputs import BellOutput

    table = Table(build_rules("ru-standard"))
    for kind in AlertKind:
        rung: list[BellSignal] = []
        BellOutput(rung.append).handle([AlertRaised(Alert(id=1, kind=kind, message="m", raised_at=AT))], table)
        expected = {AlertLevel.NOTICE: [], AlertLevel.ACTION: [BellSignal.FAULT],
                    AlertLevel.ALARM: [BellSignal.ATTENTION]}[ALERT_LEVEL[kind]]
        assert rung == ([BellSignal.CALL_PIT] if kind is AlertKind.CALL_PIT else expected), kind
    rung = []
    BellOutput(rung.append).stopped("the disk is full")
    assert rung == [BellSignal.ATTENTION]
