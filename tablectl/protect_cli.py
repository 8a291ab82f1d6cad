"""`tablectl protect`: surveillance's reading of a table's journal.

`protect report`: false, weak and preferential shuffles. The journal is verified with its key, replayed
through the engine, and every card the table placed is booked by shoe (`controller.protection.shoes`);
the pure room then watches each shoe against the one before it and scores its shuffle.

`protect dealers`: each dealer's pace, corrections and shuffles per shift (`controller.protection.dealers`),
from the same replay with the refused actions and the journal's times.

`protect players`: each player's and box's advantage-play evidence (`controller.protection.advantage`):
bets against the count, index plays, wonging, first-card and hole-card knowledge, each signal with its
sample size and p-value. Surveillance's (whoever holds the journal's key): evidence, never a verdict.

What each figure means, and what the pit does: docs/protection.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from controller.effects import RoundSettled
from controller.engine import IllegalAction, Table
from controller.event_codec import dump_event
from controller.events import BadEvent, Shuffle
from controller.journal import JournalEntry, JournalError, JournalReader
from controller.protection.advantage import FLAG_ALPHA, AdvantageBook, SubjectReport
from controller.protection.dealers import DealerShift
from controller.protection.preferential import PreferentialAudit, audit
from controller.protection.shoes import ShoeBook, ShoeCards, ShoeReport, examine, shuffle_records
from controller.replay import session_rules

from .figures import Window, dealer_book, dealer_json, player_book, player_json
from .journal_cli import history_reader, imported_from, imported_line, key_for, open_verified, parse_time, tool_status
from .parts import game_evidence, has_edge

T = TypeVar("T")


def _window_options(p: argparse.ArgumentParser, since: str) -> None:
    p.add_argument("--since", help=since)
    p.add_argument("--until", help="read the journal up to this ISO-8601 time (the rows received before it)")
    p.add_argument("--rounds", metavar="A-B", type=_round_range,
                   help="rounds A to B (the table's round numbers, as dispute --round gives them; A- or -B open): "
                        "the journal as it stood when round B settled, booked from round A")
    p.add_argument("--from-round", type=_round_number, metavar="A", help="the same as --rounds A-")
    p.add_argument("--to-round", type=_round_number, metavar="B", help="the same as --rounds -B")


def configure_parser(p: argparse.ArgumentParser) -> None:
    """The `protect` command's options."""
    sub = p.add_subparsers(dest="protect_command", metavar="COMMAND", required=True)
    report = sub.add_parser("report", help="every shoe's slug watch and shuffle score, and the preferential audit")
    report.add_argument("--db", required=True, help="the table's journal")
    report.add_argument("--key", help="its key (default: the one beside it, DB.key)")
    _window_options(report, "the shoes shuffled in at or after this ISO-8601 time")
    report.add_argument("--json", action="store_true", help="one JSON document instead of text")
    dealers = sub.add_parser("dealers", help="each dealer's pace, corrections and shuffles, per shift")
    dealers.add_argument("--db", required=True, help="the table's journal")
    dealers.add_argument("--key", help="its key (default: the one beside it, DB.key)")
    _window_options(dealers, "count from this ISO-8601 time on")
    dealers.add_argument("--json", action="store_true", help="one JSON document instead of text")
    players = sub.add_parser("players", help="each player's and box's advantage-play evidence, signal by signal")
    players.add_argument("--db", required=True, help="the table's journal")
    players.add_argument("--key", help="its key (default: the one beside it, DB.key)")
    _window_options(players, "book the rounds from this ISO-8601 time on")
    players.add_argument("--json", action="store_true", help="one JSON document instead of text")


