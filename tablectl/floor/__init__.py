"""The casino floor: every table's journal from the broker, in one store, watched and verified.

`tablectl floor --config FILE` subscribes to every table under the topic prefix,
keeps every ledger row per table in sequence order (SQLite), notices and
reports a gap in a table's sequence, verifies each row's MAC where it holds the
table's key, and serves the floor dashboard and API. It only reads: nothing
it does changes a table; a gap the broker can no longer fill it asks of the
table's own API, at the address configured for it (`recovery`). See docs/floor.md.
"""

from __future__ import annotations


class FloorError(Exception):
    """Root of every error this package raises."""


class FloorConfigError(FloorError, ValueError):
    """A floor configuration that cannot run; the message names the setting."""


class StoreError(FloorError, RuntimeError):
    """The floor's store cannot be used (damaged, foreign, or from another build)."""


class ExportError(FloorError, LookupError):
    """A table's session cannot be exported (unknown table, rows missing)."""
