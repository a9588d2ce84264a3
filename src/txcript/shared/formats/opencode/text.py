"""The OpenCode text form: the ``opencode export`` document (no I/O).

``{"info": <session>, "messages": [{"info": <message>, "parts": [<part>, …]}, …]}``. The session
``info`` is the row in OpenCode's camelCase shape (``projectID``, ``time{created, updated, …}``,
``summary{…}``, ``share{url}``, ``tokens{…, cache{read, write}}``); messages and parts carry their
``id``, ``sessionID`` (and ``messageID``) inside the object, where the database keeps them as
columns. Columns this module does not know travel under their own name, so nothing is dropped.
"""

from __future__ import annotations

from typing import Any

from txcript.errors import Malformed, Unconvertible
from txcript.shared.jsonutil import INVALID, loads_strict
from txcript.shared.text import shown

from .native import (
    HARNESS,
    JSON_COLUMNS,
    NativeMessage,
    OpenCodeSession,
    Record,
    dumps,
    int_or_none,
    json_cell,
)

_PLAIN = {
    "id": "id",
    "slug": "slug",
    "project_id": "projectID",
    "workspace_id": "workspaceID",
    "parent_id": "parentID",
    "directory": "directory",
    "path": "path",
    "title": "title",
    "version": "version",
    "agent": "agent",
    "cost": "cost",
    "revert": "revert",
    "permission": "permission",
    "model": "model",
    "metadata": "metadata",
}
_TIME = {
    "time_created": "created",
    "time_updated": "updated",
    "time_compacting": "compacting",
    "time_archived": "archived",
}
_SUMMARY = {
    "summary_additions": "additions",
    "summary_deletions": "deletions",
    "summary_files": "files",
    "summary_diffs": "diffs",
}
_TOKENS = {"tokens_input": "input", "tokens_output": "output", "tokens_reasoning": "reasoning"}
_CACHE = {"tokens_cache_read": "read", "tokens_cache_write": "write"}
_KNOWN = {*_PLAIN, *_TIME, *_SUMMARY, *_TOKENS, *_CACHE, "share_url"}


def _cell(column: str, value: Any) -> Any:
    return json_cell(value) if column in JSON_COLUMNS else value


def session_info(row: dict[str, Any]) -> dict[str, Any]:
    """A ``session`` row as the export's ``info`` object (absent and NULL columns left out)."""
    info: dict[str, Any] = {}
    groups: dict[str, dict[str, Any]] = {"time": {}, "summary": {}, "tokens": {}, "cache": {}}
    for column, value in row.items():
        if value is None:
            if column == "model":
                # A NULL model is not an absent one: without the column (older schemas) a
                # session takes its first reply's model, so the document says null.
                info["model"] = None
            continue
        if column in _PLAIN:
            info[_PLAIN[column]] = _cell(column, value)
        elif column in _TIME:
            groups["time"][_TIME[column]] = value
        elif column in _SUMMARY:
            groups["summary"][_SUMMARY[column]] = _cell(column, value)
        elif column in _TOKENS:
            groups["tokens"][_TOKENS[column]] = value
        elif column in _CACHE:
            groups["cache"][_CACHE[column]] = value
        elif column == "share_url":
            info["share"] = {"url": value}
        else:
            info[column] = value
    for name in ("summary", "time"):
        if groups[name]:
            info[name] = groups[name]
    if groups["cache"]:
        groups["tokens"]["cache"] = groups["cache"]
    if groups["tokens"]:
        info["tokens"] = groups["tokens"]
    return info


