"""The Goose text form, one per generation (no I/O).

* A database session: ``{"session": {<column>: <value>}, "messages": [{<column>: <value>}, …]}``,
  every column of its rows (``content_json`` as its exact text).
* A JSONL session: the file's text itself (a metadata line, then one message per line).
"""

from __future__ import annotations

import json
from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonl import parse_lines, render_lines
from txcript.shared.jsonutil import loads_strict

from .native import HARNESS, GooseMessage, GooseSession, LegacyFile

_CELL = (str, int, float, type(None))


def _row(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(
        isinstance(cell, _CELL) and not isinstance(cell, bool) for cell in value.values()
    ):
        raise Malformed(HARNESS, f"{what} is not an object of column values")
    return value


def sniff(document: Any) -> bool:
    """A database session's document, or an older JSONL file of its metadata line alone (a
    session that never got a message)."""
    if _is_metadata(document):
        return True
    return (
        isinstance(document, dict)
        and set(document) == {"session", "messages"}
        and isinstance(document["session"], dict)
        and "working_dir" in document["session"]
        and isinstance(document["messages"], list)
        and all(isinstance(m, dict) and "content_json" in m for m in document["messages"])
    )


def _is_metadata(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and {"working_dir", "description"} <= set(value)
        and not {"messages", "session", "role", "content"} & set(value)
    )


def sniff_lines(values: list[Any]) -> bool:
    """The JSONL generation: a metadata line with ``working_dir`` and ``description``, then
    messages with ``role`` and ``content``."""
    objects = [v for v in values if isinstance(v, dict)]
    if not objects or not _is_metadata(objects[0]):
        return False
    return all("role" in v and "content" in v for v in objects[1:])


def from_text(text: str) -> GooseSession:
    if not text.strip():
        raise Malformed(HARNESS, "it is empty")
    try:
        document = loads_strict(text)
    except ValueError:
        document = None  # not one JSON document: the JSONL generation
    if isinstance(document, dict) and "session" in document:
        return _document(document)
    lines, final_newline = parse_lines(text)
    values = [line.value for line in lines if line.text.strip()]
    if not sniff_lines(values):
        raise Malformed(
            HARNESS,
            "expected a Goose session: {session, messages} or the older JSONL file (a line with "
            "working_dir and description, then messages)",
        )
    return GooseSession(legacy=LegacyFile("", lines, final_newline))


def _document(document: Any) -> GooseSession:
    if not sniff(document):
        raise Malformed(HARNESS, "expected {session, messages} (a Goose database session)")
    session = _row(document["session"], "`session`")
    messages = tuple(
        GooseMessage(_row(row, f"message {i}")) for i, row in enumerate(document["messages"])
    )
    return GooseSession(session=session, messages=messages)


def to_text(native: GooseSession) -> str:
    if native.legacy is not None:
        return render_lines(native.legacy.lines, native.legacy.final_newline)
    document = {"session": native.session, "messages": [m.row for m in native.messages]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
