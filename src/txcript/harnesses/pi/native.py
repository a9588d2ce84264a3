"""The pi native body: a session file's lines exactly as written, plus their parsed values.

pi (and every app built on its session manager: Campfire, OpenClaw, oh-my-pi) keeps one JSON
Lines file per session. The first line is the ``session`` header; every other line is an entry
of a tree (``id``/``parentId``) in append order. Three generations exist, told apart by the
header's ``version``:

* **v1** (no ``version``): a linear list, no entry ids; the header also held ``provider``,
  ``modelId`` and ``thinkingLevel``; a compaction points at the first kept entry by its index
  (``firstKeptEntryIndex``);
* **v2**: entries carry ``id`` (8 hex digits) and ``parentId``, so a file can hold several
  branches;
* **v3**: the message role ``hookMessage`` is renamed ``custom``.

The body keeps every line byte for byte (unknown entries, lines that are not JSON, a repeated
header, CRLF, no final newline), so a load followed by a save writes the same file. What the
lines mean is worked out by :mod:`.tree` and :mod:`.codec`.

OpenClaw adds one thing to a session: its entry in the agent's ``sessions.json`` index
(:attr:`PiSession.index_key` and :attr:`PiSession.index_entry`), which its store reads and
writes beside the file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import msgspec

from txcript.diagnostics import warn
from txcript.errors import Malformed
from txcript.shared.jsonutil import INVALID, try_loads

HARNESS = "pi"
#: The session format version the writer produces.
CURRENT_VERSION = 3
_UUID_IN_NAME = re.compile(
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl\Z"
)
_encoder = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a session file: its exact text (no line break) and its parsed JSON, or
    ``INVALID`` (blank lines and lines that are not JSON)."""

    text: str
    value: Any


@dataclass(frozen=True, slots=True)
class PiSession:
    """One pi-format session.

    ``lines`` joined by ``\\n`` (plus a final ``\\n`` when ``trailing_newline``) are the file's
    exact text. ``fallback_id`` is the id the file name carries, used when no header names one.
    ``index_key``/``index_entry`` are OpenClaw's ``sessions.json`` key and entry for the session
    (None elsewhere, and for a session no index names).
    """

    lines: tuple[Line, ...]
    trailing_newline: bool = True
    # Where the store found the session, not what the file holds: a body parsed from the same
    # text compares equal without them.
    fallback_id: str | None = field(default=None, compare=False)
    index_key: str | None = field(default=None, compare=False)
    index_entry: dict[str, Any] | None = field(default=None, compare=False)


def dumps(value: Any) -> str:
    """A value as pi writes a line: compact JSON, keys in insertion order, raw UTF-8."""
    try:
        return _encoder.encode(value).decode("utf-8")
    except (msgspec.EncodeError, UnicodeError, OverflowError):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def is_header(value: Any) -> bool:
    """Is this parsed line a ``session`` header (with a string id, as pi requires)?"""
    return (
        isinstance(value, dict)
        and value.get("type") == "session"
        and isinstance(value.get("id"), str)
    )


def parse(text: str, label: str | None = None) -> PiSession:
    """Parse a session file's text into its native body.

    The first JSON line must be a ``session`` header (pi refuses any other file); anything else is
    :class:`~txcript.errors.Malformed`. A line that is not JSON is kept (so it is written back)
    but skipped, with one warning counting such lines.
    """
    what = label or "the input"
    if not text.strip():
        raise Malformed(HARNESS, f"{what} is empty")
    trailing = text.endswith("\n")
    raw_lines = (text[:-1] if trailing else text).split("\n")
    lines: list[Line] = []
    broken: list[int] = []
    first: Any = INVALID
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            lines.append(Line(raw, INVALID))
            continue
        value = try_loads(raw)
        if value is INVALID:
            broken.append(number)
        elif first is INVALID:
            first = value
        lines.append(Line(raw, value))
    if not is_header(first):
        raise Malformed(
            HARNESS,
            f"{what} is not a pi session: its first JSON line is not a "
            '{"type": "session", "id": …} header',
        )
    if broken:
        prefix = f"{label}: " if label else ""
        shown = ", ".join(str(n) for n in broken[:5]) + (", …" if len(broken) > 5 else "")
        count = "1 line" if len(broken) == 1 else f"{len(broken)} lines"
        warn(
            f"{prefix}{count} of the pi session {'is' if len(broken) == 1 else 'are'} not valid "
            f"JSON (line{'s' if len(broken) > 1 else ''} {shown}); skipped"
        )
    return PiSession(lines=tuple(lines), trailing_newline=trailing)


def render(native: PiSession) -> str:
    """The exact text the body was parsed from (or was built as)."""
    text = "\n".join(line.text for line in native.lines)
    return text + "\n" if native.trailing_newline and native.lines else text


def id_from_file_name(name: str) -> str:
    """The session id a file name carries: pi's ``<time>_<uuid>.jsonl`` gives the uuid, any other
    ``<stem>.jsonl`` (OpenClaw's ``<sessionId>.jsonl``) its stem."""
    match = _UUID_IN_NAME.search(name)
    if match:
        return match.group(1)
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else name


def sniff_lines(parsed: list[Any]) -> bool:
    """Do a JSONL document's first parsed lines look like a pi session (a header first)?"""
    first = next((value for value in parsed if value is not INVALID), INVALID)
    return is_header(first)
