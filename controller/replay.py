"""Replaying a session: the same events through the same engine give the same rounds.

This is the code path of `tablectl replay`, of the journal's startup replay and
of the scenario tests, so what surveillance reviews is what the table decided.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable

from .engine import IllegalAction, Table
from .events import BadEvent, Event, SetRules, parse_event_line
from .effects import RoundSettled
from .rules import RuleError, build_rules, non_default_options


@dataclass
class ReplayResult:
    """What a replay produced: the settled rounds, the table as it ended, and the first error."""

    table: Table
    rounds: list[dict[str, Any]] = field(default_factory=list)
    error: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON document `tablectl replay --json` prints."""
        out: dict[str, Any] = {
            "rounds": self.rounds,
            "phase": self.table.phase.value,
            "alerts": [a.as_dict() for a in self.table.open_alerts()],
        }
        if self.error is not None:
            out["error"] = self.error
        return out


def replay_lines(
    lines: Iterable[str],
    profile: str | None = None,
    options: dict[str, Any] | None = None,
) -> ReplayResult:
    """Replay JSON Lines; `profile`/`options` (from the command line) override the session's rules line.

    Stops at the first line that is not a valid event or is illegal where it stands.
    """
    result: ReplayResult | None = None  # made, with its table, by the first line
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = parse_event_line(line)
            if result is None:
                table = _new_table(event, profile, options)
                result = ReplayResult(table)
                if isinstance(event, SetRules):
                    # The rules row is applied too, as the live table applied it (with the rules the
                    # table was built with): its time is the table's first, so the replay ends in
                    # the very state the live table did, clock included.
                    event = replace(event, profile=table.rules.name, options=non_default_options(table.rules))
            _apply(result.table, event, result.rounds)
        except (BadEvent, IllegalAction) as exc:
            if result is None:
                result = ReplayResult(Table(build_rules(profile or "ru-standard", options)))
            result.error = {"line": number, "code": exc.code, "message": exc.message}
            return result
        except RuleError as exc:
            result = result or ReplayResult(Table())
            result.error = {"line": number, "code": "bad_rules", "message": str(exc)}
            return result
    if result is None:
        result = ReplayResult(Table(build_rules(profile or "ru-standard", options)))
    return result


def session_rules(lines: Iterable[str], profile: str | None = None,
                  options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """The profile and options ``replay_lines`` would build the table with: the session's rules line (its
    first line, when it is one) with ``profile``/``options`` over it, else ``ru-standard``. A line that is
    not an event is left for the replay to report."""
    first = next((line for line in lines if line.strip()), None)
    event: Event | None = None
    if first is not None:
        try:
            event = parse_event_line(first)
        except BadEvent:
            event = None
    if isinstance(event, SetRules):
        return profile or event.profile, {**event.options, **(options or {})}
    return profile or "ru-standard", dict(options or {})


def _new_table(first: Event, profile: str | None, options: dict[str, Any] | None) -> Table:
    if isinstance(first, SetRules):
        merged = {**first.options, **(options or {})}
        return Table(build_rules(profile or first.profile, merged))
    return Table(build_rules(profile or "ru-standard", options))


def _apply(table: Table, event: Event, rounds: list[dict[str, Any]]) -> None:
    for effect in table.apply(event):
        if type(effect) is RoundSettled:
            rounds.append(effect.result)

