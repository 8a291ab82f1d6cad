"""One scenario per clause of shared/rules.md, run through the replay code path.

Each test names the clause it checks ("rules.md, <section>: <clause>").
Deal order without a hole card: box 1, box 2, ..., dealer, box 1, box 2, ...
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from tests.support.engine_dsl import hands, play

from controller.cards import parse_card, total_of
from controller.engine import Phase
from controller.rules import build_rules


def totals(*codes: str):
    return total_of([parse_card(c).value for c in codes])


# ---------------------------------------------------------------- what every profile shares

def test_totals_soft_and_hard():
    """rules.md, shared: A-3 is 4/14, A-3-A is 5/15, A-A-4-6 is hard 12; at most two totals."""
    assert totals("AS", "3H").shown() == [4, 14]
    assert totals("AS", "3H", "AD").shown() == [5, 15]
    assert totals("AS", "AH", "4D", "6C").shown() == [12]
    assert totals("AS", "KH").shown() == [21]
    assert totals("TS", "QH", "5D").is_bust


def test_ten_code_accepted():
    """Card codes: `10H` is accepted as TH."""
    assert parse_card("10H") is parse_card("TH")


def test_blackjack_beats_three_card_21():
    """rules.md, shared: a two-card 21 on the original hand is a BJ and beats any other 21; BJ pays 3:2."""
    r = play("bet 1 10", "cards AS 9D KH", "cards 5C 7S")  # dealer 9-5-7 = 21
    assert hands(r) == [(1, "AS KH", "blackjack", "15")]


def test_split_21_is_not_blackjack():
    """rules.md, shared: 21 made on a split hand is plain 21, never a BJ (pays 1:1)."""
    r = play("bet 1 10", "cards AS 9D AH", "split", "card KH", "card 9C", "cards TD")  # dealer 9-T = 19
    assert hands(r) == [(1, "AS KH", "win", "10"), (1, "AH 9C", "win", "10")]


def test_hand_on_21_takes_no_more_cards():
    """rules.md, shared: a hand on 21 (hard or soft) is complete: the next card goes to the next box."""
    r = play("bet 1 10", "bet 2 10", "cards 5S 9H 7D 6C 9C", "card TH",  # box 1: 5-6-T = 21
             "card 2D", "stand",  # box 2: 9-9-2 = 20, the card went to box 2
             "cards TC")  # dealer 7-T = 17
    assert hands(r) == [(1, "5S 6C TH", "win", "10"), (2, "9H 9C 2D", "win", "10")]


def test_bust_loses_at_once_whatever_the_dealer_makes():
    """rules.md, shared: over 21 loses at once, whatever the dealer makes later."""
    r = play("bet 1 10", "bet 2 10", "cards TS 9H 6D 6C 9C", "card KH",  # box 1 busts
             "stand", "cards TD 8D")  # dealer 6-T-8 = 24 busts too
    assert hands(r) == [(1, "TS 6C KH", "bust", "-10"), (2, "9H 9C", "win", "10")]


def test_payouts_win_push_lose():
    """rules.md, shared: a win pays 1:1, equal totals push, a lower total loses."""
    r = play("bet 1 10", "bet 2 20", "bet 3 30", "cards TS 9H 8D 7C", "cards TC 9C 7D",
             "stand", "stand", "stand", "cards TD")  # dealer 7-T = 17: 20 wins, 18 wins... adjust below
    assert hands(r) == [(1, "TS TC", "win", "10"), (2, "9H 9C", "win", "20"), (3, "8D 7D", "lose", "-30")]
    r = play("bet 1 10", "cards TS 7C TC", "stand", "cards QD")  # 20 v 17... dealer 7-Q = 17
    assert hands(r) == [(1, "TS TC", "win", "10")]
    r = play("bet 1 10", "cards TS 7C 7H", "stand", "cards QD")  # 17 v 17
    assert hands(r) == [(1, "TS 7H", "push", "0")]


def test_deal_order_and_boxes_played_in_order():
    """rules.md, shared: one card to each box in order, one to the dealer, a second to each box; boxes play from first base."""
    r = play("bet 3 10", "bet 1 10", "cards 2S 3S 4S 5S 6S", "stand", "stand", "cards TD 5D")
    # box 1 got 2S and 5S, box 3 got 3S and 6S, the dealer 4S.
    assert hands(r) == [(1, "2S 5S", "lose", "-10"), (3, "3S 6S", "lose", "-10")]
    assert r.rounds[-1]["dealer"]["cards"] == ["4S", "TD", "5D"]


def test_split_hands_played_one_at_a_time():
    """rules.md, shared (seed 000): after a split the first hand takes its cards until complete, then the next."""
    r = play("bet 1 10", "cards 8S 6D 8H", "split", "card 3C", "card 2C", "stand",  # first hand 8-3-2
             "card TD", "stand",  # second hand 8-T
             "cards TH")  # dealer 6-T = 16 -> draws
    assert r.table.phase is Phase.DEALER
    assert r.table.round.boxes[0].hands[0].cards[1].code == "3C"


def test_dealer_draws_nothing_when_every_box_busted():
    """rules.md, shared: when every box has busted the dealer draws nothing; his card goes to the discards."""
    r = play("bet 1 10", "cards TS 5D 6H", "card KH")
    assert hands(r) == [(1, "TS 6H KH", "bust", "-10")]
    assert r.rounds[-1]["dealer"]["cards"] == ["5D"]
    assert r.table.phase is Phase.BETTING


def test_dealer_takes_second_card_only_to_settle_waiting_blackjack():
    """rules.md, shared: when only player BJs (v ace or ten) and insurance wait, the dealer takes his second card and stops."""
    r = play("bet 1 10", "cards AS TD KH", "cards 5C")  # dealer T-5 = 15, but no more cards
    assert hands(r) == [(1, "AS KH", "blackjack", "15")]
    assert r.rounds[-1]["dealer"]["cards"] == ["TD", "5C"]


def test_decks_option_range():
    """rules.md, shared: the number of decks is an option, 1 to 8."""
    assert build_rules("ru-standard", {"decks": 8}).shoe_size == 416
    with pytest.raises(ValueError, match="decks"):
        build_rules("ru-standard", {"decks": 9})


def test_burn_cards_through_the_reader():
    """rules.md, shared: by default no burn; a house that burns through the shoe sets burn_cards (decided)."""
    r = play("bet 1 10", "card 2S", "cards 9D 7S TS", "stand", "cards TD", burn_cards=1)
    assert hands(r) == [(1, "9D TS", "win", "10")]  # 2S was burnt, not dealt
    assert r.rounds[-1]["dealer"]["cards"] == ["7S", "TD"]
    r = play("bet 1 10", "card 2S", "cards 9D TS", "stand", "cards 8D")
    assert hands(r)[0][1] == "2S TS"  # without burn the first card is the box's


def test_void_round_returns_every_bet():
    """rules.md, shared (003): a supervisor may void the round before it is settled: every bet returned."""
    r = play("bet 1 10", "bet 2 20", "cards TS 9H AD 9C 8C", "ins 1 5", "close", "double", "card 2H", "void")
    rnd = r.rounds[-1]
    assert rnd["void"] is True
    assert [h["net"] for h in rnd["hands"]] == ["0", "0"]
    assert rnd["insurance"] == [{"box": 1, "amount": "5", "net": "0"}]
    assert rnd["net"] == "0"


# ---------------------------------------------------------------- ru-standard

def test_ru_standard_shoe_and_cut_card_range():
    """rules.md, ru-standard: 6 decks (312 cards); cut card with 200-220 of 312 dealt; 4 decks allowed."""
    rules = build_rules("ru-standard")
    assert rules.shoe_size == 312
    assert round(rules.cut_card_min * 312) == 200 and round(rules.cut_card_max * 312) == 220
    assert build_rules("ru-standard", {"decks": 4}).decks == 4


def test_ru_standard_shuffle_before_first_round():
    """rules.md, ru-standard: shuffle before the first round: a card before it puts the table in attention."""
    r = play("bet 1 10", "card 5S", shuffle=False)
    assert r.table.phase is Phase.ATTENTION
    assert r.as_dict()["alerts"][0]["kind"] == "unexpected_card"


def test_ru_standard_cut_card_finishes_round_then_shuffle_and_right_to_cut():
    """rules.md, ru-standard: after the cut card the round is finished, then a shuffle; the box it came out on may cut."""
    r = play("bet 1 10", "bet 2 10", "cards TS 9H 7D 6C", "cut", "card 9C",  # cut card before box 2's 2nd card
             "stand", "stand", "cards TD")
    assert len(r.rounds) == 1
    assert r.table.phase is Phase.WAITING_FOR_SHUFFLE
    assert r.table.right_to_cut == "box 2"
    assert [a["kind"] for a in r.as_dict()["alerts"]] == ["shuffle_due"]
    more = play("bet 1 10", "bet 2 10", "cards TS 9H 7D 6C", "cut", "card 9C", "stand", "stand", "cards TD",
                "bet 1 10", "card 5S")
    assert more.table.phase is Phase.ATTENTION  # a card while the shuffle is due is held
    after = play("bet 1 10", "cards TS 6D 6C", "stand", "card 5H", "cut", "card 8H")
    assert after.table.right_to_cut == "dealer"  # came out in the dealer's own draw: he picks


def test_ru_standard_shuffle_clears_shuffle_due():
    """rules.md, ru-standard: the shuffle after the cut card; the next shoe plays."""
    r = play("bet 1 10", "cards TS 6D", "cut", "card 6C", "stand", "cards 5H 8H", "shuffle S2",
             "bet 1 10", "cards 9S 7D TC", "stand", "cards TD")
    assert [x["shoe_id"] for x in r.rounds] == ["S1", "S2"]
    assert r.as_dict()["alerts"] == []


def test_ru_standard_repeat_shuffle_once_and_lone_player():
    """rules.md, ru-standard: players may ask for the shuffle to be repeated, once only; a lone player may ask any time."""
    r = play("shuffle S2")
    assert r.error is None
    r = play("shuffle S2", "shuffle S3")
    assert r.error["code"] == "shuffle_not_due"
    r = play("bet 1 10", "bet 2 10 Petr", "cards TS 9S 6D TC 9C", "stand", "stand", "card 2H", "card TH", "shuffle S2")
    assert r.error["code"] == "shuffle_not_due"  # two players, no cut card: no shuffle
    r = play("bet 1 10 Anna", "cards TS 6D TC", "stand", "card 2H", "card TH", "shuffle S2")
    assert r.error is None  # a lone player


def test_ru_standard_boxes_players_and_limits():
    """rules.md, ru-standard: 7 boxes; up to 3 players on a box; the total bet on a box within the table limits."""
    assert play("bet 8 10").error["code"] == "no_such_box"
    r = play("bet 1 10 A", "bet 1 10 B", "bet 1 10 C", "bet 1 10 D")
    assert r.error["code"] == "box_full" and r.error["line"] == 6
    assert play("bet 1 5").error["code"] == "bet_under_min"
    assert play("bet 1 600 A", "bet 1 500 B").error["code"] == "bet_over_max"
    r = play("bet 1 10 A", "bet 1 20 B", "cards TS 6D TC", "stand", "cards TD 2D")
    assert hands(r) == [(1, "TS TC", "win", "30")]  # one hand for the box's whole bet


def test_ru_standard_reservation_lapses_after_20_minutes():
    """rules.md, ru-standard: a box may be reserved with a marker for at most 20 minutes."""
    r = play("reserve 3 Ivan 2026-11-30T20:00:00Z", "tick 2026-11-30T20:10:00Z", "bet 3 10 Olga")
    assert r.error["code"] == "box_reserved"
    r = play("reserve 3 Ivan 2026-11-30T20:00:00Z", "tick 2026-11-30T20:20:00Z", "bet 3 10 Olga")
    assert r.error is None and 3 not in r.table.reservations


def test_ru_standard_no_hole_card_dealer_second_card_in_his_turn():
    """rules.md, ru-standard: no hole card; the dealer's second card comes only in the dealer's turn."""
    r = play("bet 1 10", "cards TS 9D 8C")
    assert r.table.phase is Phase.PLAYERS
    assert [c.code for c in r.table.round.dealer.cards] == ["9D"]


def test_ru_standard_dealer_stands_on_soft_17():
    """rules.md, ru-standard: the dealer stands on every 17, soft 17 included (A-6)."""
    r = play("bet 1 10", "cards TS AD 7C", "close", "stand", "card 6H")
    assert r.rounds[-1]["dealer"]["cards"] == ["AD", "6H"]
    assert hands(r) == [(1, "TS 7C", "push", "0")]
    r = play("bet 1 10", "cards TS AD 7C", "close", "stand", "card 6H", "card 4H", dealer_hits_soft17=True)
    assert r.rounds[-1]["dealer"]["cards"] == ["AD", "6H", "4H"]


def test_ru_standard_double_any_two_cards_one_card_only():
    """rules.md, ru-standard: double on any first two cards; exactly one more card follows."""
    r = play("bet 1 10", "cards TS 6D 7C", "double", "card 2H", "cards TD 2D")  # 19 v 18
    assert hands(r) == [(1, "TS 7C 2H", "win", "20")]
    r = play("bet 1 10", "cards TS 6D 7C", "card 2H", "double")
    assert r.error["code"] == "double_not_allowed"


def test_ru_standard_split_by_value_up_to_four_hands_das():
    """rules.md, ru-standard: split equal values (K-T is a pair), up to 4 hands, double after split allowed."""
    r = play("bet 1 10", "cards KS 6D TC", "split", "card TH", "split", "card QD", "split",
             "card 9C", "stand", "card 9D", "stand", "card 9H", "stand", "card 2S", "double", "card 5S",
             "cards TD 2D")
    assert r.error is None
    # Each new hand stands right after the one it was split from, and is played in that order.
    assert hands(r) == [(1, "KS 9C", "win", "10"), (1, "QD 9D", "win", "10"),
                        (1, "TH 9H", "win", "10"), (1, "TC 2S 5S", "lose", "-20")]
    r = play("bet 1 10", "cards KS 6D TC", "split", "card TH", "split", "card QD", "split", "card JC", "split")
    assert r.error["code"] == "split_limit"


def test_split_unequal_refused():
    """rules.md, ru-standard: a split needs two cards of equal value."""
    r = play("bet 1 10", "cards 8S 6D 9C", "split")
    assert r.error == {"line": 7, "code": "split_unequal", "message": "8S and 9C are not a pair of equal value"}


def test_ru_standard_split_aces_one_card_resplit_on_ace():
    """rules.md, ru-standard: split aces get one card each; if that card is an ace it may be split again."""
    r = play("bet 1 10", "cards AS 6D AC", "split", "card AH", "split", "card 9C", "card 5D", "card 7H",
             "cards TD 2D")
    assert hands(r) == [(1, "AS 9C", "win", "10"), (1, "AH 5D", "lose", "-10"), (1, "AC 7H", "push", "0")]
    r = play("bet 1 10", "cards AS 6D AC", "split", "card 9C", "stand")
    assert r.error["code"] == "needs_card"  # the first ace is complete with one card; the second waits for its card
    assert r.table.round.hand_i == 1


def test_ru_standard_insurance_half_the_bet_pays_2_to_1():
    """rules.md, ru-standard: insurance against an ace, at most half the bet, pays 2:1 if the dealer makes BJ."""
    assert play("bet 1 10", "cards TS AD 9C", "ins 1 6").error["code"] == "insurance_too_large"
    r = play("bet 1 10", "cards TS AD 9C", "ins 1 5", "close", "stand", "card 7H")  # dealer A-7 = 18
    assert r.rounds[-1]["insurance"] == [{"box": 1, "amount": "5", "net": "-5"}]
    assert r.rounds[-1]["net"] == "5"  # 19 beats 18 (+10), the insurance is lost (-5)
    assert play("bet 1 10", "cards TS 9D 9C", "ins 1 5").error["code"] == "insurance_closed"


def test_ru_standard_even_money():
    """rules.md, ru-standard: a box with BJ is offered even money against an ace: paid 1:1 at once."""
    r = play("bet 1 10", "bet 2 10", "cards AS 9H AD KH 9C", "even 1", "close", "stand", "card KD")
    assert hands(r) == [(1, "AS KH", "even_money", "10"), (2, "9H 9C", "lose", "-10")]


def test_ru_standard_blackjack_waits_against_ten_pushes_dealer_bj():
    """rules.md, ru-standard: BJ against a dealer ten waits; pushes a dealer BJ, else paid 3:2."""
    r = play("bet 1 10", "cards AS TD KH", "card AC")
    assert hands(r) == [(1, "AS KH", "push", "0")]
    r = play("bet 1 10", "cards AS TD KH", "card 7C")
    assert hands(r) == [(1, "AS KH", "blackjack", "15")]
    r = play("bet 1 10", "cards AS 6D KH")  # no ten or ace up: paid at once, dealer draws nothing
    assert hands(r) == [(1, "AS KH", "blackjack", "15")]
    assert r.rounds[-1]["dealer"]["cards"] == ["6D"]


def test_ru_standard_dealer_bj_takes_doubles_and_splits():
    """rules.md, ru-standard: a dealer BJ takes every other bet, doubles and splits included (decided: lose all)."""
    steps = ("bet 1 10", "cards 8S TD 8C", "split", "card 3H", "double", "card 7H", "card 9H", "stand", "card AH")
    r = play(*steps)
    assert hands(r) == [(1, "8S 3H 7H", "lose", "-20"), (1, "8C 9H", "lose", "-10")]
    r = play(*steps, dealer_bj_takes="original")
    assert [h[3] for h in hands(r)] == ["-10", "0"]  # only the original 10 is lost
    assert r.rounds[-1]["net"] == "-10"


def test_ru_standard_three_sevens_bonus():
    """rules.md, ru-standard: first three cards all sevens pay 3:1, 5:1 suited; the hand is complete at 21."""
    r = play("bet 1 10", "cards 7S 9D 7H", "card 7D", "cards TC")
    assert hands(r) == [(1, "7S 7H 7D", "three_sevens", "30")]
    assert r.rounds[-1]["dealer"]["cards"] == ["9D"]  # settled at once; nothing depends on the dealer
    r = play("bet 1 10", "cards 7S 9D 7S", "card 7S")
    assert hands(r) == [(1, "7S 7S 7S", "three_sevens", "50")]


def test_three_sevens_not_on_split_hands():
    """rules.md, ru-standard (decided): the bonus is on the original hand only, not split hands."""
    r = play("bet 1 10", "cards 7S 9D 7H", "split", "card 7D", "card 7C", "card TH", "stand", "card TD")
    assert hands(r)[0] == (1, "7S 7D 7C", "win", "10")


def test_ru_standard_no_surrender():
    """rules.md, ru-standard: no surrender."""
    assert play("bet 1 10", "cards TS 9D 6C", "surrender").error["code"] == "surrender_not_allowed"


# ---------------------------------------------------------------- ru-surrender

def test_ru_surrender_window_before_any_hit():
    """rules.md, ru-surrender: surrender on the first two cards, before anyone has drawn; half the bet back."""
    r = play("bet 1 10", "bet 2 10", "cards TS 9H 9D 6C 7C", "surrender 2", "card 5H", "card 8D",
             profile="ru-surrender")
    assert hands(r) == [(1, "TS 6C 5H", "win", "10"), (2, "9H 7C", "surrender", "-5")]
    r = play("bet 1 10", "bet 2 10", "cards TS 9H 9D 6C 7C", "card 5H", "surrender 2", profile="ru-surrender")
    assert r.error["code"] == "surrender_closed"


def test_ru_surrender_half_kept_even_against_dealer_bj():
    """rules.md, ru-surrender (decided): the surrendered half is settled at once; a later dealer BJ does not touch it."""
    r = play("bet 1 10", "bet 2 10", "cards TS 9H AD 6C 7C", "close", "surrender 1", "stand", "card KD",
             profile="ru-surrender")
    assert hands(r) == [(1, "TS 6C", "surrender", "-5"), (2, "9H 7C", "lose", "-10")]


def test_ru_surrender_not_on_split_hands():
    """rules.md, ru-surrender: not on split hands."""
    r = play("bet 1 10", "cards 8S 9H 8D", "split", "surrender", profile="ru-surrender")
    assert r.error["code"] == "surrender_not_allowed"


# ---------------------------------------------------------------- us-holecard

def test_us_holecard_deal_peek_and_original_bet_only():
    """rules.md, us-holecard: hole card dealt last; peek on ace and ten (decided); a dealer BJ takes only the bet made."""
    r = play("bet 1 10", "cards 9S TD 9C AH", profile="us-holecard")
    assert hands(r) == [(1, "9S 9C", "lose", "-10")]  # the peek ends the round before any play
    assert r.rounds[-1]["dealer"]["cards"] == ["TD", "AH"]
    r = play("bet 1 10", "cards 9S TD 9C 7H", "split", profile="us-holecard")
    assert r.error is None and r.table.phase is Phase.PLAYERS


def test_us_holecard_dealer_stands_soft_17_and_split_by_rank():
    """rules.md, us-holecard: dealer stands on soft 17; pairs are equal rank; no double after split (decided)."""
    r = play("bet 1 10", "cards KS 6D QC AH", "split", profile="us-holecard")
    assert r.error["code"] == "split_unequal"
    r = play("bet 1 10", "cards 8S 6D 8C AH", "split", "card 3H", "double", profile="us-holecard")
    assert r.error["code"] == "double_not_allowed"
    r = play("bet 1 10", "cards TS 6D 8C AH", "stand", profile="us-holecard")
    assert hands(r) == [(1, "TS 8C", "win", "10")]  # dealer 6-A = soft 17 stands


def test_us_holecard_resplit_but_not_aces():
    """rules.md, us-holecard: a split hand dealt another card of the same rank may split again, but aces may not."""
    r = play("bet 1 10", "cards 8S 6D 8C 9H", "split", "card 8D", "split", profile="us-holecard")
    assert r.error is None and len(r.table.round.boxes[0].hands) == 3
    r = play("bet 1 10", "cards AS 6D AC 9H", "split", "card AD", profile="us-holecard")
    first = r.table.round.boxes[0].hands[0]
    assert [c.code for c in first.cards] == ["AS", "AD"] and first.done  # no resplit: play moved on
    assert r.table.round.hand_i == 1


def test_us_holecard_double_options():
    """rules.md, us-holecard: double on any two (Las Vegas), 10 or 11 (Reno), or not at all."""
    steps = ("bet 1 10", "cards 5S 6D 4C 9H", "double")  # hard 9
    assert play(*steps, profile="us-holecard").error is None
    assert play(*steps, profile="us-holecard", double="10-11").error["code"] == "double_not_allowed"
    assert play(*steps, profile="us-holecard", double="none").error["code"] == "double_not_allowed"
    assert play(*steps, profile="us-holecard", double="9-11").error is None


def test_us_holecard_late_surrender_option():
    """rules.md, us-holecard (decided): late surrender after the peek, an option off by default."""
    steps = ("bet 1 10", "cards TS TD 6C 7H", "surrender")
    assert play(*steps, profile="us-holecard").error["code"] == "surrender_not_allowed"
    r = play(*steps, profile="us-holecard", surrender="late")
    assert hands(r) == [(1, "TS 6C", "surrender", "-5")]


def test_us_holecard_insurance_settled_by_peek():
    """rules.md, us-holecard: insurance half the bet on a dealer BJ, pays 2:1."""
    r = play("bet 1 10", "cards TS AD 9C KH", "ins 1 5", "close", profile="us-holecard")
    assert r.rounds[-1]["insurance"] == [{"box": 1, "amount": "5", "net": "10"}]
    assert r.rounds[-1]["net"] == "0"


# ---------------------------------------------------------------- single-deck-enhc

def test_enhc_reshuffle_every_round_and_limits():
    """rules.md, single-deck-enhc: one deck shuffled before every round; up to 3 boxes; bet 1 to 200."""
    r = play("bet 1 10", "cards TS 9D TC", "stand", "cards 8D", profile="single-deck-enhc")
    assert r.table.phase is Phase.WAITING_FOR_SHUFFLE
    assert play("bet 4 10", profile="single-deck-enhc").error["code"] == "no_such_box"
    assert play("bet 1 201", profile="single-deck-enhc").error["code"] == "bet_over_max"
    assert play("bet 1 1", profile="single-deck-enhc").error is None


def test_enhc_blackjack_paid_at_once_unless_ten_or_ace():
    """rules.md, single-deck-enhc: BJ paid 3:2 at once against a non-ten non-ace; otherwise settled at the end."""
    r = play("bet 1 10", "bet 2 10", "cards AS 9H 5D KH 9C", "stand", "card TD", "card 3D", profile="single-deck-enhc")
    assert hands(r)[0] == (1, "AS KH", "blackjack", "15")


def test_enhc_early_surrender_not_against_ace():
    """rules.md, single-deck-enhc: surrender only as the first action, not on split hands, not against an ace."""
    r = play("bet 1 10", "cards TS TD 6C", "surrender", profile="single-deck-enhc")
    assert hands(r) == [(1, "TS 6C", "surrender", "-5")]  # settled at once: no bet is left, the dealer draws nothing
    assert r.rounds[-1]["dealer"]["cards"] == ["TD"]
    r = play("bet 1 10", "cards TS AD 6C", "close", "surrender", profile="single-deck-enhc")
    assert r.error["code"] == "surrender_not_allowed"
    r = play("bet 1 10", "bet 2 10", "cards TS 9H TD 6C 7C", "surrender 2", profile="single-deck-enhc")
    assert r.error["code"] == "not_your_turn"


def test_enhc_double_only_on_11_one_split_only():
    """rules.md, single-deck-enhc: double only a two-card 11 (DO11), never after a split; one split only."""
    assert play("bet 1 10", "cards 5S 9D 5C", "double", profile="single-deck-enhc").error["code"] == "double_not_allowed"
    assert play("bet 1 10", "cards 5S 9D 6C", "double", profile="single-deck-enhc").error is None
    r = play("bet 1 10", "cards 8S 9D 8C", "split", "card 8H", "split", profile="single-deck-enhc")
    assert r.error["code"] == "split_limit"
    r = play("bet 1 10", "cards 8S 9D 8C", "split", "card 3H", "double", profile="single-deck-enhc")
    assert r.error["code"] == "double_not_allowed"


def test_enhc_dealer_bj_insurance_pays_blackjack_pushes_rest_loses():
    """rules.md, single-deck-enhc: on a dealer BJ insurance pays 2:1, boxes with BJ push, every other bet loses."""
    r = play("bet 1 10", "bet 2 10", "bet 3 10", "cards AS 9H 8D AD KH 9C 3C", "ins 2 5", "close",
             "stand", "double", "card 2C", "card TC", profile="single-deck-enhc")
    assert hands(r) == [(1, "AS KH", "push", "0"), (2, "9H 9C", "lose", "-10"), (3, "8D 3C 2C", "lose", "-20")]
    assert r.rounds[-1]["insurance"] == [{"box": 2, "amount": "5", "net": "10"}]


# ---------------------------------------------------------------- attention

def test_unexpected_card_after_dealer_stood_attention_then_discard():
    """Engine: a card nobody may take is held; attention; the supervisor discards it and play resumes."""
    r = play("bet 1 10", "cards TS 6D 8C", "stand", "card TH", "card 8H", "card 5C")  # dealer 6-T-8 busts
    assert r.table.phase is Phase.ATTENTION and [c.code for c in r.table.held] == ["5C"]
    r = play("bet 1 10", "cards TS 6D 8C", "stand", "card TH", "card 8H", "card 5C", "bet 1 10")
    assert r.error["code"] == "table_needs_attention"
    r = play("bet 1 10", "cards TS 6D 8C", "stand", "card TH", "card 8H", "card 5C", "discard", "bet 1 10")
    assert r.error is None and r.table.phase is Phase.BETTING and r.as_dict()["alerts"] == []


def test_card_while_insurance_open_is_held():
    """Engine: a card while insurance is open is not dealt to anyone: attention."""
    r = play("bet 1 10", "cards TS AD 8C", "card 5C")
    assert r.table.phase is Phase.ATTENTION
    r = play("bet 1 10", "cards TS AD 8C", "card 5C", "discard", "close", "stand", "card 9D")
    assert hands(r) == [(1, "TS 8C", "lose", "-10")]  # dealer A-9 = 20; 5C went to the discards
    assert r.rounds[-1]["dealer"]["cards"] == ["AD", "9D"]


# ---------------------------------------------------------------- issue 14: the points decided

def test_enhc_blackjack_may_insure_against_an_ace():
    """rules.md, single-deck-enhc: insurance "on each box", for half the box's bet; Points decided: a box
    holding a blackjack may insure like any other box, even money stays off there."""
    steps = ("bet 1 10", "bet 2 10", "cards AS 9H AD KH 9C", "ins 1 5", "ins 2 5", "close", "stand")
    r = play(*steps, "card KD", profile="single-deck-enhc")  # dealer A-K: blackjack
    assert hands(r) == [(1, "AS KH", "push", "0"), (2, "9H 9C", "lose", "-10")]
    assert r.rounds[-1]["insurance"] == [{"box": 1, "amount": "5", "net": "10"}, {"box": 2, "amount": "5", "net": "10"}]
    r = play(*steps, "card 8D", profile="single-deck-enhc")  # dealer A-8 = 19: the blackjack is paid 3:2
    assert hands(r) == [(1, "AS KH", "blackjack", "15"), (2, "9H 9C", "lose", "-10")]
    assert [i["net"] for i in r.rounds[-1]["insurance"]] == ["-5", "-5"]
    assert play("bet 1 10", "cards AS AD KH", "even 1", profile="single-deck-enhc").error["code"] == "even_money_closed"
    # Where even money is offered (ru-standard) a blackjack takes it instead of insuring.
    assert play("bet 1 10", "cards AS AD KH", "ins 1 5").error["code"] == "insurance_not_allowed"


def test_insurance_amount_half_or_up_to_half():
    """rules.md, Points decided: insurance_amount is up_to_half in the ru profiles (000) and exactly half in
    us-holecard and single-deck-enhc (002, 004)."""
    assert play("bet 1 10", "cards TS AD 9C", "ins 1 3").error is None
    r = play("bet 1 10", "cards TS AD 9C 5H", "ins 1 3", profile="us-holecard")
    assert r.error["code"] == "insurance_not_half" and "5" in r.error["message"]
    assert play("bet 1 10", "cards TS AD 9C", "ins 1 3", profile="single-deck-enhc").error["code"] == "insurance_not_half"
    assert play("bet 1 10", "cards TS AD 9C", "ins 1 3", profile="ru-standard",
                insurance_amount="half").error["code"] == "insurance_not_half"


def test_repeat_shuffle_once_only_with_reshuffle_every_round():
    """rules.md, Points decided: "once only" holds with every option, reshuffle_every_round included; the
    shuffle the rules require is not a repeat and one repeat may follow it."""
    r = play("shuffle S2", "shuffle S3", profile="single-deck-enhc")  # S1 required, S2 the repeat
    assert r.error is not None and r.error["code"] == "shuffle_not_due" and r.error["line"] == 4
    round_ = ("bet 1 10", "cards TS 9D TC", "stand", "cards 8D")
    r = play(*round_, "shuffle S2", "shuffle S3", "shuffle S4", profile="single-deck-enhc")
    assert r.error["code"] == "shuffle_not_due" and r.error["line"] == 11  # S4: a second repeat
    assert play(*round_, "shuffle S2", "shuffle S3", profile="single-deck-enhc").error is None
    assert play("shuffle S2", "shuffle S3", profile="us-holecard").error["code"] == "shuffle_not_due"


def test_single_deck_enhc_repeat_shuffles_is_one():
    """rules.md, Points decided / docs/rules.md: repeat_shuffles = 1 in single-deck-enhc, and it is enforced."""
    assert build_rules("single-deck-enhc").repeat_shuffles == 1
    r = play("shuffle S2", "shuffle S3", profile="single-deck-enhc", repeat_shuffles=2)
    assert r.error is None


def test_lone_player_shuffle_is_a_new_shuffle_not_a_repeat():
    """rules.md, Points decided: a lone player's request between rounds is a new shuffle; one repeat may follow."""
    lone = ("bet 1 10 Anna", "cards TS 6D TC", "stand", "card 2H", "card TH")
    assert play(*lone, "shuffle S2", "shuffle S3").error is None
    assert play(*lone, "shuffle S2", "shuffle S3", "shuffle S4").error["code"] == "shuffle_not_due"


