"""The dealer console's presses, sent down the service's ordered path as the game's events (its registry part
``console``: `tablectl.parts.ConsolePart`)."""

from __future__ import annotations

import logging

from controller import events as ev
from controller.engine import Table
from controller.ids import BadId, person_id
from display.console import ConsoleAction, ConsoleKind

from .parts import console_part
from .service import TableService

log = logging.getLogger(__name__)

CONSOLE_ACTOR = "console"


def handle_console_action(action: ConsoleAction, service: TableService) -> None:
    """Hand a press to the service's ordered path; a refused one is journalled and logged there."""
    table = service.table
    event = badge_event(action, table) if action.kind is ConsoleKind.BADGE else \
        console_part(table.rules.game).event(action, table)
    if event is not None:
        service.post(event, CONSOLE_ACTOR)


def badge_event(action: ConsoleAction, table: Table) -> ev.Event | None:
    """A badge read at the console, in every game: the dealer on duty's own badge signs them out, any other
    badge signs its dealer in (relieving the one on duty). The engine refuses it during a round (logged)."""
    if not action.badge:
        return None
    try:
        badge = person_id(action.badge, "a badge id")  # the table's one rule for ids (controller.ids)
    except BadId as exc:
        log.warning("badge refused: %s", exc)
        return None
    if badge == table.dealer_on_duty:
        return ev.DealerOut(dealer=badge)
    return ev.DealerIn(dealer=badge)
