"""What each press of the dealer console means at a blackjack table (the registry's ``console`` part).

It only reads the table: the press goes down the service's ordered path like any API action
(`tablectl.console_actions`).
"""

from __future__ import annotations

from controller import events as ev
from controller.engine import Phase, Table
from controller.money import from_cents
from display.console import ConsoleAction, ConsoleKind

from .events import CloseInsurance, EvenMoney, Insure
from .rules import RuleProfile


def blackjack_console_event(action: ConsoleAction, table: Table) -> ev.Event | None:
    """The blackjack event a button press means now, or None when it means nothing here."""
    kind = action.kind
    if kind is ConsoleKind.STAND:
        return ev.Stand()
    if kind is ConsoleKind.DOUBLE:
        return ev.Double()
    if kind is ConsoleKind.SPLIT:
        return ev.Split()
    if kind is ConsoleKind.SURRENDER:
        return ev.Surrender(box=action.box)
    if kind is ConsoleKind.CALL_PIT:
        return ev.CallPit()
    if kind is ConsoleKind.CONTINUE:
        return CloseInsurance() if table.phase is Phase.INSURANCE else None
    if kind is ConsoleKind.INSURANCE and table.round is not None:
        number = action.box
        if number is None:
            return None  # insurance needs a box: press the box's button first
        for box in table.round.boxes:
            if box.number == number:
                hand = box.hands[0]
                rules = table.rules
                assert isinstance(rules, RuleProfile)  # (the registry hands this part blackjack's tables only)
                if hand.is_blackjack and rules.even_money:
                    return EvenMoney(box=number)
                return Insure(box=number, amount=from_cents(box.bet) / 2)  # the console insures the full half
    return None


class BlackjackConsole:
    """The dealer console at a blackjack table."""

    def event(self, action: ConsoleAction, table: Table) -> ev.Event | None:
        """The event a press means now, or None."""
        return blackjack_console_event(action, table)


CONSOLE = BlackjackConsole()
