"""``export --format html``: one self-contained page per session, and the archive's index page.

Pages come from Jinja2 templates with autoescaping on, so every value taken from a session is
text, never markup. The style sheet and script are this package's own files, inlined, and the
page's Content-Security-Policy allows exactly those two by hash and images only as ``data:``
URIs: nothing can load from the network, and an injected script could not run even if escaping
ever failed.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from txcript.render.present import SessionView

#: Sessions with more prompts than this get a table of contents.
TOC_MIN_PROMPTS = 8


@dataclass(frozen=True)
class _Assets:
    style: str
    session_script: str
    index_script: str


def _asset(name: str) -> str:
    return (resources.files("txcript.render") / "templates" / name).read_text(encoding="utf-8")


@functools.cache
def _assets() -> _Assets:
    return _Assets(_asset("page.css"), _asset("session.js"), _asset("index.js"))


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("txcript.render", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _digest(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


def content_security_policy(style: str, script: str) -> str:
    """Nothing by default; the page's own style and script by hash; images only inline."""
    return "; ".join(
        (
            "default-src 'none'",
            f"style-src {_digest(style)}",
            f"script-src {_digest(script)}",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        )
    )


def _page(template: str, script: str, **values: Any) -> str:
    assets = _assets()
    return (
        _environment()
        .get_template(template)
        .render(
            csp=Markup(content_security_policy(assets.style, script)),
            # The package's own files, not session content: inserted as they are.
            style=Markup(assets.style),
            script=Markup(script),
            **values,
        )
    )


def render_session(session: SessionView, *, index_href: str | None = None) -> str:
    """The page for one session; ``index_href`` links back to an archive's index."""
    prompts = [m for m in session.messages if m.role == "user" and m.preview]
    toc = prompts if len(prompts) >= TOC_MIN_PROMPTS else []
    return _page(
        "session.html.j2",
        _assets().session_script,
        session=session,
        toc=toc,
        index_href=index_href,
    )


@dataclass(frozen=True, slots=True)
class IndexRow:
    """One session in the archive index."""

    harness: str
    session_id: str
    title: str
    cwd: str
    #: ``YYYY-MM-DD HH:MM`` UTC, and the RFC 3339 form that sorts.
    started_label: str
    started: str
    messages: int
    href: str


def render_index(rows: Sequence[IndexRow], *, title: str = "Sessions") -> str:
    """The archive's ``index.html``: every session, sortable and filterable."""
    harnesses = sorted({row.harness for row in rows})
    return _page(
        "index.html.j2", _assets().index_script, rows=rows, harnesses=harnesses, title=title
    )


def renderer_fingerprint() -> str:
    """Changes whenever a template, the style or a script does (pages must then be rebuilt)."""
    digest = hashlib.sha256()
    templates = resources.files("txcript.render") / "templates"
    for entry in sorted(templates.iterdir(), key=lambda e: e.name):
        if entry.is_file():
            digest.update(entry.name.encode() + b"\0" + entry.read_bytes() + b"\0")
    for module in ("present.py", "html.py"):
        digest.update((resources.files("txcript.render") / module).read_bytes())
    return digest.hexdigest()[:16]
