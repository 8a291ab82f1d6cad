"""One scenario per clause of shared/rules.md, profile `club-21-36` (003's 36-card game), through the replay path.

Each test names the clause it checks ("rules.md, club-21-36: <clause>"). The session starts with a
shuffle and the banker's bank; the deal is one closed card to each box in order, then one to the
banker, then (a new pack) the bottom card. Values: ace 1 or 11, king 4, queen 3, jack 2, six to ten
as marked.
"""

from __future__ import annotations

import json

import pytest
from tests.support.engine_dsl import hands, play, rest_of_pack

from controller.engine import Phase
from controller.rules import RuleError, build_rules
from controller.view import table_view

GAME = "club-21-36"
BANK = "open_bank 1000"
DEAL = ("bet 1 10", "bet 2 20", "cards 9S 8H 7D", "card 6C")  # box 1 9S, box 2 8H, the banker 7D; bottom 6C


def duels(*steps: str, **options):
    return play(*steps, profile=GAME, **options)


def bank(r) -> dict:
    return table_view(r.table)["bank"]


# ---------------------------------------------------------------------------- the pack
def test_pack_36_cards_six_to_ace_and_the_values():
    """rules.md, club-21-36, Pack: one or two 36-card packs, 6 to ace. Values: ace 1 or 11, king 4, queen 3,
    jack 2, six to ten as marked."""
    rules = build_rules(GAME)
    assert (rules.decks, rules.pack, rules.shoe_size) == (1, 36, 36)
    assert build_rules(GAME, {"decks": 2}).shoe_size == 72
    with pytest.raises(RuleError, match="decks"):
        build_rules(GAME, {"decks": 3})
    r = duels(BANK, "bet 1 10", "cards KS 7D 6C", "card QS", "card JS", "card AS", "stand")  # 4+3+2+1 = 10, or 20
    assert r.table.round.boxes[0].hands[0].total == 20
    assert table_view(r.table)["shoe"]["remaining_by_rank"].keys() == set("A6789TJQK")


def test_a_card_outside_the_pack_is_an_integrity_alert():
    """rules.md, club-21-36, Pack: a card outside the pack (a 2 to 5) is an integrity alert (decided: it is
    held, never refused, the table in attention)."""
    r = duels(BANK, "bet 1 10", "card 5S")
    assert r.table.phase is Phase.ATTENTION and [c.code for c in r.table.held] == ["5S"]
    kinds = [a["kind"] for a in r.as_dict()["alerts"]]
    assert "integrity" in kinds and "unexpected_card" in kinds
    assert "5S" in next(a["message"] for a in r.as_dict()["alerts"] if a["kind"] == "integrity")
    r = duels(BANK, "bet 1 10", "card 5S", "discard", "cards 9S 7D 6C")  # discarded, the deal goes on
    assert r.error is None and r.table.phase is Phase.PLAYERS and r.table.round.boxes[0].hands[0].cards[0].code == "9S"


def test_the_shoe_says_how_many_cards_it_loaded():
    """rules.md, club-21-36, Pack (decided): a shuffle carrying the shoe's card count that is not the pack's
    is an integrity alert."""
    assert duels("shuffle S1 36", shuffle=False).as_dict()["alerts"] == []
    alerts = duels("shuffle S1 52", shuffle=False).as_dict()["alerts"]
    assert [a["kind"] for a in alerts] == ["integrity"] and "52" in alerts[0]["message"]


# ---------------------------------------------------------------------------- the bank
def test_the_banker_puts_up_a_bank_within_the_limits():
    """rules.md, club-21-36, The bank: before the deal the banker puts up a bank, within the table's bank
    minimum and maximum. The house's croupier banks (decided)."""
    assert duels("bet 1 10").error["code"] == "no_bank"
    assert duels("open_bank 50").error["code"] == "bank_under_min"
    assert duels("open_bank 20000").error["code"] == "bank_over_max"
    assert duels("open_bank 100.5").error["code"] == "bank_not_whole_chips"
    assert duels(BANK, BANK).error["code"] == "bank_open"
    r = duels(BANK)
    assert bank(r)["open"] and bank(r)["balance"] == "1000" and bank(r)["limits"] == {"min": "100", "max": "10000"}
    assert duels(BANK, "bet 1 10", "cards 9S 7D", "open_bank 500").error["code"] == "round_in_progress"


