"""Helpers for baccarat's tests: a table of a profile, bets, cards, the journal's replay."""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

from controller import events as ev
from controller.cards import parse_card
from controller.effects import Effect
from controller.engine import Table
from controller.rules import build_rules

T0 = datetime(2026, 3, 1, 20, 0, tzinfo=timezone.utc)


def table(profile: str = "punto-banco", **options: Any) -> Table:
    """A baccarat table with a new shoe in (no burn unless asked), ready for bets."""
    t = Table(build_rules(profile, {"burn": "none", **options}))
    assert t.apply(ev.Shuffle(shoe_id="s1", at=T0)) is not None
    return t


def bet(t: Table, box: int, spot: str, amount: int, player: str | None = None) -> None:
    """A bet that must be taken."""
    e = ev.PlaceBet(box=box, amount=Decimal(amount), spot=spot, player=player, at=T0)
    refusal = t.refusal(e)
    assert refusal is None, refusal
    t.apply(e)


def deal(t: Table, codes: str) -> list[Effect]:
    """Cards read from the shoe, in order; every effect."""
    fx: list[Effect] = []
    for code in codes.split():
        fx += t.apply(ev.CardDrawn(card=parse_card(code), at=T0))
    return fx


def nets(t: Table) -> list[tuple[int, str, str, str]]:
    """The last settled coup's bets: (box, spot, outcome, net)."""
    assert t.previous is not None
    return [(h["box"], h["spot"], h["outcome"], h["net"]) for h in t.previous.record["hands"]]