def test_chip_unit_bets_in_whole_chips():
    """rules.md, Money, to the cent: a bet that is not a whole number of chip units is refused with the reason."""
    r = play("bet 1 12.35")
    assert r.error["code"] == "bet_not_whole_chips" and "chips of 1" in r.error["message"]
    assert play("bet 1 12.35", chip_unit="0.05").error["code"] == "bad_rules"  # see the next test
    r = play("bet 1 12.30", "cards AS 9D KH", "cards 5C 7S", chip_unit="0.10")  # BJ: 12.30 x 3:2
    assert hands(r) == [(1, "AS KH", "blackjack", "18.45")]
    r = play("bet 1 12.30", "cards TS 9D 6C", "surrender", profile="ru-surrender", chip_unit="0.10")
    assert r.error is None and hands(r)[0][3] == "-6.15"


def test_chip_unit_that_could_pay_a_fraction_of_a_cent_is_refused():
    """rules.md, Money, to the cent (decided): every payout ratio times chip_unit must be whole cents; a profile
    that could pay a fraction of a cent is refused when built, naming the options."""
    from controller.rules import RuleError
    with pytest.raises(RuleError, match=r"chip_unit 0.01 x blackjack_pays 3:2 = 0.015"):
        build_rules("ru-standard", {"chip_unit": "0.01"})
    with pytest.raises(RuleError, match=r"surrender \(half back\) 1:2 = 0.005"):
        build_rules("ru-surrender", {"chip_unit": "0.01", "blackjack_pays": "1:1"})
    with pytest.raises(RuleError, match=r"insurance_amount = half"):
        build_rules("us-holecard", {"chip_unit": "0.01", "blackjack_pays": "1:1"})
    assert build_rules("ru-surrender", {"chip_unit": "0.02"}).chip_unit == Decimal("0.02")


