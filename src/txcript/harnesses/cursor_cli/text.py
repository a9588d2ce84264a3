"""The Cursor CLI text form: one chat directory as a portable JSON document.

A JSON object whose fields, in this order, are::

    chat_id         string   the chat directory's name                               required
    bucket          string   the workspace directory's name (md5 of the cwd); omitted when none
    schema          array    the CREATE statements of store.db's tables               required
    user_version    integer  store.db's user_version pragma                          default 1
    meta            array    [{"key", "value"}] meta rows in row order                required
    blobs           array    [{"id", "hex", "text"?}] blobs rows in row order; "text": true
                             when the cell was stored as TEXT                         required
    meta_json       string   meta.json's bytes as text, or {"hex": …} when not UTF-8; omitted
                             when the file is absent
    prompt_history  string   prompt_history.json, the same way
    resolved_cwd    string   the workspace the bucket was matched to; omitted when none
    modified_ms     integer  the store's mtime in epoch ms; omitted when unknown

A meta value is a JSON string (TEXT), number (INTEGER/REAL), null, or ``{"hex": …}`` (BLOB).
Output is pretty-printed with a two-space indent. Wrong types, missing fields, bad hex and
non-JSON input raise :class:`~txcript.errors.Malformed` naming the field.
"""

from __future__ import annotations

from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonutil import dumps_pretty, loads_strict
from txcript.shared.sqlcells import (
    CellError,
    bytes_from_json,
    bytes_to_json,
    cell_from_json,
    cell_to_json,
    hex_from_json,
)

from .native import DEFAULT_USER_VERSION, HARNESS, Blob, Cell, CursorChat, MetaRow


def _malformed(detail: str) -> Malformed:
    return Malformed(HARNESS, detail)


def _bytes_out(data: bytes) -> str | dict[str, str]:
    return bytes_to_json(data)


def _cell_out(value: Cell) -> Any:
    return cell_to_json(value)


def to_text(chat: CursorChat) -> str:
    document: dict[str, Any] = {"chat_id": chat.chat_id}
    if chat.bucket is not None:
        document["bucket"] = chat.bucket
    document["schema"] = list(chat.schema)
    document["user_version"] = chat.user_version
    document["meta"] = [{"key": row.key, "value": _cell_out(row.value)} for row in chat.meta]
    blobs = []
    for blob in chat.blobs:
        entry: dict[str, Any] = {"id": blob.id, "hex": blob.data.hex()}
        if blob.text:
            entry["text"] = True
        blobs.append(entry)
    document["blobs"] = blobs
    if chat.meta_json is not None:
        document["meta_json"] = _bytes_out(chat.meta_json)
    if chat.prompt_history is not None:
        document["prompt_history"] = _bytes_out(chat.prompt_history)
    if chat.resolved_cwd is not None:
        document["resolved_cwd"] = chat.resolved_cwd
    if chat.modified_ms is not None:
        document["modified_ms"] = chat.modified_ms
    return dumps_pretty(document)


def _hex(value: Any, where: str) -> bytes:
    try:
        return hex_from_json(value, where)
    except CellError as exc:
        raise _malformed(str(exc)) from None


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _malformed(f"`{where}` must be a string")
    return value


def _cell_in(value: Any, where: str) -> Cell:
    try:
        return cell_from_json(value, where)
    except CellError as exc:
        raise _malformed(str(exc)) from None


def _side_file(value: Any, where: str) -> bytes | None:
    if value is None:
        return None
    try:
        return bytes_from_json(value, where)
    except CellError as exc:
        raise _malformed(str(exc)) from None


def _list(document: dict[str, Any], name: str) -> list[Any]:
    value = document.get(name)
    if not isinstance(value, list):
        raise _malformed(f"`{name}` must be an array")
    return value


def from_text(text: str) -> CursorChat:
    try:
        document = loads_strict(text)
    except ValueError as exc:
        raise _malformed(f"not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise _malformed("the document must be a JSON object")
    chat_id = _string(document.get("chat_id"), "chat_id")
    bucket = document.get("bucket")
    if bucket is not None:
        bucket = _string(bucket, "bucket")
    schema = tuple(_string(s, f"schema[{i}]") for i, s in enumerate(_list(document, "schema")))
    user_version = document.get("user_version", DEFAULT_USER_VERSION)
    if type(user_version) is not int or not -(2**31) <= user_version < 2**31:
        raise _malformed("`user_version` must be a 32-bit integer")
    meta = []
    for i, row in enumerate(_list(document, "meta")):
        if not isinstance(row, dict):
            raise _malformed(f"`meta[{i}]` must be an object")
        key = _string(row.get("key"), f"meta[{i}].key")
        meta.append(MetaRow(key, _cell_in(row.get("value"), f"meta[{i}].value")))
    blobs = []
    for i, row in enumerate(_list(document, "blobs")):
        if not isinstance(row, dict):
            raise _malformed(f"`blobs[{i}]` must be an object")
        as_text = row.get("text", False)
        if not isinstance(as_text, bool):
            raise _malformed(f"`blobs[{i}].text` must be a boolean")
        data = _hex(row.get("hex"), f"blobs[{i}].hex")
        blobs.append(Blob(_string(row.get("id"), f"blobs[{i}].id"), data, as_text))
    resolved = document.get("resolved_cwd")
    if resolved is not None:
        resolved = _string(resolved, "resolved_cwd")
    modified = document.get("modified_ms")
    if modified is not None and (type(modified) is not int or modified < 0):
        raise _malformed("`modified_ms` must be a non-negative integer")
    return CursorChat(
        chat_id=chat_id,
        blobs=tuple(blobs),
        meta=tuple(meta),
        bucket=bucket,
        meta_json=_side_file(document.get("meta_json"), "meta_json"),
        prompt_history=_side_file(document.get("prompt_history"), "prompt_history"),
        schema=schema,
        user_version=user_version,
        resolved_cwd=resolved,
        modified_ms=modified,
    )


def sniff(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and isinstance(document.get("chat_id"), str)
        and isinstance(document.get("blobs"), list)
        and isinstance(document.get("meta"), list)
    )
