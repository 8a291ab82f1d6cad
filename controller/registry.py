"""The registry of games: which games this install plays, found by their entry points, one line each.

A game is a folder (``games/<name>/``) whose ``__init__.py`` exports ``ENTRY``, a `GameEntry`: the
game's engine (a `controller.game.Game`, or the ``"module:Class"`` it is made from on first use), its
named rule profiles, as data, and its other parts (its view model, display and console mappings,
terminal lines, dispute section, virtual dealer's moves, simulator hook...), keyed by the name of the
part of the table that uses each. The folder is made known by one line in ``pyproject.toml``::

    [project.entry-points."tablectl.games"]
    blackjack = "games.blackjack:ENTRY"

The registry reads those entry points (``importlib.metadata``) on the first lookup, once per process,
and `register` adds a game at run time (a test's game). Nothing here names a game: the engine, the
rules, the event decoder and every consumer above ask the registry, and a consumer takes a part it
needs through its own accessor, which checks the part against that consumer's own Protocol.

Every game's name, profiles and parts are known from the start, its engine (and its events, its
rules' model: everything its ``game.py`` imports) only once asked for: a table loads the engine its
rules name, not every installed game's (issue 36: a table plays one game; the others cost 3 MB of its
RSS). What is built from every game a process plays (the event decoder, the API's models) takes the
`loaded` ones; `load_all` loads the rest (an event of a game not loaded yet, the checks).

Loading stops loudly, naming what clashes, on a second game of a name, a second profile of a name, an
entry point that does not load or is not an entry; and, when the engine is loaded (`load_all`: every
one), on an event ``type`` two different classes claim or an engine that is not its entry's game.
"""

from __future__ import annotations

import importlib
import threading
from importlib.metadata import entry_points
from typing import Any, Iterator, Mapping

from .game import Game

__all__ = ["ENTRY_POINT_GROUP", "GameEntry", "PartError", "RegistryError", "checked_part", "entries", "entry", "game",
           "load_all", "loaded", "names", "part", "profile", "profiles", "register", "registered"]

ENTRY_POINT_GROUP = "tablectl.games"


class RegistryError(LookupError):
    """A game, profile or part that is not registered, or a registry that cannot be loaded; the message says which."""


class PartError(RegistryError):
    """A game has no such part, or a part that is not what its consumer needs: the message names both."""


class GameEntry:
    """One game as the registry holds it: its engine, its named profiles and its other parts.

    ``game``: the engine, or the ``"module:Class"`` of its class, made (``Class()``) when first asked for;
    ``name`` is then required (the entry point's name, the rules' ``game``), and the engine must have it.
    ``profiles``: profile name -> the options that differ from the game's defaults (the game is implied).
    ``parts``: a consumer's name for a part ("display", "console", "dealer", ...) -> the part, or a
    ``"module:attribute"`` reference loaded on first use (a table never loads its simulator, nor the
    service its virtual dealer). A consumer checks the part it takes against its own Protocol.
    """

    __slots__ = ("_engine", "engine_ref", "name", "parts", "profiles")

    def __init__(self, game: Game[Any, Any] | str, profiles: Mapping[str, Mapping[str, Any]] | None = None,
                 parts: Mapping[str, object] | None = None, *, name: str | None = None) -> None:
        self.engine_ref: str | None
        self._engine: Game[Any, Any] | None
        if isinstance(game, str):
            if name is None:
                raise RegistryError(f"the game made from {game!r} needs its name (GameEntry(..., name=...))")
            self.engine_ref, self._engine = game, None
        else:
            self.engine_ref, self._engine = None, game
            if name is not None and name != game.name:
                raise RegistryError(f"the entry named {name!r} holds the game {game.name!r}")
            name = game.name
        self.name: str = name
        self.profiles: Mapping[str, Mapping[str, Any]] = profiles if profiles is not None else {}
        self.parts: Mapping[str, object] = parts if parts is not None else {}

    @property
    def game(self) -> Game[Any, Any]:
        """The game's engine, made on first use (its events then join the registry's: `loaded`)."""
        engine = self._engine
        return engine if engine is not None else _load_engine(self)

    @property
    def is_loaded(self) -> bool:
        """Whether the engine is made (a game passed as an engine always is)."""
        return self._engine is not None

    @property
    def origin(self) -> str:
        """Where the engine comes from, for a message: its ``"module:Class"`` or its class's module."""
        return self.engine_ref or type(self._engine).__module__

    def __repr__(self) -> str:
        return f"GameEntry({self.name!r}, {self.origin})"


