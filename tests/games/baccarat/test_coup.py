"""A coup on the table: settlement to the cent with the commission's options, bets as spots, a card never refused,
the burn and the cut card, the snapshot's round trip and the journal's replay."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from controller import events as ev
from controller.alerts import AlertKind
from controller.authority import TableAuthority, export_session
from controller.cards import parse_card
from controller.engine import Phase, Table
from controller.journal import JournalKey
from controller.replay import replay_lines
from controller.rules import RuleError, build_rules
from controller.view import table_view
from games.baccarat import settlement as pay
from games.baccarat.rules import BaccaratRules

from tests.games.baccarat.support import T0, bet, deal, nets, table

BANKER_WINS = "2S 4H KS 3D"  # Player 2 (draws), Banker 7; the Player's third KC: 2, Banker 7 stands -> Banker
BANKER_WINS_CARDS = BANKER_WINS + " KC"
PLAYER_WINS = "4S 2H 5S KD"  # Player 9: a natural


def test_banker_pays_19_to_20_with_the_commission_shown() -> None:
    """Banker 1:1 less 5 %: 25 wins 23.75 (commission 1.25, to the cent)."""
    t = table()
    bet(t, 1, "banker", 25)
    deal(t, BANKER_WINS_CARDS)
    hand = t.previous.record["hands"][0]
    assert (hand["outcome"], hand["net"], hand["commission"]) == ("win", "23.75", "1.25")
    assert t.previous.record["commission"] == "1.25"


def test_commission_rounded_down_to_the_cent_in_the_players_favour() -> None:
    """commission_rounding = cent: 5 % of 25.30 is 1.265: the player pays 1.26."""
    t = table(chip_unit=Decimal("0.10"), table_min=Decimal(25))
    bet(t, 1, "banker", Decimal("25.30"))  # type: ignore[arg-type]
    deal(t, BANKER_WINS_CARDS)
    assert nets(t) == [(1, "banker", "win", "24.04")]


def test_commission_rounded_up_to_the_chip() -> None:
    """commission_rounding = chip: 5 % of 25 is 1.25, collected as 2 with chips of 1."""
    t = table(commission_rounding="chip")
    bet(t, 1, "banker", 25)
    deal(t, BANKER_WINS_CARDS)
    assert nets(t) == [(1, "banker", "win", "23")]


def test_commission_kept_owed_to_the_end_of_the_shoe_and_collected() -> None:
    """commission_collect = end_of_shoe: the bet is paid even money and the commission owed in the box's tally."""
    t = table(commission_collect="end_of_shoe")
    bet(t, 1, "banker", 100, player="ann")
    deal(t, BANKER_WINS_CARDS)
    hand = t.previous.record["hands"][0]
    assert (hand["net"], hand["commission"], hand["commission_owed"]) == ("100", "5", True)
    bet(t, 1, "banker", 40, player="ann")
    deal(t, BANKER_WINS_CARDS.replace("KC", "QC"))
    view = table_view(t)
    assert view["commission_owed"] == {"1": {"ann": "7"}} and "collect_commission" in view["legal_actions"]
    assert type(t).from_snapshot(t.snapshot()).snapshot() == t.snapshot()
    refused = t.refusal(ev.PlaceBet(box=1, amount=Decimal(1), at=T0))
    assert refused is not None  # (a bet under the minimum: unrelated, the table is open)
    assert t.refusal(_collect(2)) is not None
    t.apply(_collect(1))
    assert table_view(t)["commission_owed"] == {}


def _collect(box: int) -> ev.Event:
    from games.baccarat.events import CollectCommission

    return CollectCommission(box=box, at=T0)


def test_ez_baccarat_pushes_the_banker_on_a_three_card_seven_and_pays_dragon_40() -> None:
    t = table("ez-baccarat")
    bet(t, 1, "banker", 100)
    bet(t, 1, "dragon7", 10)
    bet(t, 2, "player", 50)
    deal(t, "2S 2H 4S 3H 2D")  # Player 6 stands, Banker 5 draws 2: a three-card 7
    assert nets(t) == [(1, "banker", "push", "0"), (1, "dragon7", "win", "400"), (2, "player", "lose", "-50")]


