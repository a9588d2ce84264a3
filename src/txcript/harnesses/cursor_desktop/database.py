"""Opening Cursor's ``state.vscdb`` for reading without disturbing the app that owns it.

The open modes (immutable for a resting WAL database, a private snapshot for a ``-wal`` without a
``-shm``, ``mode=ro`` otherwise) and the error translation live in :mod:`txcript.shared.sqlite`,
which every SQLite-backed store shares; this module adds what is Cursor's own: the tables a read
can use (:func:`probe`) and the aux-row matcher.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from txcript.shared import sqlite as shared_sqlite
from txcript.shared.sqlite import FileInfo, InvalidText, decode_text

__all__ = ["FileInfo", "InvalidText", "Schema", "check_complete", "decode_text", "inspect", "read"]

T = TypeVar("T")

_BUSY_HINT = "try again when Cursor is idle"


@dataclass(frozen=True, slots=True)
class Schema:
    """The tables a read can use: names are compared case-insensitively, like SQLite does."""

    has_kv: bool
    has_item_table: bool
    #: ``composerHeaders`` columns in table order; empty when the table is absent or unusable.
    header_columns: tuple[str, ...]

    @property
    def has_header_table(self) -> bool:
        return bool(self.header_columns)


def describe(path: Path) -> str:
    return f"cursor_desktop database {path}"


def inspect(path: Path) -> FileInfo | None:
    """Sniff the file: None when it does not exist; raise when it is not an SQLite database."""
    return shared_sqlite.inspect(path, describe(path))


def check_complete(path: Path, info: FileInfo) -> None:
    shared_sqlite.check_complete(path, info, describe(path))


def translate(path: Path, exc: sqlite3.Error) -> Exception:
    return shared_sqlite.translate(describe(path), path, exc, busy_hint=_BUSY_HINT)


def read(
    path: Path,
    info: FileInfo,
    work: Callable[[sqlite3.Connection, Schema], T],
    *,
    busy_timeout: float,
) -> T:
    """Run ``work`` in one read transaction on ``path`` (see :func:`txcript.shared.sqlite.read`)."""
    return shared_sqlite.read(
        path,
        info,
        lambda conn: work(conn, probe(conn)),
        label=describe(path),
        busy_timeout=busy_timeout,
        busy_hint=_BUSY_HINT,
    )


def probe(conn: sqlite3.Connection) -> Schema:
    """Which of Cursor's tables (and header columns) the open database has."""
    tables = {
        str(name).lower()
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if isinstance(name, str)
    }
    has_kv = False
    if "cursordiskkv" in tables:
        kv_columns = {
            str(row[1]).lower() for row in conn.execute("PRAGMA table_info(cursorDiskKV)")
        }
        has_kv = {"key", "value"} <= kv_columns
    header_columns: tuple[str, ...] = ()
    if "composerheaders" in tables:
        columns = tuple(str(row[1]) for row in conn.execute("PRAGMA table_info(composerHeaders)"))
        if "composerid" in {c.lower() for c in columns}:
            header_columns = columns
    return Schema(
        has_kv=has_kv, has_item_table="itemtable" in tables, header_columns=header_columns
    )


# ------------------------------------------------------------------- shared by read and write

#: ``ItemTable`` key of the 3.7.x head index: ``{"allComposers": [head, …]}``.
ITEM_HEADERS_KEY = "composer.composerHeaders"


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def cell_text(value: object) -> str | None:
    """A cell as text: TEXT as is, a UTF-8 BLOB decoded; anything else (or bad UTF-8) None."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def cell_integer(value: object) -> int | None:
    """An integer column read leniently: INTEGER, REAL (truncated), or decimal TEXT."""
    if type(value) is int:
        return value
    if type(value) is float:
        return int(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


AUX_MATCH = """
WITH RECURSIVE kinds(k) AS (
  SELECT (SELECT substr(key, 1, instr(key, ':')) FROM cursorDiskKV
          WHERE typeof(key) = 'text' AND instr(key, ':') > 0 ORDER BY key LIMIT 1)
  UNION ALL
  SELECT (SELECT substr(key, 1, instr(key, ':')) FROM cursorDiskKV
          WHERE key >= substr(k, 1, length(k) - 1) || ';' AND typeof(key) = 'text'
            AND instr(key, ':') > 0 ORDER BY key LIMIT 1)
  FROM kinds WHERE k IS NOT NULL
)
SELECT {columns} FROM kinds JOIN cursorDiskKV d
  ON (d.key = kinds.k || ?1 OR (d.key >= kinds.k || ?1 || ':' AND d.key < kinds.k || ?1 || ';'))
WHERE kinds.k IS NOT NULL AND kinds.k NOT IN ('bubbleId:', 'composerData:', 'agentKv:')
"""
#: Aux rows of a session for a load (parameter 1: the composer id) as ``(rowid, key, value)``:
#: NULL tombstones dropped, unordered (the caller sorts the rowids; see ``store._rows_by_rowid``).
AUX_ROWS_SQL = (
    AUX_MATCH.format(columns="d.rowid, d.key, CAST(d.value AS TEXT)")
    + "  AND d.value IS NOT NULL\n"
)
#: Keys of every aux row of a session, NULL-valued ones included, so a delete leaves no
#: tombstone of the session behind.
AUX_KEYS_SQL = AUX_MATCH.format(columns="d.key")
