"""Rule profiles: every way one table's game differs from another's, as data.

The built-in profiles restate ``shared/rules.md`` (`controller.profiles`); every point marked
"(decided)" there is an option of the game's options model, which lives in the game's folder
(``controller/games/<game>/rules.py``) and is named here once for callers. Option names are
public (session files, config, ``--set``) and snake_case.
"""

from __future__ import annotations

from typing import Any, Iterable, Union, cast

from pydantic import BaseModel, ValidationError

from .explain import Fault, explain
from .games import GAMES
from games.blackjack.rules import (DealerBlackjackTakes, DoubleRule, InsuranceAmount, Peek, RuleProfile, SplitBy,
                                    SurrenderRule)
from games.club_21.rules import Club21Rules, NaturalAgainstNatural, Ties
from games.club_21_36.rules import Club2136Rules, DarkBothBust
from .profiles import PROFILES, profiles

__all__ = ["PROFILES", "ClubRules", "Club21Rules", "Club2136Rules", "DarkBothBust", "DealerBlackjackTakes",
           "DoubleRule", "InsuranceAmount", "NaturalAgainstNatural", "Peek", "RuleError", "RuleProfile", "Rules",
           "SplitBy", "SurrenderRule", "Ties", "build_rules", "load_rules", "option_names",
           "parse_set_options", "profiles"]

Rules = Union[RuleProfile, Club21Rules, Club2136Rules]  # the rules of any game a table can play (for the type checker)
ClubRules = Union[Club21Rules, Club2136Rules]


def _model(game: str) -> type[BaseModel]:
    # Each game's options model is the registry's (Game.rules_model), read when asked: a new game adds nothing here.
    return GAMES[game].rules_model


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


def option_names(game: str = "blackjack") -> list[str]:
    """The public names of every rule option of a game (blackjack's by default)."""
    return [n for n in _model(game).model_fields if n != "name"]


def build_rules(profile: str = "ru-standard", options: dict[str, Any] | None = None) -> Rules:
    """Return a built-in profile with `options` overriding it; RuleError names a bad option.

    The profile's ``game`` picks the options model (blackjack's, club-21's or club-21-36's); an
    option ``game`` naming another game is refused: a profile of that game is chosen instead.
    """
    # A game with no named profile is a profile of its own defaults (as club-21's is): a new game plays
    # by its registry line alone.
    base = PROFILES.get(profile) or ({"name": profile, "game": profile} if profile in GAMES else None)
    if base is None:
        raise RuleError(f"unknown rule profile '{profile}' (built in: {', '.join(PROFILES)})")
    game = base.get("game", "blackjack")
    data = {**base, **(options or {})}
    if data.get("game", game) != game:
        others = ", ".join(profiles(data["game"])) if isinstance(data["game"], str) else ""
        raise RuleError(f"rule option 'game' = {data['game']!r}: profile '{profile}' plays {game}"
                        + (f"; choose the profile {others}" if others else f" (games: {', '.join(GAMES)})"))
    data["name"] = profile
    data["game"] = game
    try:
        return cast(Rules, _model(game)(**data))
    except ValidationError as exc:
        raise RuleError(_explain(exc, game)) from None
    except TypeError as exc:  # e.g. a non-string key
        raise RuleError(f"rule options are not valid: {exc}") from None


def load_rules(name: str, options: dict[str, Any]) -> Rules:
    """The rules a session or snapshot recorded: the profile's name and every option (``game`` among them)."""
    game = options.get("game", "blackjack")
    model = _model(game) if isinstance(game, str) and game in GAMES else None
    if model is None:
        raise RuleError(f"rule option 'game' = {game!r} is not a game (games: {', '.join(GAMES)})")
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
