"""A table's session file from the floor's store: what `tablectl replay` reproduces exactly.

The accepted events (ledger rows of kind ``event``) in sequence order, each
event written as `tablectl journal export` writes it. Refusals are skipped, as the table's own
`tablectl journal export` skips them. Rows not final yet (the round in play, its hole card not
turned) are left out at the end. Everything before must be the table's, or nothing is exported
(ExportError says which row and why):

- no row may be missing;
- with the table's key, every row must have verified in the chain;
- no row may be a conflict (two versions the floor could not tell apart: without the key, or both signed).
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from controller.events import BadEvent
from controller.event_codec import dump_event, parse_event

from . import ExportError
from .store import BAD, OK, FloorStore


def export_table(store: FloorStore, table: str) -> Iterator[dict[str, Any]]:
    """The session-format events of `table`, from seq 1 to the last final row."""
    track = store.tracks.get(table)
    if track is None or track.rows == 0:
        raise ExportError(f"the floor has no rows of table {table!r}")
    missing = store.missing(table)
    if missing and missing[0][0] <= track.contiguous + 1:
        first, last = missing[0]
        if first <= track.max_seq:
            raise ExportError(f"table {table}: rows {first}..{last} are missing on the floor; the session "
                              "cannot be exported whole (the table's own journal has them)")
    keyed = table in store.keys
    conflicts = set(store.conflict_seqs(table))
    expected = 1
    for row in store.iter_rows(table):
        if row.seq != expected:  # the rows themselves say so too (another worker's track may be a moment old)
            raise ExportError(f"table {table}: rows {expected}..{row.seq - 1} are missing on the floor; the session "
                              "cannot be exported whole (the table's own journal has them)")
        expected += 1
        if row.masked:
            return  # the round in play: not final yet
        if row.seq in conflicts:
            raise ExportError(f"table {table}: row {row.seq} is in conflict: two different versions of it arrived "
                              "and the floor cannot tell which is the table's (see the incidents); the table's own "
                              "journal has it")
        if row.verified == BAD or (keyed and row.verified != OK):
            why = "does not verify against the table's key" if row.verified == BAD else "is not verified yet"
            raise ExportError(f"table {table}: row {row.seq} {why}: the floor does not export it as the table's")
        if row.kind != "event":
            continue
        try:  # through the engine's own event model, so the file is what `journal export` writes
            yield dump_event(parse_event(json.loads(row.body), recorded=True))
        except BadEvent as exc:
            raise ExportError(f"table {table}: row {row.seq} is not an event this build knows: {exc}") from None


def export_text(store: FloorStore, table: str) -> str:
    """The session file's text (JSON Lines)."""
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in export_table(store, table))
