"""The virtual croupier of the club games: from the dealer key's view only, every round settles.

The croupier's decisions (`games.club.dealer.club_move`) are carried out on an engine in
memory (`tests/support/croupier.py`); the same decisions drive `tablectl demo` over the API.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.support.croupier import run_croupier

from controller.cards import parse_card, soft_total
from controller.rules import build_rules
from games.club.dealer import DEAL, Move, club_move
from simulators.club_strategy import BLIND_PLAYERS, BankerRule, banker_rule_for

PLAYED = {"win", "lose", "bust", "push", "banker_bust"}


def total(cards: list[str], values: tuple[int, ...]) -> int:
    """A hand's best total by the pack's values."""
    hard = sum(values[parse_card(c).index] for c in cards)
    soft = soft_total(hard, any(values[parse_card(c).index] == 1 for c in cards))
    return hard if soft is None else soft


def test_every_round_settles_and_no_action_is_refused() -> None:
    run = run_croupier("club-21", 150, seed=3)
    assert len(run.records) == 150 and run.table.round is None
    assert run.shuffles > 1  # two decks last a few rounds: spent packs (and ace bottoms) were reshuffled
    assert any(r.get("pack_out") for r in run.records)  # the spent pack's double/fold was played too
    assert {h["outcome"] for r in run.records for h in r["hands"]} <= PLAYED | {"natural", "fold", "double", "void"}


def test_the_boxes_play_the_blind_rule_draw_to_three_cards() -> None:
    run = run_croupier("club-21", 120, seed=5)
    hands = [h for r in run.records if not r.get("pack_out") for h in r["hands"]]
    assert all(len(h["cards"]) <= 3 for h in hands)
    # A box that played its turn (anything but a natural, or a loss to the banker's natural) drew its third card.
    drawn = [h for h in hands if h["outcome"] in ("win", "bust", "banker_bust", "push")]
    assert drawn and all(len(h["cards"]) == 3 for h in drawn)


def test_the_banker_stands_at_17_by_default_and_never_draws_there() -> None:
    rules = build_rules("club-21")
    run = run_croupier("club-21", 150, seed=7)
    drew = [r for r in run.records if len(r["dealer"]["cards"]) > 2]
    assert drew
    for r in drew:
        cards = r["dealer"]["cards"]
        assert total(cards[:-1], rules.values) < 17  # he drew his last card below 17
        if _stood(r, rules.values) and not r.get("pack_out"):
            assert r["dealer"]["total"] >= 17  # he stopped by choice only at 17 or more


def test_a_house_that_binds_the_banker_to_draw_below_18_is_obeyed() -> None:
    options = {"banker_draws_to": 18}
    assert banker_rule_for(build_rules("club-21", options)) == BankerRule(18)
    rules = build_rules("club-21", options)
    run = run_croupier("club-21", 120, seed=9, options=options)
    drew = [r for r in run.records if len(r["dealer"]["cards"]) > 2]
    assert drew
    for r in drew:
        assert total(r["dealer"]["cards"][:-1], rules.values) < 18  # every card he took, he took below 18
    # He never stopped on 17 by the default rule: at 17 he was bound to draw.
    assert not any(r["dealer"]["total"] == 17 and not r.get("pack_out") and len(r["dealer"]["cards"]) > 2
                   and r["dealer"]["cards"] for r in drew if _stood(r, rules.values))


def _stood(record: dict[str, Any], values: tuple[int, ...]) -> bool:
    """The banker stopped by choice: not over 21, not on 21, and some box still waited on his hand."""
    t = record["dealer"]["total"]
    return t < 21 and any(h["outcome"] in PLAYED for h in record["hands"])


def test_contra_tables_and_36_card_packs_are_played_through() -> None:
    run = run_croupier("club-21", 60, seed=2, options={"contra": True})
    assert len(run.records) == 60 and not any(r.get("contra") for r in run.records)  # he never calls contra
    run = run_croupier("club-21", 60, seed=2, options={"pack": 36, "decks": 1})
    assert len(run.records) == 60
    assert all(parse_card(c).rank in "6789TJQKA" for r in run.records for h in r["hands"] for c in h["cards"])


def test_the_croupier_decides_for_the_boxes_on_closed_cards() -> None:
    run = run_croupier("club-21", 30, seed=4, keep_views=True)
    in_turn = [v for v in run.views if v["phase"] == "players"]
    assert in_turn
    for view in in_turn:
        box = next(b for b in view["boxes"] if b["box"] == view["turn"]["box"])
        hand = box["hands"][view["turn"]["hand"]]
        if not hand["closed"]:
            continue
        assert set(hand["cards"]) == {"XX"} and hand["totals"] == []  # the dealer's key sees nothing more
        blind = club_move(view)
        if "hit" in view["legal_actions"]:
            assert (blind == DEAL) == (hand["card_count"] < 3)
        else:  # a spent pack: a box that wants a card asks for it by doubling or folding (the run-out begins)
            assert (blind.kind == "act" and blind.event["type"] in ("double", "fold")) == (hand["card_count"] < 3)


def _swap_box_cards(view: dict[str, Any], codes: list[str]) -> dict[str, Any]:
    """The same view with other cards under the closed XX (what a leak would let the decision see)."""
    out = {**view, "boxes": [{**b, "hands": [{**h, "_truth": codes} for h in b["hands"]]} for b in view["boxes"]]}
    return out


def test_the_move_is_the_same_whatever_the_closed_cards_are() -> None:
    run = run_croupier("club-21", 10, seed=6, keep_views=True)
    for view in run.views:
        assert club_move(view) == club_move(_swap_box_cards(view, ["AS", "TD"]))


def test_the_banker_decides_from_his_own_cards_shown_in_his_turn() -> None:
    view = {"phase": "dealer", "turn": {"dealer": True}, "legal_actions": ["hit", "banker_stand"],
            "dealer": {"cards": ["TS", "6D"], "totals": [16], "closed": False}, "boxes": [], "next_card": "banker"}
    assert club_move(view) == DEAL
    view["dealer"] = {"cards": ["TS", "7D"], "totals": [17], "closed": False}
    assert club_move(view) == Move("act", {"type": "banker_stand"})
    assert club_move(view, BLIND_PLAYERS, BankerRule(18)) == DEAL
    view["legal_actions"] = ["hit"]  # the house binds him: he must draw whatever his rule says
    assert club_move(view, BLIND_PLAYERS, BankerRule(15)) == DEAL


def test_on_a_spent_pack_a_box_on_two_cards_doubles_and_one_that_drew_folds() -> None:
    view = {"phase": "pack_out", "legal_actions": ["double", "fold"], "turn": None, "next_card": None, "boxes": [
        {"box": 1, "choice": "double", "hands": [{"outcome": None, "card_count": 2, "totals": []}]},
        {"box": 2, "choice": None, "hands": [{"outcome": None, "card_count": 3, "totals": []}]},
        {"box": 4, "choice": None, "hands": [{"outcome": None, "card_count": 2, "totals": []}]}]}
    assert club_move(view) == Move("act", {"type": "fold", "box": 2})
    view["boxes"][1]["choice"] = "fold"
    assert club_move(view) == Move("act", {"type": "double", "box": 4})


def test_a_sighted_rule_is_refused_on_the_dealers_closed_view() -> None:
    from simulators.club_strategy import SIGHTED_PLAYERS

    run = run_croupier("club-21", 3, seed=4, keep_views=True)
    view = next(v for v in run.views if v["phase"] == "players")
    with pytest.raises(ValueError, match="closed"):
        club_move(view, SIGHTED_PLAYERS)


# ---------------------------------------------------------------------------- club-21-36
def test_club_21_36_rounds_of_duels_settle_with_the_bank_opened_and_closed() -> None:
    run = run_croupier("club-21-36", 80, seed=3)
    assert len(run.records) == 80 and not run.table.alerts  # no integrity alert: every pack was whole
    kinds = [(m.kind, (m.event or {}).get("type")) for m in run.moves]
    assert ("supervise", "open_bank") in kinds and ("supervise", "close_bank") in kinds  # the pit's key's
    assert ("act", "dark") in kinds and ("act", "banker_stand") in kinds
    assert {h["outcome"] for r in run.records for h in r["hands"]} <= {"win", "lose", "bust", "void", "returned"}
    assert all(parse_card(c).rank in "6789TJQKA" for r in run.records for h in r["hands"] for c in h["cards"])


def test_a_pack_spent_in_a_round_is_replaced_by_what_is_not_on_the_table() -> None:
    run = run_croupier("club-21-36", 60, seed=4)
    assert any(n < 36 for n in run.card_counts)  # reloaded in a round, without the cards on the table
    assert not [a for a in run.table.alerts if a.kind.value == "integrity"]


def test_in_club_21_36_a_blind_box_goes_dark_before_it_draws() -> None:
    view = {"phase": "players", "turn": {"box": 2, "hand": 0}, "next_card": "box 2", "game": "club-21-36",
            "legal_actions": ["stand", "hit", "bet", "dark"], "dealer": {"cards": ["XX"], "totals": []},
            "boxes": [{"box": 2, "hands": [{"card_count": 1, "totals": [], "dark": False, "outcome": None}]}]}
    assert club_move(view) == Move("act", {"type": "dark", "box": 2})
    view["legal_actions"] = ["stand", "hit"]
    view["boxes"][0]["hands"][0]["dark"] = True
    assert club_move(view) == DEAL
    view["boxes"][0]["hands"][0]["card_count"] = 3
    assert club_move(view) == Move("act", {"type": "stand"})


def test_a_view_without_card_counts_is_read_by_its_closed_cards() -> None:
    # An API whose models predate the club keys still shows the closed cards as XX: their number is public.
    view = {"phase": "players", "turn": {"box": 1, "hand": 0}, "next_card": "box 1", "legal_actions": ["stand", "hit"],
            "dealer": {"cards": ["XX", "XX"], "totals": []},
            "boxes": [{"box": 1, "hands": [{"cards": ["XX", "XX"], "totals": [], "outcome": None}]}]}
    assert club_move(view) == DEAL
    view["boxes"][0]["hands"][0]["cards"] = ["XX", "XX", "XX"]
    assert club_move(view) == Move("act", {"type": "stand"})
