"""One scenario per clause of shared/rules.md, profile `club-21` (003's club "ochko"), through the replay path.

Each test names the clause it checks ("rules.md, club-21: <clause>"). The session starts with a
shuffle, so the first card read is the bottom card (dealt to nobody). Deal order: box 1, box 2,
..., the banker, then box 1, box 2, ..., the banker again; every card closed.
"""

from __future__ import annotations

import json

import pytest
from tests.support.deadlines import scaled
from tests.support.engine_dsl import hands, play, rest_of_pack, session

from controller.effects import CardPlaced, CardsTurned
from controller.engine import Phase
from controller.replay import replay_lines
from controller.rules import RuleError, build_rules
from controller.view import table_view

CLUB = "club-21"


def club(*steps: str, **options):
    return play(*steps, profile=CLUB, **options)


# ---------------------------------------------------------------------------- the pack and the bottom card
def test_pack_two_decks_or_one():
    """rules.md, club-21: Pack: two 52-card decks (option decks: 1 or 2). Shuffle, then a cut."""
    assert build_rules(CLUB).decks == 2 and build_rules(CLUB).shoe_size == 104
    assert build_rules(CLUB, {"decks": 1}).shoe_size == 52
    with pytest.raises(RuleError, match="decks"):
        build_rules(CLUB, {"decks": 3})
    with pytest.raises(RuleError, match="pack"):
        build_rules(CLUB, {"pack": 40})
    r = club("bet 1 10", "card 7H")  # without the shuffle the card is held
    assert r.table.phase is Phase.BETTING and r.table.shoe.bottom.code == "7H"
    assert club("card 7H", shuffle=False).table.phase is Phase.ATTENTION


def test_bottom_card_is_the_first_card_after_a_shuffle_dealt_to_nobody():
    """rules.md, club-21, The bottom card: the first card read after a shuffle is recorded as the bottom card,
    dealt to nobody."""
    r = club("bet 1 10", "card 7H", "cards TS 5D 9C 6D", "stand")
    assert r.table.shoe.bottom.code == "7H" and r.table.shoe.burned == 1
    assert [c.code for c in r.table.round.boxes[0].hands[0].cards] == ["TS", "9C"]
    assert table_view(r.table)["bottom_card"] == "7H"
    r = club("card 7H")  # with no bets down too: the bottom card is not a held card
    assert r.table.phase is Phase.BETTING and not r.table.held


def test_an_ace_may_not_be_the_bottom_card():
    """rules.md, club-21, The bottom card: an ace may not be the bottom card: the pack is reshuffled and cut
    again (a shuffle is due, no attention)."""
    r = club("bet 1 10", "card AS")
    assert r.table.phase is Phase.WAITING_FOR_SHUFFLE
    assert [a["kind"] for a in r.as_dict()["alerts"]] == ["shuffle_due"] and not r.table.held
    r = club("bet 1 10", "card AS", "shuffle S2", "card 7H", "cards TS 5D 9C 6D")
    assert r.error is None and r.table.shoe.bottom.code == "7H" and r.table.phase is Phase.PLAYERS


def test_the_pack_is_spent_when_all_but_the_bottom_card_is_dealt():
    """rules.md, club-21, The bottom card: the pack is spent when every other card has been dealt (pack size
    - 1); a card read after that is unexpected."""
    used = ["7H", "2S", "3S", "4S", "5S"]
    pack = rest_of_pack(52, *used)  # 47 cards: box 1 draws 44 of them (its own cards, over 21 or not)
    r = club("bet 1 10", "card 7H", "cards 2S 3S 4S 5S", "cards " + " ".join(pack[:44]), "stand", "banker_stand",
             decks=1)
    assert r.error is None and len(r.rounds) == 1 and r.table.phase is Phase.BETTING
    r = club("bet 1 10", "card 7H", "cards 2S 3S 4S 5S", "cards " + " ".join(pack[:44]), "stand", "banker_stand",
             "bet 1 10", "cards " + " ".join(pack[44:]), decks=1)
    assert r.table.shoe.spent and r.table.phase is Phase.WAITING_FOR_SHUFFLE
    r = club("bet 1 10", "card 7H", "cards 2S 3S 4S 5S", "cards " + " ".join(pack[:44]), "stand", "banker_stand",
             "bet 1 10", "cards " + " ".join(pack[44:]), "card 7H", decks=1)
    assert r.table.phase is Phase.ATTENTION  # the 53rd card: held, and an integrity alert
    assert {a["kind"] for a in r.as_dict()["alerts"]} >= {"integrity", "unexpected_card"}