def test_a_stake_is_at_least_the_minimum_and_at_most_the_bank():
    """rules.md, club-21-36, The bank: a stake is at least the table minimum and at most the bank as it stands
    ("va-banque")."""
    assert duels(BANK, "bet 1 5").error["code"] == "bet_under_min"
    assert duels(BANK, "bet 1 1001").error["code"] == "bet_over_bank"
    assert duels(BANK, "bet 1 600", "bet 1 401").error["code"] == "bet_over_bank"
    assert duels(BANK, "bet 1 1000").error is None  # va-banque
    r = duels("open_bank 5", "bet 1 5", bank_min=5)  # a bank under the minimum stake is played for all of it
    assert r.error is None
    assert duels("open_bank 5", "bet 1 4", bank_min=5).error["code"] == "bet_under_min"


def test_the_box_stakes_after_looking_at_its_card():
    """rules.md, club-21-36, Duels: the box looks at its card and stakes (decided: a box is dealt in by its
    stake and may raise it on its turn, before it draws, up to the bank)."""
    r = duels(BANK, *DEAL, "bet 1 40")
    assert r.table.round.boxes[0].hands[0].stake == 5000
    assert duels(BANK, *DEAL, "bet 1 991").error["code"] == "bet_over_bank"
    assert duels(BANK, *DEAL, "bet 2 10").error["code"] == "bets_closed"  # not box 2's duel yet
    assert duels(BANK, *DEAL, "card TS", "bet 1 10").error["code"] == "bets_closed"  # it has drawn


def test_a_stake_over_the_bank_as_it_stands_is_cut_to_it():
    """rules.md, club-21-36, The bank: at most the bank as it stands (decided: a stake placed before the deal
    that the bank no longer covers at the box's duel plays for the whole bank, and the cut is shown: the view's
    duel and the round's record give the stake placed)."""
    r = duels("open_bank 100", "bet 1 60", "bet 2 80", "cards AS 9H 7D", "card 6C", "card TS")  # box 1: 21
    assert bank(r)["balance"] == "40" and r.table.round.boxes[1].hands[0].stake == 4000
    assert bank(r)["duel"] == {"box": 2, "stake": "40", "dark": False, "banker_kept_card": False, "cut_from": "80"}
    r = duels("open_bank 100", "bet 1 60", "bet 2 80", "cards AS 9H 7D", "card 6C", "card TS", "card 6D", "card TC",
              "stand", "card TD", "banker_stand")  # box 2: 19 against 16, the bank's last 40
    duel = r.rounds[-1]["hands"][1]
    assert (duel["bet"], duel["stake_cut_from"], duel["net"]) == ("40", "80", "40")
    assert "stake_cut_from" not in r.rounds[-1]["hands"][0]  # a stake the bank covered says nothing
    from controller.replay_cli import format_rounds
    assert "stake cut from 80 to 40: all the bank held at its duel" in format_rounds(r.as_dict())


def test_a_stake_the_bank_cannot_cover_is_refused_naming_its_cover():
    """rules.md, club-21-36, The bank: a stake is at most the bank as it stands: one beyond it is refused, the
    refusal naming what the bank covers (never cut silently)."""
    for r in (duels(BANK, "bet 1 1001"), duels(BANK, *DEAL, "bet 1 991"),
              duels(BANK, "deal_in 1", "cards 9S 7D", "card 6C", "bet 1 1001")):
        assert r.error["code"] == "bet_over_bank" and "the bank covers at most 1000" in r.error["message"]


