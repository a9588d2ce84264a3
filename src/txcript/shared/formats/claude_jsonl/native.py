"""The Claude Code native body: one session's JSONL lines exactly as written, plus its side files.

Each line keeps its original text (never re-serialised) next to its parsed value, so a load
followed by a save is byte-lossless, including record types nothing here models and lines that
are not JSON at all. Side files (``<session id>/subagents/…``, ``<session id>/tool-results/…``)
are carried as bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from txcript.shared.jsonutil import dumps_compact, try_loads

#: The side directories under ``<project dir>/<session id>/`` that belong to a session's body.
SIDE_DIRS = ("subagents", "tool-results")


class Line(msgspec.Struct, frozen=True, gc=False):
    """One line of the session file: its text without the ``\\n`` and its parsed JSON value.

    ``value`` is :data:`~txcript.shared.jsonutil.INVALID` for blank lines and lines that are not
    valid JSON; such lines are still written back exactly as they were.
    """

    text: str
    value: Any

    @property
    def record(self) -> dict[str, Any] | None:
        """The line's JSON object, or None when it is not one."""
        return self.value if isinstance(self.value, dict) else None


class SideFile(msgspec.Struct, frozen=True, gc=False):
    """A file of the session's side directory: ``path`` is relative to ``<session id>/``.

    ``path`` uses ``/`` separators and starts with one of :data:`SIDE_DIRS`.
    """

    path: str
    data: bytes


class ClaudeSession(msgspec.Struct, frozen=True, gc=False):
    """One session: its lines in file order, whether the file ends with a newline, side files.

    ``session_id`` is the file stem when loaded from a store (the id ``claude --resume`` takes),
    the written id for a body built by ``from_common``, and empty for parsed text.
    """

    session_id: str
    lines: tuple[Line, ...]
    final_newline: bool = True
    side_files: tuple[SideFile, ...] = ()

    def records(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(1-based line number, object)`` for every line holding a JSON object."""
        for number, line in enumerate(self.lines, start=1):
            if isinstance(line.value, dict):
                yield number, line.value

    def side_file(self, path: str) -> SideFile | None:
        for side in self.side_files:
            if side.path == path:
                return side
        return None


def parse_lines(text: str) -> tuple[tuple[Line, ...], bool]:
    """Split JSONL text on ``\\n`` (a ``\\r`` stays part of its line) and parse every line."""
    if not text:
        return (), False
    parts = text.split("\n")
    final_newline = parts[-1] == ""
    if final_newline:
        parts.pop()
    return tuple(Line(part, try_loads(part)) for part in parts), final_newline


def render_text(session: ClaudeSession) -> str:
    """The session file's text: every line as it was, joined by ``\\n``."""
    body = "\n".join(line.text for line in session.lines)
    return body + "\n" if session.final_newline and session.lines else body


def record_line(record: dict[str, Any]) -> Line:
    """A synthesised record as a line: compact, keys sorted, raw UTF-8 where it can be.

    A string holding an unpaired surrogate cannot be written as UTF-8; such a record is written
    with ``\\u`` escapes instead, which parse back to the same string.
    """
    text = dumps_compact(record)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(record, separators=(",", ":"), sort_keys=True, ensure_ascii=True)
    return Line(text, record)


def session_from_records(
    session_id: str, records: Iterable[dict[str, Any]], side_files: tuple[SideFile, ...] = ()
) -> ClaudeSession:
    return ClaudeSession(
        session_id=session_id,
        lines=tuple(record_line(r) for r in records),
        final_newline=True,
        side_files=side_files,
    )
