"""A real headless Chromium for the page tests, driven over the DevTools protocol by Playwright.

The browser is the system's (Debian's ``chromium``, which ``.ci/run`` installs); Playwright never
downloads one. Without it the tests are skipped with the reason, except under ``CI=true``,
where a missing browser is a failure: CI must show the pages work.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

#: Flags this machine needs: no sandbox as root, and no background traffic to a closed network.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_path() -> str | None:
    found = os.environ.get("TXCRIPT_CHROMIUM") or shutil.which("chromium")
    return found or (shutil.which("chromium-browser") or None)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must run the browser tests (.ci/run installs Chromium)")
    pytest.skip(reason)


@dataclass
class Watched:
    """A page plus everything it asked for and complained about."""

    page: Any
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def open(self, path: Path) -> None:
        self.page.goto(path.as_uri())
        self.page.wait_for_load_state("load")

    def off_page_requests(self, *allowed: Path) -> list[str]:
        """Requests other than the opened files themselves and inline ``data:`` URIs."""
        ok = {p.as_uri() for p in allowed}
        return [url for url in self.requests if url not in ok and not url.startswith("data:")]


@pytest.fixture(name="browser", scope="module")
def browser_fixture() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        _unavailable("Chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the Playwright driver is not installed (pip install -e '.[dev]')")
    with sync_playwright() as driver:
        # Playwright starts every launch on a fresh, empty profile of its own, and passes
        # --headless itself.
        launched = driver.chromium.launch(
            executable_path=executable, args=list(CHROMIUM_FLAGS[1:]), headless=True
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(name="watched")
def watched_fixture(browser: Any) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1100, "height": 1400})
    page = context.new_page()
    seen = Watched(page)
    page.on("request", lambda request: seen.requests.append(request.url))
    page.on(
        "console",
        lambda message: (
            seen.console_errors.append(message.text) if message.type == "error" else None
        ),
    )
    page.on("pageerror", lambda error: seen.console_errors.append(str(error)))
    try:
        yield seen
    finally:
        context.close()