def test_bottom_card_off():
    """rules.md, club-21, The bottom card: bottom_card = false for a house that does not do it."""
    r = club("bet 1 10", "cards 7H TS 5D 9C", bottom_card=False)
    assert [c.code for c in r.table.round.boxes[0].hands[0].cards] == ["7H", "5D"]
    assert r.table.shoe.bottom is None


# ---------------------------------------------------------------------------- bets and the deal
def test_bets_first_then_two_rounds_of_one_card_all_closed():
    """rules.md, club-21: bets first, within the table limits; then two rounds of one card, each betting box
    in order, then the banker, twice; all cards closed: the box displays show no total, only that the box
    has cards, until the reveal; the pit sees everything."""
    assert club("bet 1 5").error["code"] == "bet_under_min"
    assert club("bet 1 1001").error["code"] == "bet_over_max"
    r = club("bet 3 10", "bet 1 10", "card 7H", "cards 2S 3S 4S 5S 6S 8S")
    rnd = r.table.round
    assert [c.code for c in rnd.boxes[0].hands[0].cards] == ["2S", "5S"]  # box 1
    assert [c.code for c in rnd.boxes[1].hands[0].cards] == ["3S", "6S"]  # box 3
    assert [c.code for c in rnd.dealer.cards] == ["4S", "8S"]  # the banker
    viewer = table_view(r.table)
    for box in viewer["boxes"]:
        hand = box["hands"][0]
        assert hand["cards"] == ["XX", "XX"] and hand["totals"] == [] and hand["closed"] and hand["card_count"] == 2
    assert viewer["dealer"]["cards"] == ["XX", "XX"] and viewer["dealer"]["totals"] == []
    assert not any(code in json.dumps(viewer) for code in ("2S", "3S", "4S", "5S", "6S", "8S"))
    assert viewer["shoe"]["remaining_by_rank"]["2"] == 8  # a closed card does not show in the counts either
    pit = table_view(r.table, reveal_closed=True)
    assert pit["boxes"][0]["hands"][0]["cards"] == ["2S", "5S"] and pit["boxes"][0]["hands"][0]["totals"] == [7]
    assert pit["dealer"]["cards"] == ["4S", "8S"]


# ---------------------------------------------------------------------------- the banker looks first
def test_banker_two_card_21_takes_every_bet():
    """rules.md, club-21: the banker looks first. A two-card 21 (an ace and a ten-value card) is shown and
    takes every bet, the players' own two-card 21s included."""
    r = club("bet 1 10", "bet 2 10", "card 7H", "cards AS 9H AD KH TC KD")
    assert hands(r) == [(1, "AS KH", "lose", "-10"), (2, "9H TC", "lose", "-10")]
    assert r.rounds[-1]["dealer"] == {"cards": ["AD", "KD"], "total": 21}
    r = club("bet 1 10", "bet 2 10", "card 7H", "cards AS 9H AD KH TC KD", natural_against_natural="push")
    assert hands(r)[0] == (1, "AS KH", "push", "0")


def test_a_box_two_card_21_is_shown_and_paid_2_to_1_at_once():
    """rules.md, club-21: otherwise a player's two-card 21 is shown and paid 2:1 at once (option natural_pays)."""
    r = club("bet 1 10", "bet 2 10", "card 7H", "cards AS 9H 5D KH TC 6D")
    box1 = r.table.round.boxes[0].hands[0]
    assert box1.outcome.value == "natural" and box1.net == 2000  # 2:1 on 10, in cents
    viewer = table_view(r.table)
    assert viewer["boxes"][0]["hands"][0]["cards"] == ["AS", "KH"]  # shown
    assert viewer["boxes"][1]["hands"][0]["cards"] == ["XX", "XX"]  # the others stay closed
    assert viewer["turn"] == {"box": 2, "hand": 0}
    r = club("bet 1 10", "bet 2 10", "card 7H", "cards AS 9H 5D KH TC 6D", "stand", "banker_stand")
    assert hands(r)[0] == (1, "AS KH", "natural", "20")
    r = club("bet 1 10", "card 7H", "cards AS 5D KH 6D", natural_pays="3:2")
    assert hands(r) == [(1, "AS KH", "natural", "15")]


