"""club-21's own events: the banker's contra and a box's recontra (the wire names are the session format's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controller.events import BoxNumber, Event


@dataclass(slots=True, kw_only=True)
class Contra(Event):
    """After everyone's first card the banker doubles every stake (club-21, ``contra``)."""

    type: Literal["contra"] = "contra"


@dataclass(slots=True, kw_only=True)
class Recontra(Event):
    """After the banker's contra, a box doubles its own stake again (club-21, ``contra``)."""

    type: Literal["recontra"] = "recontra"
    box: BoxNumber
