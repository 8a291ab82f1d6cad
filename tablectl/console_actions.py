"""The dealer console's presses, sent down the service's ordered path as the game's events (`tablectl.games`)."""

from __future__ import annotations

import logging

from display.console import ConsoleAction

from .games import console_event
from .service import TableService

log = logging.getLogger(__name__)

CONSOLE_ACTOR = "console"


def handle_console_action(action: ConsoleAction, service: TableService) -> None:
    """Hand a press to the service's ordered path; a refused one is journalled and logged there."""
    event = console_event(action, service.table)
    if event is not None:
        service.post(event, CONSOLE_ACTOR)
