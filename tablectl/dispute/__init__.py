"""The record of a disputed round, from a table's journal: made (`make_record`) and rendered (JSON, HTML, PDF).

`make_record` verifies the journal with its key and reads it, all as of one moment (one read transaction:
beside the live table's writer too), into the pure builder (`controller.dispute.DisputeBook`). The
renderers are the record's three forms: `to_json` (the record itself), `to_html` (one self-contained page,
every value escaped by Jinja's autoescape, print CSS) and `to_pdf` (WeasyPrint, from that very page).
`tablectl dispute` and the table's API (`GET /api/rounds/{n}/dispute`) call these; docs/dispute.md says
what the record holds.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Any

from markupsafe import Markup

from controller.cards import HIDDEN
from controller.dispute import (BookStart, CardLine, DisputeBook, DisputeOptions, DisputeRecord, JournalHead,
                                KeptRecord)
from controller.engine import Table
from controller.errors import SnapshotError
from controller.journal import JournalKey, JournalKeyError, JournalReader
from tablectl.parts import dispute_part

__all__ = ["FORMATS", "MEDIA_TYPES", "PdfUnavailable", "make_record", "render", "to_html", "to_json", "to_pdf"]

FORMATS = ("html", "pdf", "json")
MEDIA_TYPES = {"html": "text/html; charset=utf-8", "pdf": "application/pdf", "json": "application/json"}
_PAGE = 1000  # ledger rows read at a time: a long journal streams through the builder
log = logging.getLogger(__name__)


class PdfUnavailable(RuntimeError):
    """WeasyPrint or the system's pango is missing here: the record can be HTML or JSON, not a PDF."""


def make_record(reader: JournalReader, options: DisputeOptions) -> DisputeRecord:
    """Build the record of ``options.round_number`` from the journal, verified with its key as it is made, in work
    bounded by the round and not by the journal's length (issue 37).

    All in one read transaction. The replay starts from the newest state the table kept (a snapshot, its MAC
    bound to its ledger row's) at or before the settlement of the round before the recalled ones, else from
    the first row; every row from there to the round's end is checked as it is fed (each MAC covering the
    one before); the chain is then followed on to the head through the checkpoints (`JournalReader.link_to_head`);
    the round records compared are each checked. JournalTampered names what fails. NoSuchRound,
    RoundNotSettled and RoundStillClosed (controller.dispute) say why no record can be made.
    """
    key = reader.key
    if key is None:
        raise JournalKeyError("a dispute record is made from a verified journal only: give its key (--key FILE)")
    with reader.read_transaction():
        holding = reader.archive_holding(options.round_number)
        if holding is None:
            return _record(reader, options, key, None)
        # A round of an earlier gaming day (issue 42): made from its archive, which verifies alone, and the chain
        # followed on from the archive's last row across each file after it to the journal's head (the live file's,
        # read in this same transaction), in work bounded by the files' count and their checkpoints.
        with JournalReader(holding, key, archived=True) as archive:
            return _record(archive, options, key, reader)


