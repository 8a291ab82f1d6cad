"""Headless Debian Chromium for the dashboard tests (Playwright drives it; nothing is downloaded),
and small helpers to drive a whole table (tests.support.harness.Table) into a state."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx

from tests.support.deadlines import scaled, scaled_ms, wait_until
from tests.support.harness import DEALER_KEY, SUPERVISOR_KEY, Table

OUTPUT = Path(__file__).resolve().parents[2] / "test-output"  # gitignored; CI keeps it as an artefact
SCREENSHOTS = OUTPUT / "screenshots"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DESKTOP = {"width": 1920, "height": 1080}
TABLET = {"width": 1024, "height": 768}
PAGE_WAIT_MS = scaled_ms(30)  # every wait of a page (a selector, a function, a click, a load): Playwright's 30 s, scaled


class ScaledBrowser:
    """Playwright's Browser, whose every page and context waits up to `PAGE_WAIT_MS` (tests.support.deadlines)."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)

    def new_context(self, **kw: Any) -> Any:
        """A context whose pages wait `PAGE_WAIT_MS`."""
        context = self._browser.new_context(**kw)
        context.set_default_timeout(PAGE_WAIT_MS)
        return context

    def new_page(self, **kw: Any) -> Any:
        """A page (in a context of its own) that waits `PAGE_WAIT_MS`."""
        page = self._browser.new_page(**kw)
        page.set_default_timeout(PAGE_WAIT_MS)
        return page


def launch() -> Iterator[Any]:
    """A Chromium browser for one module (no skip: scripts/test installs Debian's chromium first)."""
    assert os.path.exists(CHROMIUM), f"{CHROMIUM} is missing: run ./scripts/test, which installs it"
    from playwright import sync_api

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True, timeout=PAGE_WAIT_MS)
        yield ScaledBrowser(browser)
        browser.close()


def shot(page: Any, name: str) -> Path:
    """A full-page screenshot in test-output/screenshots/NAME.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def watch(page: Any) -> list[str]:
    """Every console error, page error and failed request of the page, as they happen."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("response", lambda r: problems.append(f"HTTP {r.status} {r.url}") if r.status >= 400 else None)
    return problems


def view(table: Table) -> dict[str, Any]:
    """The table as the API shows a supervisor."""
    return httpx.get(table.api + "/api/table", headers={"Authorization": f"Bearer {SUPERVISOR_KEY}"},
                     timeout=scaled(10)).json()


def wait(cond: Callable[[], Any], timeout: float = 15.0, what: str = "condition") -> None:
    """Poll until cond() is true, or fail naming what never happened (after `scaled(timeout)` seconds)."""
    wait_until(cond, timeout, what)


def act(table: Table, body: dict[str, Any], key: str = DEALER_KEY) -> dict[str, Any]:
    """One action through the API; it must be accepted."""
    r = httpx.post(table.api + "/api/actions", json=body, headers={"Authorization": f"Bearer {key}"},
                   timeout=scaled(10))
    assert r.status_code == 200, (body, r.text)
    return r.json()


def deal(table: Table, n: int = 1) -> None:
    """Release n cards from the shoe, each once the service has journalled the one before."""
    for _ in range(n):
        wait(lambda: not view(table)["locked"], what="the shoe to unlock")
        seq = view(table)["last_seq"]
        answer = table.shoe.request("deal")
        assert answer["ok"], answer
        wait(lambda: view(table)["last_seq"] > seq, what="the card to reach the table")
