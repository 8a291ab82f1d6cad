"""The record's HTML page escapes everything a person typed, and its PDF is a real page: rendered to PNG here
(PDFium, pypdfium2) and looked at as a picture: a landscape A4 page, ink where the title's words are, a green banner when
the settlement agrees and a red one when it differs, nothing in the margin."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path
from zoneinfo import ZoneInfo

import pypdfium2 as pdfium
from PIL import Image

from controller.dispute import Copy, Difference, DisputeOptions, DisputeRecord
from controller.journal import JournalReader
from tablectl.dispute import make_record, to_html, to_pdf
from tests.dispute.conftest import DISPUTED, HOSTILE, Played

A4 = (841.89, 595.28)  # points: landscape (the cards' three times a row, the rows' MACs)
SCALE = 2  # pixels per point in the rendering
HOSTILE_TABLE = 'pit"; } </style><script>alert(1)</script>'


def record(played: Played, *, table: str = "table-7", copy: Copy = Copy.SURVEILLANCE) -> DisputeRecord:
    options = DisputeOptions(round_number=DISPUTED, table=table, exported_by="<b>ivan</b>",
                             exported_at=datetime(2026, 12, 2, 9, 15, 30, tzinfo=timezone.utc),
                             time_zone=ZoneInfo("Europe/Moscow"), time_zone_name="Europe/Moscow",
                             camera="NVR <2> \"ch 14\"", recorder_offset_s=-1.5, copy=copy)
    with JournalReader(played.path, played.key) as reader:
        return make_record(reader, options)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += attrs

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_html_escapes_a_hostile_players_name_the_exporter_and_the_table(played_journal: Played) -> None:
    html = to_html(record(played_journal, table=HOSTILE_TABLE))
    page = _Page()
    page.feed(html)
    assert "script" not in page.tags
    assert set(page.tags) <= {"html", "head", "meta", "title", "style", "body", "p", "h1", "h2", "h3", "table", "thead",
                              "tbody", "tr", "th", "td", "b", "br", "span"}
    assert not any(name.startswith("on") or name in ("src", "href") for name, _ in page.attributes)
    text = "".join(page.text)
    assert HOSTILE in text  # the name shown as typed, as text
    assert "<b>ivan</b>" in text and 'NVR <2> "ch 14"' in text
    assert html.count("</style>") == 1  # the table's name in the footer's CSS string cannot end the style
    assert "<script" not in html.lower()


def _pdf_page(data: bytes) -> tuple[pdfium.PdfDocument, pdfium.PdfPage, Image.Image]:
    doc = pdfium.PdfDocument(data)
    page = doc[0]
    return doc, page, page.render(scale=SCALE).to_pil().convert("RGB")


def _box(page: pdfium.PdfPage, text: str) -> tuple[int, int, int, int]:
    """The pixel box (left, top, right, bottom) of ``text`` on the rendered page, found in the PDF's own text."""
    textpage = page.get_textpage()
    found = textpage.search(text).get_next()
    assert found is not None, f"{text!r} is not on the page"
    index, count = found
    boxes = [textpage.get_charbox(i) for i in range(index, index + count)]
    height = page.get_height()
    left, right = min(b[0] for b in boxes), max(b[2] for b in boxes)
    bottom, top = min(b[1] for b in boxes), max(b[3] for b in boxes)
    return int(left * SCALE), int((height - top) * SCALE), int(right * SCALE) + 1, int((height - bottom) * SCALE) + 1


def _share(image: Image.Image, box: tuple[int, int, int, int], test) -> float:
    data = image.crop(box).tobytes()  # RGB, a byte a channel
    pixels = list(zip(data[0::3], data[1::3], data[2::3]))
    return sum(1 for p in pixels if test(p)) / len(pixels)


def _dark(p: tuple[int, int, int]) -> bool:
    return sum(p) < 200


def test_the_pdf_renders_as_an_a4_page_with_the_record_on_it(played_journal: Played, tmp_path: Path) -> None:
    doc, page, image = _pdf_page(to_pdf(record(played_journal)))
    assert len(doc) >= 2  # the rows and the ten rounds before run onto further pages
    width, height = page.get_size()
    assert abs(width - A4[0]) < 1 and abs(height - A4[1]) < 1
    assert image.size == (round(A4[0] * SCALE), round(A4[1] * SCALE))
    image.save(tmp_path / "page1.png")  # (kept for whoever looks at a failure)
    whole = _share(image, (0, 0, *image.size), _dark)
    assert 0.01 < whole < 0.4, f"{whole:.3f} of the page is ink: blank, or black"
    title = _box(page, "Record of a disputed round")
    assert _share(image, title, _dark) > 0.1, "the title's words are not drawn where the PDF places them"
    assert _share(image, (0, 0, int(9 * SCALE), image.size[1]), _dark) == 0, "ink in the left margin"
    # The settlement agrees: its banner is drawn in green.
    banner = _box(page, "agrees with what was recorded as paid")
    assert _share(image, banner, lambda p: p[1] > p[0] + 40 and p[1] > p[2] + 40) > 0.02
    text = page.get_textpage().get_text_range()
    assert "SURVEILLANCE COPY" in text and "D-1042" in text and "round 12" in text


def test_a_settlement_that_differs_is_a_red_banner_in_the_pdf(played_journal: Played) -> None:
    r = record(played_journal, copy=Copy.PIT)
    differs = dataclasses.replace(r, settlement=dataclasses.replace(
        r.settlement, agrees=False, differences=[Difference("hands[1].net", '"20"', '"10"')]))
    _, page, image = _pdf_page(to_pdf(differs))
    banner = _box(page, "DIFFERS from what was recorded as paid")
    assert _share(image, banner, lambda p: p[0] > p[1] + 60 and p[0] > p[2] + 60) > 0.02
    assert "PIT COPY" in page.get_textpage().get_text_range()
