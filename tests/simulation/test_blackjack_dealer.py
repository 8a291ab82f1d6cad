"""The virtual dealer's blackjack decisions, pure: one dealer-key view in, the next move out.

`games.blackjack.dealer.blackjack_move` is what both the virtual dealer (over HTTP) and the
in-process dealer (through the service) carry out; here it plays an engine in memory directly.
"""

from __future__ import annotations

from typing import Any

from controller import events as ev
from controller.cards import parse_card
from controller.engine import Table
from controller.event_codec import parse_event
from controller.rules import build_rules
from controller.view import table_view
from games.blackjack.dealer import blackjack_move
from simulators.dealer_moves import Move
from simulators.shoe.deck import shuffled_shoe
from simulators.strategy import strategy_for


def _play(profile: str, rounds: int, seed: int, random_choice: float = 0.05) -> tuple[Table, list[Move]]:
    """Carry out ``blackjack_move`` on an engine until ``rounds`` are settled; every action must be accepted."""
    rules = build_rules(profile)
    table, strategy = Table(rules), strategy_for(rules)
    moves: list[Move] = []
    shoes, cards = 0, []
    for _ in range(100_000):
        if table.rounds_played >= rounds and table.round is None:
            return table, moves
        view = table_view(table, reveal_closed=False)
        move = blackjack_move(view, strategy, seed, random_choice, max_boxes=4)
        assert move == blackjack_move(view, strategy, seed, random_choice, max_boxes=4)  # the view alone decides
        moves.append(move)
        if move.kind == "shuffle":
            shoes += 1
            cards = shuffled_shoe(seed, shoes, rules.decks)
            table.apply(ev.Shuffle(shoe_id=f"S.{shoes}"))
        elif move.kind == "deal":
            table.apply(ev.CardDrawn(card=parse_card(cards.pop())))
            if len(cards) == rules.decks * 13:  # a quarter of the shoe left: the cut card
                table.apply(ev.CutCardOut())
        else:
            assert move.kind == "act" and move.event is not None, move
            table.apply(parse_event(move.event))  # a refusal raises: the test fails
    raise AssertionError("the dealer did not finish")


def _events(moves: list[Move]) -> list[Any]:
    return [m.event["type"] if m.event else m.kind for m in moves]


def test_it_plays_blackjack_rounds_on_the_dealer_view_alone() -> None:
    table, moves = _play("ru-standard", 40, seed=3)
    assert table.rounds_played == 40
    kinds = set(_events(moves))
    assert {"shuffle", "bet", "deal", "stand"} <= kinds
    assert kinds <= {"shuffle", "bet", "deal", "stand", "double", "split", "surrender", "close_insurance"}


def test_the_same_seed_makes_the_same_moves_and_another_seed_others() -> None:
    assert _events(_play("ru-standard", 15, seed=5)[1]) == _events(_play("ru-standard", 15, seed=5)[1])
    assert _events(_play("ru-standard", 15, seed=5)[1]) != _events(_play("ru-standard", 15, seed=6)[1])


def test_in_attention_it_waits_for_the_supervisor() -> None:
    rules = build_rules("ru-standard")
    view = table_view(Table(rules), reveal_closed=False)
    view["phase"] = "attention"
    assert blackjack_move(view, strategy_for(rules), 1).kind == "wait"