# ---------------------------------------------------------------------------- the boxes draw
def test_boxes_draw_in_order_and_a_box_over_21_waits():
    """rules.md, club-21: the other boxes, from the croupier's left, draw one card at a time as long as they
    like. A box that passes 21 says nothing and waits: its result depends on the banker's. (Decided: it is
    not moved on; it stands itself, and a card drawn to it while over 21 is simply its card.)"""
    steps = ("bet 1 10", "bet 2 10", "card 7H", "cards TS 9H 6D 5C 9C TD")  # box 1 15, box 2 18, banker 16
    r = club(*steps, "card KH")  # box 1 passes 21
    assert r.table.phase is Phase.PLAYERS and table_view(r.table)["turn"] == {"box": 1, "hand": 0}
    assert table_view(r.table)["boxes"][0]["hands"][0]["bust"] is False  # never told
    r = club(*steps, "card KH", "card 2H", "stand", "stand")
    assert [c.code for c in r.table.round.boxes[0].hands[0].cards] == ["TS", "5C", "KH", "2H"]
    assert r.table.phase is Phase.DEALER
    r = club(*steps, "card KH", "stand", "stand", "card 3D", "banker_stand")  # banker 19
    assert hands(r) == [(1, "TS 5C KH", "bust", "-10"), (2, "9H 9C", "lose", "-10")]
    r = club(*steps, "card KH", "stand", "stand", "card 8D")  # banker 24: over 21 too
    assert hands(r) == [(1, "TS 5C KH", "push", "0"), (2, "9H 9C", "banker_bust", "20")]


def test_a_split_hand_needs_its_card_before_it_stands():
    """rules.md, club-21 (decided): a hand needs two cards to stand; a box may draw on any total."""
    assert club("bet 1 10", "card 7H", "cards TS 6D KS 5C", "card KH", "card KD", "stand").error is None


# ---------------------------------------------------------------------------- the banker
def test_banker_draws_last_face_up_and_stops_when_he_chooses():
    """rules.md, club-21: the banker draws last, face up, and stops when he chooses: banker_stand is the
    croupier's action; by default neither banker_draws_to nor banker_stands_on binds (decided)."""
    steps = ("bet 1 10", "card 7H", "cards TS 2D 8C 3D", "stand")  # box 18; banker 2-3 = 5
    r = club(*steps)
    assert r.table.phase is Phase.DEALER
    viewer = table_view(r.table)
    assert viewer["dealer"]["cards"] == ["2D", "3D"] and viewer["dealer"]["totals"] == [5]  # turned face up
    assert viewer["boxes"][0]["hands"][0]["cards"] == ["XX", "XX"]  # the boxes stay closed until he stops
    assert viewer["legal_actions"] == ["hit", "banker_stand"]
    r = club(*steps, "banker_stand")  # he may stop on 5
    assert hands(r) == [(1, "TS 8C", "win", "10")]
    r = club(*steps, "card 9H", "card 4H", "banker_stand")  # 5-9-4 = 18
    assert hands(r) == [(1, "TS 8C", "push", "0")]
    assert club("bet 1 10", "card 7H", "cards TS 2D 8C 3D", "banker_stand").error["code"] == "not_banker_turn"


def test_the_house_may_bind_the_banker():
    """rules.md, club-21: options banker_draws_to (must draw below this total) and banker_stands_on (may not
    draw at or above it)."""
    steps = ("bet 1 10", "card 7H", "cards TS 2D 8C 3D", "stand")
    r = club(*steps, "banker_stand", banker_draws_to=17)
    assert r.error["code"] == "banker_must_draw"
    r = club(*steps, "card 9H", "card 3H", banker_draws_to=17, banker_stands_on=17)  # 5-9-3 = 17: he stops
    assert hands(r) == [(1, "TS 8C", "win", "10")]
    r = club(*steps, "card 9H", "card 3H", "card 2H", banker_draws_to=17, banker_stands_on=17)
    assert r.table.phase is Phase.ATTENTION  # he may not draw at 17: the card is held
    with pytest.raises(RuleError, match="banker_draws_to"):
        build_rules(CLUB, {"banker_draws_to": 18, "banker_stands_on": 17})


