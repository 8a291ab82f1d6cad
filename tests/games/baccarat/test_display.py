"""Baccarat on the box displays (issue 40, item 4): the dealer's display shows the Player's and the Banker's points
as the cards come and the result once the coup is settled, through the MAX7219 chain on gpiozero's mock pins; under
the squeeze, no point and no result until the cards are turned."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from controller.engine import Table
from display.drivers.max7219 import Max7219Chain
from display.model import TableView
from display.render import render_table
from display.testing import Max7219Emulator
from games.baccarat.events import Reveal
from tablectl.parts import display_part
from tests.support.mock_pins import mock_pin_factory

from tests.games.baccarat.support import T0, bet, deal, table

IDS = ["dealer", "box1", "box2", "box3", "box4", "box5", "box6", "box7"]


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    with mock_pin_factory() as mock:
        yield mock


def _texts(t: Table) -> dict[str, str]:
    boxes, dealer = display_part("baccarat").felt(t)
    return render_table(TableView(boxes=boxes, dealer=dealer), 8)


def _lit(t: Table, factory: MockFactory) -> dict[str, str | None]:
    """What the chain of displays shows of the table now, read back off the mock SPI pins."""
    texts = _texts(t)
    emulator = Max7219Emulator(len(texts), pin_factory=factory)
    ids = ["dealer", *sorted((k for k in texts if k != "dealer"), key=lambda k: int(k[3:]))]
    chain = Max7219Chain(ids, digits=8, brightness=8, pin_factory=factory,
                         clock_pin=11, mosi_pin=10, miso_pin=9, select_pin=8)
    try:
        chain.write(texts)
        return {i: emulator.visible(n) for n, i in enumerate(ids)}
    finally:
        chain.close()


def test_the_dealer_s_display_shows_both_hands_points_then_the_result(factory: MockFactory) -> None:
    t = table()
    bet(t, 1, "player", 25)
    deal(t, "2S 3H")  # the Player's 2, the Banker's 3
    assert _texts(t)["dealer"] == "   P2 b3"
    deal(t, "5D 3C")  # Player 7, Banker 6: both stand
    assert t.round is None  # settled: the result beside the points, the box its payout
    shown = _lit(t, factory)
    assert shown["dealer"] == " P7 b6 P"
    assert shown["box1"] == "    P 25"  # (the box: pay 25, as every game's payout)


def test_a_banker_win_and_a_tie_read_as_such() -> None:
    t = table()
    bet(t, 1, "banker", 25)
    deal(t, "2S 9H 3D KC")  # Player 5 (draws), Banker 9: a natural
    assert _texts(t)["dealer"] == " P5 b9 b"
    bet(t, 1, "tie", 5)
    deal(t, "4S 4H 3D 3C")  # Player 7, Banker 7
    assert _texts(t)["dealer"] == " P7 b7 t"


def test_under_the_squeeze_no_point_nor_result_before_the_cards_are_turned(factory: MockFactory) -> None:
    t = table(squeeze=True)
    bet(t, 1, "player", 25)
    deal(t, "5D 3C 2S 3H")
    assert t.round is not None  # dealt face down: decided, not settled
    shown = _lit(t, factory)
    assert shown["dealer"] == "    -- 2" and shown["box1"] == "      --"
    t.apply(Reveal(at=T0))
    assert _texts(t)["dealer"] == " P7 b6 P"
