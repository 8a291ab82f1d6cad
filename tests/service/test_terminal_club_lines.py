"""The demo's terminal view at a club table (issue 23): the banker is named as the felt names him, each duel
of a club-21-36 round shows its own banker cards and total, the shoe line shows the club pack's figures
(no penetration, no cut card), and a void round says why."""

from __future__ import annotations

from datetime import datetime, timezone

from tests.support.engine_dsl import play

from controller.cards import ALL_CARDS
from controller.view import table_view
from tablectl.terminal_view import draw, round_line

# The terminal counts open alerts' ages from the service's clock; these tables have none open.
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)

# Box 1 9S, box 2 8H, the banker 7D, the bottom card 6C; box 1 draws TS (19) and stands, the banker draws KS 9H
# (20); then his new card TD for box 2, which draws TC (18) and stands; he draws 7C (17) and must stop.
DUELS = ("open_bank 1000", "bet 1 10", "bet 2 20", "cards 9S 8H 7D", "card 6C", "card TS", "stand", "card KS",
         "card 9H", "card TD", "card TC", "stand", "card 7C")


def _line(r) -> str:
    return round_line(r.table.previous, r.table.rules.game, r.table.game.dealer_title)


def test_each_duel_shows_the_banker_s_own_cards_and_total():
    r = play(*DUELS, profile="club-21-36")
    assert r.error is None and r.rounds[-1]["dealer"]["cards"] == ["7D", "KS", "9H", "TD", "7C"]
    assert _line(r) == ("round 1: box 1 9S TS vs banker 7D KS 9H (20) takes 10; "
                        "box 2 8H TC vs banker TD 7C (17) pays 20; house -10")


def test_the_terminal_names_the_banker_at_a_club_table_and_the_dealer_at_blackjack():
    r = play(*DUELS[:5], profile="club-21-36")  # the deal and the bottom card: box 1's duel
    lines = draw(table_view(r.table), r.table, NOW).splitlines()
    assert lines[1].startswith("  banker   XX")
    assert lines[0].endswith("shoe S1 4/36 32 left  bottom card 6C shown")  # no penetration, no cut card
    r = play("bet 1 10", "cards 9S 7D 9H")
    lines = draw(table_view(r.table), r.table, NOW).splitlines()
    assert lines[1].startswith("  dealer   7D") and lines[0].endswith("shoe S1 3/312 (1%)")
    r = play("bet 1 10", "cards 9S 7D 9H", "cut", profile="ru-standard")
    assert draw(table_view(r.table), r.table, NOW).splitlines()[0].endswith("(1%)  CUT CARD OUT")


def test_a_club_21_round_line_names_the_banker():
    r = play("bet 1 10", "card 7H", "cards 9S 8D TS 9D", "stand", "banker_stand", profile="club-21", decks=1)
    assert _line(r).startswith("round 1: banker 8D 9D (17); box 1 9S TS")


def test_a_void_round_says_why():
    pack = [c.code for c in ALL_CARDS if c.code not in ("7H", "2S", "3S", "4S", "5S")]
    r = play("bet 1 10", "card 7H", "cards 2S 3S 4S 5S", "cards " + " ".join(pack[:44]), "stand", "banker_stand",
             "bet 1 10", "bet 2 10", "cards " + " ".join(pack[44:]), profile="club-21", decks=1)
    assert _line(r).startswith("round 2 (VOID: the pack ran out): banker ")
    r = play("open_bank 1000", "bet 1 10", "cards 9S 7D", "card AC", profile="club-21-36")
    assert _line(r).startswith("round 1 (VOID: an ace came up as the bottom card): box 1 9S ")
    r = play("bet 1 10", "cards 9S 7D 9H", "void")
    assert _line(r) == "round 1 (VOID: the supervisor voided it): dealer 7D (7); box 1 9S 9H push (void); house 0"