# ---------------------------------------------------------------------------- settlement
def test_settlement_after_the_banker_stops():
    """rules.md, club-21, Settlement after the banker stops, all cards shown: banker at 21 or less: a higher
    total wins 1:1; a lower total, or over 21, loses; equal totals push (option ties: push, or banker);
    banker over 21: every box at 21 or less is paid 2:1; a box also over 21 takes its stake back."""
    deal = ("bet 1 10", "bet 2 10", "bet 3 10", "card 7H", "cards TS 9H 8D 9D KD 8C 9S 5C")  # 20, 17, 17 v 14
    r = club(*deal, "stand", "stand", "card QH", "stand", "card 3H", "banker_stand")  # box 3 27; banker 17
    assert hands(r) == [(1, "TS KD", "win", "10"), (2, "9H 8C", "push", "0"), (3, "8D 9S QH", "bust", "-10")]
    settled = table_view(r.table)["settled"]  # on the felt, every card shown
    assert "XX" not in json.dumps(settled) and settled["boxes"][0]["hands"][0]["totals"] == [20]
    r = club(*deal, "stand", "stand", "card QH", "stand", "card 3H", "banker_stand", ties="banker")
    assert hands(r)[1] == (2, "9H 8C", "lose", "-10")
    r = club(*deal, "stand", "stand", "card QH", "stand", "card TH")  # banker 24
    assert hands(r) == [(1, "TS KD", "banker_bust", "20"), (2, "9H 8C", "banker_bust", "20"),
                        (3, "8D 9S QH", "push", "0")]
    assert r.rounds[-1]["net"] == "40"


def test_the_reveal_turns_every_closed_card():
    """rules.md, club-21: settlement after the banker stops, all cards shown (the turn effects say which)."""
    from controller.engine import Table
    from controller import events as ev
    from controller.cards import parse_card
    from games.club.events import BankerStand
    t = Table(build_rules(CLUB))
    for e in (ev.Shuffle(shoe_id="S1"), ev.PlaceBet(box=1, amount=10), ev.CardDrawn(card=parse_card("7H"))):
        t.apply(e)
    for code in ("TS", "2D", "8C", "3D"):
        placed = [f for f in t.apply(ev.CardDrawn(card=parse_card(code))) if type(f) is CardPlaced]
        assert placed == [CardPlaced(code, "box" if code in ("TS", "8C") else "dealer",
                                     1 if code in ("TS", "8C") else None, 0 if code in ("TS", "8C") else None,
                                     face_down=True)]
    turned = [f for f in t.apply(ev.Stand()) if type(f) is CardsTurned]
    assert turned == [CardsTurned(("2D", "3D"), None)]  # the banker's, when his turn comes
    turned = [f for f in t.apply(BankerStand()) if type(f) is CardsTurned]
    assert turned == [CardsTurned(("TS", "8C"), 1)]


# ---------------------------------------------------------------------------- the pack runs out
PACK_OUT_DEAL = ("bet 1 10", "bet 2 10", "card 7H", "cards TS 2S 9C QS 3S 8C")  # box 1 20, box 2 5, banker 17


def _spent(*after: str):
    rest = rest_of_pack(52, "7H", "TS", "2S", "9C", "QS", "3S", "8C")  # 45 cards: box 2 draws them all
    return club(*PACK_OUT_DEAL, "stand", "cards " + " ".join(rest), *after, decks=1)


def _pack_out(*after: str):
    return _spent("fold 2", *after)  # box 2 wants a card: it folds, and the run-out begins


def test_the_pack_runs_out_while_a_box_still_plays():
    """rules.md, club-21, The pack runs out while a box still wants cards: every box not yet settled either
    doubles its stake and stands on what it has, or folds and loses its stake (double or fold). The banker
    draws no more either; then the reveal."""
    r = _pack_out()
    assert r.table.phase is Phase.PACK_OUT and r.table.shoe.spent
    assert [a.value for a in r.table.legal_actions()] == ["double", "fold"]
    assert _pack_out("double").error["code"] == "needs_box"
    assert _pack_out("stand").error["code"] == "not_players_turn"
    assert _pack_out("fold 3").error["code"] == "no_such_box"
    assert _pack_out("fold 2").error["code"] == "already_chosen"
    assert _pack_out("shuffle S2").error["code"] == "round_in_progress"
    r = _pack_out("double 1")
    rest = " ".join(rest_of_pack(52, "7H", "TS", "2S", "9C", "QS", "3S", "8C"))
    assert hands(r) == [(1, "TS QS", "win", "20"), (2, "2S 3S " + rest, "fold", "-10")]
    assert r.rounds[-1]["pack_out"] is True and r.rounds[-1]["dealer"]["cards"] == ["9C", "8C"]
    assert r.table.phase is Phase.WAITING_FOR_SHUFFLE
    assert _pack_out("card 7H").table.phase is Phase.ATTENTION  # a card after that is unexpected
    assert club("bet 1 10", "card 7H", "cards TS 2D 8C 3D", "fold 1").error["code"] == "pack_not_spent"