_lock = threading.RLock()
_entries: dict[str, GameEntry] = {}
_profiles: dict[str, str] = {}  # profile name -> the game it plays
_event_types: dict[str, type] = {}  # an event's wire type -> the class that claims it
_loaded_parts: dict[tuple[str, str], object] = {}
_engine_events: dict[str, list[type]] = {}  # game name -> the event classes its loaded engine brought
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
        raise RegistryError(f"two games are named {name!r}: {_entries[name].origin} and {e.origin}")
    for p in e.profiles:
        if p in _profiles:
            raise RegistryError(f"the profile {p!r} of the game {name!r} is already a profile of {_profiles[p]!r}")
    if e.profiles and any(p in _entries for p in e.profiles if p != name):
        clash = next(p for p in e.profiles if p in _entries and p != name)
        raise RegistryError(f"the profile {clash!r} of the game {name!r} is the name of another game")
    if e.is_loaded:
        _claim_events(e.name, e.game)
    _entries[name] = e
    for p in e.profiles:
        _profiles[p] = name
    _generation += 1


def _claim_events(name: str, g: Game[Any, Any]) -> None:
    """Add a loaded engine's own event types, or refuse one another class claims already (nothing is added)."""
    claimed: dict[str, type] = {}
    for cls in _own_events(g):
        wire = _wire_type(cls)
        holder = _event_types.get(wire) or claimed.get(wire)
        if holder is not None and holder is not cls:
            raise RegistryError(f"the event type {wire!r} of the game {name!r} ({cls.__module__}.{cls.__qualname__}) is "
                                f"already {holder.__module__}.{holder.__qualname__}")
        claimed[wire] = cls
    _event_types.update(claimed)
    _engine_events[name] = list(claimed.values())


def _load_engine(e: GameEntry) -> Game[Any, Any]:
    """Make a game's engine from its ``"module:Class"``, once, and add its events (RegistryError: it does not load,
    is not the entry's game, or claims an event type of another game's)."""
    global _generation
    with _lock:
        if e._engine is not None:
            return e._engine
        assert e.engine_ref is not None
        module, _, attribute = e.engine_ref.partition(":")
        try:
            made = getattr(importlib.import_module(module), attribute)()
        except Exception as exc:  # any failure to make a game is the install's fault: say which game
            raise RegistryError(f"the engine of the game {e.name!r} ({e.engine_ref}) does not load: "
                                f"{type(exc).__name__}: {exc}") from exc
        if not isinstance(made, Game) or made.name != e.name:
            raise RegistryError(f"the engine {e.engine_ref} of the game {e.name!r} is "
                                + (f"the game {made.name!r}" if isinstance(made, Game) else
                                   f"not a Game but {type(made).__name__}"))
        if _entries.get(e.name) is e:
            _claim_events(e.name, made)
            _generation += 1
        e._engine = made
        return made


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
        for cls in _engine_events.pop(name, []):
            wire = _wire_type(cls)
            if _event_types.get(wire) is cls and not any(cls in classes for classes in _engine_events.values()):
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


def loaded() -> list[GameEntry]:
    """The registered games whose engine is loaded: the games this process plays (or has played), in the
    registry's order. What is built from them is rebuilt when `generation` changes."""
    return [e for e in entries() if e.is_loaded]


def load_all() -> list[GameEntry]:
    """Every registered game with its engine loaded: what an event of any game, or a check of every clash, needs."""
    for e in entries():
        e.game  # noqa: B018  (made now: RegistryError names the game that does not load or clashes)
    return entries()


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
    """Every loaded game's own event classes, each once (two games may share one through a shared module), in the
    registry's order whatever order the engines were loaded in (the API's union, and its document, are the same)."""
    _discover()
    return list(dict.fromkeys(cls for e in _entries.values() for cls in _engine_events.get(e.name, ())))


def supervisor_actions() -> frozenset[str]:
    """The event types only a supervisor may send: the table's own and every loaded game's (another game's cannot
    be played here before its engine is loaded)."""
    from .events import SUPERVISOR_EVENTS

    classes = set(SUPERVISOR_EVENTS).union(*(e.game.supervisor_events for e in loaded()))
    return frozenset(_wire_type(cls) for cls in classes)


def surveillance_events() -> frozenset[str]:
    """The wire types of every loaded game's events whose content is surveillance's (`Game.surveillance_events`):
    an event of a game not loaded cannot have been decoded in this process (decoding one loads every engine), and
    asking every entry here loaded every engine at the stream's first event, undoing the lazy start."""
    return frozenset(_wire_type(cls) for e in loaded() for cls in e.game.surveillance_events)


def collect_events() -> frozenset[str]:
    """The wire types of every loaded game's events that collect the commission kept in a box
    (`Game.collect_events`; loaded only, as `surveillance_events`)."""
    return frozenset(_wire_type(cls) for e in loaded() for cls in e.game.collect_events)


def stake_events() -> frozenset[type]:
    """Every loaded game's own events that stake a box before its round (`Game.stake_events`)."""
    return frozenset().union(*(e.game.stake_events for e in loaded()))


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
