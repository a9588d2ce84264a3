"""Session metadata from records in file order: shared by ``to_common`` and the cheap discovery.

Every field is decided by a *first* record of some kind or by title records, never by the
``parentUuid`` chain, so discovery can stop parsing early and still produce exactly the Meta a
full load gives:

* ``timestamp`` — the first record with a valid top-level ``timestamp`` (the session start);
  the Unix epoch when no record has one (stable, never the clock).
* ``cwd``, ``git_branch``, ``cli_version`` — from the first ``user``/``assistant`` record
  (``cwd``, ``gitBranch``, ``version``); an empty string is absent (``gitBranch`` is ``""``
  outside git).
* ``model`` — the first ``assistant`` record whose ``message.model`` is a non-empty string other
  than ``<synthetic>`` (Claude Code's marker for messages no model produced).
* ``title`` — the last non-empty ``custom-title`` (``/rename``), else ``ai-title``, else
  ``agent-name``, else ``summary``.
* ``id`` — the file stem when known, else the first conversation record's ``sessionId``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from txcript.model import Meta
from txcript.shared.files import decode_lossless
from txcript.shared.timeutil import EPOCH, parse_rfc3339

CONVERSATION = ("user", "assistant")
SYNTHETIC_MODEL = "<synthetic>"
#: Title record types, highest precedence first, with the key holding the title.
TITLE_KEYS = (
    ("custom-title", "customTitle"),
    ("ai-title", "aiTitle"),
    ("agent-name", "agentName"),
    ("summary", "summary"),
)
_TITLE_KEY = dict(TITLE_KEYS)
#: Byte patterns a line must contain to be a title record / an assistant or title record. Lines
#: that do not match are never parsed once the head fields are known.
_TITLE_LINE = re.compile(rb'"type"\s*:\s*"(?:summary|custom-title|ai-title|agent-name)"')
_ASSISTANT_OR_TITLE = re.compile(
    rb'"type"\s*:\s*"(?:assistant|summary|custom-title|ai-title|agent-name)"'
)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def message_model(record: dict[str, Any]) -> str | None:
    """The model of an assistant record, unless absent or synthetic."""
    message = record.get("message")
    if not isinstance(message, dict):
        return None
    model = _text(message.get("model"))
    return None if model == SYNTHETIC_MODEL else model


class MetaScan:
    """Feed records in file order; :meth:`meta` gives the session's Meta."""

    def __init__(self, session_id: str = "") -> None:
        self.session_id = session_id
        self.timestamp: datetime | None = None
        self.first: dict[str, Any] | None = None
        self.model: str | None = None
        self.titles: dict[str, str] = {}

    @property
    def needs_every_record(self) -> bool:
        """Is a field still undecided that any record could decide (start time, first turn)?"""
        return self.timestamp is None or self.first is None

    @property
    def needs_assistant(self) -> bool:
        return self.model is None

    def feed(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if self.timestamp is None:
            self.timestamp = parse_rfc3339(record.get("timestamp"))
        if kind in CONVERSATION:
            if self.first is None:
                self.first = record
            if kind == "assistant" and self.model is None:
                self.model = message_model(record)
            return
        if isinstance(kind, str):
            key = _TITLE_KEY.get(kind)
            if key is not None:
                title = _text(record.get(key))
                if title is not None:
                    self.titles[kind] = title

    @property
    def title(self) -> str | None:
        for kind, _ in TITLE_KEYS:
            if kind in self.titles:
                return self.titles[kind]
        return None

    @property
    def is_sidechain_file(self) -> bool:
        """Does the file start as a subagent transcript (old CLIs kept them beside sessions)?"""
        return self.first is not None and self.first.get("isSidechain") is True

    def meta(self) -> Meta:
        first = self.first or {}
        return Meta(
            id=self.session_id or _text(first.get("sessionId")) or "",
            timestamp=self.timestamp or EPOCH,
            cwd=_text(first.get("cwd")),
            git_branch=_text(first.get("gitBranch")),
            title=self.title,
            cli_version=_text(first.get("version")),
            model=self.model,
        )


def scan_head(data: bytes, session_id: str, loads: Callable[[str], Any]) -> MetaScan:
    """The metadata of a session file's bytes, parsing (with ``loads``) as few lines as the rules
    allow: every line until the start time and the first turn are known, then only lines that
    may be an assistant or title record until the model is known, then title records alone."""
    scan = MetaScan(session_id)
    position, size = 0, len(data)
    while position < size and (scan.needs_every_record or scan.needs_assistant):
        end = data.find(b"\n", position)
        end = size if end < 0 else end
        line = data[position:end]
        position = end + 1
        if scan.needs_every_record or _ASSISTANT_OR_TITLE.search(line):
            value = loads(decode_lossless(line))
            if isinstance(value, dict):
                scan.feed(value)
    while position < size:
        found = _TITLE_LINE.search(data, position)
        if found is None:
            break
        start = data.rfind(b"\n", position, found.start()) + 1
        start = max(start, position)
        end = data.find(b"\n", found.end())
        end = size if end < 0 else end
        value = loads(decode_lossless(data[start:end]))
        if isinstance(value, dict):
            scan.feed(value)
        position = end + 1
    return scan
