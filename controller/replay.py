"""Replaying a session: the same events through the same engine give the same rounds.

This is the code path of `tablectl replay`, of the journal's startup replay and
of the scenario tests, so what surveillance reviews is what the table decided.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Iterable

from .alerts import AlertKind, age_text
from .engine import IllegalAction, Table
from .events import AcknowledgeAlert, BadEvent, DiscardCard, Event, LinkUp, SetRules, ShoeFaultCleared, VoidRound
from .event_codec import parse_event_line
from .effects import AlertRaised, RoundSettled
from .rules import RuleError, build_rules
from .view import table_view


@dataclass
class ReplayResult:
    """What a replay produced: the settled rounds, the table as it ended, and the first error."""

    table: Table
    rounds: list[dict[str, Any]] = field(default_factory=list)
    error: dict[str, Any] | None = None
    # What the pit's review looks for beside the rounds, in order (see `_incidents`).
    incidents: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The JSON document `tablectl replay --json` prints (``incidents`` and ``totals`` added in issue 23)."""
        voided = sum(1 for r in self.rounds if r.get("void"))
        players = sum((Decimal(r["net"]) for r in self.rounds), Decimal(0))
        out: dict[str, Any] = {
            "rounds": self.rounds,
            "phase": self.table.phase.value,
            "alerts": [a.as_dict() for a in self.table.open_alerts()],
            "incidents": self.incidents,
            # The house's result, as everywhere but the rounds' own `net` (the players', kept as it was).
            "totals": {"rounds_settled": len(self.rounds) - voided, "rounds_voided": voided,
                       "house_result": str(-players) if players else "0"},
        }
        bank = table_view(self.table, reveal_closed=True).get("bank")  # a game with a bank (club-21-36) shows it
        if bank is not None:
            # The bank as the session left it: the rounds' records end at their settlement, and a supervisor
            # closes a bank between rounds, so only this tells "closed" from "still open".
            out["bank"] = {key: bank[key] for key in ("state", "balance", "opened_with", "rounds_played",
                                                        "duels_played")}
        if self.table.imported is not None:  # issue 38: a session from an imported journal says so
            out["imported"] = dict(self.table.imported)
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
            event = parse_event_line(line, recorded=True)
            if result is None:
                table = _new_table(event, profile, options)
                result = ReplayResult(table)
                if isinstance(event, SetRules):
                    # The rules row is applied too, as the live table applied it (with the rules the
                    # table was built with): its time is the table's first, so the replay ends in
                    # the very state the live table did, clock included.
                    event = replace(event, profile=table.rules.name, options=table.rules.options())
            _apply(result.table, event, result.rounds, result.incidents)
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
            event = parse_event_line(first, recorded=True)
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


def _apply(table: Table, event: Event, rounds: list[dict[str, Any]], incidents: list[dict[str, Any]]) -> None:
    before = _before(table, event) if type(event) in _PIT_ACTS else None
    settled = len(rounds)  # an incident comes before the round its event settles (a void, an empty shoe)
    for effect in table.apply(event):
        if type(effect) is RoundSettled:
            rounds.append(effect.result)
        elif type(effect) is AlertRaised:
            # every alert raised, notices included (a due shuffle, a weak shuffle), each in its cause's own words:
            # the board counts the alerts of a kind past what it holds on one, the replay lists each (issue 38)
            alert = effect.alert
            said = effect.said or alert.message
            text = f"held: {said}" if alert.kind is AlertKind.UNEXPECTED_CARD else said
            incidents.append(_incident(event, text, alert.level.value, getattr(table.round, "number", None), settled,
                                       alert.kind.value))
    if before is not None:
        incidents.append(_incident(event, _act_text(event, before), None, before["round"], settled))
        return
    act = table.game.incident(table, event)  # a game's own act no round records (a bank opened or closed)
    if act is not None:
        incidents.append(_incident(event, act, None, None, settled))


# What people and the shoe did about an alert: each is an incident too.
_PIT_ACTS = frozenset({ShoeFaultCleared, DiscardCard, VoidRound, AcknowledgeAlert, LinkUp})


def _before(table: Table, event: Event) -> dict[str, Any]:
    """What an act's words need from the table before it is applied: the held cards, the round, the alert."""
    alert = next((a for a in table.alerts if a.id == event.alert_id), None) if isinstance(event, AcknowledgeAlert) \
        else None
    return {"held": [c.code for c in table.held], "round": getattr(table.round, "number", None), "alert": alert}


def _act_text(event: Event, before: dict[str, Any]) -> str:
    who = event.actor or "the supervisor"
    if isinstance(event, ShoeFaultCleared):
        return f"shoe fault {event.kind} cleared (the shoe reports its cause gone)"
    if isinstance(event, LinkUp):
        return "shoe link back up"
    if isinstance(event, DiscardCard):
        held = before["held"]
        return f"{who} discards the held card{'s' if len(held) > 1 else ''} {' '.join(held)}".rstrip()
    if isinstance(event, VoidRound):
        n = before["round"]
        return f"{who} voids round {n}" if n is not None else f"{who} voids the bets placed for the next round"
    assert isinstance(event, AcknowledgeAlert)
    alert = before["alert"]
    text = f"{who} acknowledges alert {event.alert_id}"
    if alert is not None:
        text += f" ({alert.message})"
        if alert.raised_at is not None and event.at is not None:
            text += f" after {age_text((event.at - alert.raised_at).total_seconds())}"
    return text


def _incident(event: Event, text: str, level: str | None, round_number: int | None, settled: int,
              alert: str | None = None) -> dict[str, Any]:
    """One incident: when (the event's time, and the round in play, if any), what, its alert's kind and level."""
    return {
        "at": event.at.isoformat() if event.at is not None else None,
        "type": event.type,
        "round": round_number,
        "after_rounds": settled,  # rounds in the replay's list before it: where it falls among them
        "level": level,
        "alert": alert,  # the alert's kind (issue 38); null for what people and the shoe did
        "text": text,
    }

