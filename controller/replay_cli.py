"""`tablectl replay SESSION.jsonl [--rules PROFILE] [--set OPTION=VALUE ...] [--json]`."""

from __future__ import annotations

import argparse
import json
import sys
from decimal import Decimal
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Register replay's arguments."""
    p.add_argument("session", help="session file (JSON Lines), or - for standard input")
    p.add_argument("--rules", metavar="PROFILE", help="rule profile (overrides the session's rules line)")
    p.add_argument("--set", metavar="OPTION=VALUE", action="append", default=[],
                   help="override one rule option (repeatable)")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    """Replay the session; exit 0 when it ran through, 2 on a bad or illegal line."""
    # The engine is imported here, not above: `tablectl replay --help` builds only the parser (0.35 s cold
    # with the engine's imports, a pit PC's first command of the day).
    from .replay import replay_lines, session_rules
    from .rules import RuleError, build_rules, parse_set_options

    try:
        options = parse_set_options(args.set)
        raw = sys.stdin.buffer.read() if args.session == "-" else Path(args.session).read_bytes()
        lines = _decode_lines(raw)
        if args.rules or options:
            # Fail early, naming the option, on the profile the replay will use: the session's rules line
            # unless --rules (a club session's --set dark_both_bust=... is not a blackjack option).
            build_rules(*session_rules(lines, args.rules, options))
    except RuleError as exc:
        return _fail(args, {"line": 0, "code": "bad_rules", "message": str(exc)})
    except OSError as exc:
        return _fail(args, {"line": 0, "code": "cannot_read", "message": f"cannot read {args.session}: {exc.strerror}"})
    except BadText as exc:
        return _fail(args, {"line": exc.line, "code": "bad_text",
                            "message": f"line {exc.line} of {args.session} is not UTF-8 text"})
    result = replay_lines(lines, args.rules, options or None)
    doc = result.as_dict()
    if args.json:
        print(json.dumps(doc))
    else:
        print(format_rounds(doc))
        if result.error:
            e = result.error
            print(f"error at line {e['line']} ({e['code']}): {e['message']}", file=sys.stderr)
    return 2 if result.error else 0


class BadText(ValueError):
    """A session line that is not UTF-8 text."""

    def __init__(self, line: int) -> None:
        super().__init__(f"line {line} is not UTF-8 text")
        self.line = line


def _decode_lines(raw: bytes) -> list[str]:
    """The session's lines as text; BadText names the first line that is not UTF-8."""
    lines = raw.split(b"\n")
    out = []
    for number, line in enumerate(lines, start=1):
        try:
            out.append(line.decode("utf-8").rstrip("\r"))
        except UnicodeDecodeError:
            raise BadText(number) from None
    if out and out[-1] == "":
        out.pop()
    return out


def _fail(args: argparse.Namespace, error: dict[str, Any]) -> int:
    if args.json:
        print(json.dumps({"rounds": [], "error": error}))
    else:
        print(f"tablectl replay: {error['message']}", file=sys.stderr)
    return 2


def signed(house: Decimal) -> str:
    """The house's result signed as the dashboard and the terminal say it: ``+80``, ``-15``, ``0``."""
    if house == 0:
        return "0"
    return f"+{house}" if house > 0 else str(house)


