"""The dispute record's PDF fits its page: nothing is drawn past the page's edge or into its margins, and every
value of the HTML record is in the PDF whole (issue 36: the Recorder column, and in the surveillance copy the
running and true count, ran off the A4 page, cut to `2026-12-07 10:`).

Each page is rendered to a picture with PDFium (pypdfium2) and read back: every character's box and every drawn
object lie inside the page less its side margins, and the margins' strips of the picture are blank. The values
are every table cell of the HTML page (the very page WeasyPrint lays out), found in the PDF's text with all
whitespace taken out of both, so a value wrapped onto two lines still counts and one cut short does not. Times are
to the millisecond and the zone's offset has minutes (Asia/Kolkata, +05:30), the widest a record holds; the pit's
and surveillance's copies, from `to_pdf`, from `tablectl dispute` and from the table's API.
"""

from __future__ import annotations

import asyncio
import re
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path
from zoneinfo import ZoneInfo

import pypdfium2 as pdfium
import pytest

from controller.dispute import Copy, DisputeOptions, DisputeRecord
from controller.journal import JournalReader
from tablectl.cli import main
from tablectl.dispute import make_record, to_html, to_pdf
from tests.dispute.conftest import DISPUTED, Played, play_disputed

MARGIN = 12 / 25.4 * 72  # the side margins (12 mm), in points
SLACK = 1.0  # points: a glyph's box may reach a hair past its advance
SCALE = 2  # pixels per point in the rendering
START = datetime(2026, 12, 7, 4, 58, 41, 274305, tzinfo=timezone.utc)  # 10:28:41.274 +05:30 local
CAMERA = 'NVR-03 "pit 2 east" channel 14 (PTZ, dome)'


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    return play_disputed(tmp_path_factory.mktemp("pdf-page") / "table-7.sqlite", start=START)


def record(played: Played, copy: Copy) -> DisputeRecord:
    options = DisputeOptions(round_number=DISPUTED, table="table-7", exported_by="surveillance:olga",
                             exported_at=datetime(2026, 12, 7, 5, 30, 12, 918000, tzinfo=timezone.utc),
                             time_zone=ZoneInfo("Asia/Kolkata"), time_zone_name="Asia/Kolkata", camera=CAMERA,
                             recorder_offset_s=-1.25, copy=copy)
    with JournalReader(played.path, played.key) as reader:
        return make_record(reader, options)


