"""What the engine asks the world to do after an event; the service hands these to its outputs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .alerts import Alert, AlertKind
from .cards import ALL_CARDS, Card
from .phase import Phase
from .round import Round


@dataclass(frozen=True, slots=True)
class Effect:
    """Base of every effect."""


@dataclass(frozen=True, slots=True)
class PhaseChanged(Effect):
    """The table moved to another phase."""

    old: Phase
    new: Phase


@dataclass(frozen=True, slots=True)
class CardPlaced(Effect):
    """A card went somewhere: ``to`` is ``box``, ``dealer``, ``burn``, ``bottom``, ``held`` or ``discard``."""

    card: str
    to: str
    box: int | None = None
    hand: int | None = None
    face_down: bool = False  # a hole card or a closed card: secret from every role below supervisor until turned


@dataclass(frozen=True, slots=True)
class HoleCardTurned(Effect):
    """The dealer turned his hole card: it is no longer a secret."""

    card: str


@dataclass(frozen=True, slots=True)
class CardsTurned(Effect):
    """Face-down cards are turned face up (club games): no longer a secret.

    ``box`` is the box whose cards they are, None for the banker's; ``cards`` their codes.
    """

    cards: tuple[str, ...]
    box: int | None = None


@dataclass(frozen=True, slots=True)
class CardCarried(Effect):
    """The closed cards of ``box`` (None: the banker's) stay closed past the round being settled.

    club-21-36: the card the banker kept in the round's last duel plays the next round's first duel.
    The card is not named: the effect goes out to every role, and the card is still a secret.
    """

    box: int | None = None


@dataclass(frozen=True, slots=True)
class BankChanged(Effect):
    """The bank of a club-21-36 table was opened, played or closed: what it holds now (amounts as written)."""

    balance: str
    opened_with: str
    open: bool


@dataclass(frozen=True, slots=True)
class DealerChanged(Effect):
    """The dealer on duty changed: ``dealer`` took the table (None: nobody deals now), relieving ``previous``."""

    dealer: str | None
    previous: str | None


@dataclass(frozen=True, slots=True)
class RoundSettled(Effect):
    """A round is over; ``result`` is its JSON-ready record (built on first use)."""

    round: Round

    @property
    def result(self) -> dict[str, Any]:
        """The round's record, as replay prints it."""
        return self.round.record


@dataclass(frozen=True, slots=True)
class AlertRaised(Effect):
    """An alert raised: a new one, or a repeat counted on the one on the board (`Alert.count`).

    ``said``: when the board was full of the kind and the alert is the one that counts every further one
    (alerts.py), what this cause said, which that board alert stands for, so a replay lists every finding in its
    own words (issue 38); empty otherwise (the alert's message is the cause's)."""

    alert: Alert
    said: str = ""


@dataclass(frozen=True, slots=True)
class AlertCleared(Effect):
    """An alert is resolved and acknowledged: it leaves the board."""

    alert_id: int
    kind: AlertKind


@dataclass(frozen=True, slots=True)
class ShoeLock(Effect):
    """Hold the shoe's card gate shut (locked) or open it."""

    locked: bool


@dataclass(frozen=True, slots=True)
class ReservationLapsed(Effect):
    """A box marker ran out of time and the box is free."""

    box: int


# Effects are values: the engine hands out one shared instance per phase change and per card
# placed, instead of building the same small object again for every card of every round.
_PHASE_CHANGED = {old: {new: PhaseChanged(old, new) for new in Phase} for old in Phase}
_TO_DEALER = [CardPlaced(c.code, "dealer") for c in ALL_CARDS]
_BURNT = [CardPlaced(c.code, "burn") for c in ALL_CARDS]
_TO_BOX: dict[int, CardPlaced] = {}


def phase_changed(old: Phase, new: Phase) -> PhaseChanged:
    """The effect of the table moving from ``old`` to ``new``."""
    return _PHASE_CHANGED[old][new]


def dealer_card(card: Card) -> CardPlaced:
    """The effect of ``card`` going to the dealer."""
    return _TO_DEALER[card.index]


def burnt_card(card: Card) -> CardPlaced:
    """The effect of ``card`` being burnt."""
    return _BURNT[card.index]


def box_card(card: Card, box: int, hand: int) -> CardPlaced:
    """The effect of ``card`` going to hand ``hand`` of box ``box``."""
    key = (card.index * 10 + box) * 16 + hand
    placed = _TO_BOX.get(key)
    if placed is None:
        placed = _TO_BOX[key] = CardPlaced(card.code, "box", box, hand)
    return placed
