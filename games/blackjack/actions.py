"""Blackjack's own decisions besides the hand's (hit, stand, double, split, surrender: `controller.legality.Action`)."""

from __future__ import annotations

from controller.legality import GameAction


class BlackjackAction(GameAction):
    """Insurance against a dealer ace, offered to every box before play goes on."""

    INSURANCE = "insurance"
    EVEN_MONEY = "even_money"
    CLOSE_INSURANCE = "close_insurance"