def _record(reader: JournalReader, options: DisputeOptions, key: JournalKey, live: JournalReader | None
            ) -> DisputeRecord:
    """The record from `reader`'s file; with `live` (the file it is an archive of), verified on to its head."""
    head_seq, head_mac = reader.head()
    if head_seq == 0:
        raise reader.empty()
    start = _start(reader, options.round_number - max(options.recall, 0) - 1)
    book = DisputeBook(options, start)
    last, mac = (start.seq, start.mac) if start is not None else (0, "")
    while not book.done and last < head_seq:
        rows = reader.ledger_rows(last, _PAGE)
        if not rows:
            break
        for row in rows:
            if row.seq > head_seq or book.done:
                break
            reader.check_row(row, mac)  # (the book checks that the rows come in order, none missing)
            book.feed(row)
            last, mac = row.seq, row.mac
    checkpoints, linked = reader.link_to_head(last, mac, head_seq)
    kept = {}
    for number in book.wanted:
        found = reader.verified_round(number)
        if found is not None:
            seq, record, kept_mac = found
            kept[number] = KeptRecord(record, seq, kept_mac)
    begun = (f"the state the table kept after row {start.seq} (its MAC binds it to that row's MAC), then every "
             f"row from {start.seq + 1} to {last}" if start is not None else f"every row from 1 to {last}")
    onward = (f"rows {last + 1} to {head_seq}: {linked} of them read and verified, and {checkpoints} checkpoints "
              "between them, each bound by the key to the one before" if last < head_seq else "none")
    ends = "the head" if live is None else f"the last row of its archive, {reader.path.name}"
    note = (f"Verified with the table's key (id {key.key_id}) as this record was made: {begun}, each row's MAC "
            f"covering the one before; and the chain from row {last} on to {ends}, row {head_seq} ({onward})")
    if live is not None:
        archived = head_seq
        files, followed, read, head_seq, head_mac = live.link_from_archive(
            reader.path, head_seq, head_mac, (reader.row_mac(head_seq - 1) or "") if head_seq > reader.base
            else reader.base_prev_mac)
        note += (f"; then on from it across the {files} later file(s) of the journal, each one's first row the "
                 f"last of the one before with the same MAC, to the journal's head, row {head_seq} ({read} rows "
                 f"read and verified, and {followed} checkpoints, each bound by the key to the one before)")
        log.info("journal %s: round %s is in the archive %s (to row %s), linked on to the head", live.path,
                 options.round_number, reader.path.name, archived)
    note += ". The journal's other rows were not read for this record: `tablectl journal verify` checks every row"
    return book.record(kept, JournalHead(head_seq, head_mac, key.key_id, note))


def _start(reader: JournalReader, before_round: int) -> BookStart | None:
    """Where the replay of a record starts: the newest kept state at or before the settlement of round
    ``before_round`` (the round before the recalled ones), with the last shuffle and supervisor's act before it;
    None (the journal's first row) when there is no such round or state, or the state cannot be restored."""
    if before_round < 1:
        return None
    found = reader.round_before(before_round)
    snapshot = reader.snapshot_at_or_before(found[1]) if found is not None else None
    if snapshot is None:
        return None
    seq, state, mac = snapshot
    try:
        table = Table.from_snapshot(state)
    except SnapshotError as exc:
        log.warning("journal %s: the state kept after row %s cannot be restored (%s): the record replays the "
                    "journal from its first row", reader.path, seq, exc)
        return None
    return BookStart(table, seq, mac, shuffle=reader.last_row_before(seq, "shuffle", within=seq),
                     supervisor_before=reader.last_row_before(seq, "supervisor"))


def render(record: DisputeRecord, fmt: str) -> bytes:
    """The record in ``fmt`` (html, pdf or json), as the bytes to write or serve."""
    if fmt == "json":
        return to_json(record).encode()
    if fmt == "html":
        return to_html(record).encode()
    if fmt == "pdf":
        return to_pdf(record)
    raise ValueError(f"no format {fmt!r}: {', '.join(FORMATS)}")


def to_json(record: DisputeRecord) -> str:
    """The record as JSON (the whole of it: every other form is drawn from this)."""
    return json.dumps(record.as_dict(), indent=1, ensure_ascii=False) + "\n"


def to_html(record: DisputeRecord) -> str:
    """The record as one self-contained HTML page (no script, link or image; print CSS for paper and the PDF)."""
    r = record

    def hands_of(record_: dict[str, Any] | None, key: str, box: int) -> list[dict[str, Any]]:
        items = (record_ or {}).get(key) or []
        return [h for h in items if isinstance(h, dict) and h.get("box") == box]

    def recorded_net(box: int, i: int) -> str:
        hands = hands_of(r.settlement.recorded, "hands", box)
        return str(hands[i].get("net", "")) if i < len(hands) else "not recorded"

    section = dispute_part(r.game)

    def game_rows(box: int) -> list[list[str]]:
        # The game's own rows of a box (its section: blackjack's insurance), in the hands' columns; none for a game
        # that has nothing of its own to add (the shared record is then the whole record).
        return [list(row) for row in section.box_rows(box, r.settlement.engine, r.settlement.recorded)] \
            if section is not None else []

    return _template().render(r=r, show_counts=r.exported.copy == "surveillance" and "Hi-Lo" in r.counts,
                              recorded_net=recorded_net, game_rows=game_rows)


