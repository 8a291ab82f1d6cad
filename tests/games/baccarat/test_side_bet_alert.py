"""The live side-bet watch (issue 40, item 6): a Dragon 7 bet above its usual size on a coup whose exact expectation
is positive raises ``side_bet_edge``; the same bet at a negative expectation, or a usual bet at a positive one,
does not; the alert tells nothing of the coup it is for (the squeeze).

The shoe is stacked: one deck of EZ Baccarat whose first two coups are 8s and 9s only (two Banker naturals), so
that after them no 8 or 9 is left and the Dragon 7 is worth +36 % (`exact.expectations`); off the top it is -7 %.
"""

from __future__ import annotations

from controller.alerts import AlertKind, AlertLevel, level_of
from controller.event_codec import dump_event, parse_event
from controller.engine import Table
from games.baccarat.events import Reveal, SpotOdds
from games.baccarat.odds import SPOT_ODDS, USUAL_MIN_BETS

from tests.games.baccarat.support import T0, bet, deal, table

NO_EIGHTS_NOR_NINES = ("8S 9H 8D 9C", "8H 9S 8C 9D")  # each a Banker natural: four cards, no third


def _odds(t: Table) -> SpotOdds:
    """What the edge worker sends for the coup about to be dealt (its part, called here in-process)."""
    assert t.shoe is not None
    return SPOT_ODDS.event(t.shoe.shoe_id, t.shoe.dealt, SPOT_ODDS.expectations(t.rules, t.shoe.remaining_by_rank()))


def _eights_and_nines_gone(**options: object) -> Table:
    """Two coups with a Dragon 7 bet at the spot's minimum each, dealing every 8 and 9 of the deck."""
    t = table("ez-baccarat", decks=1, **options)
    for coup in NO_EIGHTS_NOR_NINES:
        bet(t, 1, "banker", 25, player="ann")
        bet(t, 1, "dragon7", 5, player="ann")
        deal(t, coup)
        if t.round is not None:  # (the squeeze: the cards are turned before the coup settles)
            t.apply(Reveal(at=T0))
    assert t.round is None
    return t


def _edge_alerts(t: Table) -> list:
    return [a for a in t.alerts if a.kind is AlertKind.SIDE_BET_EDGE]


def test_a_large_dragon_bet_when_the_dragon_is_positive_raises_the_alert() -> None:
    t = _eights_and_nines_gone()
    odds = _odds(t)
    assert odds.expectations["dragon7"] > 0.3 and odds.expectations["banker"] < 0
    t.apply(odds)
    assert not _edge_alerts(t)  # no bet yet
    bet(t, 2, "dragon7", 60, player="bob")
    [alert] = _edge_alerts(t)
    assert alert.message == "side bet at box 2: surveillance" and "bob" not in alert.message
    assert alert.secret is not None and alert.secret.startswith("bob: 60 on dragon7 (usual 5); its exact expectation +36.48 %")
    assert alert.secret.endswith("on the coup after 8 cards of shoe s1")
    assert level_of(alert.kind) is AlertLevel.NOTICE  # no bell: the player must not hear that they are seen
    bet(t, 2, "dragon7", 40, player="bob")  # more chips on the same bet: the same alert, not another
    assert len(_edge_alerts(t)) == 1 and _edge_alerts(t)[0].count == 1


def test_the_bet_made_before_the_odds_come_is_checked_when_they_come() -> None:
    t = _eights_and_nines_gone()
    bet(t, 3, "dragon7", 100, player="bob")
    assert not _edge_alerts(t)  # the worker has not answered yet
    t.apply(_odds(t))
    [alert] = _edge_alerts(t)
    assert alert.message == "side bet at box 3: surveillance"


