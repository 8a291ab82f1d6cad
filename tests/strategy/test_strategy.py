"""Basic strategy computed from rule profiles, checked against published charts.

Reference decisions come from the Wizard of Odds basic strategy calculator
(https://wizardofodds.com/games/blackjack/strategy/calculator/), whose tables
cover 1, 2 and 4+ decks, S17/H17, DAS or not, late surrender, and give the
European no-hole-card ("lose all") columns for a dealer ten and ace. The
multi-deck S17 DAS chart below is the familiar one printed by Wizard of Odds
and Wikipedia ("Blackjack", section Basic strategy) for 4-8 decks.
"""

from __future__ import annotations

import itertools

import pytest

from controller.rules import build_rules
from games.blackjack.rules import RuleProfile
from controller.legality import Action
from simulators.strategy import BasicStrategy, chart, strategy_for

H, S, D, P, R = Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT, Action.SURRENDER
UPS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
ALL = dict(can_double=True, can_split=True, can_surrender=True)


def peek_game(**options: object) -> RuleProfile:
    """A US hole-card game (peek on ace and ten, only the original bet lost), six decks, DAS."""
    base = dict(decks=6, double_after_split=True, resplit_aces=False, split_by="value")
    return build_rules("us-holecard", {**base, **options})


def enhc_game(**options: object) -> RuleProfile:
    """The ru-standard no-hole-card game without the three-sevens bonus."""
    return build_rules("ru-standard", {"three_sevens": False, **options})


def play(rules: RuleProfile, values: list[int], up: int, **flags: bool) -> Action:
    return strategy_for(rules).decide(values, up, **{**ALL, **flags})


# ---------------------------------------------------------------- the whole multi-deck chart
# 4-8 decks, S17, DAS, peek, no surrender. Codes per up card 2..9, T, A:
# H hit, S stand, D double else hit, d double else stand, P split.
SIX_DECK_S17_DAS = {
    "hard 8": "HHHHHHHHHH", "hard 9": "HDDDDHHHHH", "hard 10": "DDDDDDDDHH",
    "hard 11": "DDDDDDDDDH", "hard 12": "HHSSSHHHHH", "hard 13": "SSSSSHHHHH",
    "hard 16": "SSSSSHHHHH", "hard 17": "SSSSSSSSSS",
    "soft 13": "HHHDDHHHHH", "soft 15": "HHDDDHHHHH", "soft 17": "HDDDDHHHHH",
    "soft 18": "SddddSSHHH", "soft 19": "SSSSSSSSSS",
    "pair 2": "PPPPPPHHHH", "pair 3": "PPPPPPHHHH", "pair 4": "HHHPPHHHHH",
    "pair 5": "DDDDDDDDHH", "pair 6": "PPPPPHHHHH", "pair 7": "PPPPPPHHHH",
    "pair 8": "PPPPPPPPPP", "pair 9": "PPPPPSPPSS", "pair 10": "SSSSSSSSSS",
    "pair 1": "PPPPPPPPPP",
}
_CODE = {"H": [H], "S": [S], "D": [D, H], "d": [D, S], "P": [P]}


def _hand(row: str) -> list[int]:
    kind, v = row.split()
    n = int(v)
    if kind == "pair":
        return [n, n]
    if kind == "soft":
        return [1, n - 11]
    return [10, n - 10] if n > 11 else [2, n - 2]


def test_six_deck_s17_das_chart_matches_the_published_chart() -> None:
    rules = peek_game()
    for row, codes in SIX_DECK_S17_DAS.items():
        hand = _hand(row)
        for up, code in zip(UPS, codes):
            expected = _CODE[code]
            assert play(rules, hand, up) is expected[0], f"{row} v {up}"
            if len(expected) == 2:  # the fallback when doubling is not allowed
                assert play(rules, hand, up, can_double=False) is expected[1], f"{row} v {up} no double"


