"""The exact edge of the next round on the live table, for surveillance (issue 27, part 2).

After each round settles, and when a new shoe comes in, the cards left in the shoe go to a worker
process that runs the exact analyser (`simulators.exact.analyse`, the table's basic strategy, resplits
valued exactly; under 0.1 s of CPU for a 6-deck shoe once its hands are built, docs/house-edge.md). The service never waits for it: `EdgeWorker.handle` is an
output (called after the commit, in the writer's loop) that only copies the counts and submits them;
the answer lands in `latest` from the pool's thread. A card's latency does not move
(`benchmarks/latency.py --edge`).

Only blackjack has an exact analyser; at a club table the worker does nothing. The figure goes to
surveillance only: the supervisor's `GET /api/edge` and the fleet's surveillance feed, beside the Hi-Lo
count; never the table's view, so the pit's screens and the dealer do not show it.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from typing import Any, Callable, TypeVar

from controller.cards import rank_value
from controller.engine import Table
from controller.protection.shoes import count_of_remaining
from controller.rules import Rules

log = logging.getLogger(__name__)
T = TypeVar("T")

# Hi-Lo's rule of thumb the research we have fits to the exact edge (player's side, per cent of the bet):
# -0.36 % + 0.57 % per true count (residual sd 0.39 %); printed beside the exact figure for comparison.
HI_LO_BASE, HI_LO_SLOPE = -0.36, 0.57


def counts_by_value(remaining_by_rank: dict[str, int]) -> list[int]:
    """The analyser's composition (aces first, tens last) from the cards left by rank."""
    counts = [0] * 10
    for rank, n in remaining_by_rank.items():
        counts[rank_value(rank) - 1] += n
    return counts


def _worker_start() -> None:
    """In the worker process, first. Ctrl-C at the terminal reaches the whole process group: the service
    stops the worker itself, so the worker ignores it (a traceback from it would be printed to the person
    who stopped the demo). Then the lowest priority but one, so that the writer (and a card's latency)
    always comes first on a Pi's few cores."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(10)
    except OSError:  # not allowed here: the figure is still computed, at the same priority
        pass


def _with_sigint_ignored(start: Callable[[], T]) -> T:
    """`start()` (which starts the worker processes) with Ctrl-C ignored meanwhile: a process started then
    inherits the ignoring from its first instruction, before `_worker_start` could set it, so a Ctrl-C at the
    terminal while it boots prints no traceback. Elsewhere than the main thread signals cannot be set: as is."""
    try:
        before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:
        return start()
    try:
        return start()
    finally:
        signal.signal(signal.SIGINT, before)


# The live figure values the table's own basic strategy (the analyser also offers optimal play, "cdp1" and
# "cdz-": a skilled player's ceiling, not what the table's players are taken to play).
PLAY = "basic"


def _player_edge(rules: Rules, counts: list[int]) -> float:
    """In the worker process: the player's expectation of the next round, per unit of initial bet."""
    from simulators.exact import analyse

    return analyse(rules, counts, PLAY).ev  # type: ignore[arg-type]  # a blackjack table's rules are a RuleProfile


class EdgeWorker:
    """Computes the next round's exact edge off the writer's path; `latest` is the newest answer."""

    def __init__(self, workers: int = 1) -> None:
        self._workers = workers
        self._pool: ProcessPoolExecutor | None = None  # started with the first round: a table that deals none pays nothing
        self._closed = False
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
        if table.rules.game != "blackjack" or shoe is None or table.round is not None or table.held:
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
        if self._closed:
            return
        first = self._pool is None
        if self._pool is None:
            # spawn, not fork: the service's process has threads (the shoe's port, the pool's own), and a
            # forked child could inherit a lock held by one of them.
            self._pool = ProcessPoolExecutor(max_workers=self._workers, initializer=_worker_start,
                                             mp_context=multiprocessing.get_context("spawn"))
        pool, rules = self._pool, table.rules
        try:
            if first:  # the worker starts with this submission
                future = _with_sigint_ignored(lambda: pool.submit(_player_edge, rules, counts))
            else:
                future = pool.submit(_player_edge, rules, counts)
        except RuntimeError:  # the pool is shut down (the service is stopping)
            return
        future.add_done_callback(lambda f: self._done(f, about))

    def _done(self, future: Future[float], about: dict[str, Any]) -> None:
        try:
            ev = future.result()
        except CancelledError:  # the service is stopping
            return
        except Exception as exc:  # a shoe the analyser cannot play out, or the worker died: said, not raised
            self.failures += 1
            log.warning("exact edge of shoe %s not computed: %s", about["shoe"], exc)
            return
        result = {**about, "player_edge_pct": round(100 * ev, 4), "house_edge_pct": round(-100 * ev, 4)}
        with self._lock:  # one worker answers in the order asked: the last answer is the newest
            self._latest = result

    def close(self) -> None:
        """Stop the worker (a job in flight is dropped)."""
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
