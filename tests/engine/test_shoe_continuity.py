"""The shoe's count, the empty shoe, the supervisor's gate, the smart shoe's own shoes, the face-down card.

Issue 11 ("continuity of the shoe") and issue 12 ("the hole card, stated by the engine", "every
change to the shoe's gate is an event", "the shoe owns its shoes"): each check here is made by the
engine from journalled events, so a replay raises the same alerts.
"""

from __future__ import annotations

import pytest

from controller import events as ev
from games.blackjack.events import CloseInsurance
from controller.alerts import AlertKind
from controller.cards import ALL_CARDS, parse_card
from controller.effects import CardPlaced, HoleCardTurned, ShoeLock
from controller.engine import IllegalAction, Phase, Table
from controller.rules import build_rules
from controller.view import HIDDEN, table_view


def card(code: str, position: int | None = None) -> ev.CardDrawn:
    return ev.CardDrawn(card=parse_card(code), position=position)


def table_in_play(profile: str = "ru-standard", **options: object) -> Table:
    t = Table(build_rules(profile, options))
    t.apply(ev.Shuffle(shoe_id="S1"))
    t.apply(ev.PlaceBet(box=1, amount=10))
    return t


def integrity(t: Table) -> list[str]:
    return [a.message for a in t.open_alerts() if a.kind is AlertKind.INTEGRITY]


def test_positions_one_two_three_raise_nothing():
    t = table_in_play()
    for i, code in enumerate(("TS", "6D", "9C"), start=1):
        t.apply(card(code, i))
    assert integrity(t) == [] and t.phase is Phase.PLAYERS


def test_a_gap_in_the_shoes_count_is_an_integrity_alert_that_locks_the_shoe():
    t = table_in_play()
    t.apply(card("TS", 1))
    effects = t.apply(card("6D", 4))
    assert integrity(t) == ["cards 2 to 3 of shoe S1 never reached the table: the shoe's count jumped from 1 to 4"]
    assert ShoeLock(True) in effects and t.locked
    assert t.round is not None and t.round.dealer.cards[0].code == "6D"  # the card itself is real: it is played
    alert = t.open_alerts()[0]
    t.apply(ev.AcknowledgeAlert(alert_id=alert.id, actor="supervisor:pit"))
    assert not t.locked and t.open_alerts() == []


def test_a_position_dealt_again_with_another_card_is_held_and_alerted():
    t = table_in_play()
    t.apply(card("TS", 1))
    t.apply(card("6D", 2))
    t.apply(card("9C", 2))  # the shoe went back: position 2 again, another card
    assert integrity(t) == ["card 2 of shoe S1 came again (9C) after the shoe had counted 2: the shoe went back"]
    assert t.phase is Phase.ATTENTION and [c.code for c in t.held] == ["9C"] and t.locked


def test_a_shoe_ahead_of_the_journal_is_an_integrity_alert_once():
    """A journal put back from a copy: the shoe says 43 cards went out and were stored; the table has 27."""
    t = table_in_play()
    for i in range(1, 28):
        t.apply(ev.Tick()) if i > 3 else t.apply(card(("TS", "6D", "9C")[i - 1], i))
    t.shoe.last_position = 27  # (the cards 4..27 of earlier rounds, as a restored journal would have)
    t.apply(ev.ShoeCount(shoe_id="S1", position=43, unacked=0))
    assert integrity(t) == ["the shoe has released 43 cards of shoe S1 but the table has 27: cards 28 to 43 are "
                            "missing (a journal put back from a copy, or cards lost)"]
    t.apply(ev.ShoeCount(shoe_id="S1", position=43, unacked=0))
    assert len(integrity(t)) == 1  # said once
    t.apply(card("5H", 44))  # the next card is not a second gap
    assert len(integrity(t)) == 1


def test_a_shoe_the_table_never_saw_loaded_is_an_integrity_alert():
    t = table_in_play()
    t.apply(ev.ShoeCount(shoe_id="S2", position=12, unacked=0))
    assert "the shoe is dealing shoe S2 (12 cards out) but the table knows shoe S1" in integrity(t)[0]


def test_cards_still_unacknowledged_are_not_missing():
    t = table_in_play()
    t.apply(card("TS", 1))
    t.apply(ev.ShoeCount(shoe_id="S1", position=3, unacked=2))
    assert integrity(t) == []


def _spend_the_shoe_mid_round() -> Table:
    """One deck in card order, six boxes that stand on everything: the 52nd card is dealt mid-deal."""
    t = Table(build_rules("ru-standard", {"decks": 1, "cut_card_min": 0.97, "cut_card_max": 0.98}))
    t.apply(ev.Shuffle(shoe_id="S1"))
    deck = list(ALL_CARDS)
    position = 0
    while True:
        for box in range(1, 7):
            t.apply(ev.PlaceBet(box=box, amount=10))
        while t.round is not None or t.phase is Phase.BETTING and t.pending:
            if t.phase in (Phase.PLAYERS, Phase.SURRENDER) and "stand" in [a.value for a in t.legal_actions()]:
                t.apply(ev.Stand())
                continue
            if t.phase is Phase.INSURANCE:
                t.apply(CloseInsurance())
                continue
            position += 1
            t.apply(ev.CardDrawn(card=deck[position - 1], position=position))
            if position == 52:
                return t


