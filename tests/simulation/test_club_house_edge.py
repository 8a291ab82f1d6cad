"""`tablectl simulate --rules club-21`: the stated strategies through the engine, money kept, figures fixed by the seed."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from typing import Any

import pytest

from controller.rules import build_rules
from games.club.simulate import play_club_chunk, simulate_club
from simulators.club_strategy import (
    BLIND_PLAYERS,
    SIGHTED_PLAYERS,
    OptimalBanker,
    PlayersRule,
    parse_banker_rule,
    parse_players_rule,
)
from tests.support.deadlines import scaled

# What each outcome pays, per unit of the hand's stake (after any double).
PAYS = {"natural": 2, "banker_bust": 2, "win": 1, "push": 0, "void": 0, "lose": -1, "bust": -1, "fold": -1}


def test_money_is_conserved_round_by_round() -> None:
    rules = build_rules("club-21")
    records: list[dict[str, Any]] = []
    chunk = play_club_chunk(rules, 3000, "conservation", boxes=3, record=records.append)
    assert len(records) == chunk.rounds == 3000
    assert chunk.staked_cents == 3000 * 3 * 1000
    total = Decimal(0)
    for r in records:
        hands = r["hands"]
        assert sum(Decimal(h["net"]) for h in hands) == Decimal(r["net"])
        for h in hands:
            assert Decimal(h["net"]) == PAYS[h["outcome"]] * Decimal(h["bet"]), h
        total += Decimal(r["net"])
    assert total * 100 == chunk.net_cents  # what the players won is what the house lost, to the cent
    assert chunk.voids and chunk.pack_outs  # the rare ways a round ends were played too
    assert {h["outcome"] for r in records for h in r["hands"]} >= {"natural", "win", "lose", "bust", "banker_bust"}


def test_a_seed_gives_the_same_figures_and_another_seed_others() -> None:
    rules = build_rules("club-21")
    a = simulate_club(rules, 4000, seed=5, chunk_rounds=1000)
    b = simulate_club(rules, 4000, seed=5, chunk_rounds=1000)
    c = simulate_club(rules, 4000, seed=6, chunk_rounds=1000)
    key = lambda r: (r.house_edge_pct, r.stderr_pct, r.net_cents, r.hands, r.voids, r.shuffles)  # noqa: E731
    assert key(a) == key(b) and key(a) != key(c)


@pytest.mark.parametrize(("profile", "edge", "net_cents", "voids", "pack_outs", "shuffles"), [
    # club-21 since its pack runs out only when a box asks for a card (issue 24): fewer run-outs (70 before)
    ("club-21", -21.7167, 1_303_000, 145, 49, 264),
    # club-21-36 since the banker's kept card plays the next round's first duel (issue 24): the deal differs
    # from the first round that carries one (8.4333, -506_000, 111, 0, 1079 before; seeds 6 and 7 give 6.9 and 6.2,
    # each +-0.9: the same edge within the noise)
    ("club-21-36", 5.7667, -346_000, 107, 0, 1066),
])
def test_a_seed_gives_the_figures_it_always_gave(profile: str, edge: float, net_cents: int, voids: int,
                                                 pack_outs: int, shuffles: int) -> None:
    # Pinned: a refactor of the simulated shoe (its one card draw, its packs) must deal the same cards.
    r = simulate_club(build_rules(profile), 3000, seed=5, boxes=2, chunk_rounds=1000)
    assert (round(r.house_edge_pct, 4), r.net_cents, r.voids, r.pack_outs, r.shuffles) == (
        edge, net_cents, voids, pack_outs, shuffles)


def test_the_figures_do_not_depend_on_the_workers() -> None:
    rules = build_rules("club-21")
    one = simulate_club(rules, 2000, seed=8, chunk_rounds=500, workers=1)
    two = simulate_club(rules, 2000, seed=8, chunk_rounds=500, workers=2)
    assert (one.house_edge_pct, one.net_cents, one.hands) == (two.house_edge_pct, two.net_cents, two.hands)


def test_the_edges_lie_in_wide_bands() -> None:
    rules = build_rules("club-21")
    sighted = simulate_club(rules, 20_000, seed=2026)
    blind = simulate_club(rules, 20_000, seed=2026, players=BLIND_PLAYERS)
    # docs/house-edge.md: about -23 % (the players' favour) and +2 %; the bands are many standard errors wide.
    assert -35 < sighted.house_edge_pct < -12 and 0.5 < sighted.stderr_pct < 1.2
    assert -6 < blind.house_edge_pct < 10
    reckless = simulate_club(rules, 20_000, seed=2026, players=PlayersRule(draw_below=22))  # draws to bust
    assert reckless.house_edge_pct > sighted.house_edge_pct + 10


def test_the_banker_rule_follows_the_tables_options() -> None:
    bound = simulate_club(build_rules("club-21", {"banker_draws_to": 19}), 2000, seed=1)
    capped = simulate_club(build_rules("club-21", {"banker_stands_on": 16}), 2000, seed=1)
    free = simulate_club(build_rules("club-21"), 2000, seed=1)
    assert (bound.banker_stands_at, capped.banker_stands_at, free.banker_stands_at) == (19, 16, 17)


def test_players_rules_parse_or_say_what_is_accepted() -> None:
    assert parse_players_rule("below-17") == PlayersRule(draw_below=17)
    assert parse_players_rule("cards-3") == BLIND_PLAYERS
    with pytest.raises(ValueError, match="below-N"):
        parse_players_rule("hit-me")
    with pytest.raises(ValueError, match="2 to 22"):
        parse_players_rule("below-40")


@pytest.mark.parametrize("players", [SIGHTED_PLAYERS, BLIND_PLAYERS])
def test_the_optimal_banker_does_better_for_the_house_than_standing_at_17(players: PlayersRule) -> None:
    # The same seed deals the same packs; the banker's draws then part the two runs. The optimal banker's gain is
    # about 15 points against sighted players and 4 against blind ones (docs/house-edge.md), many standard errors
    # of these 3000 rounds' difference: at least he does no worse.
    rules = build_rules("club-21")
    records: list[dict[str, Any]] = []
    fixed = play_club_chunk(rules, 3000, "optimal-banker", players=players)
    best = play_club_chunk(rules, 3000, "optimal-banker", players=players, banker=OptimalBanker(),
                           record=records.append)
    assert best.net_cents < fixed.net_cents  # the players' net: the house's is its negative
    for r in records:  # money kept with him too
        for h in r["hands"]:
            assert Decimal(h["net"]) == PAYS[h["outcome"]] * Decimal(h["bet"]), h
    assert sum(Decimal(r["net"]) for r in records) * 100 == best.net_cents
    # He stands on less than 17 where it pays (against boxes that drew), which the fixed rule never does.
    assert any(r["dealer"]["total"] < 17 and not r.get("void") and not r.get("pack_out")
               and r["hands"][0]["outcome"] != "natural" for r in records)


def test_the_optimal_banker_is_club_21_s_and_parses() -> None:
    assert parse_banker_rule("options") is None
    assert parse_banker_rule("optimal") == OptimalBanker()
    assert parse_banker_rule("optimal-round:below-17") == OptimalBanker(SIGHTED_PLAYERS, "round")
    assert parse_banker_rule("optimal:cards-3").name(SIGHTED_PLAYERS) == "optimal:cards-3"
    assert parse_banker_rule("optimal:below-17").name(SIGHTED_PLAYERS) == "optimal"
    with pytest.raises(ValueError, match="optimal"):
        parse_banker_rule("stand-17")
    with pytest.raises(ValueError, match="below-N"):
        parse_banker_rule("optimal:hit-me")
    with pytest.raises(ValueError, match="club-21"):
        simulate_club(build_rules("club-21-36"), 10, seed=1, optimal=OptimalBanker())


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablectl.cli", "simulate", *args], capture_output=True, text=True,
                          timeout=scaled(120), stdin=subprocess.DEVNULL)


def test_the_command_prints_the_edge_for_the_stated_strategies() -> None:
    done = _cli("--rules", "club-21", "--rounds", "1500", "--seed", "3", "--workers", "1", "--json")
    assert done.returncode == 0, done.stderr
    d = json.loads(done.stdout)
    assert (d["rules"], d["players"], d["banker_stands_at"], d["rounds"]) == ("club-21", "below-17", 17, 1500)
    assert d["banker"] == "options"
    assert d["stderr_pct"] > 0
    text = _cli("--rules", "club-21", "--rounds", "500", "--workers", "1", "--players", "cards-3")
    assert "house edge" in text.stdout and "these strategies only" in text.stdout
    best = _cli("--rules", "club-21", "--rounds", "300", "--seed", "3", "--workers", "1", "--banker", "optimal",
                "--json")
    assert best.returncode == 0, best.stderr
    d = json.loads(best.stdout)
    assert (d["banker"], d["banker_stands_at"], d["rounds"]) == ("optimal", None, 300)
    text = _cli("--rules", "club-21", "--rounds", "200", "--workers", "1", "--banker", "optimal-round:cards-3")
    assert "banker plays optimal-round:cards-3" in text.stdout, text.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--rules", "club-21", "--players", "hit-me"], "--players"),
    (["--rules", "club-21", "--boxes", "9"], "--boxes 1 to 7"),
    (["--rules", "ru-standard", "--players", "cards-3"], "for the club games"),
    (["--rules", "club-21", "--set", "pack=40"], "pack"),
    (["--rules", "club-21", "--banker", "stand-17"], "--banker"),
    (["--rules", "club-21-36", "--banker", "optimal"], "is for club-21"),
    (["--rules", "ru-standard", "--banker", "optimal"], "for the club games"),
])
def test_bad_arguments_exit_2_with_a_clear_error(args: list[str], message: str) -> None:
    done = _cli(*args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------------------- club-21-36
PAYS_36 = {"win": 1, "lose": -1, "bust": -1, "returned": 0, "void": 0}


def test_club_21_36_money_is_conserved_duel_by_duel() -> None:
    from games.club.simulate import play_club2136_chunk

    rules = build_rules("club-21-36")
    records: list[dict[str, Any]] = []
    chunk = play_club2136_chunk(rules, 2000, "conservation-36", boxes=3, players=BLIND_PLAYERS, record=records.append)
    assert len(records) == chunk.rounds == 2000 and chunk.shuffles > 100
    for r in records:
        assert sum(Decimal(h["net"]) for h in r["hands"]) == Decimal(r["net"])
        for h in r["hands"]:
            assert Decimal(h["net"]) == PAYS_36[h["outcome"]] * Decimal(h["bet"]), h
        if r["bank"]["before"] is not None and r["bank"]["after"] is not None and not r.get("void"):
            # what the boxes won came out of the bank, what they lost went into it
            assert Decimal(r["bank"]["before"]) - Decimal(r["bank"]["after"]) == Decimal(r["net"]), r
    assert sum(Decimal(r["net"]) for r in records) * 100 == chunk.net_cents
    assert any(h.get("dark") for r in records for h in r["hands"])


def test_club_21_36_figures_are_fixed_by_the_seed_and_lie_in_a_wide_band() -> None:
    rules = build_rules("club-21-36")
    a = simulate_club(rules, 10_000, seed=2026)
    b = simulate_club(rules, 10_000, seed=2026)
    assert (a.house_edge_pct, a.net_cents, a.shuffles) == (b.house_edge_pct, b.net_cents, b.shuffles)
    assert a.banker_stands_at == 16 and -5 < a.house_edge_pct < 15  # docs/house-edge.md: about +7 %
    blind = simulate_club(rules, 10_000, seed=2026, players=BLIND_PLAYERS)
    assert blind.house_edge_pct > a.house_edge_pct  # three cards dark, blind, costs the boxes more


def test_the_command_simulates_club_21_36() -> None:
    done = _cli("--rules", "club-21-36", "--rounds", "1000", "--workers", "1", "--json")
    assert done.returncode == 0, done.stderr
    d = json.loads(done.stdout)
    assert (d["rules"], d["players"], d["banker_stands_at"], d["rounds"]) == ("club-21-36", "below-17", 16, 1000)