def test_cut_card_after_the_bets_before_the_first_card():
    """rules.md, Points decided: the round whose bets are down is the round in progress: it is dealt and
    finished, then the shuffle is due. No attention."""
    r = play("bet 1 10", "bet 2 10", "cut", "cards TS 9H 7D 6C 9C", "stand", "stand", "cards TD")
    assert r.error is None and len(r.rounds) == 1
    assert hands(r) == [(1, "TS 6C", "lose", "-10"), (2, "9H 9C", "win", "10")]
    assert r.table.phase is Phase.WAITING_FOR_SHUFFLE and r.table.right_to_cut == "box 1"
    assert [a["kind"] for a in r.as_dict()["alerts"]] == ["shuffle_due"]
    two = ("bet 1 10", "bet 2 10 B", "cards TS 9H 7D 6C 9C", "stand", "stand", "cards TD")
    r = play(*two, "bet 1 10", "bet 2 10 B", "cut", "shuffle S2")
    assert r.error["code"] == "shuffle_not_due" and "dealt first" in r.error["message"]  # the round comes first
    # Without bets down the shuffle is due at once, and a card is held.
    r = play("cut", "bet 1 10", "card 5S")
    assert r.table.phase is Phase.ATTENTION


def test_link_up_takes_the_reason_the_session_format_lists():
    """docs/session-format.md: link_down / link_up take `reason`."""
    import json

    from controller.replay import replay_lines
    lines = [json.dumps({"type": "link_down", "reason": "cable"}), json.dumps({"type": "link_up", "reason": "replugged"})]
    r = replay_lines(lines)
    assert r.error is None and r.as_dict()["alerts"][0]["kind"] == "link_down"
    assert not r.as_dict()["alerts"][0]["active"]


def test_even_money_alone_opens_insurance_only_for_a_blackjack():
    """rules.md, Points decided: with insurance off, no insurance phase opens unless a box may take even money."""
    r = play("bet 1 10", "cards TS AD 9C", insurance=False)
    assert r.table.phase is Phase.PLAYERS
    r = play("bet 1 10", "bet 2 10", "cards AS 9H AD KH 9C", insurance=False)
    assert r.table.phase is Phase.INSURANCE
    assert [a.value for a in r.table.legal_actions()] == ["even_money", "close_insurance"]
    r = play("bet 1 10", "bet 2 10", "cards AS 9H AD KH 9C", "ins 2 5", insurance=False)
    assert r.error["code"] == "insurance_closed"
    r = play("bet 1 10", "bet 2 10", "cards AS 9H AD KH 9C", "even 1", "close", "stand", "card 9D", insurance=False)
    assert hands(r) == [(1, "AS KH", "even_money", "10"), (2, "9H 9C", "lose", "-10")]
