"""The exact analyser against the published figures off the top (within 0.01 %), and per coup from the cards left.

Published (Wizard of Odds, "Baccarat", house edge per hand, ties included; https://wizardofodds.com/games/baccarat/;
EZ Baccarat, Dragon 7, Panda 8: https://wizardofodds.com/games/baccarat/appendix/5/ and the EZ page):
8 decks: Banker 1.0579 %, Player 1.2351 %, Tie 8:1 14.3596 %, 9:1 4.8439 %; EZ Banker 1.0183 %, Dragon 7 (40:1)
7.6113 %, Panda 8 (25:1) 10.19 %; Player and Banker pair (11:1) 10.3614 %. 6 decks: Banker 1.0558 %, Player 1.2374 %.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from controller.rules import build_rules
from games.baccarat.exact import coup_odds, expectations, full_shoe
from games.baccarat.rules import BaccaratRules

PUBLISHED = [
    ("punto-banco", {}, "banker", -1.0579), ("punto-banco", {}, "player", -1.2351),
    ("punto-banco", {}, "tie", -14.3596), ("punto-banco", {"tie_pays": 9}, "tie", -4.8439),
    ("punto-banco", {}, "player_pair", -10.3614), ("punto-banco", {}, "banker_pair", -10.3614),
    ("ez-baccarat", {}, "banker", -1.0183), ("ez-baccarat", {}, "dragon7", -7.6113),
    ("ez-baccarat", {}, "panda8", -10.19),
    ("punto-banco", {"decks": 6}, "banker", -1.0558), ("punto-banco", {"decks": 6}, "player", -1.2374),
]


def _rules(profile: str, options: dict) -> BaccaratRules:
    rules = build_rules(profile, options)
    assert isinstance(rules, BaccaratRules)
    return rules


@pytest.mark.parametrize("profile, options, spot, edge", PUBLISHED)
def test_off_the_top_the_published_figures(profile: str, options: dict, spot: str, edge: float) -> None:
    rules = _rules(profile, options)
    got = expectations(full_shoe(rules.decks), rules)[spot] * 100
    assert abs(got - edge) < 0.01, f"{profile} {options} {spot}: {got:.4f} % against {edge} %"


def test_the_chances_add_up_to_one_exactly() -> None:
    o = coup_odds(full_shoe(8))
    assert o.player + o.banker + o.tie == 1
    assert 0 < o.dragon7 < o.banker and 0 < o.panda8 < o.player


def test_the_dragon_turns_positive_when_eights_and_nines_leave() -> None:
    """A shoe short of 8s and 9s (fewer naturals) gives the Dragon 7 the edge: the surveillance alert's case."""
    rules = _rules("ez-baccarat", {})
    shoe = full_shoe(8)
    assert expectations(shoe, rules)["dragon7"] < 0
    late = {**{r: 8 for r in shoe}, "8": 1, "9": 1, "4": 12, "5": 12, "6": 12, "7": 12}
    assert expectations(late, rules)["dragon7"] > 0


def test_a_shoe_near_its_end_is_still_enumerated() -> None:
    o = coup_odds({"A": 1, "2": 1, "3": 1, "4": 1, "5": 1, "K": 1})
    assert o.player + o.banker + o.tie == Fraction(1)
    with pytest.raises(ValueError):
        coup_odds({"A": 5})