def test_the_pack_runs_out_only_when_a_box_asks_for_a_card():
    """rules.md, club-21, The pack runs out while a box still wants cards (003: "Если понтёр просит добрать, а
    колода кончилась"): a spent pack alone starts nothing; a box that stands settles normally; the run-out
    begins at the first box that wants a card (it doubles or folds, or a card is read for it, which is
    unexpected: held, never lost)."""
    r = _spent()
    assert r.table.phase is Phase.PLAYERS and r.table.shoe.spent and not r.table.round.pack_out
    assert [a.value for a in r.table.legal_actions()] == ["stand", "double", "fold"]  # no card to hit with
    assert table_view(r.table)["next_card"] is None
    rest = " ".join(rest_of_pack(52, "7H", "TS", "2S", "9C", "QS", "3S", "8C"))
    r = _spent("stand")  # box 2 stands (over 21): the banker draws no more, the round settles as usual
    assert hands(r) == [(1, "TS QS", "win", "10"), (2, "2S 3S " + rest, "bust", "-10")]
    assert not r.rounds[-1].get("pack_out")
    r = _spent("double")  # box 2 asks: it doubles, and box 1 (standing on 20, not settled) chooses too
    assert r.table.phase is Phase.PACK_OUT and r.table.round.pack_out
    r = _spent("double", "fold 1")
    assert hands(r) == [(1, "TS QS", "fold", "-10"), (2, "2S 3S " + rest, "bust", "-20")]
    # A choice the dealer names for another unsettled box begins the run-out too, as the previous release took
    # every box's choice once the pack was spent (its journals replay: the last test of this file).
    r = _spent("fold 1")
    assert r.error is None and r.table.phase is Phase.PACK_OUT and r.table.round.boxes[0].choice == "fold"
    r = _spent("card 7H")  # a card read for box 2: it wanted one; the card is held
    assert r.table.phase is Phase.ATTENTION and [c.code for c in r.table.held] == ["7H"]
    assert r.table.round.pack_out and len(r.table.round.boxes[1].hands[0].cards) == 47
    r = _spent("card 7H", "discard", "double 2", "double 1")
    assert r.error is None and r.rounds[-1]["pack_out"] is True


def test_the_pack_runs_out_in_the_banker_draw():
    """rules.md, club-21 (decided): the pack running out in the banker's draw, he stops on what he has."""
    deal, last = ["TS", "2S", "2C", "QS", "3S", "3C"], ["AH", "AD", "AC", "2H"]  # the banker 5, then A A A 2
    rest = rest_of_pack(52, "7H", *deal, *last)
    r = club("bet 1 10", "bet 2 10", "card 7H", "cards " + " ".join(deal), "stand", "cards " + " ".join(rest),
             "stand", "cards " + " ".join(last), decks=1)
    assert r.rounds[-1]["dealer"] == {"cards": ["2C", "3C", "AH", "AD", "AC", "2H"], "total": 20}
    assert not r.rounds[-1].get("pack_out") and hands(r)[0] == (1, "TS QS", "push", "0")


def test_the_pack_running_out_before_everyone_has_two_cards_voids_the_deal():
    """rules.md, club-21: the pack running out before every box and the banker have two cards voids the deal:
    every bet comes back and a shuffle is due."""
    pack = rest_of_pack(52, "7H", "2S", "3S", "4S", "5S")
    r = club("bet 1 10", "card 7H", "cards 2S 3S 4S 5S", "cards " + " ".join(pack[:44]), "stand", "banker_stand",
             "bet 1 10", "bet 2 10", "cards " + " ".join(pack[44:]), decks=1)
    assert r.rounds[-1]["void"] is True and r.rounds[-1]["net"] == "0"
    assert [h["outcome"] for h in r.rounds[-1]["hands"]] == ["void", "void"]
    assert r.table.phase is Phase.WAITING_FOR_SHUFFLE
    assert "shuffle_due" in [a["kind"] for a in r.as_dict()["alerts"]]