def test_a_box_dealt_in_looks_at_its_card_then_stakes():
    """rules.md, club-21-36, Duels: the box looks at its card and stakes (003, "смотрит свою карту и выставляет"):
    a box dealt in without a stake (deal_in) gets its card; on its duel it stakes, at least the table minimum and
    at most the bank, before it draws, stands or goes dark."""
    deal = ("deal_in 1", "deal_in 2", "cards 9S 8H 7D", "card 6C")
    r = duels(BANK, *deal)
    assert r.error is None and r.table.phase is Phase.PLAYERS and r.table.next_card() is None
    view = table_view(r.table)
    assert view["legal_actions"] == ["bet", "fold"] and view["bank"]["duel"]["stake"] == "0"
    for step in ("stand", "dark"):
        refused = duels(BANK, *deal, step).error
        assert refused["code"] == "no_stake" and "stakes (bet, at least 10) or passes (fold)" in refused["message"]
    assert duels(BANK, *deal, "bet 1 5").error["code"] == "bet_under_min"
    assert duels(BANK, *deal, "bet 2 10").error["code"] == "bets_closed"  # box 2 stakes on its own duel
    r = duels(BANK, *deal, "card TS")  # a card before the stake: held, as any card the table cannot place
    assert r.table.phase is Phase.ATTENTION and "box 1 has not staked" in r.as_dict()["alerts"][0]["message"]
    r = duels(BANK, *deal, "bet 1 40", "card TS", "stand", "card KS", "card 9H")  # 19 v 20
    assert r.table.round.boxes[0].hands[0].stake == 4000 and bank(r)["balance"] == "1040"
    assert duels("open_bank 5", "deal_in 1", "cards 9S 7D", "card 6C", "bet 1 5", bank_min=5).error is None
    assert duels(BANK, "deal_in 1", "deal_in 1").error["code"] == "box_taken"
    assert duels("deal_in 1").error["code"] == "no_bank"
    assert duels(BANK, *deal, "deal_in 3").error["code"] == "bets_closed"


def test_a_box_that_will_not_stake_after_its_card_passes():
    """rules.md, club-21-36, Duels: the box looks at its card and stakes (decided: a box that will not stake
    passes, fold: it leaves the round with nothing lost, its card goes under the pack with the duel's, and the
    banker, whose card was not used, keeps it for the next box)."""
    r = duels(BANK, "deal_in 1", "deal_in 2", "cards 9S 8H 7D", "card 6C", "fold 1")
    assert r.table.phase is Phase.PLAYERS and table_view(r.table)["bank"]["duel"]["box"] == 2
    assert table_view(r.table)["bank"]["duel"]["banker_kept_card"] is True
    r = duels(BANK, "deal_in 1", "deal_in 2", "cards 9S 8H 7D", "card 6C", "fold 1", "bet 2 20", "card TS", "stand",
              "card KS", "card 6H")  # box 2 18 against the kept 7D, K, 6 = 17
    assert hands(r) == [(1, "9S", "fold", "0"), (2, "8H TS", "win", "20")]
    assert [(h["bet"], h["banker"]) for h in r.rounds[-1]["hands"]] == [("0", []), ("20", ["7D", "KS", "6H"])]
    assert duels(BANK, *DEAL, "fold 1").error["code"] == "box_staked"  # a box that staked plays its duel
    assert duels(BANK, "deal_in 1", "deal_in 2", "cards 9S 8H 7D", "card 6C", "fold 2").error["code"] == "not_your_turn"


# ---------------------------------------------------------------------------- the deal
def test_one_card_to_each_box_and_the_banker_then_the_bottom_card():
    """rules.md, club-21-36, Deal: one card to each box and to the banker. Then the bottom card as in club-21."""
    r = duels(BANK, "bet 2 10", "bet 1 10", "cards 9S 8H 7D")
    assert r.table.phase is Phase.DEALING and r.table.next_card() == "bottom"
    assert [c.code for c in r.table.round.boxes[1].hands[0].cards] == ["8H"]  # box 2
    viewer = table_view(r.table)
    assert [b["hands"][0]["cards"] for b in viewer["boxes"]] == [["XX"], ["XX"]] and viewer["dealer"]["cards"] == ["XX"]
    r = duels(BANK, "bet 2 10", "bet 1 10", "cards 9S 8H 7D", "card 6C")
    assert r.table.shoe.bottom.code == "6C" and r.table.phase is Phase.PLAYERS
    assert table_view(r.table)["turn"] == {"box": 1, "hand": 0}


def test_an_ace_at_the_bottom_shuffles_again():
    """rules.md, club-21-36, Deal: then the bottom card as in club-21 (an ace: reshuffle and cut again; decided:
    the deal is void, every stake comes back)."""
    r = duels(BANK, "bet 1 10", "cards 9S 7D", "card AC")
    assert r.rounds[-1]["void"] and r.rounds[-1]["net"] == "0" and r.table.phase is Phase.WAITING_FOR_SHUFFLE
    assert bank(r)["balance"] == "1000"
    r = duels(BANK, "bet 1 10", "cards 9S 7D", "card AC", "shuffle S2", "bet 1 10", "cards 9S 7D 6C")
    assert r.error is None and r.table.phase is Phase.PLAYERS