def test_ez_baccarat_takes_no_commission() -> None:
    t = table("ez-baccarat")
    bet(t, 1, "banker", 25)
    deal(t, BANKER_WINS_CARDS)
    assert nets(t) == [(1, "banker", "win", "25")]


def test_tie_pushes_player_and_banker_and_pays_8_or_9() -> None:
    for pays, won in ((8, "80"), (9, "90")):
        t = table(tie_pays=pays)
        bet(t, 1, "player", 25)
        bet(t, 2, "banker", 25)
        bet(t, 3, "tie", 10)
        deal(t, "3S 6H 5S 2D")  # 8 against 8
        assert nets(t) == [(1, "player", "push", "0"), (2, "banker", "push", "0"), (3, "tie", "win", won)]


def test_one_box_may_bet_player_and_banker_together() -> None:
    """Decided (docs/baccarat.md): allowed; each spot settles on its own."""
    t = table()
    bet(t, 1, "player", 25)
    bet(t, 1, "banker", 25)
    deal(t, PLAYER_WINS)
    assert nets(t) == [(1, "player", "win", "25"), (1, "banker", "lose", "-25")]


def test_spot_limits_and_side_bets_not_offered() -> None:
    t = table()
    assert t.refusal(ev.PlaceBet(box=1, amount=Decimal(10), spot="banker", at=T0)).code == "bet_under_min"
    assert t.refusal(ev.PlaceBet(box=1, amount=Decimal(501), spot="tie", at=T0)).code == "bet_over_max"
    assert t.refusal(ev.PlaceBet(box=1, amount=Decimal(10), spot="dragon7", at=T0)).code == "no_such_spot"
    assert t.refusal(ev.PlaceBet(box=1, amount=Decimal(10), spot="insurance", at=T0)).code == "no_such_spot"
    assert table(profile="ez-baccarat").refusal(ev.PlaceBet(box=1, amount=Decimal(10), spot="dragon7", at=T0)) is None


def test_options_are_validated() -> None:
    for bad in ({"tie_pays": 7}, {"decks": 9}, {"burn": "some"}, {"commission_rounding": "euro"},
                {"cut_card_from_end_min": 20, "cut_card_from_end_max": 16}, {"table_min": 10, "table_max": 5}):
        with pytest.raises(RuleError):
            build_rules("punto-banco", bad)
    rules = build_rules("punto-banco", {"decks": 6})
    assert isinstance(rules, BaccaratRules) and rules.shoe_size == 312 and rules.cut_card_zone(312) == [296, 298]


# ------------------------------------------------------------------ a card is never refused
def test_a_card_after_the_coup_is_decided_is_held() -> None:
    """Without the squeeze the coup settles on its last card; the next card, with no bets down, is held."""
    t = table()
    bet(t, 1, "player", 25)
    deal(t, PLAYER_WINS + " 7C")
    assert t.phase is Phase.ATTENTION and [c.code for c in t.held] == ["7C"]
    assert any(a.kind is AlertKind.UNEXPECTED_CARD for a in t.alerts)
    assert nets(t) == [(1, "player", "win", "25")]  # the coup stands


def test_a_card_before_any_bet_is_held() -> None:
    t = table()
    deal(t, "7C")
    assert t.phase is Phase.ATTENTION and [c.code for c in t.held] == ["7C"]


def test_the_burn_turns_the_first_card_and_burns_its_value() -> None:
    """burn = face_value: a 4 turned, four more burnt; a king turned, ten more."""
    for first, more in (("4S", 4), ("KS", 10), ("AS", 1)):
        t = Table(build_rules("punto-banco"))
        t.apply(ev.Shuffle(shoe_id="s1", at=T0))
        bet(t, 1, "player", 25)
        deal(t, first + " 2C" * more)
        assert t.shoe.burned == 1 + more and t.round is None
        deal(t, PLAYER_WINS)
        assert nets(t) == [(1, "player", "win", "25")]


