"""The table's side of the casino floor: its journal published, row by row, to an MQTT broker.

Off by default (`[fleet] enabled = false`). The journal is the outbox: every
accepted journal row goes to the broker in order at QoS 1, the last sequence
the broker acknowledged is remembered in the journal file, and publishing
resumes from there after a restart or an outage. Nothing flows from the broker
into the engine, and a table whose broker is down plays on exactly as before.
See docs/floor.md.
"""

from __future__ import annotations


class FleetError(Exception):
    """Root of every error this package raises."""


class FleetConfigError(FleetError, ValueError):
    """A [fleet] or broker setting that cannot work (a TLS file that cannot be read, ...)."""


class BrokerUnavailable(FleetError, ConnectionError):
    """The broker cannot be reached, refused us, or the connection broke."""


class BadMessage(FleetError, ValueError):
    """A message from the broker that is not what the wire format says (dropped and reported)."""
