"""An integrity alert never names a card that lies face down (issue 21).

A duplicate card dealt face up names its code in the alert ("KD seen 2 times"); when its twin lies
face down (the hole card, a club game's closed card), that text tells a viewer what the face-down
card is. The alert's text must then not name the card; the supervisor's detail still does.
"""

from __future__ import annotations

from datetime import datetime, timezone

from controller import events as ev
from controller.alerts import AlertKind
from controller.cards import parse_card
from controller.engine import Table
from controller.rules import build_rules

T0 = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)


def _apply(t: Table, *events: ev.Event) -> None:
    for e in events:
        e.at = T0
        t.apply(e)


def _cards(t: Table, *codes: str) -> None:
    _apply(t, *(ev.CardDrawn(card=parse_card(c)) for c in codes))


def _integrity(t: Table) -> list[dict[str, object]]:
    return [a.as_dict() for a in t.open_alerts() if a.kind is AlertKind.INTEGRITY]


def test_a_face_up_twin_of_the_hole_card_does_not_name_it():
    t = Table(build_rules("us-holecard", {"decks": 1}))
    _apply(t, ev.Shuffle(shoe_id="S1"), ev.PlaceBet(box=1, amount=10))
    _cards(t, "2H", "9C", "3D", "KD")  # box, dealer up, box, the hole card KD
    assert t.dealer_card_closed
    _cards(t, "KD")  # the box hits and draws a second KD, face up, from a one-deck shoe
    assert t.dealer_card_closed and t.round is not None
    (alert,) = _integrity(t)
    assert "KD" not in str(alert["message"]), alert
    (full,) = [a.as_dict(reveal=True) for a in t.open_alerts() if a.kind is AlertKind.INTEGRITY]
    assert "KD" in str(full["detail"])  # the supervisor sees which card


def test_a_club_banker_card_twin_of_a_closed_box_card_does_not_name_it():
    """club-21 with one pack, a 104-card load acknowledged: the banker draws face up a twin of box 1's closed KD."""
    t = Table(build_rules("club-21", {"decks": 1}))
    _apply(t, ev.Shuffle(shoe_id="S1", card_count=104))
    (load,) = _integrity(t)
    _apply(t, ev.AcknowledgeAlert(alert_id=int(str(load["id"])), actor="supervisor:pit"))
    _cards(t, "7H")  # the bottom card, face up
    _apply(t, ev.PlaceBet(box=1, amount=10))
    _cards(t, "KD", "5C", "6S", "4D")  # box 1 KD closed, banker, box 1, banker
    _apply(t, ev.Stand())  # the banker's turn: his cards are turned, box 1's stay closed
    assert parse_card("KD") in t.game.hidden_cards(t)
    _cards(t, "KD")  # the banker draws face up
    assert parse_card("KD") in t.game.hidden_cards(t)
    (alert,) = _integrity(t)
    assert "KD" not in str(alert["message"]), alert
    assert alert["message"]  # it still says what is wrong, without the card


def test_a_duplicate_while_no_card_is_face_down_still_names_the_card():
    t = Table(build_rules("ru-standard", {"decks": 1}))  # no hole card: the dealer's second card comes face up
    _apply(t, ev.Shuffle(shoe_id="S1"), ev.PlaceBet(box=1, amount=10))
    _cards(t, "2H", "9C", "3D", "2H")  # the box's twin of its own face-up 2H
    assert not t.game.hidden_cards(t)
    (alert,) = _integrity(t)
    assert "2H seen 2 times" in str(alert["message"])


def _after(*codes: str) -> Table:
    """A one-deck us-holecard round, box 1: ``codes`` dealt in order (box, dealer up, box, hole, then hits)."""
    t = Table(build_rules("us-holecard", {"decks": 1}))
    _apply(t, ev.Shuffle(shoe_id="S1"), ev.PlaceBet(box=1, amount=10))
    _cards(t, *codes)
    assert t.dealer_card_closed
    return t


def _seen_below_supervisor(t: Table) -> list[dict[str, object]]:
    """The integrity alerts as a viewer's answers carry them, and their size in bytes."""
    from controller.view import table_view
    import json

    alerts = [a for a in table_view(t, reveal_closed=False)["alerts"] if a["kind"] == "integrity"]
    return [{**a, "bytes": len(json.dumps(a))} for a in alerts]


def test_a_twin_of_the_hole_card_looks_the_same_below_supervisor_as_any_other_impossible_card():
    """Issue 37: the wording for a face-up twin of the closed card was used only for that case, so a viewer who saw
    it knew the hole card was the card just dealt. While a card lies face down every impossible card gets the one
    wording, level, kind, count and size; only the supervisor's detail says which card it was."""
    hole_twin = _after("2H", "9C", "3D", "KD", "KD")  # the box's hit is a twin of the hole card KD
    open_twin = _after("2H", "9C", "3D", "KD", "2H")  # the box's hit is a twin of its own face-up 2H
    hole_itself = _after("2H", "9C", "3D", "2H")  # the hole card itself is the twin of the box's 2H
    seen = [_seen_below_supervisor(t) for t in (hole_twin, open_twin, hole_itself)]
    assert seen[0] == seen[1] == seen[2] and len(seen[0]) == 1
    assert "KD" not in str(seen[0]) and "2H" not in str(seen[0])
    details = [[a.as_dict(reveal=True)["detail"] for a in t.open_alerts() if a.kind is AlertKind.INTEGRITY]
               for t in (hole_twin, open_twin, hole_itself)]
    assert details == [["KD seen 2 times in shoe S1, but 1 deck(s) hold only 1"],
                       ["2H seen 2 times in shoe S1, but 1 deck(s) hold only 1"],
                       ["2H seen 2 times in shoe S1, but 1 deck(s) hold only 1"]]
