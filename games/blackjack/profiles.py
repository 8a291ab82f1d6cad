"""Blackjack's named rule profiles, as data: each restates ``shared/rules.md`` for one casino's table.

A profile holds the options that differ from the defaults of blackjack's options model (`rules.RuleProfile`);
`controller.rules.build_rules` validates it with that model. The registry adds its name and game.
"""

from __future__ import annotations

from typing import Any

_RU_STANDARD: dict[str, Any] = dict(
    decks=6,
    cut_card_min=200 / 312,
    cut_card_max=220 / 312,
    hole_card=False,
    dealer_hits_soft17=False,
    double="any",
    double_after_split=True,
    max_hands=4,
    resplit_aces=True,
    split_by="value",
    surrender="none",
    dealer_bj_takes="all",
    insurance=True,
    even_money=True,
    three_sevens=True,
    boxes=7,
    players_per_box=3,
)

PROFILES: dict[str, dict[str, Any]] = {
    "ru-standard": _RU_STANDARD,
    "ru-surrender": {**_RU_STANDARD, "surrender": "before_first_hit"},
    "us-holecard": dict(
        decks=1,
        cut_card_min=0.5,
        cut_card_max=0.75,
        dealer_may_shuffle=True,
        hole_card=True,
        peek="ace_ten",
        dealer_hits_soft17=False,
        double="any",
        double_after_split=False,
        max_hands=4,
        resplit_aces=False,
        split_by="rank",
        surrender="none",
        dealer_bj_takes="original",
        insurance=True,
        even_money=True,
        insurance_amount="half",
        three_sevens=False,
        boxes=7,
        players_per_box=1,
    ),
    "single-deck-enhc": dict(
        decks=1,
        reshuffle_every_round=True,
        hole_card=False,
        dealer_hits_soft17=False,
        double="11",
        double_after_split=False,
        max_hands=2,
        resplit_aces=False,
        split_by="value",
        surrender="early_vs_2_10",
        dealer_bj_takes="all",
        insurance=True,
        even_money=False,
        insurance_amount="half",
        three_sevens=False,
        boxes=3,
        players_per_box=1,
        table_min=1,
        table_max=200,
    ),
}