def test_a_shoe_that_runs_out_mid_round_says_what_resolves_it_and_a_new_shoe_goes_on():
    t = _spend_the_shoe_mid_round()
    assert t.round is not None and t.next_card() is not None
    empty = [a for a in t.open_alerts() if a.kind is AlertKind.SHOE_EMPTY]
    assert len(empty) == 1 and "load a new shoe" in empty[0].message and "voids the round" in empty[0].message
    number = t.round.number
    t.apply(ev.Shuffle(shoe_id="S2", actor="shoe"))  # the dealer loads a new shoe; the shoe names it
    assert t.round is not None and t.round.number == number and t.shoe.shoe_id == "S2"
    assert not any(a.kind is AlertKind.SHOE_EMPTY for a in t.open_alerts())
    while t.round is not None:  # the round goes on with the new shoe's cards
        t.apply(card("TD"))
    assert t.previous.number == number and not t.previous.voided


def test_a_shoe_that_runs_out_mid_round_may_be_voided():
    t = _spend_the_shoe_mid_round()
    t.apply(ev.VoidRound(actor="supervisor:pit"))
    assert t.previous.voided and t.phase is Phase.WAITING_FOR_SHUFFLE
    assert not any(a.kind is AlertKind.SHOE_EMPTY and a.active for a in t.alerts)


def test_no_new_shoe_in_the_middle_of_a_round_whose_shoe_still_has_cards():
    t = table_in_play()
    t.apply(card("TS", 1))
    with pytest.raises(IllegalAction) as exc:
        t.apply(ev.Shuffle(shoe_id="S2"))
    assert exc.value.code == "round_in_progress"


def test_the_supervisors_hold_on_the_gate_is_an_event_and_shows_why():
    t = table_in_play()
    assert not t.locked
    effects = t.apply(ev.ShoeGate(locked=True, actor="supervisor:pit"))
    assert ShoeLock(True) in effects and t.gate_held
    assert table_view(t)["lock_reasons"] == ["a supervisor holds the gate"]
    with pytest.raises(IllegalAction, match="already holds"):
        t.apply(ev.ShoeGate(locked=True))
    effects = t.apply(ev.ShoeGate(locked=False, actor="supervisor:pit"))
    assert ShoeLock(False) in effects and not t.locked
    with pytest.raises(IllegalAction) as exc:
        t.apply(ev.ShoeGate(locked=False))
    assert exc.value.code == "gate_not_held"


def test_releasing_the_hold_leaves_the_tables_own_reasons():
    t = table_in_play()
    t.apply(ev.ShoeGate(locked=True))
    t.apply(card("TS", 1))
    t.apply(card("6D", 3))  # a gap: integrity locks the shoe too
    t.apply(ev.ShoeGate(locked=False))
    assert t.locked and table_view(t)["lock_reasons"] == [
        "an integrity alert is open: the supervisor must acknowledge it"]


def test_with_a_smart_shoe_connected_only_a_new_load_starts_a_new_shoe():
    t = Table(build_rules("ru-standard"))
    t.apply(ev.LinkUp())
    t.apply(ev.Shuffle(shoe_id="S1"))
    t.apply(ev.PlaceBet(box=1, amount=10))
    t.apply(ev.VoidRound())
    for shuffle in (ev.Shuffle(), ev.Shuffle(shoe_id="S1")):
        assert t.refusal(shuffle).code == "shoe_owns_shuffle"  # pressing shuffle keeps the count
    assert t.refusal(ev.Shuffle(shoe_id="S2")) is None
    t.apply(ev.LinkDown(reason="unplugged"))
    assert t.refusal(ev.Shuffle()) is None  # without the smart shoe, a person shuffles by hand


def test_the_integrity_count_spans_the_physical_shoe():
    """A third ace of spades from a one-deck shoe raises an alert, whatever shuffle was pressed between."""
    t = Table(build_rules("single-deck-enhc"))
    t.apply(ev.LinkUp())
    t.apply(ev.Shuffle(shoe_id="S1"))
    t.apply(ev.PlaceBet(box=1, amount=10))
    t.apply(card("AS", 1))
    with pytest.raises(IllegalAction):
        t.apply(ev.Shuffle())
    t.apply(card("AS", 2))
    assert any("AS seen 2 times" in m for m in integrity(t))


def test_the_hole_card_is_face_down_in_the_effects_until_the_dealer_turns_it():
    t = table_in_play("us-holecard")
    placed = [t.apply(card(c)) for c in ("TS", "6D", "9C", "8H")]
    hole = [e for e in placed[3] if isinstance(e, CardPlaced)][0]
    assert hole.to == "dealer" and hole.face_down and t.dealer_card_closed
    assert not any(isinstance(e, CardPlaced) and e.face_down for fx in placed[:3] for e in fx)
    assert table_view(t)["dealer"]["cards"] == ["6D", HIDDEN]
    turned = t.apply(ev.Stand())
    assert HoleCardTurned("8H") in turned and not t.dealer_card_closed


def test_an_alert_about_the_hole_card_does_not_name_it_to_a_viewer():
    t = Table(build_rules("us-holecard"))
    t.apply(ev.Shuffle(shoe_id="S1"))
    for box in (1, 2):
        t.apply(ev.PlaceBet(box=box, amount=10))
    for code in ("AS", "2D", "6D", "3C", "4H"):
        t.apply(card(code))
    t.apply(card("AS"))  # the hole card: a second ace of spades in one deck
    viewer = table_view(t)["alerts"]
    assert viewer and all("AS" not in a["message"] and "detail" not in a for a in viewer)
    supervisor = table_view(t, reveal_closed=True)["alerts"]
    assert "AS seen 2 times" in supervisor[0]["detail"]