# ---------------------------------------------------------------------------- the duels
def test_21_two_aces_or_five_pictures_win_at_once():
    """rules.md, club-21-36, Duels: the boxes play the banker one at a time, from the croupier's left; 21, two
    aces as the first two cards, or five picture cards win at once."""
    r = duels(BANK, "bet 1 10", "bet 2 10", "cards AS 8H 7D", "card 6C", "card TS")  # A-T: 21
    assert r.table.round.boxes[0].hands[0].outcome.value == "win" and bank(r)["balance"] == "990"
    assert r.table.next_card() == "banker"  # his card was in the duel: a new one for box 2
    r = duels(BANK, "bet 1 10", "cards AS 7D", "card 6C", "card AH")
    assert hands(r) == [(1, "AS AH", "win", "10")]
    r = duels(BANK, "bet 1 10", "cards JS 7D", "card 6C", "cards QS KS JH QH")  # 2+3+4+2+3 = 14
    assert hands(r) == [(1, "JS QS KS JH QH", "win", "10")]


def test_over_21_loses_at_once_and_the_box_may_stop():
    """rules.md, club-21-36, Duels: over 21 loses at once, unless the box is drawing dark; the box may stop
    below 21."""
    r = duels(BANK, "bet 1 10", "cards TS 7D", "card 6C", "card 9H", "card 8D")
    assert hands(r) == [(1, "TS 9H 8D", "bust", "-10")] and r.rounds[-1]["bank"]["after"] == "1010"
    r = duels(BANK, "bet 1 10", "cards TS 7D", "card 6C", "card 9H", "stand")
    assert r.table.phase is Phase.DEALER and table_view(r.table)["dealer"]["cards"] == ["7D"]  # turned


def test_dark_wins_ties_and_both_over_21():
    """rules.md, club-21-36, Dark: a box may take cards without looking at them, before the banker draws: it
    then wins ties, and when both it and the banker pass 21 it wins (option dark_both_bust)."""
    tie = ("bet 1 10", "cards TS 7D", "card 6C", "dark", "card 7H", "stand", "card TC")  # 17 v 17
    assert hands(duels(BANK, *tie)) == [(1, "TS 7H", "win", "10")]
    plain = ("bet 1 10", "cards TS 7D", "card 6C", "card 7H", "stand", "card TC")
    assert hands(duels(BANK, *plain)) == [(1, "TS 7H", "lose", "-10")]  # a tie goes to the banker
    both = ("bet 1 10", "cards TS 7D", "card 6C", "dark", "card 9H", "card 8D")
    r = duels(BANK, *both)
    assert r.table.phase is Phase.PLAYERS  # over 21 dark: nothing is settled yet
    assert table_view(r.table)["boxes"][0]["hands"][0]["dark"] is True
    r = duels(BANK, *both, "stand", "card 8S", "card 9C")  # the banker 7-8-9 = 24
    assert hands(r) == [(1, "TS 9H 8D", "win", "10")]
    r = duels(BANK, *both, "stand", "card 8S", "card 9C", dark_both_bust="banker")
    assert hands(r) == [(1, "TS 9H 8D", "bust", "-10")]
    r = duels(BANK, *both, "stand", "card 8S", "card 6S")  # the banker 21, the dark box over 21
    assert hands(r) == [(1, "TS 9H 8D", "bust", "-10")]
    assert duels(BANK, *both, "dark").error["code"] == "dark_already"


def test_a_dark_box_is_settled_only_after_the_banker_draws():
    """rules.md, club-21-36, Dark (decided): a dark box's 21 is not known until the banker has drawn, and
    against his 21 it is a tie, which the dark box wins; dark with no card after it is no dark draw."""
    r = duels(BANK, "bet 1 10", "cards TS 7D", "card 6C", "dark", "card AH")  # 21 dark: not settled
    assert r.table.phase is Phase.PLAYERS and r.table.round.boxes[0].hands[0].outcome is None
    r = duels(BANK, "bet 1 10", "cards TS 7D", "card 6C", "dark", "card AH", "stand", "card TC")
    assert hands(r) == [(1, "TS AH", "win", "10")] and r.as_dict()["alerts"] == []  # the banker 7-T = 17 stops
    r = duels(BANK, "bet 1 10", "cards TS 8D", "card 6C", "dark", "card AH", "stand", "card 9C", "card KC")
    assert hands(r) == [(1, "TS AH", "win", "10")]  # his 8-9-4 = 21 against the dark 21: the dark box's
    r = duels(BANK, "bet 1 10", "cards TS 7D", "card 6C", "dark", "stand", "card TC")  # 10 v 17, no dark card
    assert hands(r) == [(1, "TS", "lose", "-10")] and r.rounds[-1]["hands"][0]["dark"] is False


