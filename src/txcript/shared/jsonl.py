"""JSON-lines files kept line by line: each line's exact text beside its parsed value.

A native body built from these lines writes every line back as it was read — records nothing
models, blank lines and lines that are not JSON at all included — so a same-harness load and save
is byte-lossless. Lines txcript synthesises are compact with sorted keys (:func:`record_line`).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from txcript.shared.jsonutil import dumps_compact, try_loads


class Line(msgspec.Struct, frozen=True, gc=False):
    """One line without its ``\\n``: the text as read and its JSON value (``INVALID`` when the
    line is blank or not JSON)."""

    text: str
    value: Any

    @property
    def record(self) -> dict[str, Any] | None:
        """The line's JSON object, or None when it is not one."""
        return self.value if isinstance(self.value, dict) else None


def parse_lines(text: str) -> tuple[tuple[Line, ...], bool]:
    """Split on ``\\n`` (a ``\\r`` stays part of its line), parse every line, and say whether
    the text ended with a newline."""
    if not text:
        return (), False
    parts = text.split("\n")
    final_newline = parts[-1] == ""
    if final_newline:
        parts.pop()
    return tuple(Line(part, try_loads(part)) for part in parts), final_newline


def render_lines(lines: tuple[Line, ...], final_newline: bool) -> str:
    """The lines as text again, exactly as :func:`parse_lines` read them."""
    body = "\n".join(line.text for line in lines)
    return body + "\n" if final_newline and lines else body


def record_line(record: dict[str, Any]) -> Line:
    """A synthesised record as a line: compact, keys sorted, raw UTF-8 where it can be (a lone
    surrogate, which UTF-8 cannot hold, is written as a ``\\u`` escape instead)."""
    text = dumps_compact(record)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(record, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    return Line(text, record)