def session_row(info: dict[str, Any]) -> dict[str, Any]:
    """The export's session ``info`` as ``session`` columns (inverse of :func:`session_info`)."""
    row: dict[str, Any] = {}
    by_key = {key: column for column, key in _PLAIN.items()}
    for key, value in info.items():
        if key in by_key:
            column = by_key[key]
            row[column] = dumps(value) if column in JSON_COLUMNS and value is not None else value
        elif key == "time" and isinstance(value, dict):
            for column, sub in _TIME.items():
                if sub in value:
                    row[column] = value[sub]
        elif key == "summary" and isinstance(value, dict):
            for column, sub in _SUMMARY.items():
                if sub in value:
                    row[column] = dumps(value[sub]) if column in JSON_COLUMNS else value[sub]
        elif key == "tokens" and isinstance(value, dict):
            for column, sub in _TOKENS.items():
                if sub in value:
                    row[column] = value[sub]
            cache = value.get("cache")
            if isinstance(cache, dict):
                for column, sub in _CACHE.items():
                    if sub in cache:
                        row[column] = cache[sub]
        elif key == "share" and isinstance(value, dict) and "url" in value:
            row["share_url"] = value["url"]
        elif key not in _KNOWN:
            row[key] = value
    return row


def _strip(data: Any, *keys: str) -> Any:
    if not isinstance(data, dict):
        return data
    return {k: v for k, v in data.items() if k not in keys}


def record_from_object(value: Any, *keys: str) -> Record:
    """A message or part object (ids inside) as a row record (ids as columns, out of ``data``)."""
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        raise Malformed(HARNESS, "a message or part has no string `id`")
    data = _strip(value, "id", *keys)
    time = data.get("time") if isinstance(data, dict) else None
    created = int_or_none(time.get("created")) if isinstance(time, dict) else None
    if created is None and isinstance(time, dict):
        created = int_or_none(time.get("start"))
    return Record.of(value["id"], data, created, created)


def with_ids(record: Record, **ids: str) -> Any:
    """A row record as the object OpenCode exports: its ids first, then its data.

    A row whose data is not JSON (a damaged database) has no place in the document: that is a
    one-line :class:`Unconvertible`, and the store keeps the row as it is.
    """
    if record.data is INVALID:
        raise Unconvertible(
            HARNESS,
            f"row {shown(record.id)} does not hold JSON, which the export document cannot carry",
        )
    if not isinstance(record.data, dict):
        return record.data
    return {"id": record.id, **ids, **record.data}


def to_document(native: OpenCodeSession) -> dict[str, Any]:
    session_id = native.id
    messages = []
    for message in native.messages:
        messages.append(
            {
                "info": with_ids(message.record, sessionID=session_id),
                "parts": [
                    with_ids(part, sessionID=session_id, messageID=message.record.id)
                    for part in message.parts
                ],
            }
        )
    return {"info": session_info(native.session), "messages": messages}


def to_text(native: OpenCodeSession) -> str:
    return dumps(to_document(native))


def sniff(document: Any) -> bool:
    if not isinstance(document, dict) or set(document) - {"info", "messages"}:
        return False
    info, messages = document.get("info"), document.get("messages")
    return (
        isinstance(info, dict)
        and isinstance(info.get("id"), str)
        and "directory" in info
        and isinstance(messages, list)
    )


def from_document(document: Any) -> OpenCodeSession:
    if not isinstance(document, dict):
        raise Malformed(HARNESS, "an export document is a JSON object")
    info = document.get("info")
    if not isinstance(info, dict) or not isinstance(info.get("id"), str):
        raise Malformed(HARNESS, "the export has no session `info` with an `id`")
    raw_messages = document.get("messages", [])
    if not isinstance(raw_messages, list):
        raise Malformed(HARNESS, "`messages` is not a list")
    messages = []
    for entry in raw_messages:
        if not isinstance(entry, dict):
            raise Malformed(HARNESS, "a message entry is not an object")
        record = record_from_object(entry.get("info"), "sessionID")
        parts = entry.get("parts", [])
        if not isinstance(parts, list):
            raise Malformed(HARNESS, f"the parts of message {record.id} are not a list")
        messages.append(
            NativeMessage(
                record, tuple(record_from_object(p, "sessionID", "messageID") for p in parts)
            )
        )
    return OpenCodeSession(session_row(info), tuple(messages))


def from_text(text: str) -> OpenCodeSession:
    try:
        document = loads_strict(text)
    except ValueError as exc:
        raise Malformed(HARNESS, f"the export is not JSON: {exc}") from None
    return from_document(document)
