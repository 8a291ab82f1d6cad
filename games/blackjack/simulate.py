"""Many rounds through the authoritative engine, with a virtual shoe and basic-strategy players.

The simulation drives `controller.engine.Table.apply` with the same events a real table
produces (shuffle, bets, cards, decisions), so the house edge it reports is the edge of
the engine's own settlement, not of a separate model.

The rounds are played in chunks of a fixed size, each on its own table and shoe seeded
from (seed, chunk number), and the chunks' sums are added in chunk order: the result for
a seed is the same whether one process plays every chunk or several share them
(``workers``).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Callable

from controller import events as ev
from controller.cards import ALL_CARDS
from controller.effects import Effect
from controller.engine import Phase, Table
from controller.legality import Action
from controller.money import to_cents
from simulators.simulation import ShuffledAsDealt, play_chunks
from simulators.strategy import strategy_for

from .events import CloseInsurance
from .rules import RuleProfile

CHUNK_ROUNDS = 50_000  # rounds per chunk: the unit of work a process takes and of the seeds


@dataclass
class SimulationResult:
    """What `tablectl simulate --json` prints."""

    rounds: int
    house_edge_pct: float
    stderr_pct: float
    rounds_per_second: float
    hands: int
    workers: int = 1

    def as_dict(self) -> dict[str, float | int]:
        """JSON-ready figures."""
        return {
            "rounds": self.rounds,
            "house_edge_pct": round(self.house_edge_pct, 4),
            "stderr_pct": round(self.stderr_pct, 4),
            "rounds_per_second": round(self.rounds_per_second, 1),
            "hands": self.hands,
            "workers": self.workers,
        }


@dataclass
class ChunkResult:
    """The sums of one chunk of rounds, to be added up in chunk order."""

    rounds: int
    total: float  # sum over rounds of the players' net per unit staked
    total_sq: float
    hands: int


class VirtualShoe(ShuffledAsDealt):
    """A blackjack shoe (``decks`` packs of 52) with a cut card placed where the rules say, shuffled as it is dealt."""

    def __init__(self, rules: RuleProfile, rng: random.Random) -> None:
        super().__init__(list(ALL_CARDS) * rules.decks, rng)
        self.rules = rules
        self.cut_at = 0
        self.count = 0

    def shuffle(self) -> str:
        """Gather every card back into the shoe and place the cut card; returns the shoe's id."""
        size = len(self.cards)
        self.cut_at = self.rng.randint(int(self.rules.cut_card_min * size), int(self.rules.cut_card_max * size))
        self.next = 0
        self.count += 1
        return f"sim-{self.count}"


