"""Events in and out of the session format: the table's own and every game's, decoded by one union.

A session file, the journal and the API carry events as JSON objects with a ``type``. The union pydantic
validates them with is assembled from the table's own events (`controller.events.CORE_EVENTS`) and each
loaded game's (its folder's ``events.py``, found through `controller.registry`), on first use and
again after a game is registered, loaded or taken off; a ``type`` the union does not know loads every
installed game's engine and is decoded again (a table loads only the game it plays, and a journal or
session may hold another's), so every old session and journal decodes to the same events.

Kept apart from `controller.events`, which the games' seam names for its types: this module asks the
registry, and the registry holds the games, so the events module stays below both (tests/test_layers.py).
"""

from __future__ import annotations

import json
import threading
from typing import Annotated, Any, Union, cast

from pydantic import Field, TypeAdapter, ValidationError

from . import registry
from .events import CORE_EVENTS, BadEvent, Event, wire_type
from .explain import faults, plainly

__all__ = ["BadEvent", "dump_event", "event_classes", "event_types", "parse_event", "parse_event_line"]

_lock = threading.Lock()
_built: tuple[int, TypeAdapter[Event], tuple[type[Event], ...]] | None = None
# Every decoder built, by the event classes it decodes: a registry that comes back to a set of classes it had (a
# test's game registered and taken off again, or one that brings no event of its own) takes the decoder it had,
# not a new one built wherever the next event happens to be read (under a test's frozen clock, pydantic cannot
# build a schema of datetime fields). Few: one per set of games a process plays.
_by_classes: dict[tuple[type[Event], ...], TypeAdapter[Event]] = {}


def _decoder() -> tuple[TypeAdapter[Event], tuple[type[Event], ...]]:
    """The union of every event the table knows now, built once per set of event classes (checked once per
    registry generation)."""
    global _built
    generation = registry.generation()
    built = _built
    if built is None or built[0] != generation:
        with _lock:
            built = _built
            if built is None or built[0] != generation:
                classes = (*CORE_EVENTS, *registry.event_classes())
                adapter = _by_classes.get(classes)
                if adapter is None:
                    union = cast(Any, Union)[classes]  # (built at run time: the games are the registry's)
                    adapter = TypeAdapter(cast(Any, Annotated[union, Field(discriminator="type")]))
                    _by_classes[classes] = adapter
                built = (generation, adapter, classes)
                _built = built
    return built[1], built[2]


def event_classes() -> tuple[type[Event], ...]:
    """Every event class the table decodes now: its own, then each registered game's."""
    return _decoder()[1]


def event_types() -> tuple[str, ...]:
    """Every event ``type`` the table decodes now, each once."""
    return tuple(dict.fromkeys(wire_type(cls) for cls in event_classes()))


def _explain(exc: ValidationError) -> BadEvent:
    fault = faults(exc, "event", skip=1)[0]  # where: inside the event, past its type (the union's tag)
    if fault.kind == "union_tag_invalid":
        tag = fault.ctx.get("tag")
        return BadEvent("unknown_event", f"'{tag}' is not a table event (known: {', '.join(event_types())})")
    if fault.kind == "union_tag_not_found":
        return BadEvent("unknown_event", "the event has no 'type'")
    if fault.kind == "missing":
        return BadEvent("missing_field", f"'{fault.loc[0]}' needs '{fault.where}'")
    if fault.kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return BadEvent("unknown_field", f"'{fault.where}' is not a field of '{fault.loc[0]}'")
    return BadEvent("bad_field", plainly(fault))


def _all_loaded() -> bool:
    return all(e.is_loaded for e in registry.entries())


def parse_event(data: Any, *, recorded: bool = False) -> Event:
    """Validate one decoded JSON object into an event; BadEvent names what is wrong.

    ``recorded``: the event was taken by a table already (a journal's row, a session exported from one): a
    person's id in it is not judged again by `controller.ids` (what was written is replayed as it was).
    """
    if not isinstance(data, dict):
        raise BadEvent("not_an_event", "each line must be a JSON object with a 'type'")
    context = {"recorded": True} if recorded else None
    try:
        return _decoder()[0].validate_python(data, context=context)
    except ValidationError as exc:
        bad = _explain(exc)
    if bad.code == "unknown_event" and not _all_loaded():  # another game's event: with every game, once more
        registry.load_all()
        try:
            return _decoder()[0].validate_python(data, context=context)
        except ValidationError as exc:
            bad = _explain(exc)
    raise bad


def parse_event_line(line: str, *, recorded: bool = False) -> Event:
    """Decode and validate one JSON Lines entry (``recorded``: as `parse_event`)."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadEvent("bad_json", f"not valid JSON: {exc.msg} at column {exc.colno}") from None
    except (RecursionError, ValueError):  # nested too deep, or an integer too long to convert
        raise BadEvent("bad_json", "not valid JSON: nested too deeply or a number too long") from None
    return parse_event(data, recorded=recorded)


def dump_event(event: Event) -> dict[str, Any]:
    """The event as JSON-ready data, without empty fields (the session format)."""
    if type(event) not in _decoder()[1] and not _all_loaded():  # an event made by a game not loaded here
        registry.load_all()
    data: dict[str, Any] = _decoder()[0].dump_python(event, mode="json", exclude_none=True)
    if not data.get("options", True):
        data.pop("options", None)
    return data
