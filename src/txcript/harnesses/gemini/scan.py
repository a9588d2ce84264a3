"""Discovery's cheap read of a chat file: only the fields the listing needs are decoded.

A title can arrive in the last ``$set`` and a rewind can remove the first prompt, so every line is
read; but a line is decoded into a small typed record that skips everything else (tool calls,
their results, thoughts, token counts) and leaves message content undecoded until the first
prompt's text is needed. The records then go through the same :func:`~.native.replay_values` /
:func:`~.native.replay_document` and :func:`~.codec.meta_from` a full load uses, so the Meta is
the same by construction. Anything the typed decoder declines (a line that is not an object, an
integer beyond 64 bits), and any file holding a number that may not be a finite float or bytes that
are not UTF-8, is decoded in full, as a load would.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from txcript.errors import Malformed
from txcript.shared.jsonutil import INVALID, try_loads

from .native import (
    HARNESS,
    Chat,
    is_header,
    is_legacy_document,
    is_message,
    is_record,
    replay_document,
    replay_values,
)


class _Record(msgspec.Struct):
    id: Any = UNSET
    type: Any = UNSET
    timestamp: Any = UNSET
    model: Any = UNSET
    content: msgspec.Raw | UnsetType = UNSET
    sessionId: Any = UNSET
    projectHash: Any = UNSET
    startTime: Any = UNSET
    lastUpdated: Any = UNSET
    summary: Any = UNSET
    kind: Any = UNSET
    patch: Any = msgspec.field(default=UNSET, name="$set")
    rewind: Any = msgspec.field(default=UNSET, name="$rewindTo")


class _Document(_Record):
    messages: list[_Record] | UnsetType = UNSET


_record = msgspec.json.Decoder(_Record)
#: A number token (after ``:``, ``,`` or ``[``) with a three-digit exponent or 300 digits: a
#: float that may not be finite. The light decoder skips numbers it does not keep without
#: checking them, so such a file takes the full path (a string that looks alike only costs time;
#: hex ids such as ``…03e800…`` inside strings do not match).
_OUT_OF_RANGE = re.compile(rb"[:,\[]\s*-?(?:[0-9.]+[eE][+-]?[0-9]{3}|[0-9.]{300})")
_document = msgspec.json.Decoder(_Document)


def _as_dict(record: _Record) -> dict[str, Any]:
    """The fields the line has, under Gemini's keys (unset ones are left out)."""
    value: dict[str, Any] = msgspec.to_builtins(record, builtin_types=(msgspec.Raw,))
    return value


def _line_value(raw: bytes) -> Any:
    try:
        return _as_dict(_record.decode(raw))
    except (msgspec.DecodeError, msgspec.ValidationError):
        return try_loads(raw)


def content(value: Any) -> Any:
    """A message's content, decoded now if the scan left it raw."""
    return try_loads(bytes(value)) if isinstance(value, msgspec.Raw) else value


def scan(data: bytes, label: str) -> tuple[Chat, Any] | None:
    """The replayed chat (light records) and the file's first value, or None for no chat.

    Raises :class:`~txcript.errors.Malformed` like :func:`~.native.parse` for text that is no
    Gemini chat.
    """
    if _OUT_OF_RANGE.search(data):
        return None  # a number the strict parser may refuse even where the light one skips it
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None  # the light decoder does not check the strings it skips
    if data.lstrip().startswith(b"{"):
        try:
            whole = _document.decode(data)
        except msgspec.DecodeError as exc:
            if "trailing characters" not in str(exc):
                return None  # not for the light decoder (e.g. an integer beyond 64 bits)
            whole = None  # more than one JSON value: a log
        except msgspec.ValidationError:
            return None  # a shape the light records do not take: a full load decides
        if whole is not None:
            document = _as_dict(whole)
            if is_legacy_document(document):
                return replay_document(document, label), document
            document.pop("messages", None)
            if not is_record(document):
                raise Malformed(HARNESS, f"{label} is not a Gemini chat")
    values = [
        _line_value(raw) if raw.strip() else INVALID
        for raw in (data[:-1] if data.endswith(b"\n") else data).split(b"\n")
    ]
    if not any(is_header(v) or is_message(v) for v in values if isinstance(v, dict)):
        raise Malformed(HARNESS, f"{label} holds no Gemini chat header or message records")
    return replay_values(values, label), values[0] if values else None
