"""A club table in memory played by the virtual croupier's decisions, for the dealer's and the simulation's tests.

The croupier sees only the dealer key's view (``table_view(reveal_hole=False)``); the shoe is the
virtual shoe's deterministic shuffle of the table's own packs. Every action he sends must be
accepted by the engine: a refusal fails the test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from controller import events as ev
from controller.cards import parse_card
from controller.engine import Table
from controller.events import parse_event
from controller.rules import build_rules
from controller.view import table_view
from simulators.club_dealer import Move, club_move
from simulators.club_strategy import BLIND_PLAYERS, banker_rule_for
from simulators.shoe.deck import shuffled_shoe


@dataclass
class CroupierRun:
    """What a run of the croupier on an engine in memory did."""

    table: Table
    records: list[dict[str, Any]] = field(default_factory=list)
    views: list[dict[str, Any]] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    shuffles: int = 0


def run_croupier(profile: str, rounds: int, seed: int = 1, boxes: int = 3, options: dict[str, Any] | None = None,
                 keep_views: bool = False, move: Callable[..., Move] = club_move) -> CroupierRun:
    """Play ``rounds`` rounds of ``profile`` with stakes of the table minimum on boxes 1..``boxes``."""
    rules = build_rules(profile, options or {})
    table = Table(rules)
    run = CroupierRun(table)
    banker = banker_rule_for(rules)
    cards: list[str] = []

    def shuffle() -> None:
        run.shuffles += 1
        cards[:] = shuffled_shoe(seed, run.shuffles, rules.decks, rules.pack)
        table.apply(ev.Shuffle(shoe_id=f"T.{run.shuffles}", card_count=len(cards)))

    for _ in range(100_000):
        if table.rounds_played >= rounds and table.round is None:
            return run
        view = table_view(table, reveal_hole=False)
        if keep_views:
            run.views.append(view)
        if table.round is None and table.phase.value in ("betting", "settled") and not table.pending:
            for box in range(1, boxes + 1):
                table.apply(ev.PlaceBet(box=box, amount=rules.table_min))
            continue
        chosen = move(view, BLIND_PLAYERS, banker)
        run.moves.append(chosen)
        if chosen.kind == "shuffle":
            shuffle()
        elif chosen.kind == "deal":
            for effect in table.apply(ev.CardDrawn(card=parse_card(cards.pop(0)))):
                if type(effect).__name__ == "RoundSettled":
                    run.records.append(effect.result)  # type: ignore[attr-defined]
        elif chosen.kind == "act":
            event = parse_event(chosen.event)
            refused = table.refusal(event)
            assert refused is None, f"the croupier's {chosen.event} was refused: {refused}"
            for effect in table.apply(event):
                if type(effect).__name__ == "RoundSettled":
                    run.records.append(effect.result)  # type: ignore[attr-defined]
        else:
            raise AssertionError(f"the croupier waits in memory, in phase {table.phase.value}: {view['legal_actions']}")
    raise AssertionError("the croupier did not finish its rounds")