# ---------------------------------------------------------------------------- dealer's errors
def test_the_supervisor_withdraws_a_box_or_discards_or_voids():
    """rules.md, club-21, Dealer's errors: the supervisor discards the card or voids the round, and withdraw
    (supervisor) returns one box's stake at any time before its next draw (decided: before the banker draws)."""
    steps = ("bet 1 10", "bet 2 10", "card 7H", "cards TS 9H 6D 5C 9C TD")
    r = club(*steps, "withdraw 1", "stand", "banker_stand")
    assert hands(r) == [(1, "TS 5C", "withdrawn", "0"), (2, "9H 9C", "win", "10")]
    r = club("bet 1 10", "bet 2 10", "card 7H", "cards TS 9H", "withdraw 2", "cards 6D 5C TD")
    assert [c.code for c in r.table.round.dealer.cards] == ["6D", "TD"]  # box 2 is dealt no more cards
    assert r.table.phase is Phase.PLAYERS
    assert club(*steps, "stand", "stand", "withdraw 1").error["code"] == "withdraw_closed"
    assert club(*steps, "withdraw 1", "withdraw 1").error["code"] == "box_settled"
    assert club(*steps, "withdraw 4").error["code"] == "no_such_box"
    r = club(*steps, "stand", "stand", "card 3H", "banker_stand", "card 4C")  # a card nobody may take
    assert r.table.phase is Phase.ATTENTION
    r = club(*steps, "stand", "stand", "void")
    assert r.rounds[-1]["void"] and r.rounds[-1]["net"] == "0"


# ---------------------------------------------------------------------------- variants
def test_pairs_split_or_double():
    """rules.md, club-21, Variants: pairs (a first-two-card pair may be split into two hands with a second
    stake, played one after the other, or doubled, after which the box may take at most one more card)."""
    steps = ("bet 1 10", "bet 2 10", "card 7H", "cards 8S 7S 5D 8H 7C 6D")  # box 1 8-8, box 2 7-7, banker 11
    assert club(*steps, "split").error["code"] == "split_not_allowed"
    r = club(*steps, "split", pairs=True)
    viewer = table_view(r.table)
    assert [h["cards"] for h in viewer["boxes"][0]["hands"]] == [["8S"], ["8H"]]  # the pair is shown
    assert [h["bet"] for h in viewer["boxes"][0]["hands"]] == ["10", "10"]
    assert club(*steps, "split", "stand", pairs=True).error["code"] == "needs_card"
    r = club(*steps, "split", "card 2C", "stand", "card KC", "stand", "double", "card 6C", pairs=True)
    assert r.table.phase is Phase.DEALER  # box 2 doubled and took its one card
    r = club(*steps, "split", "card 2C", "stand", "card KC", "stand", "double", "card 6C", "card 7D", "banker_stand",
             pairs=True)  # the banker 5-6-7 = 18
    assert hands(r) == [(1, "8S 2C", "lose", "-10"), (1, "8H KC", "push", "0"), (2, "7S 7C 6C", "win", "20")]
    assert club(*steps, "stand", "double", "stand", pairs=True).error is None  # a doubled pair may take no card
    r = club("bet 1 10", "card 7H", "cards 8S 5D 9H 6D", "split", pairs=True)
    assert r.error["code"] == "split_unequal"
    r = club(*steps, "card 2C", "split", pairs=True)
    assert r.error["code"] == "split_not_allowed"  # only before the box draws


def test_contra_and_recontra():
    """rules.md, club-21, Variants: contra (after everyone's first card the banker may double every stake, then
    each box may redouble its own: recontra; then the second cards; stakes come first (decided))."""
    first = ("bet 1 10", "bet 2 10", "card 7H", "cards TS 9H 6D")
    assert club(*first, "contra").error["code"] == "contra_not_allowed"
    r = club(*first, contra=True)
    assert r.table.phase is Phase.CONTRA and [a.value for a in r.table.legal_actions()] == ["contra"]
    assert club(*first, "recontra 2", contra=True).error["code"] == "no_contra"
    r = club(*first, "contra", "recontra 2", "cards 8C 9C TD", "stand", "stand", "card 3D", "banker_stand",
             contra=True)
    assert hands(r) == [(1, "TS 8C", "lose", "-20"), (2, "9H 9C", "lose", "-40")]  # banker 19
    assert [h["bet"] for h in r.rounds[-1]["hands"]] == ["20", "40"] and r.rounds[-1]["contra"] is True
    assert club(*first, "contra", "contra", contra=True).error["code"] == "contra_done"
    assert club(*first, "contra", "recontra 2", "recontra 2", contra=True).error["code"] == "recontra_done"
    assert club(*first, "card 8C", "contra", contra=True).error["code"] == "contra_closed"
    r = club(*first, "cards 8C 9C TD", contra=True)  # no contra: the next card deals on
    assert r.table.phase is Phase.PLAYERS and r.table.round.boxes[0].hands[0].stake == 1000