def play_chunk(rules: RuleProfile, rounds: int, seed: str, boxes: int = 1, unit: Decimal = Decimal(10),
               record: Callable[[ev.Event], None] | None = None) -> ChunkResult:
    """Play `rounds` rounds on a fresh table and shoe seeded by `seed`; `record` sees every event applied."""
    rng = random.Random(seed)
    # No protection watch: the simulated shoe is fair by construction.
    table = Table(rules, shoes_watched=0)
    shoe = VirtualShoe(rules, rng)
    deal = shoe.draw
    decide = strategy_for(rules).decide
    apply: Callable[[ev.Event], list[Effect]] = table.apply
    if record is not None:
        note = record

        def recorded(event: ev.Event) -> list[Effect]:
            effects = table.apply(event)
            note(event)
            return effects
        apply = recorded
    bets = [ev.PlaceBet(box=b, amount=unit) for b in range(1, boxes + 1)]
    stand, double, split, surrender = ev.Stand(), ev.Double(), ev.Split(), ev.Surrender()
    close_insurance, cut_card = CloseInsurance(), ev.CutCardOut()
    card_events = [ev.CardDrawn(card=card) for card in ALL_CARDS]  # the engine keeps no event
    cut_cards = not rules.reshuffle_every_round
    stake = to_cents(unit) * boxes  # type: ignore[operator]  # the unit is whole cents (to_cents: None for a fraction)
    waiting, players, surrender_phase, insurance = (Phase.WAITING_FOR_SHUFFLE, Phase.PLAYERS, Phase.SURRENDER,
                                                    Phase.INSURANCE)
    HIT, DOUBLE, SPLIT, SURRENDER, STAND = Action.HIT, Action.DOUBLE, Action.SPLIT, Action.SURRENDER, Action.STAND
    total = total_sq = 0.0
    hands = played = 0

    def draw() -> None:
        if shoe.next == shoe.cut_at and cut_cards:
            apply(cut_card)
            if table.phase is waiting:  # out with no bets down: shuffle first
                apply(ev.Shuffle(shoe_id=shoe.shuffle()))
        apply(card_events[deal().index])

    while played < rounds:
        if table.phase is waiting:
            apply(ev.Shuffle(shoe_id=shoe.shuffle()))
        for bet in bets:
            apply(bet)
        number = table.rounds_played + 1
        while True:
            phase = table.phase
            if phase is players or phase is surrender_phase:
                r = table.round
                hand = r.hand  # type: ignore[union-attr]  # a round is in play in these phases
                held = hand.cards
                if len(held) < 2 or hand.doubled:
                    draw()
                else:
                    legal = table.legal_actions()
                    action = decide(
                        [c.value for c in held],
                        r.dealer.cards[0].value,  # type: ignore[union-attr]  # a round is in play
                        can_double=DOUBLE in legal,
                        can_split=SPLIT in legal,
                        can_surrender=SURRENDER in legal,
                        hands_in_box=len(hand.box.hands),  # type: ignore[union-attr]  # a player's hand has a box
                        is_split_hand=hand.from_split,
                    )
                    if action is HIT:
                        if HIT in legal:
                            draw()
                        else:
                            apply(stand)
                    elif action is STAND:
                        apply(stand)
                    elif action is DOUBLE:
                        apply(double)
                    elif action is SPLIT:
                        apply(split)
                    else:
                        apply(surrender)
            elif phase is insurance:
                apply(close_insurance)  # basic strategy never insures
            else:
                draw()
            if table.round is None and table.rounds_played == number:
                break
        settled = table.previous
        assert settled is not None and settled.number == number
        net = settled.net() / stake
        hands += sum(len(box.hands) for box in settled.boxes)
        total += net
        total_sq += net * net
        played += 1
    return ChunkResult(played, total, total_sq, hands)


def _chunk_job(job: tuple[RuleProfile, int, str, int, Decimal]) -> ChunkResult:
    rules, rounds, seed, boxes, unit = job
    return play_chunk(rules, rounds, seed, boxes, unit)


def chunk_seed(seed: int, index: int) -> str:
    """The seed of chunk `index` of a simulation seeded `seed` (a string: the same in every process)."""
    return f"tablectl-simulate:{seed}:{index}"


def simulate(
    rules: RuleProfile,
    rounds: int,
    seed: int,
    boxes: int = 1,
    unit: Decimal = Decimal(10),
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    chunk_rounds: int = CHUNK_ROUNDS,
) -> SimulationResult:
    """Play `rounds` rounds on `boxes` boxes, each betting `unit`, and measure the house edge.

    ``workers`` processes share the chunks; the result for a seed does not depend on it.
    ``progress`` is called with the rounds done so far after each chunk.
    """
    sizes = [min(chunk_rounds, rounds - start) for start in range(0, rounds, chunk_rounds)]
    jobs = [(rules, size, chunk_seed(seed, i), boxes, unit) for i, size in enumerate(sizes)]
    workers = max(1, min(workers, len(jobs)))
    strategy_for(rules)  # built once here; forked workers inherit it
    started = time.perf_counter()
    chunks = play_chunks(_chunk_job, jobs, workers, progress)
    elapsed = time.perf_counter() - started
    played = sum(c.rounds for c in chunks)
    total = math.fsum(c.total for c in chunks)
    total_sq = math.fsum(c.total_sq for c in chunks)
    mean = total / played
    var = max(total_sq / played - mean * mean, 0.0)
    return SimulationResult(
        rounds=played,
        house_edge_pct=-100.0 * mean,
        stderr_pct=100.0 * math.sqrt(var / played),
        rounds_per_second=played / elapsed if elapsed > 0 else float("inf"),
        hands=sum(c.hands for c in chunks),
        workers=workers,
    )