def test_the_banker_draws_on_15_stands_from_17_and_chooses_between():
    """rules.md, club-21-36: then the banker draws, face up, to his own card: 21, two aces or five pictures win
    at once; over 21 loses; on 15 he must draw; on 17 or more he may not (decided); otherwise he chooses
    (banker_stand)."""
    box = ("bet 1 10", "cards TS 7D", "card 6C", "card 8H", "stand")  # box 18; the banker 7
    assert duels(BANK, *box, "card 8S", "banker_stand").error["code"] == "banker_must_draw"  # 15
    r = duels(BANK, *box, "card 9S", "banker_stand")  # 16: his choice
    assert hands(r) == [(1, "TS 8H", "win", "10")]
    r = duels(BANK, *box, "card 9S", "card KS")  # 16, then 20
    assert hands(r) == [(1, "TS 8H", "lose", "-10")]
    r = duels(BANK, *box, "card TC", "card 2C")  # 17: he may not draw; the card is held
    assert r.table.phase is Phase.ATTENTION
    r = duels(BANK, *box, "card 9S", "card 8S")  # 24: over 21
    assert hands(r) == [(1, "TS 8H", "win", "10")]
    r = duels(BANK, "bet 1 10", "cards TS AD", "card 6C", "card 8H", "stand", "card AH")  # two aces
    assert hands(r) == [(1, "TS 8H", "lose", "-10")]
    r = duels(BANK, "bet 1 10", "cards TS JD", "card 6C", "card 8H", "stand", "cards QD KD JH QH")
    assert hands(r) == [(1, "TS 8H", "lose", "-10")]  # five pictures: 2+3+4+2+3 = 14, a win at once


def test_the_higher_total_wins_and_the_bank_pays_or_takes():
    """rules.md, club-21-36: the higher total at 21 or less wins; a tie goes to the banker. A loss pays the
    stake into the bank; a win takes it from the bank."""
    r = duels(BANK, *DEAL, "card TS", "stand", "card KS", "card 9H")  # 19 v 20
    assert r.table.round.boxes[0].hands[0].outcome.value == "lose" and bank(r)["balance"] == "1010"
    r = duels(BANK, *DEAL, "card TS", "stand", "card KS", "card 8H")  # 19 v 19
    assert r.table.round.boxes[0].hands[0].outcome.value == "lose"
    r = duels(BANK, *DEAL, "card TS", "stand", "card KS", "card 7H")  # 19 v 18
    assert bank(r)["balance"] == "990" and table_view(r.table)["boxes"][0]["bank_after"] == "990"


def test_the_banker_takes_a_new_card_or_keeps_his_unused_one():
    """rules.md, club-21-36: after each duel the banker gathers the cards used and takes one new card from the
    top for the next box; if the box lost by passing 21 and the banker's card was not used, he keeps it."""
    r = duels(BANK, *DEAL, "card TS", "stand", "card KS", "card 9H")  # box 1's duel went to the banker's draw
    assert r.table.phase is Phase.DEALING and r.table.next_card() == "banker"
    r = duels(BANK, *DEAL, "card TS", "stand", "card KS", "card 9H", "card 6D", "stand", "card TD")
    assert [c.code for c in r.table.round.dealer.cards] == ["6D", "TD"]
    r = duels(BANK, *DEAL, "card TS", "card 9D")  # box 1 passes 21: the banker's 7D was not used
    assert r.table.phase is Phase.PLAYERS and table_view(r.table)["bank"]["duel"]["banker_kept_card"]
    r = duels(BANK, *DEAL, "card TS", "card 9D", "card 9H", "stand", "card KS")  # box 2 17; banker 7-4 = 11...
    assert [c.code for c in r.table.round.dealer.cards] == ["7D", "KS"]
    r = duels(BANK, *DEAL, "card TS", "card 9D", "card 9H", "stand", "card KS", "card 6S")  # 17: he stops
    rec = r.rounds[-1]
    assert [(h["banker"], h["kept"]) for h in rec["hands"]] == [([], False), (["7D", "KS", "6S"], True)]
    assert rec["dealer"]["cards"] == ["7D", "KS", "6S"]
    assert hands(r) == [(1, "9S TS 9D", "bust", "-10"), (2, "8H 9H", "lose", "-20")]  # 17 v 17: the banker's


