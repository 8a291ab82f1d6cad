"""Blackjack's own events: insurance against a dealer ace, even money on a blackjack (the wire names are the
session format's, so every session and journal of today decodes to the same events).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controller.events import BoxNumber, Event, Money


@dataclass(slots=True, kw_only=True)
class Insure(Event):
    """A box insures against a dealer blackjack (at most half its bet)."""

    type: Literal["insurance"] = "insurance"
    box: BoxNumber
    amount: Money


@dataclass(slots=True, kw_only=True)
class EvenMoney(Event):
    """A box with blackjack takes 1:1 at once against a dealer ace."""

    type: Literal["even_money"] = "even_money"
    box: BoxNumber


@dataclass(slots=True, kw_only=True)
class CloseInsurance(Event):
    """No more insurance: play goes on."""

    type: Literal["close_insurance"] = "close_insurance"