# ---------------------------------------------------------------- famous cells
def test_sixteen_vs_ten_surrenders_where_allowed_else_hits() -> None:
    # Wizard of Odds 4+ decks S17: 16 v T "RH".
    rules = peek_game(surrender="late")
    assert play(rules, [10, 6], 10) is R
    assert play(rules, [10, 6], 10, can_surrender=False) is H
    assert play(peek_game(), [10, 6], 10) is H
    assert play(rules, [10, 4, 2], 10) is H  # three cards: no surrender in the table


def test_eleven_vs_ace_doubles_only_when_dealer_hits_soft_17() -> None:
    # Wizard of Odds 4+ decks: 11 v A "DH" with H17, "H" with S17.
    assert play(peek_game(dealer_hits_soft17=True), [6, 5], 1) is D
    assert play(peek_game(), [6, 5], 1) is H


def test_soft_18_vs_2_doubles_in_h17_and_stands_without_a_double() -> None:
    # Wizard of Odds 4+ decks H17: A-7 v 2 "DS"; S17: "S".
    h17 = peek_game(dealer_hits_soft17=True)
    assert play(h17, [1, 7], 2) is D
    assert play(h17, [1, 7], 2, can_double=False) is S
    assert play(peek_game(), [1, 7], 2) is S


def test_enhc_lose_all_hits_where_a_peek_game_doubles_or_splits() -> None:
    # Wizard of Odds European no-hole-card columns: 11 v T H, 10 v T H, 8-8 v T/A H, A-A v A H.
    peek, enhc = peek_game(), enhc_game()
    assert play(peek, [6, 5], 10) is D and play(enhc, [6, 5], 10) is H
    assert play(peek, [6, 4], 9) is D and play(enhc, [6, 4], 10) is H
    assert play(peek, [8, 8], 1) is P and play(enhc, [8, 8], 1) is H
    assert play(peek, [8, 8], 10) is P and play(enhc, [8, 8], 10) is H
    assert play(peek, [1, 1], 1) is P and play(enhc, [1, 1], 1) is H
    assert play(enhc, [1, 1], 10) is P


def test_enhc_with_lose_original_only_plays_like_the_peek_game() -> None:
    enhc_obo = enhc_game(dealer_bj_takes="original")
    assert play(enhc_obo, [8, 8], 1) is P
    assert play(enhc_obo, [6, 5], 10) is D


def test_no_hole_card_surrender_columns() -> None:
    # Wizard of Odds no-hole-card columns with surrender: vs A surrender 5-7, 12-17 (17: RS),
    # 3-3, 6-6, 7-7, 8-8; vs T surrender 14-16, 7-7, 8-8; never 13 v T nor 2-2 v A.
    rules = enhc_game(surrender="before_first_hit")
    for hand in ([3, 2], [4, 3], [10, 2], [9, 4], [10, 6], [10, 7], [3, 3], [6, 6], [7, 7], [8, 8]):
        assert play(rules, hand, 1) is R, hand
    assert play(rules, [10, 7], 1, can_surrender=False) is S
    for hand in ([10, 4], [9, 6], [10, 6], [7, 7], [8, 8]):
        assert play(rules, hand, 10) is R, hand
    assert play(rules, [10, 3], 10) is H
    assert play(rules, [2, 2], 1) is H
    assert play(rules, [8, 8], 10, can_surrender=False) is H  # ENHC: not split either


def test_early_surrender_vs_2_10_never_surrenders_against_an_ace() -> None:
    rules = build_rules("single-deck-enhc")
    assert play(rules, [10, 6], 10) is R
    assert play(rules, [10, 6], 1) is H  # even with the flag set, the table has no R vs A
    assert play(rules, [6, 5], 10) is H  # no-hole-card: 11 v T hits
    assert play(rules, [6, 5], 6) is D
    assert play(rules, [5, 5], 6) is H  # doubles on 11 only: 10 is a hit


