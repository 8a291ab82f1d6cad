"""The table's side of the casino floor: its journal published, row by row, to an MQTT broker.

Off by default (`[fleet] enabled = false`). The journal is the outbox: every
accepted journal row goes to the broker in order at QoS 1, the last sequence
the broker acknowledged is remembered in the journal file, and publishing
resumes from there after a restart or an outage. Nothing flows from the broker
into the engine, and a table whose broker is down plays on exactly as before.
See docs/floor.md.
"""

from __future__ import annotations

# A table's id and the topics' prefix, as the wire format (wire.py) allows them; here so that the table's
# config (settings.py) checks them without importing the wire's models (0.4 MB of the service's RSS).
TABLE_ID = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
PREFIX = r"^[A-Za-z0-9_-]{1,64}(/[A-Za-z0-9_-]{1,64}){0,3}$"
# A pit's name ("A", "Pit 3", "Salon privé"): the floor groups the tables by it. Short, so it fits a heading.
MAX_PIT = 24


def check_pit(value: str) -> str:
    """A pit's name as the table's config and the floor accept it: empty (no pit), or at most MAX_PIT
    printable characters, not starting or ending with a space (ValueError says what is wrong)."""
    if len(value) > MAX_PIT:
        raise ValueError(f"at most {MAX_PIT} characters")
    if not value.isprintable():
        raise ValueError("printable characters only (no control characters, tabs or new lines)")
    if value != value.strip():
        raise ValueError("no space at the start or the end")
    return value


class FleetError(Exception):
    """Root of every error this package raises."""


class FleetConfigError(FleetError, ValueError):
    """A [fleet] or broker setting that cannot work (a TLS file that cannot be read, ...)."""


class BrokerUnavailable(FleetError, ConnectionError):
    """The broker cannot be reached, refused us, or the connection broke."""


class SubscriptionRefused(FleetError):
    """The broker refused a subscription in its SUBACK (a reason code of 0x80 or above): its access rules, not the
    network; trying again changes nothing until they do."""


class BadMessage(FleetError, ValueError):
    """A message from the broker that is not what the wire format says (dropped and reported)."""