@pytest.mark.parametrize("last_coup, coups_after", [("one_more", 1), ("finish", 0)])
def test_the_cut_card_ends_the_shoe_after_the_coup_and_one_more(last_coup: str, coups_after: int) -> None:
    t = table(last_coup=last_coup)
    bet(t, 1, "player", 25)
    deal(t, "4S 2H")
    t.apply(ev.CutCardOut(position=3, at=T0))
    deal(t, "5S KD")  # the coup in progress finishes
    for _ in range(coups_after):
        assert t.phase is Phase.BETTING
        bet(t, 1, "player", 25)
        deal(t, PLAYER_WINS)
    assert t.phase is Phase.WAITING_FOR_SHUFFLE and t.shoe.cut_card_out
    t.apply(ev.Shuffle(shoe_id="s2", at=T0))
    assert t.phase is Phase.BETTING and table_view(t)["scoreboard_coups"] == 0


# ------------------------------------------------------------------ the record as evidence
def test_snapshot_round_trips_in_the_middle_of_a_coup_and_after() -> None:
    t = table("ez-baccarat", squeeze=True)
    bet(t, 1, "banker", 25)
    bet(t, 1, "tie", 5)
    deal(t, "2S 2H 4S")
    snap = t.snapshot()
    assert Table.from_snapshot(snap).snapshot() == snap
    deal(t, "3H 2D")
    from games.baccarat.events import Reveal
    t.apply(Reveal(at=T0))
    snap = t.snapshot()
    assert Table.from_snapshot(snap).snapshot() == snap


def test_a_snapshot_with_cards_against_the_tableau_is_refused() -> None:
    from controller.errors import SnapshotError

    t = table()
    bet(t, 1, "banker", 25)
    deal(t, "2S 2H 4S")
    snap = json.loads(json.dumps(t.snapshot()))
    snap["round"]["order"] = ["player", "player", "banker"]
    with pytest.raises(SnapshotError):
        Table.from_snapshot(snap)


def test_replay_of_the_journal_equals_the_live_table(tmp_path: Path) -> None:
    live = TableAuthority.open(tmp_path / "j.sqlite", JournalKey.generate(tmp_path / "k"),
                               build_rules("ez-baccarat", {"squeeze": True, "burn": "none"}), now=T0)
    submit = lambda e: live.submit(e, T0)  # noqa: E731
    submit(ev.Shuffle(shoe_id="s1", at=T0))
    from games.baccarat.events import Reveal
    for coup in ("4S 6H AC 7D 8C", "3S 6H 5S 2D", "2S 2H 4S 3H 2D"):
        for box, spot, amount in ((1, "banker", 25), (2, "player", 30), (3, "tie", 5), (3, "dragon7", 5)):
            submit(ev.PlaceBet(box=box, amount=Decimal(amount), spot=spot, at=T0))
        for code in coup.split():
            submit(ev.CardDrawn(card=parse_card(code), at=T0))
        submit(Reveal(at=T0))
    t = live.table
    assert t.rounds_played == 3 and t.phase is Phase.BETTING
    replayed = replay_lines([json.dumps(row) for row in export_session(live.journal)])
    assert replayed.error is None and replayed.table.snapshot() == t.snapshot()
    live.journal.close()


def test_every_spot_settles_by_its_own_rule() -> None:
    rules = build_rules("ez-baccarat")
    assert isinstance(rules, BaccaratRules)
    coup = pay.Coup.of([("A", 1), ("2", 2), ("5", 5)], [("6", 6), ("K", 10)])  # Player 8 on three cards
    assert [pay.settle_spot(s, 1000, coup, rules).net for s in pay.SPOTS] == [1000, -1000, -1000, -1000, -1000,
                                                                              -1000, 25000]
