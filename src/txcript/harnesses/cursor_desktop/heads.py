"""The head of a Cursor desktop session: what load and discovery both derive from its header
row, the ``ItemTable`` index (3.7.x) and the composerData times.

Header rows are read leniently, where the reference discards the whole row when one column has
the wrong storage class: a TEXT or UTF-8 BLOB ``value`` is kept as the head; integer columns
holding a REAL (``recency REAL``) or decimal TEXT are converted; an unusable column becomes 0/NULL
on its own. Only a NULL or non-text ``value`` makes the head fall back to the ItemTable entry or a
synthesised head (the row's columns are still used). Columns txcript does not model
(``subagentTypeName`` …) are carried in ``extra_columns``.

"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from txcript.harnesses.cursor_desktop.database import (
    ITEM_HEADERS_KEY,
    InvalidText,
    Schema,
    cell_integer,
    cell_text,
    quote_identifier,
)
from txcript.harnesses.cursor_desktop.meta import COMPOSER_FIELD_PATHS
from txcript.shared.jsonutil import pick, try_loads

if TYPE_CHECKING:
    from txcript.harnesses.cursor_desktop.native import HeaderOrigin

SqlValue = str | int | float | bytes | None

#: composerData values discovery extracts: the codec's metadata fields plus the two times a
#: head without a header row takes its columns from.
COMPOSER_PATHS: dict[str, tuple[str | int, ...]] = {
    **COMPOSER_FIELD_PATHS,
    " createdAt": ("createdAt",),
    " lastUpdatedAt": ("lastUpdatedAt",),
}


def json_int(value: object) -> int | None:
    return value if type(value) is int else None


def _scalar(value: object) -> SqlValue:
    if isinstance(value, InvalidText):
        return value.raw
    if value is None or isinstance(value, str | int | float | bytes):
        return value
    return None


def synthesized_head(cid: str) -> str:
    """The head of a session with none recorded: ``{"type":"head","composerId":…}``, escaped."""
    return json.dumps(
        {"type": "head", "composerId": cid}, separators=(",", ":"), ensure_ascii=False
    )


def fields_of(document: Any) -> dict[str, Any] | None:
    """The :data:`COMPOSER_PATHS` values of a parsed composerData (None unless an object)."""
    if not isinstance(document, dict):
        return None
    return pick(document, COMPOSER_PATHS)


class _HeadIndex(msgspec.Struct):
    allComposers: list[msgspec.Raw] = msgspec.field(default_factory=list)


def read_item_heads(conn: sqlite3.Connection, schema: Schema) -> dict[str, str]:
    """composerId → head text from the ``ItemTable`` index (3.7.x); the first entry per id wins.

    The index holds no per-session cell to keep verbatim, so a head is its entry minified with
    the original key order and tokens (what SQLite's JSON functions would render).
    """
    if not schema.has_item_table:
        return {}
    row = conn.execute(
        "SELECT CAST(value AS TEXT) FROM ItemTable WHERE key = ?", (ITEM_HEADERS_KEY,)
    ).fetchone()
    text = None if row is None else cell_text(row[0])
    if text is None:
        return {}
    try:
        index = msgspec.json.decode(text, type=_HeadIndex)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return {}
    heads: dict[str, str] = {}
    for raw in index.allComposers:
        try:
            entry = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            continue
        cid = entry.get("composerId") if isinstance(entry, dict) else None
        if isinstance(cid, str) and cid and cid not in heads:
            heads[cid] = msgspec.json.format(bytes(raw), indent=-1).decode("utf-8")
    return heads


@dataclass(frozen=True, slots=True)
class Head:
    """A session's head and header columns, exactly as load and discovery both see them."""

    header: str
    origin: HeaderOrigin
    workspace_id: str | None = None
    created_at: int = 0
    last_updated_at: int = 0
    is_archived: bool = False
    is_subagent: bool = False
    recency: int = 0
    checkpoint_at: int | None = None
    extra_columns: tuple[tuple[str, SqlValue], ...] = ()
    #: What discovery sorts by, newest first (None sorts last).
    sort_key: int | None = None


_KNOWN_COLUMNS = frozenset(
    {
        "composerid",
        "workspaceid",
        "createdat",
        "lastupdatedat",
        "isarchived",
        "issubagent",
        "recency",
        "checkpointat",
        "value",
    }
)


def _header_names(schema: Schema) -> tuple[str, ...]:
    """The header columns' names as rows are keyed: known ones lower-cased, others as declared."""
    return tuple(
        name.lower() if name.lower() in _KNOWN_COLUMNS else name for name in schema.header_columns
    )


def listing_columns(schema: Schema) -> list[tuple[str, str]]:
    """``(declared name, row key)`` of the header columns :func:`table_head` reads."""
    return [
        (column, name)
        for column, name in zip(schema.header_columns, _header_names(schema), strict=True)
        if name in ("value", "createdat", "recency", "lastupdatedat")
    ]


def header_row(schema: Schema, cells: Sequence[object]) -> dict[str, object]:
    """A header row by column name (:func:`_header_names`)."""
    return dict(zip(_header_names(schema), cells, strict=True))


def table_head(
    cid: str, row: dict[str, object], item_head: str | None
) -> tuple[str, int, int | None]:
    """``(head text, createdAt, recency)`` of a session with a header row (all discovery needs)."""
    value = cell_text(row.get("value"))
    header = value if value is not None else (item_head or synthesized_head(cid))
    return header, cell_integer(row.get("createdat")) or 0, cell_integer(row.get("recency"))


def resolve_head(
    cid: str, row: dict[str, object] | None, item_head: str | None, fields: Mapping[str, Any]
) -> Head:
    """Combine the header row, the ItemTable head and the composerData times into one head."""
    if row is not None:
        header, created_at, recency = table_head(cid, row, item_head)
        return Head(
            header=header,
            origin="table",
            workspace_id=cell_text(row.get("workspaceid")),
            created_at=created_at,
            last_updated_at=cell_integer(row.get("lastupdatedat")) or 0,
            is_archived=bool(cell_integer(row.get("isarchived"))),
            is_subagent=bool(cell_integer(row.get("issubagent"))),
            recency=recency or 0,
            checkpoint_at=cell_integer(row.get("checkpointat")),
            extra_columns=tuple(
                (name, _scalar(cell)) for name, cell in row.items() if name not in _KNOWN_COLUMNS
            ),
            sort_key=recency,
        )
    cd_created = json_int(fields.get(" createdAt"))
    cd_updated = json_int(fields.get(" lastUpdatedAt"))
    if item_head is not None:
        head = try_loads(item_head)
        head = head if isinstance(head, dict) else {}
        workspace = head.get("workspaceIdentifier")
        workspace_id = workspace.get("id") if isinstance(workspace, dict) else None
        created = json_int(head.get("createdAt"))
        created = cd_created if created is None else created
        updated = json_int(head.get("lastUpdatedAt"))
        updated = cd_updated if updated is None else updated
        return Head(
            header=item_head,
            origin="item_table",
            workspace_id=workspace_id if isinstance(workspace_id, str) and workspace_id else None,
            created_at=created or 0,
            last_updated_at=updated or 0,
            is_archived=head.get("isArchived") is True,
            sort_key=created,
        )
    return Head(
        header=synthesized_head(cid),
        origin="synthesized",
        created_at=cd_created or 0,
        last_updated_at=cd_updated or 0,
        sort_key=cd_created,
    )


# -------------------------------------------------------------------------------- SQL


def cid_column(schema: Schema) -> str:
    return quote_identifier(next(c for c in schema.header_columns if c.lower() == "composerid"))


def bubble_range_sql(cid: str, alias: str) -> str:
    return (
        f"{alias}.key >= 'bubbleId:' || {cid} || ':' AND {alias}.key < 'bubbleId:' || {cid} || ';'"
    )
