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
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Any

from markupsafe import Markup

from controller.cards import HIDDEN
from controller.dispute import CardLine, DisputeBook, DisputeOptions, DisputeRecord, JournalHead, KeptRecord
from controller.journal import JournalKeyError, JournalReader

__all__ = ["FORMATS", "MEDIA_TYPES", "PdfUnavailable", "make_record", "render", "to_html", "to_json", "to_pdf"]

FORMATS = ("html", "pdf", "json")
MEDIA_TYPES = {"html": "text/html; charset=utf-8", "pdf": "application/pdf", "json": "application/json"}
_PAGE = 1000  # ledger rows read at a time: a long journal streams through the builder


class PdfUnavailable(RuntimeError):
    """WeasyPrint or the system's pango is missing here: the record can be HTML or JSON, not a PDF."""


def make_record(reader: JournalReader, options: DisputeOptions) -> DisputeRecord:
    """Verify the journal with its key and build the record of ``options.round_number`` from it.

    Every row up to the head is verified first (JournalTampered names the first that fails); the rows
    are then replayed from the first until the round is settled, and the round records it keeps are
    read, all in the same read transaction. NoSuchRound, RoundNotSettled and RoundStillClosed
    (controller.dispute) say why no record can be made.
    """
    if reader.key is None:
        raise JournalKeyError("a dispute record is made from a verified journal only: give its key (--key FILE)")
    with reader.read_transaction():
        verified = reader.verify()
        book = DisputeBook(options)
        after = 0
        while not book.done and after < verified.head_seq:
            rows = reader.ledger_rows(after, _PAGE)
            if not rows:
                break
            for row in rows:
                if row.seq > verified.head_seq or book.done:
                    break
                book.feed(row)
            after = rows[-1].seq
        kept = {}
        for number in book.wanted:
            found = reader.kept_round(number)
            if found is not None:
                seq, record, mac = found
                kept[number] = KeptRecord(record, seq, mac)
        return book.record(kept, JournalHead(verified.head_seq, verified.head_mac, reader.key.key_id))


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

    def recorded_insurance(box: int) -> str:
        kept = hands_of(r.settlement.recorded, "insurance", box)
        return str(kept[0].get("net", "")) if kept else "not recorded"

    return _template().render(r=r, show_counts=r.exported.copy == "surveillance" and "Hi-Lo" in r.counts,
                              recorded_net=recorded_net, recorded_insurance=recorded_insurance)


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

