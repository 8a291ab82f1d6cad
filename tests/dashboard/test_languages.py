"""Issue 41, item 6: the pit's languages. The dashboard's words are its catalogues' (tablectl/api/static/i18n/:
one JSON file a language, the same keys); the language is the table's `[table] language`, in /api/table, unless
a browser chose its own on the page (kept in localStorage). Numbers, money and times are written per locale.

The catalogues' own checks read the files; the page's are in headless Chromium against a live table (reads open
on loopback). A screenshot of the Russian dashboard at 1600x1000: test-output/screenshots/70-dashboard-ru-1600x1000.png.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.support.browser import launch, shot, view

from tablectl.config import ConfigError, settings_from_dict
from tests.dashboard.test_pit_shift import WIDE, _filled, _page, _play

STATIC = Path(__file__).resolve().parents[2] / "tablectl" / "api" / "static"
LANGUAGES = ("en", "ru")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _catalogue(lang: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def test_each_language_has_every_key_with_the_same_placeholders():
    en, ru = _catalogue("en"), _catalogue("ru")
    assert en.keys() == ru.keys(), en.keys() ^ ru.keys()
    for key, words in en.items():
        assert set(PLACEHOLDER.findall(words)) == set(PLACEHOLDER.findall(ru[key])), key
    untranslated = [k for k, words in ru.items() if re.search(r"[a-z]{3,}", PLACEHOLDER.sub("", words))
                    and "jsonl" not in words and "tablectl" not in words]
    assert not untranslated, untranslated  # (Russian words only: a key, a card's rank, BJ aside)


def test_every_key_the_page_asks_for_is_in_the_catalogue():
    en = _catalogue("en")
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    asked = set(re.findall(r'data-i18n(?:-[a-z-]+)?="([^"]+)"', html))
    asked |= set(re.findall(r'\bt\("([a-z_.]+)"[,)]', js)) | set(re.findall(r'\btn\("([a-z_.]+)"[,)]', js))
    plural = {k for k in asked if f"{k}.other" in en}
    missing = sorted(k for k in asked - plural if k not in en)
    assert not missing, missing
    assert len(asked) > 100  # (the page's words are asked for by key: the pattern found them)
    # No word left in the page itself: every element's text there is the catalogue's (the placeholders "…", "–", "0" aside).
    texts = [x.strip() for x in re.findall(r">([^<>]+)<", html) if x.strip() and x.strip() not in {"…", "0", "–"}]
    assert texts == ["Pit — tablectl", "English", "Русский"], texts  # (the title until the page has its words)


def test_the_language_is_a_table_setting_english_by_default_and_checked():
    assert settings_from_dict({}).table.language == "en"
    assert settings_from_dict({"table": {"language": "ru"}}).table.language == "ru"
    with pytest.raises(ConfigError) as exc:
        settings_from_dict({"table": {"language": "fr"}})
    assert "table.language" in str(exc.value)


@pytest.fixture(scope="module")
def browser():
    yield from launch()


def _english_fragments() -> set[str]:
    """Each run of words of the English catalogue the Russian one does not have (the parts around {placeholders}),
    of three letters or more: none of them may be on the Russian page."""
    en, ru = _catalogue("en"), _catalogue("ru")
    out = set()
    for key, words in en.items():
        if words == ru[key]:
            continue
        for part in PLACEHOLDER.split(words)[::2]:
            part = part.strip(" ·:—–,()/←→▮")
            if len(re.findall(r"[A-Za-z]", part)) >= 3 and part not in ru[key]:
                out.add(part)
    return out


def _english_on(text: str) -> list[str]:
    return sorted(f for f in _english_fragments()
                  if re.search(r"(?<![A-Za-z])" + re.escape(f) + r"(?![A-Za-z])", text))


def test_the_dashboard_in_russian_then_in_english_again(browser, table):
    _play(table, 2)
    assert view(table)["language"] == "en"  # the table's setting: the default
    page, problems = _page(browser, table, WIDE)
    _filled(page)
    assert page.get_attribute("html", "lang") == "en"
    english = page.inner_text("body")
    assert "Left in the pack" in english or "Dealt" in english  # (the English words are those the test looks for)
    assert _english_on(english)

    page.select_option("#lang", "ru")  # this browser's own choice
    page.wait_for_selector("html[lang=ru]")
    _filled(page)
    page.wait_for_function("document.querySelector('#history details')")
    for details in page.query_selector_all("#history details"):  # the rounds' rows too
        details.evaluate("d => { d.open = true; }")
    text = page.inner_text("body")
    assert not _english_on(text), _english_on(text)
    assert "Шуз" in text and "Бокс" in text and "Розыгрыши" in text, text
    assert page.text_content("#alerts-h").startswith("Тревоги")
    # Numbers and money as ru-RU writes them: a decimal comma, a space between thousands.
    hold = page.text_content("[data-testid=hold]")
    assert re.fullmatch(r"\(−?-?\d[\d\u00a0\u202f ]*,\d % от ставок \d[\d\u00a0\u202f ]*(,\d\d)?\)", hold), hold
    limits = view(table)["limits"]
    assert float(limits["max"]) >= 1000 and all(float(limits[k]).is_integer() for k in ("min", "max")), limits
    assert page.text_content("#limits") == "Лимиты {}–{}".format(
        *(f"{int(float(limits[k])):,}".replace(",", "\u00a0") for k in ("min", "max")))  # 1 000 (a no-break space)
    assert page.evaluate("localStorage.getItem('tablectl.language')") == "ru"
    shot(page, "70-dashboard-ru-1600x1000")

    page.reload()  # kept by the browser
    page.wait_for_selector("#live.on")
    page.wait_for_selector("html[lang=ru]")
    assert page.input_value("#lang") == "ru"

    page.select_option("#lang", "en")  # and back
    page.wait_for_selector("html[lang=en]")
    _filled(page)
    text = page.inner_text("body")
    assert "Шуз" not in text and "Тревоги" not in text
    assert page.text_content("#alerts-h").startswith("Alerts")
    assert re.fullmatch(r"\(−?-?\d[\d,]*\.\d % of \d[\d,]*(\.\d\d)?\ bet\)", page.text_content("[data-testid=hold]"))
    assert not problems, problems
    page.close()


def test_the_page_follows_the_tables_language_until_the_browser_chooses(browser, table):
    _play(table)  # (a round in the history: the page is filled; on its own, or on another worker, the table is new)
    page = browser.new_page(viewport=WIDE)

    def in_russian(route) -> None:  # the table's `[table] language = "ru"` (its own test: tests/api)
        answer = route.fetch()
        route.fulfill(response=answer, body=json.dumps({**answer.json(), "language": "ru"}))

    page.route("**/api/table", in_russian)
    page.goto(table.api + "/")
    page.wait_for_selector("#live.on")
    page.wait_for_selector("html[lang=ru]")
    _filled(page)
    assert page.input_value("#lang") == "ru" and page.text_content("#shoe-h").startswith("Шуз")
    page.select_option("#lang", "en")  # this browser's own, over the table's
    page.reload()
    page.wait_for_selector("#live.on")
    page.wait_for_selector("html[lang=en]")
    _filled(page)
    assert page.text_content("#shoe-h").startswith("Shoe")
    page.unroute_all(behavior="ignoreErrors")
    page.close()
