"""The club games on the seven-segment displays: closed hands, the settled total, the banker, the bank."""

from __future__ import annotations

from decimal import Decimal

import pytest

from display.model import BoxView, DealerView, HandOutcome, HandView, TableView
from display.render import render_box, render_dealer, render_table


def test_a_closed_hand_shows_its_card_count_and_never_a_total() -> None:
    closed = HandView(card_count=3, closed=True, in_play=True)
    assert render_box(BoxView(1, active=True, hands=(closed,)), 8) == "    -- 3."
    assert render_box(BoxView(1, active=True, hands=(HandView(card_count=2, closed=True),)), 4) == "-- 2"
    assert render_box(BoxView(1, active=True, hands=(HandView(card_count=2, closed=True),)), 2) == "--"


@pytest.mark.parametrize("secret", [
    {"hard_total": 19}, {"hard_total": 11, "soft_total": 21, "is_blackjack": True},
    {"hard_total": 25, "is_bust": True}, {"outcome": HandOutcome.WIN},
])
def test_a_closed_hand_cannot_even_carry_a_total(secret: dict) -> None:
    with pytest.raises(ValueError, match="closed"):
        HandView(card_count=2, closed=True, **secret)


def test_a_settled_club_box_shows_its_total_then_the_amount() -> None:
    hand = HandView(card_count=2, hard_total=19, done=True, outcome=HandOutcome.WIN)
    assert render_box(BoxView(1, active=True, hands=(hand,), payout=Decimal(10), settled_total=19), 8) == " 19 P 10"
    assert render_box(BoxView(1, active=True, hands=(hand,), payout=Decimal(-20), settled_total=17), 8) == "  17 -20"
    assert render_box(BoxView(1, active=True, hands=(hand,), payout=Decimal(0), settled_total=18), 8) == " 18 PUSH"
    # Too narrow for both: the amount alone, never a number that could be read as another amount.
    assert render_box(BoxView(1, active=True, hands=(hand,), payout=Decimal(150), settled_total=19), 4) == "P150"
    with pytest.raises(ValueError, match="settled_total"):
        BoxView(1, active=True, settled_total=19)  # a total is shown only beside a payout


def test_a_club_hand_past_21_shows_its_total() -> None:
    hand = HandView(card_count=4, hard_total=34, is_bust=True, done=True)
    assert render_box(BoxView(2, active=True, hands=(hand,), payout=Decimal(-10), settled_total=34), 8) == "  34 -10"


def test_the_banker_closed_then_face_up_and_the_bank_beside() -> None:
    assert render_dealer(DealerView(card_count=2, closed=True), 8) == "    -- 2"
    assert render_dealer(DealerView(up_card=6, card_count=3, hard_total=18), 8) == "      18"
    assert render_dealer(DealerView(up_card=6, card_count=3, hard_total=18, bank=Decimal(500)), 8) == "b 500 18"
    assert render_dealer(DealerView(bank=Decimal(1500)), 8) == "  b 1500"
    assert render_dealer(DealerView(card_count=1, closed=True, bank=Decimal(500)), 8) == "b500 --1"  # shorter forms
    # Both do not fit: the banker's hand wins (it is what the display is for).
    assert render_dealer(DealerView(card_count=2, closed=True, bank=Decimal(25000)), 8) == "    -- 2"
    assert render_dealer(DealerView(up_card=6, card_count=3, hard_total=18, bank=Decimal(500)), 4) == "  18"
    with pytest.raises(ValueError, match="closed"):
        DealerView(up_card=6, card_count=2, hard_total=16, closed=True)


def test_every_display_of_a_club_table_in_play() -> None:
    view = TableView(boxes=(BoxView(1, active=True, hands=(HandView(card_count=2, closed=True, in_play=True),)),
                            BoxView(2)), dealer=DealerView(card_count=2, closed=True))
    assert render_table(view, 8) == {"box1": "    -- 2.", "box2": " " * 8, "dealer": "    -- 2"}
