"""The Antigravity text form: one conversation (database and brain folder) as a JSON document.

A JSON object whose fields, in this order, are::

    conversation_id  string   the database's file stem                                required
    user_version     integer  the database's user_version pragma                     default 1
    schema           array    the database's CREATE statements, in sqlite_master order required
    tables           array    [{"name", "columns": [...], "rows": [[cell, ...], ...]}] in
                              schema order, rows in rowid order                        required
    brain            array    [{"path", "data"}] the brain folder's files; "data" is the text,
                              or {"hex": …} when it is not UTF-8                       default []

Cells keep their storage class (:mod:`txcript.shared.sqlcells`): a JSON string (TEXT), number
(INTEGER/REAL), null, or ``{"hex": …}`` (BLOB: the steps' protobuf). Output is pretty-printed
with a two-space indent. Wrong types, missing fields, bad hex and non-JSON input raise
:class:`~txcript.errors.Malformed` naming the field.
"""

from __future__ import annotations

from typing import Any

from txcript.errors import Malformed
from txcript.harnesses.antigravity.native import (
    HARNESS,
    USER_VERSION,
    BrainFile,
    Conversation,
    Table,
)
from txcript.shared.jsonutil import dumps_pretty, loads_strict
from txcript.shared.sqlcells import (
    CellError,
    bytes_from_json,
    bytes_to_json,
    cell_from_json,
    cell_to_json,
)


def to_text(conversation: Conversation) -> str:
    document: dict[str, Any] = {
        "conversation_id": conversation.conversation_id,
        "user_version": conversation.user_version,
        "schema": list(conversation.schema),
        "tables": [
            {
                "name": table.name,
                "columns": list(table.columns),
                "rows": [[cell_to_json(cell) for cell in row] for row in table.rows],
            }
            for table in conversation.tables
        ],
        "brain": [{"path": f.path, "data": bytes_to_json(f.data)} for f in conversation.brain],
    }
    return dumps_pretty(document)


def _malformed(detail: str) -> Malformed:
    return Malformed(HARNESS, detail)


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _malformed(f"`{where}` must be a string")
    return value


def _array(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _malformed(f"`{where}` must be an array")
    return value


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _malformed(f"`{where}` must be an object")
    return value


def _table(value: Any, where: str) -> Table:
    entry = _object(value, where)
    name = _string(entry.get("name"), f"{where}.name")
    columns = tuple(
        _string(c, f"{where}.columns[{i}]")
        for i, c in enumerate(_array(entry.get("columns"), f"{where}.columns"))
    )
    rows = []
    for i, row in enumerate(_array(entry.get("rows"), f"{where}.rows")):
        cells = _array(row, f"{where}.rows[{i}]")
        if len(cells) != len(columns):
            raise _malformed(
                f"`{where}.rows[{i}]` has {len(cells)} cells for {len(columns)} columns"
            )
        try:
            rows.append(
                tuple(cell_from_json(c, f"{where}.rows[{i}][{j}]") for j, c in enumerate(cells))
            )
        except CellError as exc:
            raise _malformed(str(exc)) from None
    return Table(name, columns, tuple(rows))


def _brain_file(value: Any, where: str) -> BrainFile:
    entry = _object(value, where)
    path = _string(entry.get("path"), f"{where}.path")
    try:
        data = bytes_from_json(entry.get("data"), f"{where}.data")
    except CellError as exc:
        raise _malformed(str(exc)) from None
    return BrainFile(path, data)


def from_text(text: str) -> Conversation:
    try:
        document = loads_strict(text)
    except ValueError as exc:
        raise _malformed(f"not valid JSON: {exc}") from None
    document = _object(document, "the document")
    conversation_id = _string(document.get("conversation_id"), "conversation_id")
    user_version = document.get("user_version", USER_VERSION)
    if type(user_version) is not int or not -(2**31) <= user_version < 2**31:
        raise _malformed("`user_version` must be a 32-bit integer")
    schema = tuple(
        _string(s, f"schema[{i}]") for i, s in enumerate(_array(document.get("schema"), "schema"))
    )
    tables = tuple(
        _table(t, f"tables[{i}]") for i, t in enumerate(_array(document.get("tables"), "tables"))
    )
    brain = tuple(
        _brain_file(f, f"brain[{i}]")
        for i, f in enumerate(_array(document.get("brain", []), "brain"))
    )
    return Conversation(conversation_id, tables, schema, user_version, brain)


def sniff(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and isinstance(document.get("conversation_id"), str)
        and isinstance(document.get("tables"), list)
        and isinstance(document.get("schema"), list)
    )
