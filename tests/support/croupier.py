"""A club table in memory played by the virtual croupier's decisions, for the dealer's and the simulation's tests.

The croupier sees only the dealer key's view (``table_view(reveal_closed=False)``); the shoe is the
virtual shoe's own core (`simulators.shoe.core.ShoeCore`) loaded with the table's packs, and a
pack shuffled in during a round leaves out what the croupier says is on the table. Every action
he sends must be accepted by the engine: a refusal fails the test.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable

from controller import events as ev
from controller.cards import parse_card
from controller.engine import Table
from controller.event_codec import parse_event
from controller.rules import build_rules
from controller.view import table_view
from games.club.dealer import CardsOnTable, Move, club_move, pack_spent_in_round
from simulators.club_strategy import BLIND_PLAYERS, banker_rule_for
from simulators.shoe.core import Released, ShoeConfig, ShoeCore


@dataclass
class CroupierRun:
    """What a run of the croupier on an engine in memory did."""

    table: Table
    records: list[dict[str, Any]] = field(default_factory=list)
    views: list[dict[str, Any]] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    shuffles: int = 0
    card_counts: list[int] = field(default_factory=list)


def _stake(view: dict[str, Any], minimum: Decimal) -> Decimal:
    bank = view.get("bank")
    if bank is None:
        return minimum
    return min(minimum, Decimal(bank["balance"]))  # va-banque when the bank holds less than the minimum


def run_croupier(profile: str, rounds: int, seed: int = 1, boxes: int = 3, options: dict[str, Any] | None = None,
                 keep_views: bool = False, move: Callable[..., Move] = club_move) -> CroupierRun:
    """Play ``rounds`` rounds of ``profile`` with stakes of the table minimum on boxes 1..``boxes``."""
    rules = build_rules(profile, options or {})
    table = Table(rules)
    run = CroupierRun(table)
    banker = banker_rule_for(rules)
    shoe = ShoeCore(ShoeConfig(seed=seed, decks=rules.decks, pack=rules.pack), random.Random(seed), 0.0)
    on_table = CardsOnTable()

    def settled(effects: list[Any]) -> None:
        for effect in effects:
            if type(effect).__name__ == "RoundSettled":
                run.records.append(effect.result)

    for _ in range(200_000):
        if table.rounds_played >= rounds and table.round is None:
            return run
        view = table_view(table, reveal_closed=False)
        if keep_views:
            run.views.append(view)
        bank = view.get("bank")
        if (table.round is None and table.phase.value in ("betting", "settled") and not table.pending
                and (bank is None or bank["open"]) and move(view, BLIND_PLAYERS, banker).kind in ("deal", "wait")):
            for box in range(1, boxes + 1):
                stake = _stake(table_view(table, reveal_closed=False), rules.table_min)
                if stake > 0:
                    table.apply(ev.PlaceBet(box=box, amount=stake))
            continue
        chosen = move(view, BLIND_PLAYERS, banker)
        run.moves.append(chosen)
        if chosen.kind == "shuffle":
            keep = on_table.on_table(view) if pack_spent_in_round(view) else []
            shoe.load(f"T.{run.shuffles + 1}", keep=keep)
            run.shuffles += 1
            run.card_counts.append(len(shoe.cards))
            settled(table.apply(ev.Shuffle(shoe_id=shoe.shoe_id, card_count=len(shoe.cards))))
        elif chosen.kind == "deal":
            target = on_table.target(view)
            released = shoe.deal()
            assert isinstance(released, Released), f"the shoe refused a card: {released}"
            on_table.note(view, target, released.shoe_id, released.position)
            settled(table.apply(ev.CardDrawn(card=parse_card(released.card))))
        elif chosen.kind in ("act", "supervise"):
            event = parse_event(chosen.event)
            refused = table.refusal(event)
            assert refused is None, f"the croupier's {chosen.event} was refused: {refused}"
            settled(table.apply(event))
        else:
            raise AssertionError(f"the croupier waits in memory, in phase {table.phase.value}: {view['legal_actions']}")
    raise AssertionError("the croupier did not finish its rounds")
