"""The HTML export and the archive index in a real headless Chromium: every message renders,
nothing loads, no error is logged, injected markup stays inert, and search, collapsible blocks,
sorting, filtering and links work.

Set ``TXCRIPT_DOCS_SCREENSHOT=docs/html-export.png`` to also write the README's screenshot.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

from browser import Watched, browser_fixture, watched_fixture  # noqa: F401 - fixtures
from kitchen_sink import MARKER, kitchen_sink
from render_fixtures import IDS, put_sessions

from txcript.diagnostics import TranscriptWarning
from txcript.operations import render_document
from txcript.render.archive import build_archive
from txcript.sessions import discover

SHOWN = "article.message:not([hidden])"


def _export(tmp_path: Path) -> Path:
    page = tmp_path / "kitchen-sink.html"
    page.write_text(render_document(kitchen_sink(), "html", harness="common"), encoding="utf-8")
    return page


def test_the_page_renders_every_message_and_loads_nothing(watched: Watched, tmp_path: Path) -> None:
    path = _export(tmp_path)
    watched.open(path)
    page = watched.page
    assert page.locator("article.message").count() == 11
    assert page.locator("article.message.user").count() == 6
    assert page.locator("details.call").count() == 6
    assert page.locator("details.result").count() == 8
    assert page.locator("figure img").count() == 1
    # The image is decoded and laid out, from its data: URI.
    assert page.evaluate("document.querySelector('figure img').naturalWidth") == 80
    # The toolbar is shown by the page's script, so the script ran under the CSP.
    assert page.locator("#toolbar").is_visible()
    assert watched.off_page_requests(path) == []
    assert watched.console_errors == []
    screenshot = tmp_path / "kitchen-sink.png"
    page.screenshot(path=str(screenshot), full_page=False)
    assert screenshot.stat().st_size > 10_000
    docs_copy = os.environ.get("TXCRIPT_DOCS_SCREENSHOT")
    if docs_copy:
        shutil.copyfile(screenshot, docs_copy)


def test_script_and_onerror_payloads_stay_text(watched: Watched, tmp_path: Path) -> None:
    watched.open(_export(tmp_path))
    page = watched.page
    assert page.evaluate(f"typeof window.{MARKER}") == "undefined"
    message = page.locator("#m10 .text").last
    assert "<script>window.__txcriptInjected = 1</script>" in message.inner_text()
    assert page.locator("main script, main img[onerror], main [onerror]").count() == 0
    assert watched.console_errors == []


def test_search_filters_messages(watched: Watched, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    watched.open(_export(tmp_path))
    page = watched.page
    page.fill("#search", "permission denied")
    expect(page.locator("#search-count")).to_have_text("1 of 11 messages")
    assert page.locator(SHOWN).get_attribute("id") == "m9"
    page.fill("#search", "UNICODE café")  # every word, in any case
    expect(page.locator("#m9")).to_be_hidden()
    expect(page.locator(SHOWN)).to_have_count(1)
    assert page.locator(SHOWN).get_attribute("id") == "m4"
    page.fill("#search", "")
    expect(page.locator(SHOWN)).to_have_count(11)
    expect(page.locator("#search-count")).to_have_text("")
    assert watched.console_errors == []


def test_details_expand_on_click(watched: Watched, tmp_path: Path) -> None:
    watched.open(_export(tmp_path))
    page = watched.page
    thinking = page.locator("#m2 details.thinking")
    assert thinking.evaluate("d => d.open") is False
    assert not page.get_by_text("The lexer probably slices bytes").is_visible()
    thinking.locator("summary").click()
    assert thinking.evaluate("d => d.open") is True
    assert page.get_by_text("The lexer probably slices bytes").is_visible()
    error = page.locator("#m9 details.result.error")
    error.locator("summary").click(position={"x": 8, "y": 8})
    assert error.locator("pre").inner_text().startswith("Exit code 1")
    page.click("#expand-all")
    assert page.evaluate("[...document.querySelectorAll('main details')].every(d => d.open)")
    page.click("#collapse-all")
    assert page.evaluate("[...document.querySelectorAll('main details')].every(d => !d.open)")
    assert watched.console_errors == []


def test_the_archive_index_sorts_filters_and_links(
    watched: Watched, isolated_home: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    put_sessions(isolated_home)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)  # the fixture's deliberate bad line
        build_archive(tmp_path / "site", discover(["claude_code"]))
    index = tmp_path / "site" / "index.html"
    watched.open(index)
    page = watched.page
    rows = page.locator("#sessions tbody tr")
    assert rows.count() == 3
    ids = "[...document.querySelectorAll('#sessions tbody tr')].map(r => r.dataset.id)"
    assert page.evaluate(ids) == [IDS[2], IDS[1], IDS[0]]
    page.click("th[data-key=started] button")  # newest first -> oldest first
    assert page.evaluate(ids) == [IDS[0], IDS[1], IDS[2]]
    assert page.get_attribute("th[data-key=started]", "aria-sort") == "ascending"
    page.fill("#filter", IDS[1][:8])
    expect(page.locator("#sessions tbody tr:not([hidden])")).to_have_count(1)
    expect(page.locator("#shown")).to_have_text("1 shown")
    page.fill("#filter", "")
    page.select_option("#harness", "claude_code")
    expect(page.locator("#sessions tbody tr:not([hidden])")).to_have_count(3)
    page.screenshot(path=str(tmp_path / "archive-index.png"))
    first = page.locator("#sessions tbody tr a").first
    target = tmp_path / "site" / str(first.get_attribute("href"))
    first.click()
    page.wait_for_load_state("load")
    assert page.url == target.as_uri()
    assert page.locator("article.message").count() == 4
    assert watched.off_page_requests(index, target) == []
    assert watched.console_errors == []
