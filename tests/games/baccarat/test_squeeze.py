"""The squeeze: the shoe has read the cards, so the coup is decided before anyone has seen them; below supervisor
nothing tells the result before the dealer marks the cards turned.

Tested as the hole card is: every path out of the table below supervisor (the view, the stream's effects with
their cards masked, the journal's head MAC, the export, the alerts, the settlement's timing) is compared between
coups that differ only in what lies face down: one decided on its first four cards, one that calls for a third
card, one a tie. What a viewer gets must be the same for all of them, byte for byte; the supervisor's view is
the control that the coups do differ.
"""

from __future__ import annotations

import json
from decimal import Decimal
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from controller import events as ev
from controller.authority import TableAuthority
from controller.cards import parse_card
from controller.closed import mask_effects
from controller.effects import RoundSettled
from controller.engine import Phase
from controller.journal import JournalKey
from controller.rules import build_rules
from controller.view import head_view, table_view
from games.baccarat.events import Reveal
from tests.support.club import holds

from tests.games.baccarat.support import T0, bet, table

# Four cards each, then a fifth: A is decided on four (the Player's natural 9: the fifth card is due to no hand),
# B calls for the Player's third card (5 against 2), C is a tie on four (6 against 6, no third card).
COUPS = {"natural": "4S 2H 5S KD 7C", "draws": "2S 2H 3S KD 7C", "tie": "3S 2H 3H 4D 7C"}


def _dump(fx: list[Any]) -> list[dict[str, Any]]:
    return [{"effect": type(f).__name__, **_plain(asdict(f))} for f in fx if not isinstance(f, RoundSettled)]


def _plain(d: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(d, default=str))


def _viewer(view: dict[str, Any]) -> str:
    return json.dumps(view, sort_keys=True)


def _play(tmp: Path, name: str, n: int) -> tuple[TableAuthority, list[str], list[dict[str, Any]]]:
    live = TableAuthority.open(tmp / f"{name}.sqlite", JournalKey.generate(tmp / f"{name}.key"),
                               build_rules("ez-baccarat", {"squeeze": True, "burn": "none"}), now=T0)
    live.submit(ev.Shuffle(shoe_id="s1", at=T0), T0)
    for box, spot, amount in ((1, "banker", 25), (2, "player", 25), (3, "dragon7", 5), (3, "tie", 5)):
        live.submit(ev.PlaceBet(box=box, amount=Decimal(amount), spot=spot, at=T0), T0)
    codes = COUPS[name].split()[:n]
    stream: list[dict[str, Any]] = []
    for code in codes:
        _, fx = live.submit(ev.CardDrawn(card=parse_card(code), at=T0), T0)
        stream += mask_effects(_dump(fx))
    return live, codes, stream


@pytest.mark.parametrize("n", [4, 5])
def test_a_viewer_cannot_tell_the_coups_apart_before_the_turn(tmp_path: Path, n: int) -> None:
    seen: dict[str, tuple[str, str, dict[str, Any], str]] = {}
    for name in COUPS:
        live, codes, stream = _play(tmp_path, name, n)
        t = live.table
        assert t.phase is Phase.DEALING and t.previous is None  # nothing settled before the turn
        view = table_view(t)
        alerts = json.dumps([a.as_dict(False) for a in t.alerts])
        head = head_view(live.journal.head(), live.closed_rows)
        assert head["mac"] is None  # every MAC from the first face-down card on is withheld
        text = _viewer(view) + json.dumps(stream) + alerts
        for code in codes:
            assert not holds(text, code), f"{name}: {code} shows below supervisor"
        seen[name] = (_viewer(view), json.dumps(stream), head, alerts)
        # The control: the supervisor's view holds the cards.
        assert all(holds(_viewer(table_view(t, reveal_closed=True)), c) for c in codes)
        live.journal.close()
    assert len({json.dumps(v) for v in seen.values()}) == 1, "the coups differ below supervisor"


def test_the_coup_settles_only_when_the_cards_are_turned() -> None:
    t = table("ez-baccarat", squeeze=True)
    bet(t, 1, "banker", 25)
    for code in "4S 2H 5S KD".split():  # the Player's natural: decided
        fx = t.apply(ev.CardDrawn(card=parse_card(code), at=T0))
        assert not any(isinstance(f, RoundSettled) for f in fx)
    assert table_view(t)["legal_actions"] == ["reveal"] and table_view(t)["next_card"] == "the coup"
    assert table_view(t)["decided"] is None
    fx = t.apply(Reveal(at=T0))
    assert any(isinstance(f, RoundSettled) for f in fx)
    assert t.previous is not None and t.previous.record["result"] == "player"


def test_a_card_no_hand_was_due_is_held_at_the_turn_and_the_coup_stands() -> None:
    t = table("ez-baccarat", squeeze=True)
    bet(t, 1, "player", 25)
    for code in COUPS["natural"].split():
        t.apply(ev.CardDrawn(card=parse_card(code), at=T0))
    assert t.phase is Phase.DEALING and not t.held
    t.apply(Reveal(at=T0))
    assert [c.code for c in t.held] == ["7C"] and t.phase is Phase.ATTENTION
    assert t.previous.record["hands"][0]["net"] == "25"
    assert t.previous.record["player_hand"]["cards"] == ["4S", "5S"]


def test_a_waiting_card_goes_to_the_hand_the_tableau_calls_for_at_the_turn() -> None:
    t = table("ez-baccarat", squeeze=True)
    bet(t, 1, "player", 25)
    for code in COUPS["draws"].split():
        t.apply(ev.CardDrawn(card=parse_card(code), at=T0))
    t.apply(Reveal(at=T0))
    # The Player's 5 drew the 7C (2); the Banker's 2 draws: the coup waits for the next card, face down again.
    assert t.round is not None and t.round.punto.cards[-1].code == "7C" and table_view(t)["next_card"] == "banker"
    t.apply(ev.CardDrawn(card=parse_card("6D"), at=T0))
    assert t.round is not None and table_view(t)["banker_hand"]["cards"] == ["2H", "KD", "XX"]
    t.apply(Reveal(at=T0))
    assert t.previous.record["result"] == "banker"  # Banker 2 + 6 = 8 against the Player's 2


def test_the_reveal_is_refused_with_nothing_face_down() -> None:
    t = table("ez-baccarat")
    bet(t, 1, "player", 25)
    t.apply(ev.CardDrawn(card=parse_card("4S"), at=T0))
    refusal = t.refusal(Reveal(at=T0))
    assert refusal is not None and refusal.code == "nothing_face_down"
