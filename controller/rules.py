"""Rule profiles: every way one table's game differs from another's, as data.

Each game's named profiles (``games/<game>/profiles.py``) restate ``shared/rules.md``; every point marked
"(decided)" there is an option of the game's options model, which lives in the game's folder
(``games/<game>/rules.py``, a `Rules`). This is the loader: it finds the game and its model through the
registry (`controller.registry`), so it names no game. Option names are public (session files, config,
``--set``) and snake_case.
"""

from __future__ import annotations

from typing import Any, Iterable, cast

from pydantic import BaseModel, ValidationError

from . import registry
from .explain import Fault, explain
from .rule_parts import Rules

__all__ = ["RuleError", "Rules", "build_rules", "load_rules", "option_names", "parse_set_options", "profiles"]

DEFAULT_PROFILE = "ru-standard"
"""The profile a table plays when it is given none (a new table, a session without a rules line)."""
DEFAULT_GAME = "blackjack"
"""The game of rules recorded before a rules line named its game (an old session's or snapshot's)."""


def _model(game: str) -> type[BaseModel]:
    # Each game's options model is the registry's (Game.rules_model), read when asked: a new game adds nothing here.
    return registry.game(game).rules_model


def profiles(game: str | None = None) -> list[str]:
    """The named profiles, or those that play ``game`` (e.g. the blackjack ones)."""
    return registry.profiles(game)


class RuleError(ValueError):
    """A profile name or option value that cannot be used; the message names it."""


def _explain(exc: ValidationError, game: str) -> str:
    def say(fault: Fault) -> str:
        if fault.kind == "extra_forbidden":
            return f"unknown rule option '{fault.where}' (known: {', '.join(option_names(game))})"
        if fault.kind in ("enum", "literal_error"):
            return f"rule option '{fault.where}' = {fault.input!r} is not allowed; use {fault.ctx.get('expected', '')}"
        return f"rule option '{fault.where}' = {fault.input!r}: {fault.message}" if fault.loc else fault.message
    return explain(exc, "options", say=say)


def option_names(game: str = DEFAULT_GAME) -> list[str]:
    """The public names of every rule option of a game (the default game's by default)."""
    return [n for n in _model(game).model_fields if n != "name"]


def build_rules(profile: str = DEFAULT_PROFILE, options: dict[str, Any] | None = None) -> Rules:
    """Return a built-in profile with `options` overriding it; RuleError names a bad option.

    The profile's ``game`` picks the options model (the registry's); an option ``game`` naming another
    game is refused: a profile of that game is chosen instead.
    """
    # A game with no named profile is a profile of its own defaults (as club-21's is): a new game plays
    # by its registry line alone.
    base = registry.profile(profile) or ({"name": profile, "game": profile} if registry.is_game(profile) else None)
    if base is None:
        raise RuleError(f"unknown rule profile '{profile}' (built in: {', '.join(registry.profiles())})")
    game = base["game"]
    data = {**base, **(options or {})}
    if data.get("game", game) != game:
        others = ", ".join(profiles(data["game"])) if isinstance(data["game"], str) else ""
        raise RuleError(f"rule option 'game' = {data['game']!r}: profile '{profile}' plays {game}"
                        + (f"; choose the profile {others}" if others else f" (games: {', '.join(registry.names())})"))
    data["name"] = profile
    data["game"] = game
    try:
        return cast(Rules, _model(game)(**data))
    except ValidationError as exc:
        raise RuleError(_explain(exc, game)) from None
    except TypeError as exc:  # e.g. a non-string key
        raise RuleError(f"rule options are not valid: {exc}") from None


def differences(have: Rules, want: Rules) -> list[tuple[str, Any, Any]]:
    """Each way ``want`` plays otherwise than ``have``: ``(what, have's, want's)``, the profile's name first
    (``profile``), then every option that differs, by name; empty when both are the same rules.

    Options are compared as a session's rules line carries them (JSON-ready), so ``10`` and ``10.0`` are one."""
    found: list[tuple[str, Any, Any]] = []
    if have.name != want.name:
        found.append(("profile", have.name, want.name))
    mine, theirs = have.options(), want.options()
    for name in sorted(mine.keys() | theirs.keys()):
        if mine.get(name) != theirs.get(name):
            found.append((name, mine.get(name), theirs.get(name)))
    return found


def load_rules(name: str, options: dict[str, Any]) -> Rules:
    """The rules a session or snapshot recorded: the profile's name and every option (``game`` among them)."""
    game = options.get("game", DEFAULT_GAME)
    model = _model(game) if registry.is_game(game) else None
    if model is None:
        raise RuleError(f"rule option 'game' = {game!r} is not a game (games: {', '.join(registry.names())})")
    try:
        return cast(Rules, model.model_validate({**options, "name": name, "game": game}))
    except ValidationError as exc:
        raise RuleError(_explain(exc, game)) from None


def parse_set_options(pairs: Iterable[str]) -> dict[str, str]:
    """Turn ``--set OPTION=VALUE`` strings into an options dict (values checked by build_rules)."""
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise RuleError(f"--set takes OPTION=VALUE, got '{pair}'")
        options[name.strip()] = value.strip()
    return options
