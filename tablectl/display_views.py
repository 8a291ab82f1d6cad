"""What each display shows: the engine's state in the display package's own model.

display/ never imports the controller, so the translation is here: each game's folder maps its felt
(the registry's ``display`` part: `tablectl.parts.DisplayPart`), and this adds the table's messages,
the same in every game.
"""

from __future__ import annotations

from controller.alerts import AlertKind
from controller.engine import Table
from controller.phase import Phase
from display.model import TableMessage, TableView

from .parts import display_part


def display_view(table: Table, link_up: bool = True, *, show_settled: bool = True) -> TableView:
    """What every display shows now: the game's felt (its registry part ``display``: each box's display and the
    dealer's; settled rounds stay unless ``show_settled`` is False), and the table's messages."""
    boxes, dealer = display_part(table.rules.game).felt(table, show_settled=show_settled)
    return TableView(boxes=boxes, dealer=dealer, messages=_messages(table, link_up))


def _messages(table: Table, link_up: bool) -> frozenset[TableMessage]:
    """The table-wide conditions standing now (every game has the same)."""
    phase = table.phase
    r = table.round
    messages: set[TableMessage] = set()
    kinds = {a.kind for a in table.open_alerts() if a.active}
    if phase is Phase.ATTENTION or AlertKind.INTEGRITY in kinds:
        messages.add(TableMessage.ATTENTION)
    if AlertKind.SHOE_FAULT in kinds:
        messages.add(TableMessage.SHOE_FAULT)
    if not link_up or AlertKind.LINK_DOWN in kinds:
        messages.add(TableMessage.LINK_DOWN)
    if AlertKind.CALL_PIT in kinds:
        messages.add(TableMessage.PIT_CALLED)
    if phase is Phase.WAITING_FOR_SHUFFLE:
        messages.add(TableMessage.SHUFFLE_DUE)
    elif table.shoe is not None and table.shoe.cut_card_out:
        messages.add(TableMessage.CUT_CARD_OUT)
    if phase is Phase.BETTING and r is None and not table.pending:
        messages.add(TableMessage.PLACE_BETS)
    return frozenset(messages)
