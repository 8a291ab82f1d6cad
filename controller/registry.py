"""The registry of games: which games this install plays, found by their entry points, one line each.

A game is a folder (``games/<name>/``) whose ``__init__.py`` exports ``ENTRY``, a `GameEntry`: the
game's engine (a `controller.game.Game`), its named rule profiles, as data, and its other parts (its
view model, display and console mappings, terminal lines, dispute section, virtual dealer's moves,
simulator hook...), keyed by the name of the part of the table that uses each. The folder is made
known by one line in ``pyproject.toml``::

    [project.entry-points."tablectl.games"]
    blackjack = "games.blackjack:ENTRY"

The registry reads those entry points (``importlib.metadata``) on the first lookup, once per process,
and `register` adds a game at run time (a test's game). Nothing here names a game: the engine, the
rules, the event decoder and every consumer above ask the registry, and a consumer takes a part it
needs through its own accessor, which checks the part against that consumer's own Protocol.

Loading stops loudly, naming what clashes, on a second game of a name, a second profile of a name, an
event ``type`` two different classes claim, or an entry point that does not load or is not an entry.
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Iterator, Mapping

from .game import Game

__all__ = ["ENTRY_POINT_GROUP", "GameEntry", "PartError", "RegistryError", "checked_part", "entries", "entry", "game", "names", "part",
           "profile", "profiles", "register", "registered"]

ENTRY_POINT_GROUP = "tablectl.games"


class RegistryError(LookupError):
    """A game, profile or part that is not registered, or a registry that cannot be loaded; the message says which."""


class PartError(RegistryError):
    """A game has no such part, or a part that is not what its consumer needs: the message names both."""


@dataclass(frozen=True)
class GameEntry:
    """One game as the registry holds it: its engine, its named profiles and its other parts.

    ``profiles``: profile name -> the options that differ from the game's defaults (the game is implied).
    ``parts``: a consumer's name for a part ("display", "console", "dealer", ...) -> the part, or a
    ``"module:attribute"`` reference loaded on first use (a table never loads its simulator, nor the
    service its virtual dealer). A consumer checks the part it takes against its own Protocol.
    """

    game: Game[Any, Any]
    profiles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    parts: Mapping[str, object] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The game's name: the rules' ``game`` option, the registry's key."""
        return self.game.name


_lock = threading.RLock()
_entries: dict[str, GameEntry] = {}
_profiles: dict[str, str] = {}  # profile name -> the game it plays
_event_types: dict[str, type] = {}  # an event's wire type -> the class that claims it
_loaded_parts: dict[tuple[str, str], object] = {}
_discovered = False
_generation = 0  # counts changes: what is built from the registry (the event decoder) is rebuilt after one


def generation() -> int:
    """A number that changes whenever a game is registered or taken off (for caches built from the registry)."""
    _discover()
    return _generation


def _discover() -> None:
    """Load the games of the installed entry points, once per process."""
    global _discovered
    if _discovered:
        return
    with _lock:
        if _discovered:
            return
        found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)
        loaded: list[GameEntry] = []
        for point in found:
            try:
                value = point.load()
            except Exception as exc:  # any failure to import a game is the install's fault: say which game
                raise RegistryError(f"the game {point.name!r} ({point.value}) does not load: "
                                    f"{type(exc).__name__}: {exc}") from exc
            if not isinstance(value, GameEntry):
                raise RegistryError(f"the game {point.name!r} ({point.value}) is not a GameEntry but "
                                    f"{type(value).__name__}")
            if value.name != point.name:
                raise RegistryError(f"the entry point {point.name!r} ({point.value}) names the game {value.name!r}: "
                                    "an entry point is named as its game")
            loaded.append(value)
        for value in loaded:
            _add(value)
        _discovered = True


def _own_events(g: Game[Any, Any]) -> list[type]:
    """The event classes a game brings beyond the table's own (its dispatch may play a shared one its own way)."""
    from .events import CORE_EVENTS

    return [cls for cls in g.dispatch if cls not in CORE_EVENTS]


def _add(e: GameEntry) -> None:
    global _generation
    name = e.name
    if name in _entries:
        raise RegistryError(f"two games are named {name!r}: {type(_entries[name].game).__module__} and "
                            f"{type(e.game).__module__}")
    for p in e.profiles:
        if p in _profiles:
            raise RegistryError(f"the profile {p!r} of the game {name!r} is already a profile of {_profiles[p]!r}")
    if e.profiles and any(p in _entries for p in e.profiles if p != name):
        clash = next(p for p in e.profiles if p in _entries and p != name)
        raise RegistryError(f"the profile {clash!r} of the game {name!r} is the name of another game")
    claimed: dict[str, type] = {}
    for cls in _own_events(e.game):
        wire = _wire_type(cls)
        holder = _event_types.get(wire) or claimed.get(wire)
        if holder is not None and holder is not cls:
            raise RegistryError(f"the event type {wire!r} of the game {name!r} ({cls.__module__}.{cls.__qualname__}) is "
                                f"already {holder.__module__}.{holder.__qualname__}")
        claimed[wire] = cls
    _entries[name] = e
    _event_types.update(claimed)
    for p in e.profiles:
        _profiles[p] = name
    _generation += 1


def _wire_type(cls: type) -> str:
    """An event class's ``type``, its name on the wire (every event declares it with its literal as default)."""
    from .events import wire_type

    return wire_type(cls)


