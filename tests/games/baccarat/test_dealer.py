"""The virtual dealer's moves at a baccarat table (pure: view -> move), carried out on an engine in memory: coups
are bet, dealt by the tableau and, under the squeeze, turned; every move it makes is one the table takes."""

from __future__ import annotations

import random

import pytest

from controller.cards import ALL_CARDS
from controller.event_codec import parse_event
from controller import events as ev
from controller.engine import Table
from controller.rules import build_rules
from controller.view import table_view
from games.baccarat.dealer import DEALER
from simulators.dealer_moves import Move

from tests.games.baccarat.support import T0


@pytest.mark.parametrize("profile, options", [("punto-banco", {}), ("ez-baccarat", {"squeeze": True})])
def test_the_dealer_plays_coups_by_itself(profile: str, options: dict) -> None:
    rules = build_rules(profile, options)
    t = Table(rules)
    play = DEALER.play(rules, seed=3, random_choice=0.0, max_boxes=3)
    shoe = list(ALL_CARDS) * rules.decks
    random.Random(9).shuffle(shoe)
    shuffles = 0
    for _ in range(2000):
        if t.rounds_played >= 12 and t.round is None:
            break
        move: Move = play.move(table_view(t))
        if move.kind == "shuffle":
            shuffles += 1
            t.apply(ev.Shuffle(shoe_id=f"s{shuffles}", at=T0))
        elif move.kind == "deal":
            t.apply(ev.CardDrawn(card=shoe.pop(), at=T0))
        elif move.kind == "act":
            assert move.event is not None
            e = parse_event({**move.event, "at": T0.isoformat()})
            assert t.refusal(e) is None, (move.event, t.refusal(e))
            t.apply(e)
        else:
            pytest.fail(f"the dealer waits at {t.phase.value}: {table_view(t)['alerts']}")
    assert t.rounds_played >= 12 and not t.held
    assert t.previous is not None and t.previous.record["result"] in ("player", "banker", "tie")