def test_single_deck_card_removal_changes_the_strategy() -> None:
    # Wizard of Odds 1 deck S17: 9 v 2 "DH" and 11 v A "DH"; 4+ decks: H and H.
    one, six = peek_game(decks=1), peek_game()
    assert play(one, [5, 4], 2) is D and play(six, [5, 4], 2) is H
    assert play(one, [6, 5], 1) is D and play(six, [6, 5], 1) is H


# ---------------------------------------------------------------- fallbacks and legality
@pytest.mark.parametrize("name", ["ru-standard", "ru-surrender", "us-holecard", "single-deck-enhc"])
def test_decide_is_always_legal(name: str) -> None:
    s = BasicStrategy(build_rules(name))
    for a, b in itertools.combinations_with_replacement(range(1, 11), 2):
        for up in UPS:
            for dbl, spl, sur in itertools.product((False, True), repeat=3):
                act = s.decide([a, b], up, can_double=dbl, can_split=spl and a == b, can_surrender=sur)
                assert act is not D or dbl
                assert act is not P or (spl and a == b)
                assert act is not R or sur
    for hand in ([2, 3, 4], [1, 2, 3], [10, 2, 2], [1, 1, 1, 1, 5]):
        for up in UPS:
            assert s.decide(hand, up, can_double=False, can_split=False, can_surrender=False) in (H, S)


def test_fallbacks_follow_the_expected_values() -> None:
    rules = peek_game(surrender="late")
    # 8-8 v 6 at the split limit plays as hard 16: stand.
    assert play(rules, [8, 8], 6, can_split=False, hands_in_box=4, is_split_hand=True) is S
    # A-A that cannot be resplit after splitting aces stands (split aces take one card).
    assert play(rules, [1, 1], 6, can_split=False, hands_in_box=2, is_split_hand=True) is S
    assert play(build_rules("ru-standard"), [1, 1], 6, hands_in_box=2, is_split_hand=True) is P
    # Split hands never surrender and double only with DAS.
    assert play(rules, [10, 6], 10, is_split_hand=True, hands_in_box=2, can_surrender=False) is H
    nodas = peek_game(double_after_split=False)
    s = strategy_for(nodas)
    assert s.decide([6, 5], 6, can_double=False, can_split=False, can_surrender=False, is_split_hand=True,
                    hands_in_box=2) is H


def test_insurance_and_even_money_are_declined() -> None:
    s = strategy_for(build_rules("ru-standard"))
    assert s.take_insurance() is False and s.take_even_money() is False


def test_three_sevens_bonus_is_in_the_seven_seven_hit_value() -> None:
    with_bonus = strategy_for(build_rules("ru-standard"))
    without = strategy_for(enhc_game())
    for up in UPS:
        gain = with_bonus.evs("pair", 7, up)[H] - without.evs("pair", 7, up)[H]
        # About P(third seven) (~7%) times the bonus over the ordinary value of hard 21.
        assert 0.12 < gain < 0.25, (up, gain)
    # Splitting stays best, but when 7-7 v 2 cannot be split, the bonus turns stand into hit.
    assert with_bonus.decide([7, 7], 2, **ALL) is P
    assert with_bonus.decide([7, 7], 2, **{**ALL, "can_split": False}) is H
    assert without.decide([7, 7], 2, **{**ALL, "can_split": False}) is S
    # The bonus is for the original hand only: a split hand's 7-7 ignores it.
    assert with_bonus.decide([7, 7], 2, can_double=False, can_split=False, can_surrender=False,
                             hands_in_box=2, is_split_hand=True) is S


def test_strategy_is_cached_per_profile() -> None:
    # How fast a strategy builds is a figure for benchmarks/engine.py, not a test.
    first = strategy_for(build_rules("ru-standard", {"decks": 8}))
    assert strategy_for(build_rules("ru-standard", {"decks": 8})) is first


def test_chart_lists_every_row() -> None:
    text = chart(build_rules("ru-surrender"))
    assert "16       S   S   S   S   S   H   H  Rh  Rh  Rh" in text
    assert "A-A" in text and "A-9" in text