class _Cells(HTMLParser):
    """The text of every table cell of the page (th and td), each as one value."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("td", "th"):
            self._open = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._open is not None:
            self.cells.append("".join(self._open))
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open.append(data)


def _bare(text: str) -> str:
    return re.sub(r"\s+", "", text)


def values_of(html: str) -> list[str]:
    parser = _Cells()
    parser.feed(html)
    return [cell for cell in parser.cells if _bare(cell)]


def assert_fits_its_pages(pdf: bytes, values: list[str], where: Path) -> None:
    """Every page A4 with nothing past its side margins (characters, drawn objects, ink), and every
    value whole in the text."""
    doc = pdfium.PdfDocument(pdf)
    text = ""
    try:
        for number, page in enumerate(doc, start=1):
            width, height = page.get_size()
            assert sorted((round(width), round(height))) == [595, 842], (number, width, height)  # A4, either way
            left, right = MARGIN - SLACK, width - MARGIN + SLACK
            textpage = page.get_textpage()
            boxes = [textpage.get_charbox(i) for i in range(textpage.count_chars())]
            outside = [textpage.get_text_range(i, 1) for i, b in enumerate(boxes)
                       if (b[0] < left or b[2] > right) and textpage.get_text_range(i, 1).strip()]
            assert not outside, f"page {number}: {len(outside)} characters outside the page's sides: {''.join(outside)!r}"
            for obj in page.get_objects(max_depth=5):
                x0, _, x1, _ = obj.get_bounds()
                assert left <= x0 and x1 <= right, f"page {number}: a {obj.type} object drawn at x {x0:.1f}-{x1:.1f}"
            image = page.render(scale=SCALE).to_pil().convert("L")
            image.save(where / f"page-{number}.png")  # (kept for whoever looks at a failure)
            strip = int((MARGIN - SLACK) * SCALE)
            for side, box in (("left", (0, 0, strip, image.height)),
                              ("right", (image.width - strip, 0, image.width, image.height))):
                assert image.crop(box).getextrema()[0] > 200, f"page {number}: ink in the {side} margin"
            text += textpage.get_text_range()
    finally:
        doc.close()
    assert len(values) > 100, "the page's values were not found"
    whole = _bare(text)
    missing = [v for v in values if _bare(v) not in whole]
    assert not missing, f"{len(missing)} values of the HTML record not whole in the PDF: {missing[:8]}"


@pytest.mark.parametrize("copy", [Copy.PIT, Copy.SURVEILLANCE], ids=["pit", "surveillance"])
def test_each_copy_fits_its_landscape_pages_with_every_value_whole(played: Played, copy: Copy,
                                                                    tmp_path: Path) -> None:
    r = record(played, copy)
    html = to_html(r)
    values = values_of(html)
    # The widest columns are there: the recorder's times to the millisecond, and surveillance's counts.
    assert any(re.fullmatch(r"2026-12-07 10:\d\d:\d\d\.\d{3}", v) for v in values), values[:40]
    if copy is Copy.SURVEILLANCE:
        assert {"Running", "True", "+22", "+4.5"} <= set(values)
    assert_fits_its_pages(to_pdf(r), values, tmp_path)


def test_the_cli_writes_the_surveillance_copy_that_fits(played: Played, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "round.pdf"
    html = tmp_path / "round.html"
    common = ["dispute", "--db", str(played.path), "--round", str(DISPUTED), "--copy", "surveillance",
              "--tz", "Asia/Kolkata", "--camera", CAMERA, "--recorder-offset", "-1.25", "--by", "olga"]
    # (the export's own moment, to the millisecond, is printed too: frozen, the HTML and the PDF tell the same)
    from freezegun import freeze_time

    with freeze_time("2026-12-07T05:30:12.918Z"):
        assert main([*common, "--format", "pdf", "--out", str(out)]) == 0
        assert main([*common, "--format", "html", "--out", str(html)]) == 0
    assert_fits_its_pages(out.read_bytes(), values_of(html.read_text()), tmp_path)


@pytest.mark.anyio
async def test_the_apis_pit_copy_fits(tmp_path: Path) -> None:
    from tests.support.client import authorized
    from tests.support.harness import SUPERVISOR_KEY
    from tests.support.inprocess import InProcessTable, call, play_rounds

    (tmp_path / "table").mkdir()
    async with InProcessTable(tmp_path / "table", seed=5) as table:
        await call(table.api, "POST", "/api/actions", SUPERVISOR_KEY, json={"type": "dealer_in", "dealer": "D-77"})
        await play_rounds(table, 2, seed=5, max_boxes=3)
        async with asyncio.timeout(300):  # (a deadline for a hang: laying out a PDF takes seconds on a busy machine)
            html = await table.api.get("/api/rounds/2/dispute", params={"format": "html"},
                                       headers=authorized(SUPERVISOR_KEY))
            pdf = await table.api.get("/api/rounds/2/dispute", params={"format": "pdf"},
                                      headers=authorized(SUPERVISOR_KEY))
    assert html.status_code == 200 and pdf.status_code == 200, (html.text[:300], pdf.text[:300])
    # (each names the moment it was made, to the millisecond: the PDF's is a moment after the HTML's)
    values = values_of(html.text)
    exported = values.index("Exported")
    assert_fits_its_pages(pdf.content, values[:exported + 1] + values[exported + 2:], tmp_path)
