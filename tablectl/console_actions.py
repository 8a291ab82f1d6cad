"""The dealer console's buttons, turned into the same events the API produces."""

from __future__ import annotations

import logging

from controller import events as ev
from controller.engine import Phase
from controller.money import from_cents
from display.console import ConsoleAction, ConsoleKind

from .service import TableService

log = logging.getLogger(__name__)

CONSOLE_ACTOR = "console"


def console_event(action: ConsoleAction, service: TableService) -> ev.Event | None:
    """The table event a button press means now, or None when it means nothing here."""
    table = service.table
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
        return ev.CloseInsurance() if table.phase is Phase.INSURANCE else None
    if kind is ConsoleKind.INSURANCE and table.round is not None:
        number = action.box
        if number is None:
            return None  # insurance needs a box: press the box's button first
        for box in table.round.boxes:
            if box.number == number:
                hand = box.hands[0]
                if hand.is_blackjack and table.rules.even_money:
                    return ev.EvenMoney(box=number)
                return ev.Insure(box=number, amount=from_cents(box.bet) / 2)  # the console insures the full half
    return None


def handle_console_action(action: ConsoleAction, service: TableService) -> None:
    """Hand a press to the service's ordered path; a refused one is journalled and logged there."""
    event = console_event(action, service)
    if event is not None:
        service.post(event, CONSOLE_ACTOR)
