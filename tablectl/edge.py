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

A game may give instead the exact expectation of each spot (its part ``spot_odds``: baccarat's side bets, issue
40). The same worker computes it between rounds, and the answer goes back to the table as the game's own event
(`SpotOddsPart.event`) through the service's one writer (``post``: journalled, like any input, under the actor
`ACTOR`), where the game's watch may raise a surveillance alert; `latest_spots` keeps the newest answer.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, Callable

from controller.cards import rank_value
from controller.engine import Table
from controller.protection.shoes import count_of_remaining

from .child_worker import ChildWorker
from .parts import has_edge, has_spot_odds

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
ACTOR = "exact-edge"
"""Who sends a game's `SpotOddsPart.event` in the journal: the table's own worker."""


def _player_edge(job: dict[str, Any]) -> Any:
    """In the worker process: the player's expectation of the next round, per unit of initial bet (a game's
    ``edge``), or each spot's (``kind`` "spot_odds": a game's ``spot_odds``, from ``ranks``, the cards left by rank).

    ``job`` is plain data: the rules as a journal records them (the profile's name and every option) and the
    composition; the rules are validated again here, as any rules read from outside are."""
    from controller.rules import load_rules

    from .parts import edge_part, spot_odds_part

    rules = load_rules(job["profile"], job["options"])
    if job.get("kind") == "spot_odds":
        return spot_odds_part(rules.game).expectations(rules, job["ranks"])
    return edge_part(rules.game).player_edge(rules, job["counts"], PLAY)


def worker_main() -> int:
    """The worker process (`tablectl.child_worker`): each request's exact edge, until the service is gone."""
    from .child_worker import serve

    return serve(_player_edge)


def wire_edge(service: Any, loop: asyncio.AbstractEventLoop) -> EdgeWorker:
    """An `EdgeWorker` added to ``service``'s outputs (a `tablectl.service.TableService` running in ``loop``) that
    posts a game's spot odds to the service's writer, as `ACTOR`."""

    def post(event: Any) -> None:
        # From the worker's owner thread: the inbox is the event loop's. A loop already closed (the service
        # stopping) drops the odds, as `close` drops a job in flight.
        try:
            loop.call_soon_threadsafe(service.post, event, ACTOR)
        except RuntimeError:
            pass

    edge = EdgeWorker(post)
    service.add_output(edge)
    return edge


class EdgeWorker:
    """Computes the next round's exact edge off the writer's path; `latest` is the newest answer. ``post`` hands a
    game's spot-odds event to the service's writer (thread-safe: it is called from the worker's owner thread)."""

    def __init__(self, post: Callable[[Any], None] | None = None) -> None:
        # The worker process is started with the first round: a table that deals none pays nothing.
        self._worker: ChildWorker[dict[str, Any]] = ChildWorker("tablectl.edge:worker_main", "exact-edge",
                                                               self._answered, self._failed)
        self._lock = threading.Lock()
        self._asked: tuple[str, int] | None = None  # (shoe, cards dealt) last submitted
        self._latest: dict[str, Any] | None = None
        self._latest_spots: dict[str, Any] | None = None
        self._post = post
        self.failures = 0

    @property
    def latest(self) -> dict[str, Any] | None:
        """The newest exact edge: shoe, round it precedes, cards left, exact and Hi-Lo figures (None yet)."""
        with self._lock:
            return None if self._latest is None else dict(self._latest)

    @property
    def latest_spots(self) -> dict[str, Any] | None:
        """The newest exact odds per spot (a ``spot_odds`` game): shoe, cards out, spot -> expectation (None yet)."""
        with self._lock:
            return None if self._latest_spots is None else dict(self._latest_spots)

    def handle(self, effects: list[Any], table: Table) -> None:
        """Output hook: between rounds, submit the cards left when they changed since the last submission."""
        shoe = table.shoe
        game = table.rules.game
        spots = not has_edge(game) and has_spot_odds(game)
        if not (spots or has_edge(game)) or shoe is None or table.round is not None or table.held:
            return
        asked = (shoe.shoe_id, shoe.dealt + shoe.burned)
        if asked == self._asked:
            return
        self._asked = asked
        remaining = shoe.remaining_by_rank()
        if spots:
            if sum(remaining.values()) >= 6:  # (a coup needs up to six cards: a shorter shoe is being shuffled)
                self._worker.ask({"kind": "spot_odds", "profile": table.rules.name, "options": table.rules.options(),
                                  "ranks": remaining},
                                 {"kind": "spot_odds", "game": game, "shoe": shoe.shoe_id, "cards_out": shoe.dealt})
            return
        counts = counts_by_value(remaining)
        running, true = count_of_remaining(remaining, table.rules.pack)
        about = {"shoe": shoe.shoe_id, "next_round": table.rounds_played + 1, "cards_left": sum(counts), "play": PLAY,
                 "running_count": running, "true_count": true,
                 "hi_lo_estimate_pct": round(HI_LO_BASE + HI_LO_SLOPE * true, 3)}
        self._worker.ask({"profile": table.rules.name, "options": table.rules.options(), "counts": counts}, about)

    def _answered(self, about: dict[str, Any], ev: Any) -> None:
        if about.get("kind") == "spot_odds":
            self._answered_spots(about, ev)
            return
        result = {**about, "player_edge_pct": round(100 * float(ev), 4), "house_edge_pct": round(-100 * float(ev), 4)}
        with self._lock:  # one worker answers in the order asked: the last answer is the newest
            self._latest = result

    def _answered_spots(self, about: dict[str, Any], expectations: dict[str, float]) -> None:
        from .parts import spot_odds_part

        with self._lock:
            self._latest_spots = {"shoe": about["shoe"], "cards_out": about["cards_out"], "expectations": expectations}
        if self._post is not None:
            self._post(spot_odds_part(about["game"]).event(about["shoe"], about["cards_out"], expectations))

    def _failed(self, about: dict[str, Any], message: str) -> None:
        # a shoe the analyser cannot play out, or the worker died: said, not raised
        self.failures += 1
        log.warning("exact edge of shoe %s not computed: %s", about["shoe"], message)

    def close(self) -> None:
        """Stop the worker (a job in flight is dropped) and reap it."""
        self._worker.close()