def to_pdf(record: DisputeRecord) -> bytes:
    """The record as a PDF: WeasyPrint lays out the very page `to_html` makes (A4 landscape, page numbers in the
    footer: the cards' table, with its three times a card, and the rows' MACs need the width).

    The page is self-contained, and WeasyPrint is given a fetcher that allows no protocol at all, so
    nothing named in a record (a player's name, a camera's reference) can make it fetch a file or a URL.
    """
    try:
        from weasyprint import HTML  # (imported when a PDF is asked for: it loads pango, and takes a second)
        from weasyprint.urls import URLFetcher
    except (ImportError, OSError) as exc:  # (OSError: WeasyPrint is there, the system's pango is not)
        raise PdfUnavailable(f"a PDF cannot be made on this machine ({str(exc).splitlines()[0][:160]}): WeasyPrint "
                             "needs pango (apt-get install libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core); the "
                             "record is there as HTML and JSON") from None

    pdf: bytes = HTML(string=to_html(record), url_fetcher=URLFetcher(allowed_protocols=())).write_pdf()
    return pdf


# ---------------------------------------------------------------------------- the page's filters
_SUITS = {"S": ("♠", False), "H": ("♥", True), "D": ("♦", True), "C": ("♣", False)}


def _card(code: str) -> Markup:
    """``TS`` as 10♠ (hearts and diamonds in red), as the dashboard draws a card; a closed card as ▮."""
    if code == HIDDEN or len(code) < 2 or code[-1] not in _SUITS:
        return Markup("▮") if code == HIDDEN else Markup.escape(code)
    rank = "10" if code[:-1] == "T" else code[:-1]
    symbol, red = _SUITS[code[-1]]
    text = Markup.escape(rank + symbol)
    return Markup('<span class="red">{}</span>').format(text) if red else text


def _placed(c: CardLine) -> str:
    if c.to == "box":
        return f"box {c.box}" + (f", hand {c.hand + 1}" if c.hand else "")
    return {"": "placed nowhere", "held": "held (no one could take it)"}.get(c.to, c.to)


def _moment(m: Any) -> Markup:
    return Markup("{} UTC<br>{} local<br>recorder {}").format(_utc(m.utc), _local(m.local), m.recorder)


def _utc(iso: str) -> str:
    """``2026-11-30T20:01:22.274305Z`` as ``2026-11-30 20:01:22.274`` (to the millisecond, as a recorder shows)."""
    return _wall(datetime.fromisoformat(iso.replace("Z", "+00:00")))


def _local(iso: str) -> str:
    """A local ISO time as its wall time to the millisecond and its offset: ``2026-12-01 01:31:22 +05:30``."""
    t = datetime.fromisoformat(iso)
    return f"{_wall(t)} {t.strftime('%z')[:3]}:{t.strftime('%z')[3:]}"


def _wall(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S") + (f".{t.microsecond // 1000:03d}" if t.microsecond else "")


def _when(text: str) -> Markup:
    """A time as its parts (date, clock, offset) each kept whole: a narrow column wraps between them, never
    inside one (``2026-12-07`` would otherwise break at a hyphen, and a clock cut short misleads a reader)."""
    return Markup(" ").join(Markup('<span class="nowrap">{}</span>').format(part) for part in str(text).split())


def _signed(value: float | int | None) -> str:
    if value is None:
        return ""
    return f"{value:+g}" if value else "0"


def _css(text: str) -> Markup:
    """Text for a CSS string (the page's footer): every character but letters, digits and spaces as a CSS escape,
    so no quote, backslash or markup in a table's name ends the string or the style element."""
    out = "".join(ch if ch.isalnum() and ch.isascii() or ch == " " else f"\\{ord(ch):x} " for ch in text[:80])
    return Markup(out)  # (safe: nothing in it is markup or ends a CSS string)


@lru_cache(maxsize=1)
def _template() -> Any:
    from jinja2 import Environment, StrictUndefined  # (on the first record asked for: the service starts without it)

    env = Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=False, lstrip_blocks=False)
    env.filters.update(card=_card, placed=_placed, moment=_moment, utc=_utc, local=_local, when=_when, signed=_signed,
                       css=_css)
    text = resources.files(__package__).joinpath("record.html.j2").read_text(encoding="utf-8")
    return env.from_string(text)

