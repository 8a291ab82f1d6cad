"""The advice to the club-21 banker on the dealer's display: only where the house turns it on, only in his turn,
only on the dealer's display, and from what he can see alone (never a closed card)."""

from __future__ import annotations

import pytest
from tests.support.engine_dsl import play

from controller.engine import Phase
from games.club_21.banker import sight_of
from controller.rules import RuleError, build_rules
from display.model import BankerAdvice, DealerView
from display.render import render_dealer, render_table
from tablectl.display_views import display_view as club_display_view

# The bottom card 7H; box 1 and box 2 are dealt their two closed cards, the banker 6D 6C (12).
ADVICE = {"banker_advice": True}


def _to_banker(box1: str = "TS 9C", box2: str = "8H 9H", stands: int = 2, **options: object):
    a1, b1 = box1.split()
    a2, b2 = box2.split()
    return play("bet 1 10", "bet 2 10", "card 7H", f"cards {a1} {a2} 6D {b1} {b2} 6C", *["stand"] * stands,
                profile="club-21", **options)


def test_the_option_is_a_club_21_option_checked_like_every_other() -> None:
    assert build_rules("club-21").banker_advice is False  # off unless the house turns it on
    assert build_rules("club-21", ADVICE).banker_advice is True
    with pytest.raises(RuleError, match="banker_advice"):
        build_rules("club-21", {"banker_advice": "maybe"})
    with pytest.raises(RuleError, match="banker_advice"):
        build_rules("club-21-36", ADVICE)  # the 36-card game's banker is bound to his totals: no advice there


def test_advice_shows_in_the_banker_s_turn_only_and_only_where_the_house_turns_it_on() -> None:
    r = _to_banker(**ADVICE)
    assert r.error is None and r.table.phase is Phase.DEALER
    # 12 against two boxes that stood on two cards (17 to 20 under the sighted rule): draw.
    assert club_display_view(r.table).dealer.advice is BankerAdvice.DRAW
    assert club_display_view(_to_banker().table).dealer.advice is None  # the option off (the default)
    dealing = play("bet 1 10", "card 7H", "cards TS 6D", profile="club-21", **ADVICE)
    players = play("bet 1 10", "card 7H", "cards TS 6D 9C 7D", profile="club-21", **ADVICE)
    assert dealing.table.phase is Phase.DEALING and players.table.phase is Phase.PLAYERS
    assert club_display_view(dealing.table).dealer.advice is None
    assert club_display_view(players.table).dealer.advice is None  # the boxes' turn: the banker's cards closed
    settled = play("bet 1 10", "bet 2 10", "card 7H", "cards TS 8H 6D 9C 9H 6C", "stand", "stand", "banker_stand",
                   profile="club-21", **ADVICE)
    assert settled.table.round is None and club_display_view(settled.table).dealer.advice is None


def test_the_advice_follows_his_cards_as_he_draws() -> None:
    r = _to_banker(**ADVICE)
    four = play("bet 1 10", "bet 2 10", "card 7H", "cards TS 8H 6D 9C 9H 6C", "stand", "stand", "card 2C",
                profile="club-21", **ADVICE)  # 12 + 2 = 14 against two-card boxes: he takes the loss
    assert four.table.phase is Phase.DEALER and four.table.round.dealer.total == 14
    assert club_display_view(r.table).dealer.advice is BankerAdvice.DRAW
    assert club_display_view(four.table).dealer.advice is BankerAdvice.STAND


def test_the_advice_never_depends_on_a_closed_card() -> None:
    # The same public table (the bottom card, the banker's cards, two boxes of two closed cards each) with other
    # cards under the boxes: what the banker sees is the same, and so is the advice.
    tables = [_to_banker(box1, box2, **ADVICE).table for box1, box2 in
              [("TS 9C", "8H 9H"), ("TS 7C", "TH 9H"), ("8S 9C", "9D TD")]]
    sights = [sight_of(t) for t in tables]
    assert sights[0] is not None and sights.count(sights[0]) == 3
    assert len({club_display_view(t).dealer.advice for t in tables}) == 1
    # It does see what is shown: a box's natural, turned at once, leaves the pack with its cards.
    natural = _to_banker("AS TC", "8H 9H", stands=1, **ADVICE)
    assert natural.error is None and natural.rounds == [] and natural.table.phase is Phase.DEALER
    seen = sight_of(natural.table)
    assert seen is not None and len(seen.boxes) == 1 and sum(seen.unseen) == sum(sights[0].unseen) - 2


def test_the_advice_goes_to_the_dealer_s_display_and_no_other() -> None:
    r = _to_banker(**ADVICE)
    view = club_display_view(r.table)
    quiet = club_display_view(_to_banker().table)
    assert view.boxes == quiet.boxes  # the box displays show the same either way
    texts, plain = render_table(view, 8), render_table(quiet, 8)
    assert texts["dealer"] == "hIt   12" and plain["dealer"] == "      12"
    assert {k: v for k, v in texts.items() if k != "dealer"} == {k: v for k, v in plain.items() if k != "dealer"}


@pytest.mark.parametrize(("dealer", "digits", "text"), [
    (DealerView(up_card=10, card_count=2, hard_total=16, advice=BankerAdvice.DRAW), 8, "hIt   16"),
    (DealerView(up_card=10, card_count=2, hard_total=18, advice=BankerAdvice.STAND), 8, "StAnd 18"),
    (DealerView(up_card=1, card_count=2, hard_total=7, soft_total=17, advice=BankerAdvice.STAND), 8, "Std 7-17"),
    (DealerView(up_card=1, card_count=2, hard_total=7, soft_total=17, advice=BankerAdvice.DRAW), 8, "hIt 7-17"),
    (DealerView(up_card=10, card_count=2, hard_total=18, advice=BankerAdvice.STAND), 6, "Std 18"),
    (DealerView(up_card=10, card_count=2, hard_total=16, advice=BankerAdvice.DRAW), 6, "hIt 16"),
    # Too narrow for a word beside the total: the total alone, for both words alike.
    (DealerView(up_card=10, card_count=2, hard_total=18, advice=BankerAdvice.STAND), 4, "  18"),
    (DealerView(up_card=10, card_count=2, hard_total=16, advice=BankerAdvice.DRAW), 5, "   16"),
])
def test_the_advice_beside_his_total(dealer: DealerView, digits: int, text: str) -> None:
    assert render_dealer(dealer, digits) == text


def test_advice_is_only_for_a_banker_drawing_face_up() -> None:
    for bad in [{"card_count": 2, "closed": True}, {"up_card": 10, "card_count": 3, "hard_total": 25, "is_bust": True},
                {"up_card": 10, "card_count": 2, "hard_total": 18, "done": True}, {}]:
        with pytest.raises(ValueError, match="advice"):
            DealerView(advice=BankerAdvice.STAND, **bad)  # type: ignore[arg-type]
