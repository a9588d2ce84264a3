"""Terminal output shared by every command: colour, cutting to width, ages, writing results.

Text taken from sessions is scrubbed before it reaches a terminal
(:func:`txcript.shared.text.scrub`); machine formats (``--json``, ``export``) are written exactly.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

import click

COLOURS = {
    "claude_code": "33",
    "codex": "36",
    "opencode": "32",
    "pi": "35",
    "cursor": "34",
    "cursor_desktop": "96",
    "grok": "37",
    "gemini": "94",
    "simple": "92",
}


def colour_enabled(stream: Any) -> bool:
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def paint(text: str, code: str, enabled: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if enabled else text


def harness_colour(harness: str) -> str:
    return COLOURS.get(harness, "0")


def cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def age(moment: datetime, now: datetime) -> str:
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86_400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 7 * 86_400:
        return f"{int(seconds // 86_400)}d ago"
    return moment.astimezone().strftime("%Y-%m-%d")


def write_output(text: str, out: str | None) -> None:
    """Print (``out`` None or ``-``), or write ``out`` (see :func:`write_output_file`)."""
    if out is None or out == "-":
        click.echo(text, nl=False)
        return
    from txcript.shared.files import write_output_file

    write_output_file(Path(out), text.encode("utf-8"))
