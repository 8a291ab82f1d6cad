"""How a blackjack hand may end besides the table's own outcomes (win, lose, push, void): the names in round records."""

from __future__ import annotations

from controller.hand import GameOutcome


class BlackjackOutcome(GameOutcome):
    """Blackjack's own outcomes."""

    BLACKJACK = "blackjack"
    BUST = "bust"
    SURRENDER = "surrender"
    EVEN_MONEY = "even_money"
    THREE_SEVENS = "three_sevens"
