"""The dealer console's buttons at a club table: the same buttons, the club game's decisions."""

from __future__ import annotations

import pytest

from controller import events as ev
from games.club.events import BankerStand, Fold
from games.club_21.events import Contra, Recontra
from games.club_21_36.events import Dark
from controller.engine import Phase
from display.console import ConsoleAction, ConsoleKind
from types import SimpleNamespace

from games.club_21.console import club21_console_event
from games.club_21_36.console import club2136_console_event


def _at(phase: Phase) -> SimpleNamespace:
    return SimpleNamespace(phase=phase)  # the mappings read only the phase


@pytest.mark.parametrize("kind, box, phase, expected", [
    (ConsoleKind.STAND, None, Phase.PLAYERS, ev.Stand()),
    (ConsoleKind.STAND, None, Phase.DEALER, BankerStand()),  # the croupier is the banker: he stops drawing
    (ConsoleKind.DOUBLE, None, Phase.PLAYERS, ev.Double()),
    (ConsoleKind.DOUBLE, 3, Phase.PACK_OUT, ev.Double(box=3)),  # a spent pack: box 3 doubles and stands
    (ConsoleKind.SURRENDER, 3, Phase.PACK_OUT, Fold(box=3)),  # ... or folds
    (ConsoleKind.DOUBLE, None, Phase.CONTRA, Contra()),  # the banker doubles every stake
    (ConsoleKind.DOUBLE, 2, Phase.CONTRA, Recontra(box=2)),  # box 2 answers with its recontra
    (ConsoleKind.SURRENDER, None, Phase.PLAYERS, ev.Surrender()),
    (ConsoleKind.SPLIT, None, Phase.PLAYERS, ev.Split()),
    (ConsoleKind.CALL_PIT, None, Phase.PLAYERS, ev.CallPit()),
])
def test_each_button_means_the_club_decision(kind, box, phase, expected) -> None:
    assert club21_console_event(ConsoleAction(kind, box), _at(phase)) == expected


@pytest.mark.parametrize("kind, box, phase", [
    (ConsoleKind.SURRENDER, None, Phase.PACK_OUT),  # fold names its box
    (ConsoleKind.INSURANCE, 1, Phase.PLAYERS),  # no insurance in the club games
    (ConsoleKind.CONTINUE, None, Phase.PLAYERS),
])
def test_a_press_that_means_nothing_at_a_club_table_sends_nothing(kind, box, phase) -> None:
    assert club21_console_event(ConsoleAction(kind, box), _at(phase)) is None


@pytest.mark.parametrize("kind, box, phase, expected", [
    (ConsoleKind.DOUBLE, None, Phase.PLAYERS, Dark()),  # club-21-36 has no doubling: the box goes dark
    (ConsoleKind.DOUBLE, 2, Phase.PLAYERS, Dark(box=2)),
    (ConsoleKind.STAND, None, Phase.PLAYERS, ev.Stand()),
    (ConsoleKind.STAND, None, Phase.DEALER, BankerStand()),
    (ConsoleKind.SPLIT, None, Phase.PLAYERS, None),
    (ConsoleKind.SURRENDER, None, Phase.PLAYERS, None),
])
def test_the_buttons_of_a_club_21_36_table(kind, box, phase, expected) -> None:
    assert club2136_console_event(ConsoleAction(kind, box), _at(phase)) == expected
