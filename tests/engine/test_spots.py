"""A bet is the game's question: it names a spot of the box, the game says which spots it has and their limits.

Blackjack and the club games have one spot (``main``): a bet that names none is on it, so every session and
journal of today means what it meant. A game may declare more (baccarat's player, banker and tie; a side bet),
each with its own limits, checked by the table's one rule for bets (whole chips, a reserved or full box, the
least and greatest stake). A snapshot written before spots (format 3) loads with every bet on the main spot.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from typing import Iterator, Literal

import pytest

from controller import events as ev
from controller.engine import IllegalAction, Table
from controller.event_codec import dump_event, parse_event
from controller.game import MAIN_SPOT, Spot
from controller.registry import GameEntry, registered
from controller.rules import build_rules, load_rules
from controller.view import table_view
from games.blackjack.game import Blackjack
from games.blackjack.rules import RuleProfile

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=timezone.utc)


class SideBetRules(RuleProfile):
    """Blackjack's options, as another game's."""

    game: Literal["side-bet"] = "side-bet"  # type: ignore[assignment]


class SideBet(Blackjack):
    """Blackjack with a side bet on each box, from 1 to 20 whatever the table's limits."""

    name = "side-bet"  # type: ignore[assignment]
    rules_model = SideBetRules
    spots = (MAIN_SPOT, Spot("side", "Side bet", limits=lambda rules: (100, 2000)))


@pytest.fixture
def side_bet() -> Iterator[Table]:
    with registered(GameEntry(SideBet())):
        t = Table(load_rules("side-bet", {"game": "side-bet"}))
        t.apply(ev.Shuffle(shoe_id="S1", at=T0))
        yield t


def _refusal(t: Table, e: ev.Event) -> str:
    before = t.snapshot()
    with pytest.raises(IllegalAction) as caught:
        t.apply(e)
    assert t.snapshot() == before  # refused: nothing changed
    return caught.value.code


def test_a_bet_without_a_spot_is_on_the_main_one_and_its_line_is_as_it_was() -> None:
    t = Table(build_rules("ru-standard"))
    t.apply(ev.Shuffle(shoe_id="S1", at=T0))
    t.apply(ev.PlaceBet(box=1, amount=Decimal(10), player="ann", at=T0))
    t.apply(ev.PlaceBet(box=1, amount=Decimal(5), player="ann", spot="main", at=T0))
    assert t.pending == {1: {"ann": {"main": 1500}}}
    assert "spot" not in dump_event(ev.PlaceBet(box=1, amount=Decimal(10)))  # a session's bet line, unchanged
    assert parse_event({"type": "bet", "box": 1, "amount": 10}) == ev.PlaceBet(box=1, amount=Decimal(10))
    assert table_view(t)["boxes"] == [{"box": 1, "owner": "ann", "bets": {"ann": "15"}, "insurance": None,
                                       "hands": [], "next_round": True}]


def test_a_spot_the_game_has_not_is_refused() -> None:
    t = Table(build_rules("ru-standard"))
    t.apply(ev.Shuffle(shoe_id="S1", at=T0))
    assert _refusal(t, ev.PlaceBet(box=1, amount=Decimal(10), spot="tie", at=T0)) == "no_such_spot"


def test_each_spot_has_its_limits_and_its_bets_apart(side_bet: Table) -> None:
    t = side_bet
    t.apply(ev.PlaceBet(box=2, amount=Decimal(10), player="bob", at=T0))
    t.apply(ev.PlaceBet(box=2, amount=Decimal(5), player="bob", spot="side", at=T0))
    assert _refusal(t, ev.PlaceBet(box=2, amount=Decimal(16), player="bob", spot="side", at=T0)) == "bet_over_max"
    assert _refusal(t, ev.PlaceBet(box=3, amount=Decimal("0.5"), spot="side", at=T0)) == "bet_not_whole_chips"
    t.apply(ev.PlaceBet(box=2, amount=Decimal(1), player="cy", spot="side", at=T0))  # another player's side bet
    assert t.pending == {2: {"bob": {"main": 1000, "side": 500}, "cy": {"side": 100}}}
    box = table_view(t)["boxes"][0]
    assert box["bets"] == {"bob": "15", "cy": "1"}
    assert box["spots"] == {"main": {"bob": "10"}, "side": {"bob": "5", "cy": "1"}}
    data = t.snapshot()
    assert data["pending"] == [{"box": 2, "bets": [{"player": "bob", "amount": "10"},
                                                   {"player": "bob", "amount": "5", "spot": "side"},
                                                   {"player": "cy", "amount": "1", "spot": "side"}]}]
    assert Table.from_snapshot(data).snapshot() == data


def test_a_snapshot_written_before_spots_loads_with_every_bet_on_the_main_spot() -> None:
    t = Table(build_rules("ru-standard"))
    t.apply(ev.Shuffle(shoe_id="S1", at=T0))
    t.apply(ev.PlaceBet(box=4, amount=Decimal(20), player="dee", at=T0))
    now = t.snapshot()
    assert now["format"] == 4
    old = {**now, "format": 3}  # format 3 wrote a bet as player and amount: the same layout for a main-spot bet
    loaded = Table.from_snapshot(old)
    assert loaded.pending == {4: {"dee": {"main": 2000}}}
    assert loaded.snapshot() == now
