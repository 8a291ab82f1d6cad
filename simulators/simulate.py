"""Many rounds through the authoritative engine, with a virtual shoe and basic-strategy players.

The simulation drives `controller.engine.Table` with the same events a real
table produces (shuffle, bets, cards, decisions), so the house edge it reports
is the edge of the engine's own settlement, not of a separate model.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Callable

from controller import events as ev
from controller.cards import ALL_CARDS, Card
from controller.effects import RoundSettled
from controller.engine import Phase, Table
from controller.legality import Action
from controller.rules import RuleProfile

from .strategy import strategy_for


@dataclass
class SimulationResult:
    """What `tablectl simulate --json` prints."""

    rounds: int
    house_edge_pct: float
    stderr_pct: float
    rounds_per_second: float
    hands: int

    def as_dict(self) -> dict[str, float | int]:
        """JSON-ready figures."""
        return {
            "rounds": self.rounds,
            "house_edge_pct": round(self.house_edge_pct, 4),
            "stderr_pct": round(self.stderr_pct, 4),
            "rounds_per_second": round(self.rounds_per_second, 1),
            "hands": self.hands,
        }


class VirtualShoe:
    """A shuffled shoe with a cut card placed where the rules say."""

    def __init__(self, rules: RuleProfile, rng: random.Random) -> None:
        self.rules = rules
        self.rng = rng
        self.cards: list[Card] = []
        self.next = 0
        self.cut_at = 0
        self.count = 0

    def shuffle(self) -> str:
        """Load a freshly shuffled shoe; returns its id."""
        rules = self.rules
        self.cards = list(ALL_CARDS) * rules.decks
        self.rng.shuffle(self.cards)
        size = len(self.cards)
        self.cut_at = self.rng.randint(int(rules.cut_card_min * size), int(rules.cut_card_max * size))
        self.next = 0
        self.count += 1
        return f"sim-{self.count}"


def simulate(
    rules: RuleProfile,
    rounds: int,
    seed: int,
    boxes: int = 1,
    unit: Decimal = Decimal(10),
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Play `rounds` rounds on `boxes` boxes, each betting `unit`, and measure the house edge."""
    rng = random.Random(seed)
    table = Table(rules)
    shoe = VirtualShoe(rules, rng)
    strategy = strategy_for(rules)
    decide = strategy.decide
    apply = table.apply
    bets = [ev.PlaceBet(box=b, amount=unit) for b in range(1, boxes + 1)]
    stand, double, split, surrender = ev.Stand(), ev.Double(), ev.Split(), ev.Surrender()
    close_insurance, cut_card = ev.CloseInsurance(), ev.CutCardOut()
    card_events = {card.code: ev.CardDrawn(card=card) for card in ALL_CARDS}  # the engine keeps no event
    stake = unit * boxes
    total = 0.0
    total_sq = 0.0
    hands = 0
    played = 0
    started = time.perf_counter()

    def draw() -> list:
        if shoe.next == shoe.cut_at and not rules.reshuffle_every_round:
            apply(cut_card)
            if table.phase is Phase.WAITING_FOR_SHUFFLE:  # out before the round began: shuffle first
                apply(ev.Shuffle(shoe_id=shoe.shuffle()))
        card = shoe.cards[shoe.next]
        shoe.next += 1
        return apply(card_events[card.code])

    while played < rounds:
        if table.phase is Phase.WAITING_FOR_SHUFFLE:
            apply(ev.Shuffle(shoe_id=shoe.shuffle()))
        for bet in bets:
            apply(bet)
        settled = None
        while settled is None:
            phase = table.phase
            if phase is Phase.PLAYERS or phase is Phase.SURRENDER:
                hand = table.round.hand  # type: ignore[union-attr]
                if len(hand.cards) < 2 or hand.doubled:
                    effects = draw()
                else:
                    legal = table.legal_actions()
                    action = decide(
                        [c.value for c in hand.cards],
                        table.round.dealer.cards[0].value,  # type: ignore[union-attr]
                        can_double=Action.DOUBLE in legal,
                        can_split=Action.SPLIT in legal,
                        can_surrender=Action.SURRENDER in legal,
                        hands_in_box=len(hand.box.hands),
                        is_split_hand=hand.from_split,
                    )
                    if action is Action.HIT:
                        if Action.HIT in legal:
                            effects = draw()
                        else:
                            effects = apply(stand)
                    elif action is Action.STAND:
                        effects = apply(stand)
                    elif action is Action.DOUBLE:
                        effects = apply(double)
                    elif action is Action.SPLIT:
                        effects = apply(split)
                    else:
                        effects = apply(surrender)
            elif phase is Phase.INSURANCE:
                effects = apply(close_insurance)  # basic strategy never insures
            else:
                effects = draw()
            for effect in effects:
                if type(effect) is RoundSettled:
                    settled = effect.round
        net = float(settled.net() / stake)
        hands += sum(len(box.hands) for box in settled.boxes)
        total += net
        total_sq += net * net
        played += 1
        if progress is not None and played % 10000 == 0:
            progress(played)
    elapsed = time.perf_counter() - started
    mean = total / played
    var = max(total_sq / played - mean * mean, 0.0)
    return SimulationResult(
        rounds=played,
        house_edge_pct=-100.0 * mean,
        stderr_pct=100.0 * math.sqrt(var / played),
        rounds_per_second=played / elapsed if elapsed > 0 else float("inf"),
        hands=hands,
    )