# ---------------------------------------------------------------------------- closing the bank
# Four rounds of one duel each, from one pack: the box makes 19, the banker 17; the box wins every time.
FOUR = (("bet 1 10", "cards TS 7D", "card 6C", "card 9D", "stand", "card TC"),  # the first after the bottom card
        ("bet 1 10", "cards TH 7H", "card 9H", "stand", "card TD"),
        ("bet 1 10", "cards 8S 8D", "card AH", "stand", "card 9C"),
        ("bet 1 10", "cards 8H 8C", "card AS", "stand", "card 9S"))


def test_the_bank_closes_after_four_rounds_or_once_tripled():
    """rules.md, club-21-36: the banker may close the bank no sooner than after four full rounds of duels, or
    once the bank has tripled; the pit sees the bank's balance all along."""
    rounds = [step for one in FOUR for step in one]
    r = duels(BANK, *FOUR[0], "close_bank")
    assert r.error["code"] == "bank_close_early" and "4 rounds" in r.error["message"]
    r = duels(BANK, *rounds)
    assert r.as_dict()["alerts"] == [] and len(r.rounds) == 4
    assert bank(r)["rounds_played"] == 4 and bank(r)["may_close"] and bank(r)["balance"] == "960"
    r = duels(BANK, *rounds, "close_bank")
    assert r.error is None and not bank(r)["open"]
    assert duels(BANK, *rounds, "close_bank", "bet 1 10").error["code"] == "no_bank"
    r = duels("open_bank 100", "bet 1 100", "cards TS 7D", "card 6C", "card 9D", "card 8C", "bet 1 100",
              "card TH", "card 9H", "card 8S", "close_bank")  # two busts (the kept 7D plays round 2): the bank
    # holds 300, three times 100
    assert r.error is None and r.as_dict()["alerts"] == [] and bank(r)["balance"] == "300"
    assert duels(BANK, *FOUR[0], "bet 1 10", "close_bank").error["code"] == "bets_down"


def test_an_empty_bank_ends_it():
    """rules.md, club-21-36: an empty bank ends it (decided: the boxes still to play take their stakes back)."""
    r = duels("open_bank 100", "bet 1 100", "bet 2 50", "cards AS 9H 7D", "card 6C", "card TS")  # va-banque wins
    assert r.rounds[-1]["bank"] == {"before": "100", "after": "0", "closed": True, "state": "emptied"}
    assert hands(r) == [(1, "AS TS", "win", "100"), (2, "9H", "returned", "0")]
    assert not bank(r)["open"] and duels("open_bank 100", "bet 1 100", "bet 2 50", "cards AS 9H 7D", "card 6C",
                                         "card TS", "bet 1 10").error["code"] == "no_bank"


# ---------------------------------------------------------------------------- the supervisor
def test_withdraw_and_void_in_a_round_of_duels():
    """rules.md, club-21 (dealer's errors, in the 36-card game too; decided): withdraw returns a box's stake
    before the banker draws against it; a voided round of duels leaves the duels already settled as they are."""
    r = duels(BANK, *DEAL, "withdraw 1")  # the box in turn: the banker keeps his unused card for box 2
    assert r.table.phase is Phase.PLAYERS and table_view(r.table)["turn"] == {"box": 2, "hand": 0}
    assert [c.code for c in r.table.round.dealer.cards] == ["7D"]
    assert duels(BANK, *DEAL, "card TS", "stand", "withdraw 1").error["code"] == "withdraw_closed"
    r = duels(BANK, *DEAL, "card TS", "stand", "card KS", "card 9H", "void")
    assert hands(r) == [(1, "9S TS", "lose", "-10"), (2, "8H", "void", "0")]
    assert r.rounds[-1]["void"] and bank(r)["balance"] == "1010"


