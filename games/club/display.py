"""What a club game's box displays show (the registry's ``display`` part): closed hands, the banker, the bank.

Every box's hand is closed (``-- 2``) until it is turned; the settled round's total and payout per box;
the banker's hand, then his total when he draws face up, and beside it the bank's balance (club-21-36)
and, in his turn, the advice to draw or stand where the house turns it on (club-21).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Callable

from controller.cards import soft_total
from controller.engine import Table
from controller.hand import Hand, Outcome
from controller.money import from_cents
from controller.phase import PLAY, Phase
from controller.round import Round
from display.model import MAX_HARD_TOTAL, BankerAdvice, BoxView, DealerView, HandOutcome, HandView

from .outcomes import ClubOutcome
from .rules import ClubRulesBase

# A club hand's outcome as the display words it: the amount itself is the box's payout.
_OUTCOMES = {
    ClubOutcome.NATURAL: HandOutcome.WIN, ClubOutcome.BANKER_BUST: HandOutcome.WIN, Outcome.WIN: HandOutcome.WIN,
    Outcome.LOSE: HandOutcome.LOSE, ClubOutcome.BUST: HandOutcome.LOSE, ClubOutcome.FOLD: HandOutcome.LOSE,
    Outcome.PUSH: HandOutcome.PUSH, Outcome.VOID: HandOutcome.PUSH, ClubOutcome.WITHDRAWN: HandOutcome.PUSH,
    ClubOutcome.RETURNED: HandOutcome.PUSH,
}

Advice = Callable[[Table], "bool | None"]
"""The banker's best play in his turn from what he sees (True: draw), or None: no advice now."""


def _closed(hand: Hand) -> bool:
    """A card of a club hand is still face down (a hand without the mark is open)."""
    return bool(getattr(hand, "closed", False))


def _hand(hand: Hand, in_play: bool) -> HandView:
    """A club box's hand: a closed one shows its card count and nothing that tells its total."""
    n = len(hand.cards)
    if _closed(hand):
        return HandView(card_count=n, closed=True, in_play=in_play, done=hand.done, doubled=hand.doubled)
    hard = min(hand.hard, MAX_HARD_TOTAL)  # a club box may draw on past 21: the display has two digits
    soft = soft_total(hard, hand.has_ace) if n else None
    return HandView(
        card_count=n,
        hard_total=hard,
        soft_total=soft,
        is_bust=hard > 21,
        doubled=hand.doubled,
        surrendered=hand.outcome is ClubOutcome.SURRENDER,
        in_play=in_play,
        done=hand.done,
        outcome=_OUTCOMES.get(hand.outcome) if hand.outcome is not None else None,
    )


def _total(hand: Hand) -> int:
    return min(hand.total, MAX_HARD_TOTAL)


def bank_balance(table: Table) -> Decimal | None:
    """The open bank's balance on a club-21-36 table (None where the game has no bank, or none is open)."""
    bank = getattr(table, "game_state", None)  # club-21-36's Bank (cents); club-21 keeps none
    if bank is None or not getattr(bank, "open", False) or not isinstance(getattr(bank, "balance", None), int):
        return None
    return from_cents(bank.balance)


class ClubDisplay:
    """A club game on the box displays; ``advice`` is the banker's advice in his turn, where the game has it."""

    def __init__(self, advice: Advice | None = None) -> None:
        self.advice = advice

    def banker_advice(self, table: Table) -> BankerAdvice | None:
        """The advice to the banker in his turn, where the house turns it on (club-21's ``banker_advice``): his
        best play from what he can see (never a closed card). None out of his turn, or where it is off."""
        if self.advice is None or not getattr(table.rules, "banker_advice", False) or table.phase is not Phase.DEALER:
            return None
        draw = self.advice(table)
        if draw is None:
            return None
        return BankerAdvice.DRAW if draw else BankerAdvice.STAND

    def _banker(self, table: Table, banker: Hand | None, settled: Round | None) -> DealerView:
        """The banker's display: ``--`` and his card count while his cards are closed, his total once he draws
        face up, the round's total once it is settled; the bank's balance beside; the advice in his turn."""
        bank = bank_balance(table)
        if settled is not None:
            return DealerView(payout=from_cents(settled.net()), bank=bank)
        if banker is None or not banker.cards:
            return DealerView(bank=bank)
        n = len(banker.cards)
        if _closed(banker):
            return DealerView(card_count=n, closed=True, bank=bank)
        rules = table.rules
        assert isinstance(rules, ClubRulesBase)  # (the registry hands this part the club games' tables only)
        hard = min(banker.hard, MAX_HARD_TOTAL)
        advice = self.banker_advice(table) if hard <= 21 else None
        return DealerView(
            up_card=min(rules.values[banker.cards[0].index], 10),
            card_count=n,
            hard_total=hard,
            soft_total=soft_total(hard, banker.has_ace),
            is_bust=hard > 21,
            done=table.phase is not Phase.DEALER,
            bank=bank,
            advice=advice,
        )

    def felt(self, table: Table, *, show_settled: bool = True) -> tuple[tuple[BoxView, ...], DealerView]:
        """Every box's display and the banker's, now (settled rounds stay unless ``show_settled`` is False)."""
        r = table.round
        settled = table.previous if r is None and show_settled else None
        in_players = table.phase in PLAY
        by_number: dict[int, BoxView] = {}
        if r is not None:
            for bi, box in enumerate(r.boxes):
                hands = tuple(_hand(h, in_players and bi == r.box_i and hi == r.hand_i)
                              for hi, h in enumerate(box.hands))
                by_number[box.number] = BoxView(box.number, active=True, hands=hands)
        elif settled is not None:
            for box in settled.boxes:
                hands = tuple(_hand(h, False) for h in box.hands)
                total = _total(box.hands[0]) if len(box.hands) == 1 and box.hands[0].cards else None
                by_number[box.number] = BoxView(box.number, active=True, hands=hands, payout=from_cents(box.net()),
                                                settled_total=total)
        for number in table.pending:
            by_number.setdefault(number, BoxView(number, active=True))
        boxes = tuple(by_number.get(n, BoxView(n)) for n in range(1, table.rules.boxes + 1))
        return boxes, self._banker(table, r.dealer if r is not None else None, settled)
