"""The club games' closed cards through the authority: every ledger row holding one is masked for every role
below supervisor until its card is turned; a settled round keeps no secret; a replayed journal agrees."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from controller import events as ev
from games.club.events import BankerStand
from games.club_21_36.events import OpenBank
from controller.authority import TableAuthority, export_shoe
from controller.cards import parse_card
from controller.journal import JournalKey
from controller.rules import build_rules

# Fixed fixture times beside the journal and the table: they must hold at any wall-clock date.
pytestmark = pytest.mark.usefixtures("any_date")

T0 = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)


def _submit(a: TableAuthority, *events: ev.Event) -> list[int]:
    return [a.submit(e, T0)[0] for e in events]


def _card(code: str) -> ev.CardDrawn:
    return ev.CardDrawn(card=parse_card(code))


def test_closed_cards_are_secret_rows_until_turned(tmp_path):
    key = JournalKey.generate(tmp_path / "k")
    a = TableAuthority.open(tmp_path / "j.sqlite", key, build_rules("club-21"), now=T0)
    _submit(a, ev.Shuffle(shoe_id="S1"), ev.PlaceBet(box=1, amount=10), ev.PlaceBet(box=2, amount=10))
    bottom, = _submit(a, _card("7H"))  # the bottom card is face up: never a secret
    deal = _submit(a, *(_card(c) for c in ("TS", "AS", "2D", "8C", "KH", "3D")))  # box 2: A-K, a natural
    box1, _box2, banker = [deal[0], deal[3]], [deal[1], deal[4]], [deal[2], deal[5]]
    assert bottom not in a.closed_rows
    assert a.closed_rows == set(box1) | set(banker)  # box 2's natural was shown and paid at once
    _submit(a, ev.Stand())  # box 2 is settled, so the banker's turn: his cards are turned
    assert a.closed_rows == set(box1)
    shoe = export_shoe(a.journal, shoe_id="S1", masked=a.closed_rows)
    assert [row.get("card") for row in shoe if row["type"] == "card"] == ["7H", "XX", "AS", "2D", "XX", "KH", "3D"]
    draw, = _submit(a, _card("4C"))  # the banker draws face up
    assert draw not in a.closed_rows
    _submit(a, BankerStand())
    assert a.closed_rows == set()  # settled: every card shown
    reopened = TableAuthority.open(tmp_path / "j.sqlite", key, build_rules("club-21"), now=T0)
    assert reopened.closed_rows == set() and reopened.table.snapshot() == a.table.snapshot()


def test_a_replayed_journal_masks_the_same_rows(tmp_path):
    key = JournalKey.generate(tmp_path / "k")
    a = TableAuthority.open(tmp_path / "j.sqlite", key, build_rules("club-21"), now=T0)
    _submit(a, ev.Shuffle(shoe_id="S1"), ev.PlaceBet(box=1, amount=10), _card("7H"),
            *(_card(c) for c in ("TS", "2D", "8C", "3D")))
    masked = set(a.closed_rows)
    assert len(masked) == 4
    a.journal.close()
    b = TableAuthority.open(tmp_path / "j.sqlite", key, build_rules("club-21"), now=T0)
    assert b.closed_rows == masked


def test_a_club_journal_exports_a_session_that_replays_to_the_same_rounds(tmp_path):
    """`tablectl journal export` of a club journal replays: the same rounds, the same table."""
    import json

    from controller.authority import export_session
    from controller.replay import replay_lines
    key = JournalKey.generate(tmp_path / "k")
    a = TableAuthority.open(tmp_path / "j.sqlite", key, build_rules("club-21", {"pairs": True}), now=T0)
    _submit(a, ev.Shuffle(shoe_id="S1"), ev.PlaceBet(box=1, amount=10), ev.PlaceBet(box=2, amount=20), _card("7H"),
            *(_card(c) for c in ("8S", "9H", "2D", "8H", "9C", "3D")), ev.Split(), _card("KC"), ev.Stand(),
            _card("2C"), ev.Stand(), ev.Stand(), _card("TC"), BankerStand())
    lines = [json.dumps(row) for row in export_session(a.journal)]
    replayed = replay_lines(lines)
    assert replayed.error is None and replayed.table.snapshot() == a.table.snapshot()
    assert [r["number"] for r in replayed.rounds] == [1] and a.table.last_round == replayed.rounds[0]


def test_a_kept_card_carried_into_the_next_round_stays_closed(tmp_path):
    """rules.md, club-21-36: the banker keeps his unused card for the next duel, in the next round too: its row
    stays masked past the settlement (and in a table restored from the snapshot taken there) until he turns it;
    a shuffle between rounds gathers it into the new pack, turned face up, and its row is final again."""
    key = JournalKey.generate(tmp_path / "k")
    a = TableAuthority.open(tmp_path / "j.sqlite", key, build_rules("club-21-36"), snapshot_every_rounds=1, now=T0)
    _submit(a, ev.Shuffle(shoe_id="S1"), OpenBank(amount=1000), ev.PlaceBet(box=1, amount=10))
    _box, kept = _submit(a, _card("9S"), _card("7D"))
    _submit(a, _card("6C"), _card("TS"), _card("9D"))  # the bottom; box 1 passes 21: the banker keeps 7D
    assert a.table.round is None and a.closed_rows == {kept}
    a.journal.close()
    b = TableAuthority.open(tmp_path / "j.sqlite", key, build_rules("club-21-36"), now=T0)
    assert b.journal.latest_snapshot() is not None and b.closed_rows == {kept}  # restored from the snapshot
    _, box_card, _ = _submit(b, ev.PlaceBet(box=1, amount=10), _card("8H"), ev.Stand())  # he turns his kept card
    assert b.closed_rows == {box_card}
    b.journal.close()
    c = TableAuthority.open(tmp_path / "j.sqlite", key, build_rules("club-21-36"), now=T0)
    _submit(c, _card("KS"), _card("6S"))  # 7-4-6 = 17 against 8: settled
    _, _, kept, _, _ = _submit(c, ev.PlaceBet(box=1, amount=10), _card("TH"), _card("7C"), _card("9H"), _card("8S"))
    assert c.table.round is None and c.closed_rows == {kept}  # kept again, past round 3
    _submit(c, ev.Shuffle(shoe_id="S2"))
    assert c.closed_rows == set()