def test_a_pack_shuffled_in_the_middle_of_a_round():
    """rules.md, club-21-36 (decided): a pack spent in the middle of a round of duels is shuffled again (less
    the cards on the table) and play goes on after its bottom card."""
    deal = ["TS", "8H", "7D", "6C"]  # box 1 TS, box 2 8H, the banker 7D; bottom 6C
    rest = rest_of_pack(36, *deal, "TC")  # 31 cards: box 1 draws them dark
    r = duels(BANK, "bet 1 10", "bet 2 10", "cards " + " ".join(deal), "dark", "cards " + " ".join(rest), "stand",
              "card TC")
    assert r.table.shoe.spent and r.table.next_card() == "banker"
    assert "shoe_empty" in [a["kind"] for a in r.as_dict()["alerts"]]
    r = duels(BANK, "bet 1 10", "bet 2 10", "cards " + " ".join(deal), "dark", "cards " + " ".join(rest), "stand",
              "card TC", "shuffle S2 35", "card 6C", "card 7D", "stand", "card TC")
    # The pack's rest was dealt in the pack's own order: the protection watch calls that shuffle weak (issue 25).
    assert r.error is None and [a["kind"] for a in r.as_dict()["alerts"]] == ["weak_shuffle"]
    assert r.table.shoe.size == 35
    assert hands(r) == [(1, "TS " + " ".join(rest), "bust", "-10"), (2, "8H", "lose", "-10")]


def test_the_view_of_the_bank_and_the_duel():
    """rules.md, club-21-36: the pit sees the bank's balance all along (and every viewer the duel in play)."""
    view = table_view(duels(BANK, *DEAL, "bet 1 5").table)
    assert view["game"] == GAME and view["bank"]["duel"] == {"box": 1, "stake": "15", "dark": False,
                                                              "banker_kept_card": False, "cut_from": None}
    assert view["legal_actions"] == ["stand", "hit", "bet", "dark"]
    assert "9S" not in json.dumps(view) and "7D" not in json.dumps(view)


def test_stand_names_the_box_in_its_duel():
    """rules.md, club-21-36, Duels: the boxes play the banker one at a time, from the croupier's left: a stand that
    names its box is refused unless that box is in its duel (the dealer meant another)."""
    from tests.support.engine_dsl import session

    from controller.replay import replay_lines

    lines = session(BANK, *DEAL, profile=GAME)
    r = replay_lines([*lines, json.dumps({"type": "stand", "box": 2})])
    assert r.error["code"] == "not_your_turn" and "box 1's turn, not box 2's" in r.error["message"]
    r = replay_lines([*lines, json.dumps({"type": "stand", "box": 1})])
    assert r.error is None and r.table.phase is Phase.DEALER


# ---------------------------------------------------------------------------- the record of a round of duels
# Two duels: box 1 19 against the banker 7-K-9 = 20; box 2 18 against his new card 6D and TD = 16 (he stops).
TWO_DUELS = ("bet 1 10", "bet 2 20", "cards 9S 8H 7D", "card 6C", "card TS", "stand", "card KS", "card 9H",
             "card 6D", "card TC", "stand", "card TD", "banker_stand")


def test_each_duel_is_recorded_with_its_own_banker_cards_and_total():
    """rules.md, club-21-36: after each duel the banker gathers the cards used and takes one new card from the
    top for the next box: each duel's banker hand is its own, and the replay prints each duel's cards and total
    (not the last duel's total beside every card the banker held in the round)."""
    from controller.replay_cli import format_rounds

    r = duels(BANK, *TWO_DUELS)
    rec = r.rounds[-1]
    assert [(h["banker"], h["banker_total"]) for h in rec["hands"]] == [(["7D", "KS", "9H"], 20), (["6D", "TD"], 16)]
    text = format_rounds(r.as_dict())
    lines = [line.split() for line in text.splitlines()]
    assert ["banker", "7D", "KS", "9H", "20", "bank", "1010"] in lines
    assert ["banker", "6D", "TD", "16", "bank", "990"] in lines
    assert not any(line[:1] == ["dealer"] for line in lines)  # no line runs the duels' banker cards together


