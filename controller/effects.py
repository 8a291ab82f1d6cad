"""What the engine asks the world to do after an event; the service hands these to its outputs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .alerts import Alert, AlertKind
from .phase import Phase
from .round import Round


@dataclass(slots=True)
class Effect:
    """Base of every effect."""


@dataclass(slots=True)
class PhaseChanged(Effect):
    """The table moved to another phase."""

    old: Phase
    new: Phase


@dataclass(slots=True)
class CardPlaced(Effect):
    """A card went somewhere: ``to`` is ``box``, ``dealer``, ``burn``, ``held`` or ``discard``."""

    card: str
    to: str
    box: int | None = None
    hand: int | None = None
    face_down: bool = False  # the dealer's hole card: secret from every role below supervisor until turned


@dataclass(slots=True)
class HoleCardTurned(Effect):
    """The dealer turned his hole card: it is no longer a secret."""

    card: str


@dataclass(slots=True)
class RoundSettled(Effect):
    """A round is over; ``result`` is its JSON-ready record (built on first use)."""

    round: Round

    @property
    def result(self) -> dict[str, Any]:
        """The round's record, as replay prints it."""
        return self.round.record


@dataclass(slots=True)
class AlertRaised(Effect):
    """A new latched alert."""

    alert: Alert


@dataclass(slots=True)
class AlertCleared(Effect):
    """An alert is resolved and acknowledged: it leaves the board."""

    alert_id: int
    kind: AlertKind


@dataclass(slots=True)
class ShoeLock(Effect):
    """Hold the shoe's card gate shut (locked) or open it."""

    locked: bool


@dataclass(slots=True)
class ReservationLapsed(Effect):
    """A box marker ran out of time and the box is free."""

    box: int