def test_no_alert_for_a_usual_bet_nor_at_a_negative_expectation() -> None:
    t = _eights_and_nines_gone()
    t.apply(_odds(t))
    bet(t, 2, "dragon7", 5, player="bob")  # the spot's usual size: a positive moment, but no large bet
    bet(t, 2, "banker", 1000, player="bob")  # the main bets are not watched
    assert not _edge_alerts(t)
    fresh = table("ez-baccarat", decks=1)  # the control: the same large bet off the top, where the Dragon is -7 %
    odds = _odds(fresh)
    assert odds.expectations["dragon7"] < 0
    fresh.apply(odds)
    bet(fresh, 2, "dragon7", 100, player="bob")
    assert not _edge_alerts(fresh)


def test_the_usual_size_is_the_median_of_the_spots_bets() -> None:
    """Once the spot has `USUAL_MIN_BETS` bets, its usual size is their median (60 here), not its minimum (5): a
    bet of 60 is not above it, 65 is. Two decks, four coups of 8s and 9s: two players bet 60 each in three."""
    t = table("ez-baccarat", decks=2)
    for i, coup in enumerate(NO_EIGHTS_NOR_NINES * 2):
        bet(t, 1, "banker", 25, player="ann")
        if i < 3:
            bet(t, 1, "dragon7", 60, player="ann")
            bet(t, 4, "dragon7", 60, player="cat")
        deal(t, coup)
    assert t.round is None and len(t.game_state.side_stakes["dragon7"]) == 6 >= USUAL_MIN_BETS
    t.apply(_odds(t))
    bet(t, 2, "dragon7", 60, player="bob")
    assert not _edge_alerts(t)
    bet(t, 3, "dragon7", 65, player="dan")
    [alert] = _edge_alerts(t)
    assert alert.secret is not None and alert.secret.startswith("dan: 65 on dragon7 (usual 60)")


def test_odds_for_a_shoe_that_moved_on_change_nothing() -> None:
    """Not refused either (a refusal counts against the dealer on duty): taken, journalled, and of no effect."""
    t = _eights_and_nines_gone()
    stale = _odds(t)
    bet(t, 1, "banker", 25)
    deal(t, "2S 3H 2D 3C")
    while t.round is not None:
        deal(t, "AS")
    assert t.refusal(stale) is None
    t.apply(stale)
    assert t.game_state.odds is None
    bet(t, 2, "dragon7", 100, player="bob")
    assert not _edge_alerts(t)


def test_the_odds_are_a_supervisors_event_and_cross_the_journal_whole() -> None:
    from controller import registry

    assert "spot_odds" in registry.supervisor_actions()  # a dealer's key cannot forge the alert
    t = _eights_and_nines_gone()
    odds = _odds(t)
    again = parse_event(dump_event(odds))
    assert isinstance(again, SpotOdds) and again.expectations == odds.expectations


def test_the_alert_tells_nothing_of_the_coup_it_is_for_under_the_squeeze() -> None:
    """Odds that reach the table after the coup's first cards lie face down: the alert is the same, to the letter
    and the detail, whichever cards lie face down (two tables, the same bets, different coups)."""
    seen = []
    for coup in ("KS 7H 2D 5C 4H", "QS QH JD JC"):  # a Dragon 7 on its way / two hands of 0 (Player draws)
        t = _eights_and_nines_gone(squeeze=True)
        odds = _odds(t)
        bet(t, 2, "dragon7", 100, player="bob")
        deal(t, coup)
        assert t.round is not None and t.game.hidden_cards(t)
        t.apply(odds)
        [alert] = _edge_alerts(t)
        seen.append((alert.message, alert.secret, t.phase))
    assert seen[0] == seen[1]


def test_a_snapshot_keeps_the_watch() -> None:
    t = _eights_and_nines_gone()
    t.apply(_odds(t))
    game = t.game
    data = game.dump_state(t)
    other = table("ez-baccarat", decks=1)
    game.load_state(other, data)
    assert other.game_state.odds == t.game_state.odds and other.game_state.side_stakes == {"dragon7": [500, 500]}
