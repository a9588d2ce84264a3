"""The Factory droid text form: the session's JSONL, with its settings file as a last line.

``to_text`` gives the session file's lines exactly as stored; when the session has a settings
file, one more line follows, ``{"type":"txcript_settings","text":<the settings file's text>}``
(with ``"final_newline": false`` when the session file's last line has no newline), so the
text carries everything a store round trip needs. ``from_text`` reads either form (a plain
droid ``.jsonl`` has no such line) and refuses text whose first record is not droid's
``session_start`` header.
"""

from __future__ import annotations

import json
from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonl import Line, parse_lines, render_lines

from .native import HARNESS, DroidSession

SETTINGS_LINE = "txcript_settings"


def _is_settings_line(line: Line) -> bool:
    value = line.value
    return (
        isinstance(value, dict)
        and set(value) <= {"type", "text", "final_newline"}
        and value.get("type") == SETTINGS_LINE
        and isinstance(value.get("text"), str)
        and value.get("final_newline", False) is False
    )


def from_text(text: str) -> DroidSession:
    lines, final_newline = parse_lines(text)
    settings = None
    if lines and _is_settings_line(lines[-1]):
        trailer = lines[-1].value
        settings = trailer["text"]
        lines = lines[:-1]
        final_newline = "final_newline" not in trailer
    first = next((line.value for line in lines if isinstance(line.value, dict)), None)
    if not isinstance(first, dict) or first.get("type") != "session_start":
        what = "it is empty" if not text.strip() else "its first record is not `session_start`"
        raise Malformed(HARNESS, f"{what} (expected a droid session: JSON lines from a header)")
    ident = first.get("id")
    return DroidSession(
        session_id=ident if isinstance(ident, str) else "",
        lines=lines,
        final_newline=final_newline,
        settings=settings,
    )


def to_text(native: DroidSession) -> str:
    body = render_lines(native.lines, native.final_newline)
    if native.settings is None:
        return body
    record: dict[str, Any] = {"type": SETTINGS_LINE, "text": native.settings}
    separator = ""
    if native.lines and not native.final_newline:
        record["final_newline"] = False  # the session file's last line has no newline
        separator = "\n"
    trailer = json.dumps(record, ensure_ascii=False)
    return f"{body}{separator}{trailer}\n"


def sniff_lines(values: list[Any]) -> bool:
    """Do these first parsed lines start a droid session (a ``session_start`` header with an id,
    title and owner)?"""
    first = next((v for v in values if isinstance(v, dict)), None)
    return (
        isinstance(first, dict)
        and first.get("type") == "session_start"
        and isinstance(first.get("id"), str)
        and "owner" in first
    )
