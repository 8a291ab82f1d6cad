"""A fourth game is one folder and one registry line: shown here with a whole game of a few lines.

*High card*: each box with a bet and the dealer get one card, face up; the higher card (ace high)
wins even money, equal cards push. The game is written only against `controller.game.Game`
and the table's `TableOps`, its options are blackjack's with another ``game``, and registering it is
the one line `register(GameEntry(HighCard()))`. The table's own machinery (bets and their limits,
the shoe, held cards, snapshots, the journal and its replay) then plays it unchanged.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator, Literal

import pytest

from controller import events as ev
from controller.authority import TableAuthority, export_session
from controller.cards import Card, parse_card
from controller.effects import box_card, dealer_card
from controller.game import Dispatch, Game, ShoeFigure, TableOps
from games.blackjack import snapshot as round_snapshot
from controller.hand import Outcome
from controller.journal import JournalKey
from controller.legality import Action
from controller.phase import READY, Phase
from controller.replay import replay_lines
from controller.round import DEALER, Round, VoidReason
from controller.registry import GameEntry, registered
from controller.rules import load_rules
from games.blackjack.rules import RuleProfile
from controller.snapshot import check
from controller.view import table_view

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=timezone.utc)


class HighCardRules(RuleProfile):
    """Blackjack's options model with another game: the table's limits, boxes and shoe as they are."""

    game: Literal["high-card"] = "high-card"  # type: ignore[assignment]  # the one option that differs


class HighCard(Game[Round, HighCardRules]):
    """One card to each box and to the dealer; the higher card wins even money, equal cards push."""

    name = "high-card"
    rules_model = HighCardRules
    dealer_title = "Dealer"
    shoe_figures = frozenset({ShoeFigure.DEALT, ShoeFigure.LEFT})

    def events(self) -> Dispatch:
        return {}  # no decisions: the table's shared events are all it takes

    def place(self, t: TableOps, card: Card, e: ev.CardDrawn) -> None:
        if t.phase in READY and t.pending:
            boxes = t.take_pending()
            t.round = Round(t.rounds_played, t.shoe.shoe_id if t.shoe else None, boxes,
                            list(range(len(boxes))) + [DEALER], e.at)
            t.set_phase(Phase.DEALING)
        r = t.round
        if t.phase is not Phase.DEALING or r is None:
            t.hold(card, f"no card is expected now ({t.phase.value})", e.at)
            return
        target = r.plan[r.dealt]
        r.dealt += 1
        if target == DEALER:
            r.dealer.add(card)
            t.emit(dealer_card(card))
            for box in r.boxes:
                hand, theirs, ours = box.hands[0], _order(box.hands[0].cards[0]), _order(card)
                hand.settle(*((Outcome.WIN, hand.stake) if theirs > ours else
                              (Outcome.LOSE, -hand.stake) if theirs < ours else (Outcome.PUSH, 0)))
            t.finish_round(r)
        else:
            r.boxes[target].hands[0].add(card)
            t.emit(box_card(card, r.boxes[target].number, 0))

    def face_down_next(self, t: TableOps) -> str | None:
        return None  # every card face up

    def next_card(self, t: TableOps) -> str | None:
        r = t.round
        if r is None:
            return "first box" if t.phase in READY and t.pending else None
        return "dealer" if r.plan[r.dealt] == DEALER else f"box {r.boxes[r.plan[r.dealt]].number}"

    def hidden_cards(self, t: TableOps) -> list[Card]:
        return []

    def legal_actions(self, t: TableOps) -> list[Action]:
        return []

    def void(self, t: TableOps, reason: VoidReason = VoidReason.SUPERVISOR) -> None:
        r = self.in_play(t)
        r.voided, r.void_reason = True, reason
        for box in r.boxes:
            box.hands[0].settle(Outcome.VOID, 0)
        t.finish_round(r)

    def view(self, t: TableOps, reveal: bool) -> dict[str, Any]:
        r = t.round
        return {"boxes": [{"box": b.number, "cards": [c.code for c in b.hands[0].cards]} for b in r.boxes] if r else [],
                "dealer": {"cards": [c.code for c in r.dealer.cards] if r else []}, "turn": None,
                "legal_actions": [], "settled": t.previous.record if t.previous is not None else None}

    def dump_round(self, r: Round) -> dict[str, Any]:
        return round_snapshot.dump_round(r)  # the same round as blackjack's: the same layout

    def load_round(self, t: TableOps, data: Any) -> Round:
        return round_snapshot.load_round(check(round_snapshot.RoundState, data, "round"))


def _order(card: Card) -> int:
    """A card's order in high card: 2..10, then J, Q, K, A."""
    return "23456789TJQKA".index(card.code[0])


@pytest.fixture
def high_card() -> Iterator[HighCardRules]:
    with registered(GameEntry(HighCard())):  # the one registry line
        rules = load_rules("high-card", {"game": "high-card", "decks": 1, "burn_cards": 0, "table_min": 10})
        assert isinstance(rules, HighCardRules)
        yield rules


def _play(submit: Any) -> None:
    submit(ev.Shuffle(shoe_id="s1", at=T0))
    for box, amount in ((1, 10), (2, 20), (3, 30)):
        submit(ev.PlaceBet(box=box, amount=Decimal(amount), at=T0))
    for code in ("KS", "4H", "9D", "9C"):  # boxes K, 4, 9 against the dealer's 9
        submit(ev.CardDrawn(card=parse_card(code), at=T0))


def test_a_game_of_a_few_lines_plays_on_the_table(high_card: HighCardRules, tmp_path: Path) -> None:
    live = TableAuthority.open(tmp_path / "j.sqlite", JournalKey.generate(tmp_path / "k"), high_card, now=T0)
    _play(lambda e: live.submit(e, T0))
    t = live.table
    record = t.previous.record if t.previous is not None else None
    assert record is not None
    assert [(h["box"], h["outcome"], h["net"]) for h in record["hands"]] == [
        (1, "win", "10"), (2, "lose", "-20"), (3, "push", "0")]
    assert t.phase in READY and table_view(t)["rules"] == "high-card"
    # The table's own machinery plays it unchanged: a card nobody may take is held, a snapshot round-trips,
    # and the journal replays to the same table.
    live.submit(ev.CardDrawn(card=parse_card("2S"), at=T0), T0)
    assert t.phase is Phase.ATTENTION and [c.code for c in t.held] == ["2S"]
    assert type(t).from_snapshot(t.snapshot()).snapshot() == t.snapshot()
    replayed = replay_lines([json.dumps(row) for row in export_session(live.journal)])
    assert replayed.error is None and replayed.table.snapshot() == t.snapshot()
    live.journal.close()


def test_without_its_registry_line_the_game_is_not_a_game() -> None:
    from controller.rules import RuleError

    with pytest.raises(RuleError, match="'high-card' is not a game"):
        load_rules("high-card", {"game": "high-card"})
