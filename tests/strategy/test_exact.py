"""The exact analyser (simulators/exact.py): pinned edges, a brute-force enumerator, a simulation.

* Off the top of a full shoe, under basic strategy, it gives the pinned exact edge of every built-in
  profile (tests/support/edges.py) to 0.0005 %.
* On tiny shoes it equals a brute-force enumerator, resplits included (test_exact_brute_force.py).
* On depleted shoes, under basic strategy and with one split, it equals the previous model
  (strategy_edge's evaluator) to 1e-12; with resplits it differs from it (the previous model
  approximates them); a shoe with more cards than the profile's is analysed too.
* On a depleted six-deck shoe it agrees with the engine itself playing that shoe (real splits,
  real settlement) within 4 standard errors.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from tests.support.edges import EXACT_EDGE_PCT

import games.blackjack.simulate as simulate_module
from controller.rules import build_rules
from games.blackjack.rules import RuleProfile
from simulators.exact import ShoeError, analyse, full_shoe
from simulators.strategy import strategy_for
from simulators.strategy_edge import _Evaluator


def _rules(profile: str, **options: Any) -> RuleProfile:
    rules = build_rules(profile, options)
    assert isinstance(rules, RuleProfile)
    return rules


@pytest.mark.parametrize("profile", sorted(EXACT_EDGE_PCT))
def test_off_the_top_edge_is_the_pinned_one(profile: str) -> None:
    rules = _rules(profile)
    edge = analyse(rules, full_shoe(rules.decks)).house_edge * 100
    assert abs(edge - EXACT_EDGE_PCT[profile]) < 0.0005, edge


def _half_dealt(decks: int, seed: int) -> list[int]:
    cards = [v for v, k in enumerate(full_shoe(decks), start=1) for _ in range(k)]
    random.Random(seed).shuffle(cards)
    left = cards[: len(cards) // 2]
    return [left.count(v) for v in range(1, 11)]


def _previous_model(rules: RuleProfile, counts: list[int]) -> float:
    """strategy_edge's evaluator (behind the pinned edges) on any composition: every deal, its own splits."""
    evaluator = _Evaluator(rules, strategy_for(rules))
    shoe = [0, *counts]
    total = sum(shoe)
    ev = 0.0
    for up in range(1, 11):
        rest = shoe.copy()
        rest[up] -= 1
        n = total - 1
        for a in range(1, 11):
            for b in range(a, 11):
                p = (rest[a] * (rest[a] - 1) if a == b else 2 * rest[a] * rest[b]) / (n * (n - 1))
                if shoe[up] and p > 0:
                    dealt = rest.copy()
                    dealt[a] -= 1
                    dealt[b] -= 1
                    ev += shoe[up] / total * p * evaluator.deal(dealt, up, a, b)
    return ev


@pytest.mark.parametrize("profile", sorted(EXACT_EDGE_PCT))
def test_a_depleted_shoe_under_basic_strategy_equals_the_previous_model(profile: str) -> None:
    # Half a deck dealt, one split (where the previous model is exact): three sevens, surrender, splits of
    # every kind and hands the shoe can no longer make.
    rules = _rules(profile, decks=1, max_hands=2)
    for seed in (3, 7):
        counts = _half_dealt(1, seed)
        assert analyse(rules, counts).ev == pytest.approx(_previous_model(rules, counts), abs=1e-12), counts


def test_resplits_are_valued_exactly_not_as_the_previous_model_does() -> None:
    # Splits to four off the top of six decks: the previous model's split hands do not see each other's cards.
    rules = _rules("ru-standard")
    exact = analyse(rules, full_shoe(6)).ev
    previous = _previous_model(rules, list(full_shoe(6)))
    assert 5e-6 < exact - previous < 5e-5, (exact, previous)


def test_a_shoe_with_more_cards_than_the_profile_is_analysed_as_that_shoe() -> None:
    # Optimal play reads no strategy table and there are no three sevens here: a one-deck profile given two
    # decks' cards must give what the two-deck profile gives (hands of five twos and more included).
    one = _rules("us-holecard", decks=1)
    two = _rules("us-holecard", decks=2)
    for play in ("cdp1", "cdz-"):
        got = analyse(one, full_shoe(2), play).ev
        assert got == pytest.approx(analyse(two, full_shoe(2), play).ev, abs=1e-12)
        assert got != pytest.approx(analyse(one, full_shoe(1), play).ev, abs=1e-4)


def test_optimal_play_is_worth_at_least_basic_strategy() -> None:
    rules = _rules("us-holecard", decks=2, max_hands=2)
    shoe = [2, 2, 2, 2, 2, 2, 2, 2, 2, 9]  # 27 cards of a dealt-down shoe, splits and all
    basic = analyse(rules, shoe, "basic").ev
    optimal = analyse(rules, shoe, "optimal")
    assert optimal.play == "cdp1"  # "optimal" is CDP1
    assert optimal.ev > basic + 0.001, (basic, optimal.ev)
    # CDP1's split hands play their own best; CDZ-'s play as the same cards unsplit: not better here.
    assert analyse(rules, shoe, "cdz-").ev <= optimal.ev


def test_a_composition_that_cannot_be_played_is_refused_in_one_line() -> None:
    rules = _rules("ru-standard")
    with pytest.raises(ShoeError, match="10 counts"):
        analyse(rules, [4] * 9)
    with pytest.raises(ShoeError, match="0 or more"):
        analyse(rules, [4] * 9 + [-1])
    with pytest.raises(ShoeError, match="runs out"):
        analyse(rules, [0, 3, 2, 0, 0, 0, 0, 0, 0, 0])  # twos and threes: nobody reaches 17
    with pytest.raises(ValueError, match="play is one of"):
        analyse(rules, full_shoe(1), "perfect")  # type: ignore[arg-type]


# ------------------------------------------------------------------ a depleted shoe played by the engine
def test_a_depleted_shoe_agrees_with_the_engine_playing_it() -> None:
    # Six decks less 60 small cards (12 each of 2-6): rich in tens and aces, the player's edge some +3 %.
    rules = _rules("ru-standard", reshuffle_every_round=True)
    cards = list(simulate_module.ALL_CARDS) * 6
    removed = {v: 12 for v in (2, 3, 4, 5, 6)}
    left = []
    for card in cards:
        if removed.get(card.value, 0):
            removed[card.value] -= 1
        else:
            left.append(card)
    counts = [sum(1 for card in left if card.value == v) for v in range(1, 11)]
    exact = analyse(rules, counts).ev

    class DepletedShoe(simulate_module.ShuffledAsDealt):
        def __init__(self, rules: RuleProfile, rng: random.Random) -> None:
            super().__init__(list(left), rng)
            self.cut_at = -1

        def shuffle(self) -> str:
            self.next = 0
            return "depleted"

    real = simulate_module.VirtualShoe
    simulate_module.VirtualShoe = DepletedShoe  # type: ignore[misc]
    try:
        result = simulate_module.play_chunk(rules, 12_000, "exact-depleted", unit=simulate_module.Decimal(10))
    finally:
        simulate_module.VirtualShoe = real  # type: ignore[misc]
    mean = result.total / result.rounds
    sd = ((result.total_sq / result.rounds - mean * mean) / result.rounds) ** 0.5
    assert exact > 0.01  # far from the full shoe's -0.4 %: the depletion is what is tested
    assert abs(mean - exact) < 4 * sd, (mean, sd, exact)