def _round_number(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a round number is a whole number from 1, got {text!r}")
    return int(text)


def _round_range(text: str) -> tuple[int | None, int | None]:
    first, dash, last = text.partition("-")
    if not dash or not (first or last):
        raise argparse.ArgumentTypeError(f"--rounds takes A-B, A- or -B (round numbers), got {text!r}")
    a, b = (_round_number(first) if first else None), (_round_number(last) if last else None)
    if a is not None and b is not None and a > b:
        raise argparse.ArgumentTypeError(f"--rounds {text}: the first round comes after the last")
    return a, b


def window_of(args: argparse.Namespace) -> Window:
    """The part of the journal the options name (``--since``, ``--until``, ``--rounds`` / ``--from-round`` /
    ``--to-round``); ValueError, in one line, for a bad time or a range that names no round."""
    first, last = getattr(args, "rounds", None) or (None, None)
    first = args.from_round if getattr(args, "from_round", None) is not None else first
    last = args.to_round if getattr(args, "to_round", None) is not None else last
    if first is not None and last is not None and first > last:
        raise ValueError(f"round {first} comes after round {last}: no round is in the range")
    since = parse_time(args.since) if args.since else None
    until = parse_time(args.until, "--until") if getattr(args, "until", None) else None
    if since is not None and until is not None and until <= since:
        raise ValueError(f"--until {args.until} is not after --since {args.since}: nothing is in between")
    return Window(since, until, first, last)


def run(args: argparse.Namespace) -> int:
    """Print the report asked for; exit 0, 2 (cannot read: no file, no key) or 3 (the journal is refused)."""
    if args.protect_command == "dealers":
        return _run_dealers(args)
    if args.protect_command == "players":
        return _run_players(args)
    try:
        window = window_of(args)
        with open_verified(args.db, args.key, "protect report") as reader:
            entries = list(reader.entries())
            provenance = imported_from(reader)
    except (JournalError, ValueError, OSError) as exc:
        print(f"tablectl protect report: {exc}", file=sys.stderr)
        return tool_status(exc)
    table_name = Path(args.db).stem
    try:
        book, edges, rounds = _book(entries, window)
    except (BadEvent, IllegalAction) as exc:  # a verified journal replays; this is a bug or another release's row
        print(f"tablectl protect report: the journal does not replay: {exc}", file=sys.stderr)
        return 3
    reports = examine(book.shoes)
    chosen = [i for i, shoe in enumerate(book.shoes) if _in_window(shoe, rounds.get(shoe.shoe, []), window)]
    shown = [reports[i] for i in chosen]
    shuffles, counts = shuffle_records(table_name, book.shoes[chosen[0]:chosen[-1] + 2] if chosen else [])
    audits = audit(shuffles, counts)
    if args.json:
        print(json.dumps({"table": table_name, **_provenance_json(provenance),
                          "shoes": [{**_shoe_json(r), "exact_edge_at_end_pct": edges.get(r.shoe)} for r in shown],
                          "preferential": [_audit_json(a) for a in audits]}, indent=1))
    else:
        print(_text(table_name, shown, audits, edges, provenance))
    return 0


def _provenance_json(provenance: dict[str, Any] | None) -> dict[str, Any]:
    """``"imported": {...}`` for an imported journal (issue 38), nothing for a table's own."""
    return {"imported": provenance} if provenance is not None else {}


def _in_window(shoe: ShoeCards, numbers: list[int], window: Window) -> bool:
    """A shoe is reported when it was shuffled in at or after ``since`` and, with a round range, dealt a round of it."""
    if window.since is not None and (shoe.shuffled_at is None or shoe.shuffled_at < window.since):
        return False
    if window.first_round is None and window.last_round is None:
        return True
    return any((window.first_round or 1) <= n <= (window.last_round or n) for n in numbers)


def _book(entries: list[JournalEntry], window: Window) -> tuple[ShoeBook, dict[str, float | None], dict[str, list[int]]]:
    """Replay the journal (within ``window``'s end) through the engine, whose protection watch books every card
    where the table placed it; at a table whose game has an exact edge (blackjack's), the player's exact edge of the round that would have come
    next when each shoe was ended by a shuffle (per cent; surveillance's figure beside the count at the shuffle,
    for the shoes the window reports); and the round numbers each shoe dealt."""
    if not entries:
        return ShoeBook(), {}, {}
    profile, options = session_rules([json.dumps(dump_event(entries[0].event))])
    from controller.rules import build_rules

    table = Table(build_rules(profile, options), shoes_watched=None)  # every shoe, not the live table's last two
    edges: dict[str, float | None] = {}
    rounds: dict[str, list[int]] = {}

    def apply(event: Any) -> list[Any]:
        shoe = table.shoe
        if (isinstance(event, Shuffle) and shoe is not None and table.round is None
                and has_edge(table.rules.game) and table.shoe_watch.book.shoes):
            ending = table.shoe_watch.book.shoes[-1]
            if _in_window(ending, rounds.get(ending.shoe, []), window):
                edges[shoe.shoe_id] = _exact_edge(table.rules, shoe.remaining_by_rank())
        try:
            return table.apply(event)
        except IllegalAction:
            return []  # refused rows are not exported; an action refused here changed nothing either

    for _, effects in window.replay(entries, apply):
        for effect in effects:
            if isinstance(effect, RoundSettled) and effect.round.shoe_id is not None:
                rounds.setdefault(effect.round.shoe_id, []).append(effect.round.number)
    return table.shoe_watch.book, edges, rounds


def _exact_edge(rules: Any, remaining: dict[str, int]) -> float | None:
    from simulators.exact import ShoeError

    from .edge import counts_by_value
    from .parts import edge_part

    try:
        return round(100 * edge_part(rules.game).player_edge(rules, counts_by_value(remaining), "basic"), 4)
    except ShoeError:  # a shoe too short to play a round out: no figure
        return None


def _shoe_json(r: ShoeReport) -> dict[str, Any]:
    return {
        "shoe": r.shoe, "shuffled_at": r.shuffled_at.isoformat() if r.shuffled_at else None, "cards": r.cards,
        "rounds": r.rounds, "running_count": r.running_count, "true_count": r.true_count,
        "cards_before_cut": r.cards_before_cut,
        "slug": None if r.slug is None else {
            "longest": [{"reference": run.order.reference.value if run.order else None,
                         "order": run.order.name if run.order else None,
                         "turned": run.order.turned if run.order else False, "key": run.key.value,
                         "length": run.length, "start": run.new_start, "previous_start": run.previous_start}
                        for run in r.slug.runs],
            "alarms": [{"key": a.key.value, "reference": a.reference.value, "order": a.order.name,
                        "turned": a.order.turned, "length": a.length, "start": a.new_start,
                        "previous_start": a.previous_start, "at_card": a.at_card, "message": a.message}
                       for a in r.slug.alarms]},
        "quality": {"p": r.quality.p, "weak": r.quality.weak,
                    "statistics": [{"name": s.name, "observed": s.observed, "z": s.z, "p": s.p}
                                   for s in r.quality.statistics]},
    }


def _audit_json(a: PreferentialAudit) -> dict[str, Any]:
    return {"table": a.table, "shift": a.shift, "shuffled_positive": a.shuffled_positive,
            "shuffled_other": a.shuffled_other, "dealt_positive": a.dealt_positive, "dealt_other": a.dealt_other,
            "p": a.p}


def _text(table: str, reports: list[ShoeReport], audits: list[PreferentialAudit],
          edges: dict[str, float | None], provenance: dict[str, Any] | None = None) -> str:
    out = [line for line in (imported_line(provenance),) if line] + [report_verdict(reports, audits),
                                                                     f"table {table}: {len(reports)} shoe(s)"]
    for r in reports:
        when = r.shuffled_at.isoformat() if r.shuffled_at else "time unknown"
        out.append(f"shoe {r.shoe} ({when}): {r.cards} cards, {r.rounds} rounds, "
                   f"shuffle p {r.quality.p:.3g}" + (" WEAK" if r.quality.weak else ""))
        edge = edges.get(r.shoe)
        if edge is not None:
            out.append(f"  ended at true count {r.true_count:+.1f}, the next round's exact player edge "
                       f"{edge:+.3f} %")
        if r.slug is not None:
            longest = ", ".join(f"{run.key.value} {run.length} ({run.order.name})"
                                for run in r.slug.runs if run.length and run.order)
            out.append(f"  longest runs shared with the previous shoe: {longest or 'none'}")
        for alarm in r.alarms:
            out.append(f"  ALARM {alarm.message}")
        finding = r.quality.finding()
        if finding is not None:
            out.append(f"  notice: {finding.message}")
    for a in audits:
        out.append(f"preferential shuffles, {a.table} {a.shift or 'all shifts'}: {a.early_shuffles} early "
                   f"({a.shuffled_positive} at a positive true count), p {a.p:.3g}")
    return "\n".join(out)


# ---------------------------------------------------------------- tablectl protect dealers
def _replayed(args: argparse.Namespace, tool: str,
              make: Callable[[JournalReader, Window], T]) -> tuple[T, dict[str, Any] | None] | int:
    """``make(reader, window)`` over the verified journal of ``--db``, and where it was imported from (None: a
    table's own); or the exit status, said in one line: 2 when it cannot read, 3 when the journal is refused or
    does not replay."""
    try:
        window = window_of(args)
        with open_verified(args.db, args.key, f"protect {tool}") as reader:
            return make(reader, window), imported_from(reader)
    except (JournalError, ValueError, OSError) as exc:
        print(f"tablectl protect {tool}: {exc}", file=sys.stderr)
        return tool_status(exc)
    except IllegalAction as exc:  # a verified journal replays; this is a bug or another release's row
        print(f"tablectl protect {tool}: the journal does not replay: {exc}", file=sys.stderr)
        return 3


def _run_dealers(args: argparse.Namespace) -> int:
    found = _replayed(args, "dealers", lambda reader, window: dealer_book(reader, window=window))
    if isinstance(found, int):
        return found
    book, provenance = found
    table_name = Path(args.db).stem
    lines = book.report()
    if args.json:
        print(json.dumps({"table": table_name, **_provenance_json(provenance),
                          "dealers": [dealer_json(line) for line in lines]}, indent=1))
    else:
        print("\n".join([line for line in (imported_line(provenance),) if line] + [_dealers_text(table_name, lines)]))
    return 0


def _dealers_text(table: str, lines: list[DealerShift]) -> str:
    out = [f"table {table}: {len(lines)} dealer shift(s); pace per hour of dealing (on duty, less shuffles and idle)"]
    for line in lines:
        j = dealer_json(line)
        pace = ("no dealing time" if j["rounds_per_hour"] is None else
                f"{j['rounds_per_hour']} rounds/h (published {j['published_rounds_per_hour']} at "
                f"{j['boxes_per_round']} boxes), {j['hands_per_hour']} hands/h")
        per100 = j["per_100_rounds"]
        shoes = (f"{j['shoes']} shoe(s), median shuffle p {j['median_shoe_p']}, {j['weak_shoes']} weak"
                 if j["shoes"] else "no shoe shuffled in")
        out.append(f"{line.dealer}, shift {line.shift}: {line.rounds} rounds in {j['dealing_hours']} h "
                   f"(shuffles {j['shuffle_minutes']} min, idle {j['idle_minutes']} min): {pace}")
        if line.rounds:
            out.append(f"  per 100 rounds: {per100['refused']} refused, {per100['held_cards']} cards held, "
                       f"{per100['voids']} voided; {shoes}")
        else:
            out.append(f"  {line.refused} refused, {line.held_cards} cards held, {line.voids} voided; {shoes}")
    return "\n".join(out)


# ---------------------------------------------------------------- tablectl protect players
NOT_A_VERDICT = "advantage-play evidence, not a verdict"


def _run_players(args: argparse.Namespace) -> int:
    found = (_windowed_players(args) if args.since else
             _replayed(args, "players", lambda reader, window: player_book(reader, window=window,
                                                                           evidence_of=game_evidence)))
    if isinstance(found, int):
        return found
    book, provenance = found
    table_name = Path(args.db).stem
    reports = book.report()
    if args.json:
        print(json.dumps({"table": table_name, **_provenance_json(provenance), "note": NOT_A_VERDICT,
                          "flag_alpha": FLAG_ALPHA, "players": [player_json(r) for r in reports]}, indent=1))
    else:
        print("\n".join([line for line in (imported_line(provenance),) if line] + [_players_text(table_name, reports)]))
    return 0


def _windowed_players(args: argparse.Namespace) -> tuple[AdvantageBook, dict[str, Any] | None] | int:
    """``protect players --since``: the rows from the state kept before the window's shoe to the head, replayed and
    verified (each MAC covering the one before, from the state's row, whose MAC the state's is bound to), not the
    whole journal: the work is the window's (issue 37). Exit statuses as `_replayed`."""
    try:
        window = window_of(args)
        with history_reader(args.db, key_for(args.db, args.key, "protect players")) as reader:
            with reader.read_transaction():
                head = reader.head()[0]
                if head == 0:
                    raise reader.empty()
                book = player_book(reader, window=window, evidence_of=game_evidence)
                if reader.key is None:
                    print(f"tablectl protect players: no key for {args.db}: its rows are NOT verified (give --key "
                          "FILE)", file=sys.stderr)
                else:
                    start = book.replayed_from
                    reader.verify_rows(start, (reader.row_mac(start) or "") if start else "", head)
                return book, imported_from(reader)
    except (JournalError, ValueError, OSError) as exc:
        print(f"tablectl protect players: {exc}", file=sys.stderr)
        return tool_status(exc)
    except IllegalAction as exc:
        print(f"tablectl protect players: the journal does not replay: {exc}", file=sys.stderr)
        return 3


def _fmt_p(p: float | None) -> str:
    return "-" if p is None else f"{p:.2g}"


def report_verdict(reports: list[ShoeReport], audits: list[PreferentialAudit]) -> str:
    """The report in one line, before its statistics (issue 41): what the pit must act on, or that nothing was found."""
    slugs = [r.shoe for r in reports if r.alarms]
    weak = [r.shoe for r in reports if r.quality.weak]
    preferential = [a for a in audits if a.p < FLAG_ALPHA]
    found = []
    if slugs:
        found.append(f"POSSIBLE FALSE SHUFFLE (slug alarm) in shoe(s) {', '.join(slugs)}: call surveillance")
    if weak:
        found.append(f"weak shuffle in shoe(s) {', '.join(weak)}")
    for a in preferential:
        found.append(f"early shuffles follow positive counts at {a.table} {a.shift or ''} (p {a.p:.3g})".replace("  ", " "))
    if not found:
        return (f"In one line: nothing found in {len(reports)} shoe(s): no slug, no weak shuffle, no preferential "
                "shuffling")
    return "In one line: " + "; ".join(found)


def players_verdict(reports: list[SubjectReport]) -> str:
    """The players' evidence in one line, before the signals (issue 41)."""
    flagged = [r.subject for r in reports if r.flagged]
    if not flagged:
        return f"In one line: nobody flagged among {len(reports)} players and boxes ({NOT_A_VERDICT})"
    return (f"In one line: {len(flagged)} flagged for a review with the tapes: {', '.join(flagged)} "
            f"({NOT_A_VERDICT})")


def _players_text(table: str, reports: list[SubjectReport]) -> str:
    out = [players_verdict(reports),f"table {table}: {NOT_A_VERDICT} ({len(reports)} players and boxes). Each signal: its sample size n "
           f"and p-value under its null (docs/protection.md); FLAGGED: Bonferroni over the signals with a p, "
           f"below {FLAG_ALPHA}. Most players flagged by a review are ordinary: weigh it with the tapes."]
    players = {r.signals: r.subject for r in reports if not r.subject.startswith("box ")}
    for r in reports:
        kind = "" if r.subject.startswith("box ") else "player "
        mark = " FLAGGED" if r.flagged else ""
        if kind == "" and players.get(r.signals) is not None:
            out.append(f"{r.subject}: {r.rounds} rounds, the same as player {players[r.signals]}{mark}")
            continue
        out.append(f"{kind}{r.subject}: {r.rounds} rounds, combined p {_fmt_p(r.combined_p)} over {r.tested} "
                   f"signal(s){mark}")
        for s in r.signals:
            out.append(f"  {s.name:24} n {s.n:5}  p {_fmt_p(s.p):>7}  {s.explanation}")
    return "\n".join(out)
