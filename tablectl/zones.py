"""Time zones by their IANA names, looked up in the system's zone database (Debian's tzdata), for the times
people read (a dispute record's local times): the table's `[table] time_zone`, `tablectl dispute --tz`."""

from __future__ import annotations

import zoneinfo


def zone_of(name: str) -> zoneinfo.ZoneInfo:
    """The IANA time zone ``name`` (e.g. Europe/Moscow); ValueError says it is unknown."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"{name[:64]!r} is not a time zone this machine knows (an IANA name such as "
                         "Europe/Moscow or America/New_York; the tzdata package has them)") from None
