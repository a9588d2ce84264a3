"""The Cursor desktop text form: one session's database cells as a portable JSON document.

A JSON object whose fields, in this order, are::

    header            string   the head document text (composerHeaders.value)      required
    workspace_id      string   the workspaceId column; omitted when null
    created_at        integer  ms epoch                                             default 0
    last_updated_at   integer  ms epoch                                             default 0
    is_archived       bool     omitted when false
    is_subagent       bool     omitted when false
    recency           integer  ms epoch                                             default 0
    checkpoint_at     integer  omitted when null
    composer_data     string   the composerData:<cid> cell; omitted when absent
    bubbles           array    [{"key", "value"}] bubbleId rows in row order        required
    aux               array    [{"key", "value"}] the session's other rows; omitted when empty
    extra_columns     object   header columns txcript does not model (omitted when none); a BLOB
                               is {"hex": "…"}, a non-finite REAL {"real": "inf"|"-inf"|"nan"}
    header_origin     string   "item_table" or "synthesized"; omitted for "table"

Every cell is kept as the exact text the app stored. Output is pretty-printed with a two-space
indent and no trailing newline. Unknown fields are ignored on input; wrong types, missing required
fields, integers outside SQLite's 64-bit range and non-JSON input raise
:class:`~txcript.errors.Malformed` with a one-line message naming the field. The store reference
is not part of the text form.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, get_args

from txcript.errors import Malformed
from txcript.harnesses.cursor_desktop.native import CursorSession, HeaderOrigin, KVRow
from txcript.shared.jsonutil import dumps_pretty, iter_pretty, loads_strict

HARNESS = "cursor_desktop"
_I64 = (-(2**63), 2**63)
_ORIGINS: tuple[str, ...] = get_args(HeaderOrigin)
_SQL_SCALAR = str | int | float | bytes | None


def _malformed(detail: str) -> Malformed:
    return Malformed(HARNESS, detail)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _malformed(f"`{where}` must be a string, not {_kind(value)}")
    if _has_surrogate(value):
        raise _malformed(f"`{where}` contains an unpaired surrogate")
    return value


def _integer(value: Any, where: str) -> int:
    if type(value) is not int:
        raise _malformed(f"`{where}` must be an integer, not {_kind(value)}")
    if not _I64[0] <= value < _I64[1]:
        raise _malformed(f"`{where}` is outside the 64-bit integer range")
    return value


def _boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _malformed(f"`{where}` must be true or false, not {_kind(value)}")
    return value


def _rows(value: Any, where: str) -> tuple[KVRow, ...]:
    if not isinstance(value, list):
        raise _malformed(f"`{where}` must be an array, not {_kind(value)}")
    rows = []
    for index, row in enumerate(value):
        place = f"{where}[{index}]"
        if not isinstance(row, dict):
            raise _malformed(f"`{place}` must be an object with `key` and `value`")
        for field in ("key", "value"):
            if field not in row:
                raise _malformed(f"`{place}` has no `{field}`")
        rows.append(
            KVRow(_string(row["key"], f"{place}.key"), _string(row["value"], f"{place}.value"))
        )
    return tuple(rows)


def _column_value(value: Any, where: str) -> str | int | float | bytes | None:
    if value is None or isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return _integer(value, where)
    if isinstance(value, str):
        return _string(value, where)
    if isinstance(value, dict) and len(value) == 1:
        if isinstance(value.get("hex"), str):
            try:
                return bytes.fromhex(value["hex"])
            except ValueError:
                raise _malformed(f"`{where}.hex` is not hexadecimal") from None
        if value.get("real") in ("inf", "-inf", "nan"):
            return float(value["real"])
    raise _malformed(f"`{where}` must be null, a number, a string, {{hex}} or {{real}}")


def _extra_columns(value: Any) -> tuple[tuple[str, _SQL_SCALAR], ...]:
    if not isinstance(value, dict):
        raise _malformed(f"`extra_columns` must be an object, not {_kind(value)}")
    return tuple(
        (_string(name, "extra_columns"), _column_value(cell, f"extra_columns.{name}"))
        for name, cell in value.items()
    )


def from_text(text: str) -> CursorSession:
    """Parse the text form; raise :class:`Malformed` naming the first problem found."""
    try:
        document = loads_strict(text)
    except (ValueError, RecursionError) as exc:
        detail = " ".join(str(exc).split())
        raise _malformed(f"not valid JSON ({detail})") from None
    if not isinstance(document, dict):
        raise _malformed(f"the document must be a JSON object, not {_kind(document)}")
    for required in ("header", "bubbles"):
        if required not in document:
            raise _malformed(f"missing required field `{required}`")

    def optional(name: str, parse: Any, default: Any, *, nullable: bool = False) -> Any:
        if name not in document or (nullable and document[name] is None):
            return default
        return parse(document[name], name)

    origin = document.get("header_origin", "table")
    if origin not in _ORIGINS:
        raise _malformed(f"`header_origin` must be one of {', '.join(_ORIGINS)}")
    return CursorSession(
        header=_string(document["header"], "header"),
        bubbles=_rows(document["bubbles"], "bubbles"),
        workspace_id=optional("workspace_id", _string, None, nullable=True),
        created_at=optional("created_at", _integer, 0),
        last_updated_at=optional("last_updated_at", _integer, 0),
        is_archived=optional("is_archived", _boolean, False),
        is_subagent=optional("is_subagent", _boolean, False),
        recency=optional("recency", _integer, 0),
        checkpoint_at=optional("checkpoint_at", _integer, None, nullable=True),
        composer_data=optional("composer_data", _string, None, nullable=True),
        aux=optional("aux", _rows, ()),
        extra_columns=_extra_columns(document["extra_columns"])
        if document.get("extra_columns") is not None
        else (),
        header_origin=origin,
    )


def _cell(value: str | int | float | bytes | None) -> Any:
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, float) and not math.isfinite(value):
        return {"real": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    return value


def to_text(session: CursorSession) -> str:
    """Render the text form (field order fixed, defaults omitted, two-space indent)."""
    return dumps_pretty(_document(session))


def to_text_chunks(session: CursorSession) -> Iterator[bytes]:
    """:func:`to_text` as UTF-8, streamed a bubble row at a time."""
    return iter_pretty(_document(session))


def _document(session: CursorSession) -> dict[str, Any]:
    document: dict[str, Any] = {"header": session.header}
    if session.workspace_id is not None:
        document["workspace_id"] = session.workspace_id
    document["created_at"] = session.created_at
    document["last_updated_at"] = session.last_updated_at
    if session.is_archived:
        document["is_archived"] = True
    if session.is_subagent:
        document["is_subagent"] = True
    document["recency"] = session.recency
    if session.checkpoint_at is not None:
        document["checkpoint_at"] = session.checkpoint_at
    if session.composer_data is not None:
        document["composer_data"] = session.composer_data
    document["bubbles"] = [{"key": row.key, "value": row.value} for row in session.bubbles]
    if session.aux:
        document["aux"] = [{"key": row.key, "value": row.value} for row in session.aux]
    if session.extra_columns:
        document["extra_columns"] = {name: _cell(value) for name, value in session.extra_columns}
    if session.header_origin != "table":
        document["header_origin"] = session.header_origin
    return document


def sniff(document: Any) -> bool:
    """Is this parsed JSON value a Cursor desktop text form (``header`` text plus row arrays)?"""
    if not isinstance(document, dict):
        return False
    bubbles = document.get("bubbles")
    if not isinstance(document.get("header"), str) or not isinstance(bubbles, list):
        return False
    return all(
        isinstance(row, dict)
        and isinstance(row.get("key"), str)
        and isinstance(row.get("value"), str)
        for row in bubbles[:8]
    )
