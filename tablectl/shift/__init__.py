"""The shift report a supervisor signs (issue 41, part 4): made from the journal, verified as the dispute record is.

`make_report` replays the journal's rows (up to a row, for a signature's check) through the engine once, into
the pit's books (`controller.ratings`, `controller.inventory`, `controller.mtl`) and the alerts' log, and books
each dealer's pace (`tablectl.figures.dealer_book`), for the shift ``start``..``end``: rounds and hands, pace per
dealer, win/loss and hold of the inventory periods opened in it, fills and credits, every alert raised in it with
who acknowledged it and how long it waited, the rating slips, the MTL's buy-ins and alerts, the limit changes,
the protection findings. The report is plain data; its **digest** is the SHA-256 of its canonical JSON (keys
sorted, no spaces, UTF-8).

**Signing** (decided): the supervisor's own API key, not a personal Ed25519 key. A `sign_shift {start, end,
digest}` event is a supervisor's action, journalled under the key's holder (``supervisor:NAME``) through the one
writer, and the journal's HMAC chain binds it to every row before it; the table's deploy already gives each
supervisor a key, where personal signing keys would need their own issue, storage and revocation. `verify`
makes the report again from the rows before the signature and compares the digests: a changed history fails
(and a row changed in place fails the journal's own check first).

Rendered in English or Russian from one catalogue per language (`en.json`, `ru.json` here: every key in both,
a test checks), numbers and money in the language's way; HTML, and a PDF of the same page (WeasyPrint).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from datetime import datetime, timezone
from functools import lru_cache
from importlib import resources
from typing import Any

from controller import events as ev
from controller.alerts import ALERT_LEVEL, AlertKind
from controller.effects import AlertRaised, RoundSettled
from controller.engine import IllegalAction, Table
from controller.event_codec import dump_event
from controller.inventory import InventoryBook
from controller.journal import JournalReader
from controller.money import money
from controller.mtl import MtlBook
from controller.ratings import RatingBook, before
from controller.replay import session_rules
from controller.rules import build_rules

FORMAT = 1
LANGUAGES = ("en", "ru")
FINDINGS = {AlertKind.SLUG.value, AlertKind.WEAK_SHUFFLE.value, AlertKind.SIDE_BET_EDGE.value}


class PdfUnavailable(RuntimeError):
    """No PDF can be made here (WeasyPrint's pango is missing)."""


def _iso(at: datetime | None) -> str | None:
    return at.astimezone(timezone.utc).isoformat().replace("+00:00", "Z") if at is not None else None


def _within(at: datetime | None, start: datetime, end: datetime) -> bool:
    return at is not None and start <= at < end


def make_report(reader: JournalReader, start: datetime, end: datetime, table: str, upto_seq: int | None = None
                ) -> dict[str, Any]:
    """The shift ``start``..``end`` from the journal's rows (those before row ``upto_seq`` if given)."""
    from tablectl.figures import Window, dealer_book, dealer_json
    from tablectl.pit_json import period_json, person_json
    from tablectl.ratings import basic_edge, blackjack_cost, session_row

    entries = [e for e in reader.entries() if upto_seq is None or e.seq < upto_seq]
    report: dict[str, Any] = {"format": FORMAT, "table": table, "start": _iso(start), "end": _iso(end)}
    if not entries:
        rules = build_rules()
    else:
        profile, options = session_rules([json.dumps(dump_event(entries[0].event))])
        rules = build_rules(profile, options)
    t = Table(rules)  # watched as the live table is: the protection's alerts, and so every alert's id, are its
    ratings = RatingBook(basic_edge(rules), blackjack_cost(rules), start, end)
    inventory, mtl = InventoryBook(), MtlBook()
    alerts: dict[int, tuple[dict[str, Any], Any]] = {}  # id -> (its line, the board's Alert, read at the end)
    rounds = hands = 0
    house = 0
    for entry in entries:
        if entry.received_at >= end:
            break
        event = entry.event
        was = before(t)
        try:
            effects = t.apply(event)
        except IllegalAction:
            continue
        if event.at is None:
            ratings.now = entry.received_at
        ratings.event(event, effects, was)
        inventory.event(event, effects, (money(t.rules.table_min_cents), money(t.rules.table_max_cents)))
        mtl.event(event, effects, t.buyer(event) if isinstance(event, ev.BuyIn) else None)
        at = event.at or entry.received_at
        for effect in effects:
            if isinstance(effect, AlertRaised) and _within(effect.alert.raised_at or at, start, end):
                alerts[effect.alert.id] = (_alert_line(effect, at), effect.alert)
            elif isinstance(effect, RoundSettled) and not effect.round.voided and _within(at, start, end):
                rounds += 1
                hands += sum(len(b.hands) for b in effect.round.boxes)
                house -= effect.round.net()
    alert_lines = _alert_lines(alerts, end)
    periods = [p for p in inventory.periods if _within(p.opened_at, start, end)]
    wins = [p.win for p in periods if p.win is not None]
    drops = [p.drop for p in periods if p.drop is not None and p.win is not None]
    win = sum(w for w in wins) if wins else None
    drop = sum(drops) if drops else None
    people = [person_json(line) for day in sorted(mtl.days) for line in mtl.day(day)
              if any(_within(e.at, start, end) for e in line.entries)]
    # (the dealers' book reads the rows up to the shift's end: a shift is signed after it, `sign_shift` refuses
    # one not over, so the rows before a signature hold them all)
    dealers = [dealer_json(line) for line in dealer_book(reader, window=Window(since=start, until=end)).report()]
    report.update({
        "rounds": rounds, "hands": hands, "table_win": money(house),
        "win": money(win) if win is not None else None, "drop": money(drop) if drop is not None else None,
        "hold_pct": round(100 * win / drop, 2) if win is not None and drop else None,
        "fills": money(sum(p.total("fill") for p in periods)), "credits": money(sum(p.total("credit") for p in periods)),
        "inventory": [period_json(p, 0) for p in periods],
        "dealers": dealers,
        "alerts": alert_lines,
        "findings": [a for a in alert_lines if a["kind"] in FINDINGS],
        "ratings": [session_row(table, s) for s in ratings.report()],
        "mtl": people,
        "limit_changes": [{"at": _iso(c.at), "by": c.by, "from": list(c.before), "to": list(c.after)}
                          for c in inventory.limits if _within(c.at, start, end)],
    })
    return report


def _alert_line(effect: AlertRaised, at: datetime) -> dict[str, Any]:
    a = effect.alert
    return {"id": a.id, "kind": a.kind.value, "level": ALERT_LEVEL[a.kind].value,
            "message": effect.said or a.message, "raised_at": _iso(a.raised_at or at)}


def _alert_lines(alerts: dict[int, tuple[dict[str, Any], Any]], end: datetime) -> list[dict[str, Any]]:
    """Each alert's line with who acknowledged it (a supervisor's ack_alert, or the act that ended its cause: a
    shuffle, a discard), when, and how long it waited, as the board's Alert reads at the end of the replay."""
    lines = []
    for line, alert in sorted(alerts.values(), key=lambda item: item[0]["id"]):
        seen = alert.acknowledged and alert.acknowledged_at is not None and alert.acknowledged_at < end
        raised = alert.raised_at
        lines.append({**line, "acknowledged_by": alert.acknowledged_by if seen else None,
                      "acknowledged_at": _iso(alert.acknowledged_at) if seen else None,
                      "waited_seconds": max((alert.acknowledged_at - raised).total_seconds(), 0.0)
                      if seen and raised is not None and alert.acknowledged_at is not None else None})
    return lines


def alert_log(reader: JournalReader, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """Every alert raised in ``start``..``end``, as the shift report lists them (who acknowledged each, when, how
    long it waited): the dashboard's shift log (issue 41), asked for each time the table's alerts change.

    The rows are replayed from the newest state the table kept (a snapshot, its MAC checked) before the window's
    first row, as the live table restarts from it: its alert board, next alert id and protection watch are the
    table's own, so every alert raised in the window is raised again with its id, in work bounded by the window,
    not the journal (issue 37). With no such state, from the first row."""
    from controller.errors import SnapshotError  # (the snapshot's own error: only here)

    t: Table | None = None
    after = 0
    kept = reader.snapshot_at_or_before(reader.first_seq_at(start) - 1)
    if kept is not None:
        try:
            t, after = Table.from_snapshot(kept[1]), kept[0]
        except SnapshotError:
            t = None
    entries = reader.entries(after if t is not None else 0)
    first = next(entries, None)
    if first is None:
        return []
    if t is None:
        profile, options = session_rules([json.dumps(dump_event(first.event))])
        t = Table(build_rules(profile, options))  # watched as the live table is: every alert's id is the live one's
    alerts: dict[int, tuple[dict[str, Any], Any]] = {}
    for entry in itertools.chain([first], entries):
        if entry.received_at >= end:
            break
        try:
            effects = t.apply(entry.event)
        except IllegalAction:
            continue
        at = entry.event.at or entry.received_at
        for effect in effects:
            if isinstance(effect, AlertRaised) and _within(effect.alert.raised_at or at, start, end):
                alerts[effect.alert.id] = (_alert_line(effect, at), effect.alert)
    return _alert_lines(alerts, end)


def digest(report: dict[str, Any]) -> str:
    """The SHA-256 of the report's canonical JSON (keys sorted, no spaces, UTF-8): what a supervisor signs."""
    text = json.dumps(report, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def signatures(reader: JournalReader, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """Every signature of the shift ``start``..``end`` in the journal: who, when, the row, the digest signed."""
    out = []
    for entry in reader.entries():
        e = entry.event
        if isinstance(e, ev.SignShift) and e.start == start and e.end == end:
            out.append({"by": e.actor, "at": _iso(e.at or entry.received_at), "row": entry.seq, "digest": e.digest})
    return out


def verify(reader: JournalReader, start: datetime, end: datetime, table: str) -> list[dict[str, Any]]:
    """Each signature of the shift with ``verified``: the report made again from the rows before it has the digest
    it signed."""
    checked = []
    for signature in signatures(reader, start, end):
        again = digest(make_report(reader, start, end, table, upto_seq=signature["row"]))
        checked.append({**signature, "verified": again == signature["digest"], "digest_now": again})
    return checked


# ---------------------------------------------------------------------------- rendering
@lru_cache(maxsize=4)
def catalogue(language: str) -> dict[str, str]:
    """The message catalogue of ``language`` (en, ru)."""
    if language not in LANGUAGES:
        raise ValueError(f"no language {language!r}: {', '.join(LANGUAGES)}")
    text = resources.files(__package__).joinpath(f"{language}.json").read_text(encoding="utf-8")
    data: dict[str, str] = json.loads(text)
    return data


def number(value: Any, language: str, places: int | None = None) -> str:
    """A number as the language writes it: ``12,345.50`` in English, ``12 345,50`` in Russian (no-break space)."""
    if value is None or value == "":
        return "—"
    x = float(value)
    text = f"{x:,.{places}f}" if places is not None else (f"{x:,.2f}" if x != int(x) else f"{int(x):,}")
    if language == "ru":
        text = text.replace(",", "\u00a0").replace(".", ",")
    return text


def when(iso: str | None, language: str) -> str:
    """A UTC time as the language writes dates: ``2026-12-07 21:05 UTC`` / ``07.12.2026 21:05 UTC``."""
    if not iso:
        return "—"
    t = datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(timezone.utc)
    return t.strftime("%d.%m.%Y %H:%M UTC" if language == "ru" else "%Y-%m-%d %H:%M UTC")


@lru_cache(maxsize=1)
def _template() -> Any:
    from jinja2 import Environment, StrictUndefined

    env = Environment(autoescape=True, undefined=StrictUndefined)
    text = resources.files(__package__).joinpath("report.html.j2").read_text(encoding="utf-8")
    return env.from_string(text)


def to_html(report: dict[str, Any], language: str = "en", signed: list[dict[str, Any]] | None = None) -> str:
    """The report as one self-contained page in ``language`` (no script, link or image; print CSS for the PDF)."""
    from controller.protection.dealers import NOBODY

    words = catalogue(language)
    return str(_template().render(r=report, t=words, lang=language, digest=digest(report), signed=signed or [],
                                  nobody=NOBODY,
                                  n=lambda v, p=None: number(v, language, p), when=lambda v: when(v, language)))


def to_pdf(report: dict[str, Any], language: str = "en", signed: list[dict[str, Any]] | None = None) -> bytes:
    """The same page as a PDF (A4), nothing fetched."""
    try:
        from weasyprint import HTML
        from weasyprint.urls import URLFetcher
    except (ImportError, OSError) as exc:
        raise PdfUnavailable(f"a PDF cannot be made on this machine ({str(exc).splitlines()[0][:160]}); the report "
                             "is there as HTML and JSON") from None
    pdf: bytes = HTML(string=to_html(report, language, signed),
                      url_fetcher=URLFetcher(allowed_protocols=())).write_pdf()
    return pdf
