"""What the publisher reads from the table service: its ledger rows, masks, head, outbox mark and state.

`ServiceSource` adapts a running `TableService`: the ledger is read through the
service's own read-only connection beside its writer, commits are heard through
the service's one subscription (`TableService.subscribe`), and the outbox mark is
written by the service's single writer (`record_outbox`), never here.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any, Callable

from controller.journal import JournalReader, LedgerRow
from controller.protection.shoes import count_of_remaining
from controller.view import table_view
from tablectl.parts import tile_facts

if TYPE_CHECKING:  # pragma: no cover
    from tablectl.service import TableService

log = logging.getLogger(__name__)

FIGURE_HOURS = 8.0  # the shift the floor's figures cover, as the pit dashboard's default
RATING_CHUNK = 500  # journal rows the rating follower reads at one go: a long journal never holds the loop


class ServiceSource:
    """The publisher's view of one table service (all calls from the event loop's thread)."""

    def __init__(self, service: "TableService", name: str = "fleet", edge: Any = None) -> None:
        self.service = service
        self.edge = edge  # tablectl.edge.EdgeWorker (its `latest`), or None
        self.name = name
        self._reader = service.reader()
        self._generation = service.authority.journal.generation
        self._figures: dict[str, Any] | None = None
        self._figures_rounds = -1
        self._hearing: asyncio.Task[None] | None = None
        self._ratings: Any = None  # tablectl.ratings.RatingFollower, made at the first call

    @property
    def reader(self) -> JournalReader:
        """The publisher's reader of the live journal: opened anew once the writer has archived the file it read
        (issue 42: the old one reads the archive, where no row is added)."""
        generation = self.service.authority.journal.generation
        if generation != self._generation:
            self._reader.close()
            self._reader, self._generation = self.service.reader(), generation
        return self._reader

    def add_listener(self, wake: Callable[[int], None]) -> None:
        """Call `wake(last_seq)` after every commit (no I/O inside), from a task of the running loop that
        follows the service's subscription until `close`."""
        self._hearing = asyncio.get_running_loop().create_task(self._hear(wake), name="fleet-commits")

    async def _hear(self, wake: Callable[[int], None]) -> None:
        while True:
            items = self.service.subscribe()
            try:
                async for item in items:
                    wake(item.seq)
                return  # the subscription was closed
            except Exception:  # tablectl.service.SubscriberLagged (the service is above this layer)
                if not items.lagged:
                    raise
            finally:
                items.close()
            # Let go for falling behind: the rows are in the journal all the same; wake up to its head and
            # hear the table again.
            wake(self.service.head()[0])

    def rows(self, after: int, limit: int) -> list[LedgerRow]:
        """Ledger rows after seq `after`."""
        return self.reader.ledger_rows(after, limit)

    def head(self) -> tuple[int, str]:
        """(last seq, its MAC)."""
        return self.service.head()

    def outbox_position(self) -> int:
        """Where publishing resumes after a restart."""
        return self.reader.outbox_position(self.name)

    async def record_outbox(self, seq: int) -> None:
        """Remember durably (through the service's writer) that the broker has every row up to `seq`."""
        await self.service.record_outbox(self.name, seq)

    def masked_seqs(self) -> set[int]:
        """Seqs whose body holds the dealer's hole card, not yet turned (the engine says which)."""
        return self.service.masked_seqs()

    def state(self, table_id: str, dashboard_url: str, head: tuple[int, str | None]) -> dict[str, Any]:
        """The retained state: the table as a viewer sees it, its figures, its head."""
        from tablectl.figures import figures

        service = self.service
        table = service.table
        if self._figures is None or table.rounds_played != self._figures_rounds:
            # Figures read the shift's rounds: only worth redoing when a round has settled.
            f = figures(self.reader, service.clock(), FIGURE_HOURS)
            f.pop("series", None)
            self._figures, self._figures_rounds = f, table.rounds_played
        view = table_view(table, reveal_closed=False)
        view["last_seq"] = head[0]
        if view["shoe"] is not None:
            # The pit's feed carries no count: the cards left by rank would give it (the surveillance feed has it).
            view["shoe"].pop("remaining_by_rank", None)
        state: dict[str, Any] = {"table": table_id, "name": service.settings.table.name, "game": table.rules.game,
                 "profile": table.rules.name, "view": view, "figures": self._figures,
                 "head": {"seq": head[0], "mac": head[1]}, "dashboard_url": dashboard_url,
                 "published_at": service.clock().isoformat()}
        facts = tile_facts(table)
        if facts:  # only a game with a tile part: a floor older than it reads the state as before
            state["tile"] = facts
        if service.settings.fleet.pit:  # only when set: a floor older than the setting reads the state as before
            state["pit"] = service.settings.fleet.pit
        return state

    def surveillance(self, table_id: str, head: tuple[int, str | None]) -> dict[str, Any]:
        """The surveillance feed's retained message: the count (of the cards a viewer has seen: a closed card
        is still in the shoe for it), the protection findings on the board, the dealer on duty."""
        service = self.service
        table = service.table
        view = table_view(table, reveal_closed=False)
        shoe = view["shoe"]
        count = None
        if shoe is not None and "count" in view["shoe_figures"]:
            running, true = count_of_remaining(shoe["remaining_by_rank"], table.rules.pack)
            count = {"running": running, "true": true, "cards_left": sum(shoe["remaining_by_rank"].values()),
                     "shoe": shoe["id"]}
        return {"table": table_id, "count": count, "round": view["round"], "phase": view["phase"],
                "findings": [a for a in view["alerts"] if a["kind"] in ("slug", "weak_shuffle", "side_bet_edge")],
                "dealer_on_duty": view["dealer_on_duty"],
                "exact_edge": self.edge.latest if self.edge is not None else None,
                "head": {"seq": head[0], "mac": head[1]},
                "published_at": service.clock().isoformat()}

    def ended_ratings(self, table_id: str) -> list[dict[str, Any]]:
        """The rating slips of the sessions ended since the last call (export rows, ``table`` the fleet id).

        Reads at most RATING_CHUNK new journal rows a call; after a restart the follower reads the journal
        again from its start and sends every ended session again (the floor keeps each once)."""
        from itertools import islice

        from tablectl.ratings import RatingFollower, session_row

        if self._ratings is None:
            self._ratings = RatingFollower()
        follower = self._ratings
        entries = self.reader.entries(follower.seq)
        try:
            follower.follow(islice(entries, RATING_CHUNK))
        finally:
            close = getattr(entries, "close", None)  # a generator over the reader's cursor: let go of it
            if close is not None:
                close()
        return [session_row(table_id, s) for s in follower.ended(self.service.clock())]

    def last_round_number(self) -> int:
        """The number of the last settled round (0: none): the public feed starts after it."""
        newest = self.reader.rounds(0, 1)
        return int(newest[0]["number"]) if newest else 0

    def settled_after(self, number: int, limit: int = 64) -> list[tuple[int, dict[str, Any], str | None]]:
        """(number, record, settled at) of the rounds settled after round `number`, oldest first, at most `limit`."""
        fresh = sorted((r for r in self.reader.rounds(0, limit) if r["number"] > number), key=lambda r: r["number"])
        times = self.reader.round_times([r["number"] for r in fresh])
        return [(r["number"], r, times.get(r["number"])) for r in fresh]

    def close(self) -> None:
        """Stop hearing commits; release the read connection."""
        if self._hearing is not None:
            self._hearing.cancel()
        self._reader.close()


def state_json(state: dict[str, Any]) -> bytes:
    """The state as the message's payload."""
    return json.dumps(state, separators=(",", ":"), default=str).encode()