def test_natural_pays_3_to_2_and_two_aces_split():
    """rules.md, club-21, Variants: natural_pays=3:2 with two_aces_split (3:2 on a two-card 21 unless the banker
    has one too, then a push (decided); two aces do not win but may be split into two hands with a second
    stake)."""
    v = {"natural_pays": "3:2", "natural_against_natural": "push", "two_aces_split": True}
    r = club("bet 1 10", "bet 2 10", "card 7H", "cards AS 9H 5D KH TC 6D", **v)
    assert r.table.round.boxes[0].hands[0].net == 1500
    r = club("bet 1 10", "bet 2 10", "card 7H", "cards AS 9H AD KH TC KD", **v)
    assert hands(r) == [(1, "AS KH", "push", "0"), (2, "9H TC", "lose", "-10")]
    r = club("bet 1 10", "card 7H", "cards AS 5D AH 6D", "split", "card 9C", "stand", "card 8C", "stand", **v)
    assert r.error is None and r.table.phase is Phase.DEALER
    assert [h.stake for h in r.table.round.boxes[0].hands] == [1000, 1000]
    r = club("bet 1 10", "card 7H", "cards 8S 5D 8H 6D", "split", **v)  # only aces, without pairs
    assert r.error["code"] == "split_not_allowed"


def test_natural_pays_3_to_2_alone_is_the_variant():
    """rules.md, club-21, Variants: natural_pays=3:2 (3:2 on a two-card 21 unless the banker has one too, then a
    push (decided)): the one option gives the variant; natural_against_natural given explicitly still wins."""
    assert build_rules(CLUB, {"natural_pays": "3:2"}).natural_against_natural.value == "push"
    assert build_rules(CLUB, {"natural_pays": "3:2", "natural_against_natural": "lose"}) \
        .natural_against_natural.value == "lose"
    assert build_rules(CLUB).natural_against_natural.value == "lose"
    r = club("bet 1 10", "card 7H", "cards AS AD KH KD", natural_pays="3:2")  # both a two-card 21
    assert hands(r) == [(1, "AS KH", "push", "0")]


def test_surrender_after_the_first_two_cards():
    """rules.md, club-21, Variants: surrender (after the first two cards, give up half the stake)."""
    steps = ("bet 1 10", "bet 2 10", "card 7H", "cards TS 9H 6D 5C 9C TD")
    assert club(*steps, "surrender").error["code"] == "surrender_not_allowed"
    r = club(*steps, "surrender", "stand", "banker_stand", surrender=True)
    assert hands(r) == [(1, "TS 5C", "surrender", "-5"), (2, "9H 9C", "win", "10")]
    assert club(*steps, "card 2H", "surrender", surrender=True).error["code"] == "surrender_not_allowed"
    assert club(*steps, "surrender 2", surrender=True).error["code"] == "not_your_turn"
    with pytest.raises(RuleError, match="surrender"):
        build_rules(CLUB, {"surrender": True, "chip_unit": "0.01"})


# ---------------------------------------------------------------------------- secrecy
def test_stand_and_split_name_the_box_in_turn():
    """rules.md, club-21: the other boxes, from the croupier's left, draw one card at a time as long as they
    like: a stand or split that names its box is refused unless that box is in turn (the dealer meant another)."""
    steps = ("bet 1 10", "bet 2 10", "card 7H", "cards 8S 9H 6D 8D 9C TD")  # box 1 8-8, box 2 9-9
    lines = session(*steps, profile=CLUB, pairs=True)
    stand2, split2 = json.dumps({"type": "stand", "box": 2}), json.dumps({"type": "split", "box": 2})
    r = replay_lines([*lines, stand2])
    assert r.error["code"] == "not_your_turn" and "box 1's turn, not box 2's" in r.error["message"]
    assert replay_lines([*lines, split2]).error["code"] == "not_your_turn"
    r = replay_lines([*lines, json.dumps({"type": "stand", "box": 1}), split2])
    assert r.error is None and len(r.table.round.boxes[1].hands) == 2
    assert club(*steps, "stand", "stand").error is None  # the box stays optional


