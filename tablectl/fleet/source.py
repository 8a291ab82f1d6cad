"""What the publisher reads from the table service: its ledger rows, masks, head, outbox mark and state.

`ServiceSource` adapts a running `TableService`. The ledger is read through
a read-only connection beside the service's writer; the outbox mark is written
by the service. Until journal v2 lands on main, the rows are read from the
v1 journal (events and refusals) and their MACs computed here with the
journal v2 rule (see `LedgerV1`): the one place to switch over.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from controller.effects import Effect
from controller.view import hole_card_hidden, table_view

from .wire import LedgerRow, read_key, row_mac

if TYPE_CHECKING:  # pragma: no cover
    from controller.engine import Table
    from tablectl.service import TableService

log = logging.getLogger(__name__)

FIGURE_HOURS = 8.0  # the shift the floor's figures cover, as the pit dashboard's default


class LedgerV1:
    """The v1 journal read as a journal v2 ledger: rows 1, 2, 3 ... with their MACs (read only).

    Temporary, until `Journal.open_reader(path).ledger_rows` exists: kind is
    ``refusal`` where the v1 refusals table has the seq, and each MAC is
    computed here, chained from seq 1, with journal v2's `row_mac`.
    """

    def __init__(self, path: str | Path, key: bytes) -> None:
        self.key = key
        self.db = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True, isolation_level=None,
                                  check_same_thread=False)
        self._macs: list[str] = [""]  # _macs[seq] is row seq's MAC; [0] is the chain's start

    def _extend(self, upto: int) -> None:
        have = len(self._macs) - 1
        if upto <= have:
            return
        for row in self._read(have, upto - have):
            self._macs.append(row_mac(self.key, self._macs[-1], row))

    def _read(self, after: int, limit: int) -> list[LedgerRow]:
        rows = self.db.execute(
            "SELECT e.seq, e.received_at, e.body, e.shoe_id, e.position, r.code, r.message FROM events e "
            "LEFT JOIN refusals r ON r.seq = e.seq WHERE e.seq > ? ORDER BY e.seq LIMIT ?", (after, limit)).fetchall()
        return [LedgerRow(seq, "refusal" if code is not None else "event", at, body, shoe, pos, code, msg, "")
                for seq, at, body, shoe, pos, code, msg in rows]

    def ledger_rows(self, after_seq: int, limit: int) -> list[LedgerRow]:
        """Up to `limit` rows after `after_seq`, in order, each with its MAC."""
        rows = self._read(after_seq, limit)
        if not rows:
            return []
        self._extend(rows[-1].seq)
        return [LedgerRow(r.seq, r.kind, r.received_at, r.body, r.shoe_id, r.position, r.code, r.message,
                          self._macs[r.seq]) for r in rows]

    def head(self) -> tuple[int, str]:
        """The last seq and its MAC."""
        (last,) = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
        self._extend(last)
        return last, self._macs[last]

    def outbox_position(self, name: str) -> int:
        """The durable "broker acknowledged up to" mark (0 if never set)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (f"outbox:{name}",)).fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        """Close the read-only connection."""
        self.db.close()


class _CommitHook:
    """An output that tells the publisher a row was committed (v1 has no commit_listeners yet)."""

    def __init__(self, service: "TableService", wake: Callable[[int], None]) -> None:
        self.service, self.wake = service, wake

    def handle(self, effects: list[Effect], table: "Table") -> None:
        self.wake(self.service.authority.journal.last_seq)


class ServiceSource:
    """The publisher's view of one table service (all calls from the event loop's thread)."""

    def __init__(self, service: "TableService", name: str = "fleet") -> None:
        self.service = service
        self.name = name
        settings = service.settings
        self.ledger = LedgerV1(settings.journal.path, read_key(settings.journal.key_file))
        self._figures: dict[str, Any] | None = None
        self._figures_rounds = -1

    def add_listener(self, wake: Callable[[int], None]) -> None:
        """Call `wake(last_seq)` after every commit (no I/O inside)."""
        self.service.outputs.append(_CommitHook(self.service, wake))  # type: ignore[arg-type]

    def rows(self, after: int, limit: int) -> list[LedgerRow]:
        """Ledger rows after seq `after`."""
        return self.ledger.ledger_rows(after, limit)

    def head(self) -> tuple[int, str]:
        """(last seq, its MAC)."""
        return self.ledger.head()

    def outbox_position(self) -> int:
        """Where publishing resumes after a restart."""
        return self.ledger.outbox_position(self.name)

    async def record_outbox(self, seq: int) -> None:
        """Remember durably that the broker has every row up to `seq` in its final form."""
        db = self.service.authority.journal.db  # v1: the service's own connection, in the loop's thread
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"outbox:{self.name}", str(seq)))

    def masked_seqs(self) -> set[int]:
        """Seqs whose body holds the dealer's hole card, not yet turned."""
        table = self.service.table
        if not hole_card_hidden(table):
            return set()
        for item in reversed(self.service.recent):
            if item.secret_card:
                return {item.seq}
        # Restarted with the hole card down and its stream entry gone: hide every card of the round.
        settled = table.rounds_played
        start = self.service.authority.journal.round_seq(settled) if settled else 0
        return {r.seq for r in self.ledger.ledger_rows(start or 0, 10_000) if r.position is not None}

    def state(self, table_id: str, dashboard_url: str, head: tuple[int, str | None]) -> dict[str, Any]:
        """The retained state: the table as a viewer sees it, its figures, its head."""
        from tablectl.api.figures import figures

        service = self.service
        table = service.table
        if self._figures is None or table.rounds_played != self._figures_rounds:
            # Figures read the shift's rounds: only worth redoing when a round has settled.
            f = figures(service.authority.journal, service.clock(), FIGURE_HOURS)
            f.pop("series", None)
            self._figures, self._figures_rounds = f, table.rounds_played
        view = table_view(table, reveal_hole=False)
        view["last_seq"] = head[0]
        return {"table": table_id, "name": service.settings.table.name, "game": "blackjack",
                "profile": table.rules.name, "view": view, "figures": self._figures,
                "head": {"seq": head[0], "mac": head[1]}, "dashboard_url": dashboard_url,
                "published_at": datetime.now(timezone.utc).isoformat()}

    def close(self) -> None:
        """Release the read connection."""
        self.ledger.close()


def state_json(state: dict[str, Any]) -> bytes:
    """The state as the message's payload."""
    return json.dumps(state, separators=(",", ":"), default=str).encode()