def register(e: GameEntry) -> None:
    """Add a game at run time (the installed games are loaded first; a clash is refused: RegistryError)."""
    _discover()
    with _lock:
        _add(e)


def unregister(name: str) -> None:
    """Take a game registered at run time off again (a test's game, when the test is over)."""
    global _generation
    _discover()
    with _lock:
        e = _entries.pop(name, None)
        if e is None:
            return
        for p in e.profiles:
            _profiles.pop(p, None)
        for cls in _own_events(e.game):
            wire = _wire_type(cls)
            if _event_types.get(wire) is cls and not any(cls in other.game.dispatch for other in _entries.values()):
                del _event_types[wire]
        for key in [k for k in _loaded_parts if k[0] == name]:
            del _loaded_parts[key]
        _generation += 1


class registered:
    """``with registered(entry):`` the game is registered inside the block, and taken off after it."""

    def __init__(self, *added: GameEntry) -> None:
        self.added = added

    def __enter__(self) -> None:
        for e in self.added:
            register(e)

    def __exit__(self, *exc: object) -> None:
        for e in self.added:
            unregister(e.name)


def entries() -> list[GameEntry]:
    """Every registered game, the installed ones by name, then those registered at run time."""
    _discover()
    return list(_entries.values())


def names() -> list[str]:
    """The registered games' names."""
    return [e.name for e in entries()]


def entry(name: str) -> GameEntry:
    """The registered game of that name; RegistryError lists the games when there is none."""
    _discover()
    found = _entries.get(name)
    if found is None:
        raise RegistryError(f"{name!r} is not a game (games: {', '.join(_entries)})")
    return found


def game(name: str) -> Game[Any, Any]:
    """The engine of the game of that name (RegistryError: no such game)."""
    return entry(name).game


def is_game(name: object) -> bool:
    """Whether ``name`` is a registered game's name."""
    _discover()
    return isinstance(name, str) and name in _entries


def profile(name: str) -> dict[str, Any] | None:
    """A named profile: its ``name``, its ``game`` and the options that differ from the game's defaults; None when
    there is no such profile."""
    _discover()
    game_name = _profiles.get(name)
    if game_name is None:
        return None
    return {"name": name, **_entries[game_name].profiles[name], "game": game_name}


def profiles(game_name: str | None = None) -> list[str]:
    """The named profiles, or those that play ``game_name``, in the registry's order."""
    _discover()
    return [p for e in _entries.values() if game_name is None or e.name == game_name for p in e.profiles]


def event_classes() -> list[type]:
    """Every registered game's own event classes, each once (two games may share one through a shared module)."""
    _discover()
    return list(_event_types.values())


def supervisor_actions() -> frozenset[str]:
    """The event types only a supervisor may send: the table's own and every registered game's."""
    from .events import SUPERVISOR_EVENTS

    classes = set(SUPERVISOR_EVENTS).union(*(e.game.supervisor_events for e in entries()))
    return frozenset(_wire_type(cls) for cls in classes)


def surveillance_events() -> frozenset[str]:
    """The wire types of every registered game's events whose content is surveillance's (`Game.surveillance_events`)."""
    return frozenset(_wire_type(cls) for e in entries() for cls in e.game.surveillance_events)


def collect_events() -> frozenset[str]:
    """The wire types of every registered game's events that collect the commission kept in a box
    (`Game.collect_events`)."""
    return frozenset(_wire_type(cls) for e in entries() for cls in e.game.collect_events)


def stake_events() -> frozenset[type]:
    """Every registered game's own events that stake a box before its round (`Game.stake_events`)."""
    return frozenset().union(*(e.game.stake_events for e in entries()))


def part(name: str, kind: str) -> object:
    """The part ``kind`` of the game ``name`` (a ``"module:attribute"`` reference is loaded now, once); RegistryError
    when the game has no such part. The consumer checks it against its own Protocol."""
    e = entry(name)
    key = (name, kind)
    with _lock:
        if key in _loaded_parts:
            return _loaded_parts[key]
        if kind not in e.parts:
            raise RegistryError(f"the game {name!r} has no {kind!r} part (it has: {', '.join(e.parts) or 'none'})")
        value = e.parts[kind]
        if isinstance(value, str):
            module, _, attribute = value.partition(":")
            try:
                value = getattr(importlib.import_module(module), attribute) if attribute else \
                    importlib.import_module(module)
            except (ImportError, AttributeError) as exc:
                raise RegistryError(f"the {kind!r} part of the game {name!r} ({e.parts[kind]}) does not load: "
                                    f"{type(exc).__name__}: {exc}") from exc
        _loaded_parts[key] = value
        return value


def checked_part(name: str, kind: str, protocol: type) -> Any:
    """The part ``kind`` of the game ``name``, checked against the consumer's ``protocol`` (a runtime-checkable
    Protocol): PartError names what is wrong (no such part, or not what the consumer needs)."""
    try:
        value = part(name, kind)
    except RegistryError as exc:
        raise PartError(str(exc)) from None
    if not isinstance(value, protocol):
        raise PartError(f"the {kind!r} part of the game {name!r} is not a {protocol.__name__} "
                        f"({type(value).__name__})")
    return value


def has_part(name: str, kind: str) -> bool:
    """Whether the game ``name`` has a part ``kind``."""
    return kind in entry(name).parts


def parts_of(kind: str) -> Iterator[tuple[str, object]]:
    """(game name, part) for every registered game that has a part ``kind`` (loaded now)."""
    for e in entries():
        if kind in e.parts:
            yield e.name, part(e.name, kind)
