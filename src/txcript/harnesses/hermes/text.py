"""The Hermes text forms (no I/O).

* A database session is written as the object ``hermes sessions export --format jsonl`` prints
  for it: the session row's columns, and ``messages`` (each row's columns, ``content`` and
  ``tool_calls`` parsed). Hermes's own export lines read back the same way (their ``id`` and
  ``session_id`` message keys are the database's row keys, which a copy gets anew).
* A log session is its file: a ``session_meta``-headed JSONL transcript or a JSON snapshot.

A cell that parsing and writing back would not give byte for byte (JSON not in the layout
Hermes writes) stays the text it was, so every form round-trips exactly.
"""

from __future__ import annotations

import json
from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonutil import INVALID, dumps_pretty, try_loads

from . import logs
from .database import ROW_KEYS
from .native import DB, HARNESS, JSON_PREFIX, HermesSession, decode_content, encode_content


def _parsed(text: Any) -> Any:
    """A JSON-text cell parsed when writing the parse back gives the same text, else as is."""
    if not isinstance(text, str) or not text:
        return text
    value = try_loads(text)
    return value if value is not INVALID and json.dumps(value) == text else text


def _shown_content(value: Any) -> Any:
    decoded = decode_content(value)
    return decoded if decoded is not value and encode_content(decoded) == value else value


def to_text(native: HermesSession) -> str:
    if native.kind != DB:
        return native.log or ""
    messages = []
    for row in native.messages:
        shown = dict(row)
        if "content" in shown:
            shown["content"] = _shown_content(shown["content"])
        if "tool_calls" in shown:
            shown["tool_calls"] = _parsed(shown["tool_calls"])
        messages.append(shown)
    return dumps_pretty({**native.session, "messages": messages}) + "\n"


def _stored_row(row: dict[str, Any]) -> dict[str, Any]:
    stored = {k: v for k, v in row.items() if k not in ROW_KEYS}
    if "content" in stored:
        content = stored["content"]
        if not (isinstance(content, str) and content.startswith(JSON_PREFIX)):
            stored["content"] = encode_content(content)
    if isinstance(stored.get("tool_calls"), list | dict):
        stored["tool_calls"] = json.dumps(stored["tool_calls"])
    return stored


def from_text(text: str) -> HermesSession:
    document = try_loads(text) if text.lstrip().startswith("{") else INVALID
    if logs.is_snapshot(document):
        return logs.parse_snapshot(text)
    if is_export(document):
        session = {k: v for k, v in document.items() if k != "messages"}
        rows = tuple(_stored_row(r) for r in document["messages"] if isinstance(r, dict))
        return HermesSession(session=session, messages=rows)
    first = next((line for line in text.split("\n") if line.strip()), "")
    head = try_loads(first)
    if not (logs.is_transcript_head(head) or _is_row(head)):
        raise Malformed(HARNESS, "not a Hermes session export, snapshot or transcript")
    return logs.parse_jsonl(text)


def _is_row(value: Any) -> bool:
    return isinstance(value, dict) and value.get("role") in ("user", "assistant", "tool")


def is_export(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and isinstance(document.get("id"), str)
        and isinstance(document.get("messages"), list)
        and ("source" in document or "started_at" in document)
    )


def sniff(document: Any) -> bool:
    return is_export(document) or logs.is_snapshot(document)


def sniff_lines(values: list[Any]) -> bool:
    return (
        bool(values)
        and logs.is_transcript_head(values[0])
        and all(isinstance(v, dict) and "role" in v for v in values[1:])
    )