def test_the_view_never_tells_a_closed_hand():
    """rules.md, club-21: the box displays show no player's total, only that the box has cards, until the
    reveal; what a viewer is offered does not depend on the closed cards (pairs)."""
    pair = club("bet 1 10", "card 7H", "cards 8S 5D 8H 6D", pairs=True)
    other = club("bet 1 10", "card 7H", "cards 8S 5D 9H 6D", pairs=True)
    assert table_view(pair.table)["legal_actions"] == table_view(other.table)["legal_actions"]
    assert "split" in table_view(other.table)["legal_actions"]  # offered to a viewer; the engine checks it
    assert "split" not in table_view(other.table, reveal_closed=True)["legal_actions"]
    one = {k: v for k, v in table_view(pair.table).items() if k != "shoe"}
    two = {k: v for k, v in table_view(other.table).items() if k != "shoe"}
    assert one == two  # nothing else differs either


def test_an_alert_about_a_closed_card_does_not_name_it():
    """rules.md, club-21: all cards are dealt closed; an integrity alert on one tells the pit which (detail),
    nobody else. Its text is the one every impossible card gets while a card is closed (issue 37): it names
    neither the card nor where it went."""
    r = club("bet 1 10", "card 7H", "cards TS 5D TS", decks=1)  # TS twice in one deck, dealt closed
    alert = next(a for a in r.table.open_alerts() if a.kind.value == "integrity")
    assert alert.message == "a card of this round is not possible in shoe S1 (the supervisor sees which)"
    assert alert.secret is not None and "TS" in alert.secret
    assert "TS" not in json.dumps(table_view(r.table)["alerts"])


def test_tablectl_replay_prints_a_club_round(tmp_path):
    """`tablectl replay` of a club session reproduces the rounds, with the game's totals."""
    import subprocess
    import sys

    from tests.support.engine_dsl import session
    path = tmp_path / "club.jsonl"
    path.write_text("\n".join(session("bet 1 10", "card 7H", "cards TS 2D 8C 3D", "stand", "card 9H",
                                      "banker_stand", profile=CLUB)) + "\n")
    out = subprocess.run([sys.executable, "-m", "tablectl.cli", "replay", str(path)], capture_output=True, text=True,
                         timeout=scaled(60))
    assert out.returncode == 0, out.stderr
    assert "club-21" in out.stdout and "TS 8C" in out.stdout and " 18 " in out.stdout
    doc = json.loads(subprocess.run([sys.executable, "-m", "tablectl.cli", "replay", str(path), "--json"],
                                    capture_output=True, text=True, timeout=scaled(60)).stdout)
    assert doc["rounds"][0]["hands"][0]["outcome"] == "win" and doc["rounds"][0]["game"] == "club-21"


def test_a_two_card_21_is_shown_as_21_once_turned():
    """A natural (an ace and a ten-value card) is 21 on every view, never its hard 11."""
    from controller.cards import parse_card
    from games.club.game import ClubHand, hand_view
    from controller.rules import build_rules

    hand = ClubHand(None, 1000, build_rules("club-21").values)
    hand.add(parse_card("AS"), up=True)
    hand.add(parse_card("KD"), up=True)
    assert hand_view(hand, in_play=False, reveal=False)["totals"] == [21]
    hand.add(parse_card("AH"), up=True)  # A-K-A: 12 hard, no soft total
    assert hand_view(hand, in_play=False, reveal=False)["totals"] == [12]


def test_a_session_of_the_previous_release_replays_to_the_same_rounds():
    """Evidence recorded before the run-out rule changed must replay: the previous release (51c96d1) ran the pack
    out as soon as it was spent and took each box's choice in any order. `tablectl demo --rules club-21 --rounds
    40 --seed 7` of that release recorded this session (a spent pack in round 20, box 1's fold first while box 3
    was in turn); its `replay` gave these 40 rounds (the digest of their JSON, sorted keys). Without taking a
    choice named for a box not in turn, the replay stopped at line 323 (not_your_turn)."""
    import hashlib
    from pathlib import Path

    from controller.replay import replay_lines

    lines = (Path(__file__).parent / "data" / "club21_previous_release.jsonl").read_text().splitlines()
    result = replay_lines(lines)
    assert result.error is None, result.error
    rounds = result.as_dict()["rounds"]
    digest = hashlib.sha256(json.dumps(rounds, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert len(rounds) == 40
    assert digest == "60c7fe1e84b1b3f858580fb88029650d5eac8bcf29eace9ac7fe50d9ad2df20a"