def test_the_bank_at_the_end_of_every_round_and_of_the_session():
    """rules.md, club-21-36: the banker may close the bank no sooner than after four full rounds of duels, or
    once the bank has tripled; an empty bank ends it. The pit sees the bank's balance all along: each round's
    record ends with the bank's state (open or emptied: a supervisor closes it only between rounds), opening and
    closing the bank are incidents of the replay, and the replay ends with the bank's state (open, emptied, or
    closed by the supervisor)."""
    from controller.replay_cli import format_rounds

    rounds = [step for one in FOUR for step in one]
    r = duels(BANK, *rounds, "close_bank")
    doc = r.as_dict()
    assert [rec["bank"]["state"] for rec in doc["rounds"]] == ["open"] * 4
    assert doc["bank"] == {"state": "closed", "balance": "960", "opened_with": "1000", "rounds_played": 4,
                           "duels_played": 4}
    texts = [(i["type"], i["after_rounds"], i["text"]) for i in doc["incidents"]]
    assert texts == [("open_bank", 0, "the supervisor opens a bank of 1000"),
                     ("close_bank", 4, "the supervisor closes the bank at 960 (put up 1000, 4 rounds of duels)")]
    text = format_rounds(doc)
    assert "the supervisor closes the bank at 960" in text and "bank: closed, 960 (put up 1000, 4 rounds of duels)" in text
    assert duels(BANK, *rounds).as_dict()["bank"]["state"] == "open"
    emptied = duels("open_bank 100", "bet 1 100", "bet 2 50", "cards AS 9H 7D", "card 6C", "card TS").as_dict()
    assert emptied["rounds"][-1]["bank"] == {"before": "100", "after": "0", "closed": True, "state": "emptied"}
    assert emptied["bank"]["state"] == "emptied" and "(emptied)" in format_rounds(emptied)


# ---------------------------------------------------------------------------- the kept card, across rounds
# One box: 9S, the banker 7D, the bottom 6C; the box draws TS then 9D (28): over 21 before the banker's card was
# used, in the round's last duel.
KEPT_LAST = ("bet 1 10", "cards 9S 7D", "card 6C", "card TS", "card 9D")


def test_the_kept_card_plays_the_next_duel_in_the_next_round():
    """rules.md, club-21-36: "if the box lost by passing 21 and the banker's card was not used, he keeps it":
    it plays the next duel, whether that duel is in this round or the next (a card is never lost from the
    table's account). The next round's deal gives the banker no card; its first duel is played with the kept one."""
    r = duels(BANK, *KEPT_LAST)
    assert hands(r) == [(1, "9S TS 9D", "bust", "-10")]
    assert r.rounds[-1]["hands"][0]["banker"] == [] and r.rounds[-1]["dealer"]["cards"] == []  # not this round's
    assert r.table.game_state.kept.code == "7D"
    view = table_view(r.table)
    assert "7D" not in json.dumps(view)  # still closed: only the supervisor sees it
    assert view["shoe"]["remaining_by_rank"]["7"] == 4  # and its rank is not told by the counts
    r = duels(BANK, *KEPT_LAST, "bet 1 10", "card 8H")  # the deal: box 1 only, the banker has his card
    assert r.error is None and r.table.phase is Phase.PLAYERS
    assert [c.code for c in r.table.round.dealer.cards] == ["7D"] and bank(r)["duel"]["banker_kept_card"]
    assert table_view(r.table)["dealer"]["cards"] == ["XX"]
    r = duels(BANK, *KEPT_LAST, "bet 1 10", "card 8H", "card TH", "stand", "card KS", "card 6S")  # 18 v 7-4-6 = 17
    assert r.as_dict()["alerts"] == []
    rec = r.rounds[-1]
    assert [(h["banker"], h["kept"]) for h in rec["hands"]] == [(["7D", "KS", "6S"], True)]
    assert hands(r) == [(1, "8H TH", "win", "10")]


def test_the_kept_card_between_rounds_is_gathered_by_a_shuffle_or_discarded_with_the_bank():
    """rules.md, club-21-36: a card the banker kept is never lost from the table's account (decided: a shuffle
    between rounds gathers it into the new pack; closing the bank discards it; either turns it face up)."""
    r = duels(BANK, *KEPT_LAST, "shuffle S2 36")
    assert r.error is None and r.table.game_state.kept is None and r.as_dict()["alerts"] == []
    r = duels(BANK, *KEPT_LAST, "shuffle S2 36", "bet 1 10", "cards 8H 7H")  # a new pack: the banker is dealt again
    assert r.error is None and [c.code for c in r.table.round.dealer.cards] == ["7H"]
    r = duels("open_bank 100", "bet 1 100", "cards TS 7D", "card 6C", "card 9D", "card 8C", "bet 1 100",
              "card TH", "card 9H", "card 8S", "close_bank")  # the kept 7D plays round 2 and is kept again
    assert r.error is None and not bank(r)["open"] and r.table.game_state.kept is None
    assert r.rounds[-1]["hands"][0]["kept"]
