"""The exact edge of the next round on the live table, for surveillance (issue 27, part 2).

After each round settles, and when a new shoe comes in, the cards left in the shoe go to a worker
process that runs the exact analyser (`simulators.exact.analyse`, the table's basic strategy, resplits
valued exactly; under 0.1 s of CPU for a 6-deck shoe once its hands are built, docs/house-edge.md). The service never waits for it: `EdgeWorker.handle` is an
output (called after the commit, in the writer's loop) that only copies the counts and submits them;
the answer lands in `latest` from the worker's owner thread. A card's latency does not move
(`benchmarks/latency.py --edge`). The worker is one plain child process (`tablectl.child_worker`): only the
newest cards wait for it, and it ends with the service, whatever ends the service (issue 36).

A game has an exact edge when its folder gives one (its registry part ``edge``: blackjack's exact
analyser); at another game's table the worker does nothing. The figure goes to
surveillance only: the supervisor's `GET /api/edge` and the fleet's surveillance feed, beside the Hi-Lo
count; never the table's view, so the pit's screens and the dealer do not show it.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from controller.cards import rank_value
from controller.engine import Table
from controller.protection.shoes import count_of_remaining

from .child_worker import ChildWorker
from .parts import has_edge

log = logging.getLogger(__name__)

# Hi-Lo's rule of thumb the research we have fits to the exact edge (player's side, per cent of the bet):
# -0.36 % + 0.57 % per true count (residual sd 0.39 %); printed beside the exact figure for comparison.
HI_LO_BASE, HI_LO_SLOPE = -0.36, 0.57


def counts_by_value(remaining_by_rank: dict[str, int]) -> list[int]:
    """The analyser's composition (aces first, tens last) from the cards left by rank."""
    counts = [0] * 10
    for rank, n in remaining_by_rank.items():
        counts[rank_value(rank) - 1] += n
    return counts


# The live figure values the table's own basic strategy (the analyser also offers optimal play, "cdp1" and
# "cdz-": a skilled player's ceiling, not what the table's players are taken to play).
PLAY = "basic"


def _player_edge(job: dict[str, Any]) -> float:
    """In the worker process: the player's expectation of the next round, per unit of initial bet.

    ``job`` is plain data: the rules as a journal records them (the profile's name and every option) and the
    composition; the rules are validated again here, as any rules read from outside are."""
    from controller.rules import load_rules

    from .parts import edge_part

    rules = load_rules(job["profile"], job["options"])
    return edge_part(rules.game).player_edge(rules, job["counts"], PLAY)


def worker_main() -> int:
    """The worker process (`tablectl.child_worker`): each request's exact edge, until the service is gone."""
    from .child_worker import serve

    return serve(_player_edge)


class EdgeWorker:
    """Computes the next round's exact edge off the writer's path; `latest` is the newest answer."""

    def __init__(self) -> None:
        # The worker process is started with the first round: a table that deals none pays nothing.
        self._worker: ChildWorker[dict[str, Any]] = ChildWorker("tablectl.edge:worker_main", "exact-edge",
                                                               self._answered, self._failed)
        self._lock = threading.Lock()
        self._asked: tuple[str, int] | None = None  # (shoe, cards dealt) last submitted
        self._latest: dict[str, Any] | None = None
        self.failures = 0

    @property
    def latest(self) -> dict[str, Any] | None:
        """The newest exact edge: shoe, round it precedes, cards left, exact and Hi-Lo figures (None yet)."""
        with self._lock:
            return None if self._latest is None else dict(self._latest)

    def handle(self, effects: list[Any], table: Table) -> None:
        """Output hook: between rounds, submit the cards left when they changed since the last submission."""
        shoe = table.shoe
        if not has_edge(table.rules.game) or shoe is None or table.round is not None or table.held:
            return
        asked = (shoe.shoe_id, shoe.dealt + shoe.burned)
        if asked == self._asked:
            return
        self._asked = asked
        remaining = shoe.remaining_by_rank()
        counts = counts_by_value(remaining)
        running, true = count_of_remaining(remaining, table.rules.pack)
        about = {"shoe": shoe.shoe_id, "next_round": table.rounds_played + 1, "cards_left": sum(counts), "play": PLAY,
                 "running_count": running, "true_count": true,
                 "hi_lo_estimate_pct": round(HI_LO_BASE + HI_LO_SLOPE * true, 3)}
        self._worker.ask({"profile": table.rules.name, "options": table.rules.options(), "counts": counts}, about)

    def _answered(self, about: dict[str, Any], ev: Any) -> None:
        result = {**about, "player_edge_pct": round(100 * float(ev), 4), "house_edge_pct": round(-100 * float(ev), 4)}
        with self._lock:  # one worker answers in the order asked: the last answer is the newest
            self._latest = result

    def _failed(self, about: dict[str, Any], message: str) -> None:
        # a shoe the analyser cannot play out, or the worker died: said, not raised
        self.failures += 1
        log.warning("exact edge of shoe %s not computed: %s", about["shoe"], message)

    def close(self) -> None:
        """Stop the worker (a job in flight is dropped) and reap it."""
        self._worker.close()
