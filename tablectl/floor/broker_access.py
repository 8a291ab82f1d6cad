"""Who may do what on the floor's broker: Mosquitto's dynamic-security file, made from the floor's tables and workers.

The shipped broker (deploy/mosquitto/tablectl.conf) takes each client's certificate CN as its user name and asks
Mosquitto's dynamic-security plugin (Debian's package ships it) what that user may do. The plugin, unlike the
plain `acl_file` of Mosquitto 2.0, checks a SUBSCRIBE against the user's rules when it arrives: a filter the user
may not subscribe to is refused in the SUBACK (0x87, not authorized), and nothing is ever dealt to it. Under
`acl_file` every subscription was granted, read rights were checked only when a message was delivered, and a
shared subscription (`$share/GROUP/...`) granted to a client that may not read was dealt its share of the rows and
dropped them (issue 37). So: deny by default, every right named.

- Only the floor's workers (`tablectl-floor-1` ... `-N`) may join the workers' shared group, and only that group's
  ledger and state filters.
- The floor (`tablectl-floor`) and each worker read each table's ledger, state and status.
- Surveillance reads everything under the prefix; the pit each table's state and status; the public displays
  each table's settled rounds (docs/floor.md, "Feeds by audience").
- Each table publishes only under `{prefix}/{its id}/` and reads nothing. The plugin of Mosquitto 2.0 has no `%u`
  in its rules, so each table has its own role: a certificate the floor's CA signed for a table not named here
  can connect and do nothing at all (no user in the file: every check is refused), which is also what keeps an
  unknown certificate off the workers' group.

The file is JSON in the plugin's own format (`defaultACLAccess`, `clients`, `roles`, `groups`), written whole by
`tablectl broker access` (broker_cli.py); the broker reads it at its start.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from tablectl.fleet import PREFIX, TABLE_ID

FLOOR = "tablectl-floor"
SURVEILLANCE = "tablectl-surveillance"
PIT = "tablectl-pit"
PUBLIC = "tablectl-public"
READERS = (FLOOR, SURVEILLANCE, PIT, PUBLIC)
MAX_WORKERS = 64
GROUP = r"^[A-Za-z0-9_-]{1,64}$"  # as [floor] shared_group allows it (settings.py), not empty here
# What a table publishes under {prefix}/{its id}/ (docs/floor.md, "The wire format").
TABLE_LEAVES = ("ledger", "state", "status", "surveillance", "public/round", "rating")


def worker(n: int) -> str:
    """Worker N's identity (its certificate's CN, its user name and client id on the shipped broker)."""
    return f"{FLOOR}-{n}"


def _rule(kind: str, topic: str) -> dict[str, Any]:
    return {"acltype": kind, "topic": topic, "priority": 0, "allow": True}


def _reads(*filters: str) -> list[dict[str, Any]]:
    """Subscribe to these filters (or narrower ones within them) and be delivered what they match."""
    return [r for f in filters for r in (_rule("subscribePattern", f), _rule("publishClientReceive", f))]


def access_rules(tables: Iterable[str], *, workers: int, group: str, prefix: str = "tablectl") -> dict[str, Any]:
    """The dynamic-security file for these tables, `workers` workers of shared group `group`, and the readers.

    ValueError names what cannot be (a table id the wire refuses or that is a reader's or a worker's name, a
    group or prefix the floor's settings refuse, a number of workers out of 0..MAX_WORKERS).
    """
    if not re.match(PREFIX, prefix):
        raise ValueError(f"prefix {prefix!r}: letters, digits, _ and -, up to 4 levels (as [floor] topic_prefix)")
    if not 0 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers: from 0 to {MAX_WORKERS}")
    if workers and not re.match(GROUP, group):
        raise ValueError(f"group {group!r}: 1 to 64 letters, digits, _ and - (as [floor] shared_group)")
    ids = sorted(set(tables))
    reserved = {*READERS, *(worker(n) for n in range(1, MAX_WORKERS + 1))}
    for t in ids:
        if not re.match(TABLE_ID, t):
            raise ValueError(f"table {t!r}: letters, digits, _ and - (as a table's [fleet] table_id)")
        if t in reserved:
            raise ValueError(f"table {t!r}: the name of one of the floor's readers or workers")
    p = prefix
    roles = [
        {"rolename": FLOOR, "textdescription": "the floor: each table's ledger, state, status and rating slips",
         "acls": _reads(f"{p}/+/ledger", f"{p}/+/state", f"{p}/+/status", f"{p}/+/rating")},
        {"rolename": SURVEILLANCE, "textdescription": "surveillance: everything the tables publish",
         "acls": _reads(f"{p}/#")},
        {"rolename": PIT, "textdescription": "the pit's screens: each table's state and status, never the ledger",
         "acls": _reads(f"{p}/+/state", f"{p}/+/status")},
        {"rolename": PUBLIC, "textdescription": "player-facing displays: settled rounds, no cards, money or names",
         "acls": _reads(f"{p}/+/public/round")},
    ]
    clients = [{"username": name, "textname": name, "roles": [{"rolename": name}]} for name in READERS]
    if workers:
        # Exactly the group's three filters (subscribeLiteral: the filter as written, wildcards and all), nothing
        # else shared: a worker joins no other group, and no one else joins this one.
        roles.append({"rolename": f"{FLOOR}-worker", "textdescription": f"a floor worker of shared group {group}",
                      "acls": [_rule("subscribeLiteral", f"$share/{group}/{p}/+/ledger"),
                               _rule("subscribeLiteral", f"$share/{group}/{p}/+/state"),
                               _rule("subscribeLiteral", f"$share/{group}/{p}/+/rating")]})
        clients += [{"username": worker(n), "textname": f"floor worker {n}",
                     "roles": [{"rolename": FLOOR}, {"rolename": f"{FLOOR}-worker"}]} for n in range(1, workers + 1)]
    for t in ids:
        roles.append({"rolename": f"table:{t}", "textdescription": f"table {t}: publishes under {p}/{t}/ only",
                      "acls": [_rule("publishClientSend", f"{p}/{t}/{leaf}") for leaf in TABLE_LEAVES]})
        clients.append({"username": t, "textname": f"table {t}", "roles": [{"rolename": f"table:{t}"}]})
    return {
        # Deny by default: every right above is named. Unsubscribing is harmless and always allowed.
        "defaultACLAccess": {"publishClientSend": False, "publishClientReceive": False, "subscribe": False,
                             "unsubscribe": True},
        "clients": clients,
        "groups": [],
        "roles": roles,
    }


def access_text(tables: Iterable[str], *, workers: int, group: str, prefix: str = "tablectl") -> str:
    """`access_rules` as the file's text (stable: the same input, the same bytes)."""
    return json.dumps(access_rules(tables, workers=workers, group=group, prefix=prefix), indent=2) + "\n"