def house_signed(players_net: str) -> str:
    """The house's result, signed, for a record's ``net`` (the players', a decimal string)."""
    return signed(-Decimal(players_net))


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def format_rounds(doc: dict[str, Any]) -> str:
    """A readable table of the rounds, for a person at a terminal: amounts are the house's (``House +80``,
    as the dashboard, the floor and the demo say them), each incident in its place among the rounds
    (a pit call, a shoe fault and its clearing, a held card, its discard, an acknowledgement), and the
    totals at the end."""
    from .round import VOID_REASON_TEXT, VoidReason

    out: list[str] = []
    imported = doc.get("imported")
    if imported:
        out.append(f"IMPORTED: not a live table's record: imported at {imported['at']} from {imported['source']} "
                   f"({imported['format']}, sha256 {imported['sha256']})")
    # Every alert is in the JSON's incidents (issue 38); the person's text leaves out the routine "cut card is out:
    # shuffle" notice, one a shoe, which the rounds' shoes already show.
    incidents = [i for i in doc.get("incidents", []) if i.get("alert") != "shuffle_due"]
    for index, r in enumerate(doc["rounds"]):
        while incidents and incidents[0]["after_rounds"] <= index:
            out.append(_incident_line(incidents.pop(0)))
        void = "  VOID" if r.get("void") else ""
        if void and r.get("void_reason") in {v.value for v in VoidReason}:  # an old record says only that it was voided
            void += f": {VOID_REASON_TEXT[VoidReason(r['void_reason'])]}"
        game = f"  {r['game']}" if "game" in r else ""
        out.append(f"Round {r['number']}  shoe {r.get('shoe_id')}{game}{void}")
        own = _game_lines(r)
        if own is not None:  # a game whose round is not blackjack-shaped reads it in its own words
            out.extend(f"  {line}" for line in own)
            out.append(f"  House {house_signed(r['net'])}")
            continue
        d = r["dealer"]
        duels = "bank" in r  # club-21-36: each hand is a duel with its own banker's hand, under it
        if not duels:
            out.append(f"  dealer   {' '.join(d['cards']):<22} {d['total']:>3}")
        for h in r["hands"]:
            total = h["total"] if "total" in h else _total(h["cards"])  # a club record gives its pack's totals
            out.append(f"  box {h['box']:<4} {' '.join(h['cards']):<22} {total:>3}"
                       f"  bet {h['bet']:>6}  {h['outcome']:<12} house {house_signed(h['net'])}")
            if h.get("stake_cut_from"):  # club-21-36: a stake placed before the deal that the bank no longer covered
                out.append(f"    stake cut from {h['stake_cut_from']} to {h['bet']}: all the bank held at its duel")
            if h.get("banker"):  # club-21-36: the banker's hand in this box's duel (none if it never played)
                kept = " (kept)" if h.get("kept") else ""
                banker_total = h.get("banker_total")
                out.append(f"    banker {' '.join(h['banker']):<22} {'' if banker_total is None else banker_total:>3}"
                           f"{kept}  bank {h.get('bank_after')}")
        for i in r["insurance"]:
            out.append(f"  box {i['box']:<4} insurance {i['amount']:>6}{'':>21}house {house_signed(i['net'])}")
        if duels:
            # An older record has no state: its `closed` meant the bank emptied.
            state = r["bank"].get("state") or ("emptied" if r["bank"].get("closed") else "open")
            out.append(f"  bank {r['bank']['before']} -> {r['bank']['after']}"
                       + ("  (emptied)" if state == "emptied" else ""))
        out.append(f"  House {house_signed(r['net'])}")
    out.extend(_incident_line(i) for i in incidents)  # after the last settled round
    totals = doc.get("totals")
    if totals is not None:
        out.append(f"Total: {_count(totals['rounds_settled'], 'round')} settled, {totals['rounds_voided']} voided; "
                   f"House {signed(Decimal(totals['house_result']))}")
    bank = doc.get("bank")
    if bank is not None:  # the bank as the session left it (club-21-36)
        out.append(f"bank: {bank['state']}, {bank['balance']} (put up {bank['opened_with']}, "
                   f"{_count(bank['rounds_played'], 'round')} of duels)")
    out.append(f"phase: {doc['phase']}")
    for a in doc["alerts"]:
        out.append(f"alert {a['id']} [{a['kind']}] {a['message']}")
    return "\n".join(out)


@runtime_checkable
class ReplayPart(Protocol):
    """A game's settled round as `tablectl replay` prints it, when its record is not blackjack-shaped (a dealer, each
    box's hands, insurance): the registry's optional ``replay`` part (baccarat's Player and Banker, its spots)."""

    def record_lines(self, record: Mapping[str, Any]) -> list[str]:
        """The round's lines between its heading and its house result (unindented), from its record."""


def _game_lines(r: Mapping[str, Any]) -> list[str] | None:
    """The round in its game's own words (its ``replay`` part), or None: the shared, blackjack-shaped lines."""
    from . import registry

    game = r.get("game")
    if not registry.is_game(game) or not registry.has_part(str(game), "replay"):
        return None
    part: ReplayPart = registry.checked_part(str(game), "replay", ReplayPart)
    return part.record_lines(r)


def _incident_line(incident: dict[str, Any]) -> str:
    """``-- 20:14:03 round 4: action  shoe fault jam: card stuck``: when, the round in play, its level, what."""
    at = incident.get("at")
    when = f" {at[11:19]}" if at and len(at) >= 19 else ""  # the time of day, as the journal holds it
    where = f" round {incident['round']}:" if incident.get("round") is not None else ""
    level = f" {incident['level']}:" if incident.get("level") else ""
    return f"--{when}{where}{level} {incident['text']}"


def _total(codes: list[str]) -> int:
    from .cards import parse_card, total_of
    return total_of([parse_card(c).value for c in codes]).best
