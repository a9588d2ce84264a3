"""Row backups of one write into Hermes's database, and the rows an undo puts back.

A save or delete changes only one session's ``sessions`` row and its ``messages`` rows; those are
copied (each row with its rowid and every cell's storage class and bytes) inside the write's
transaction before its first change. No other table is read. The full-text index Hermes keeps
over ``messages`` follows by its own triggers whenever rows are removed or put back.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from typing import Any

from txcript.errors import StoreError
from txcript.shared import backup_rows
from txcript.shared.text import shown

from .database import quote

#: The tables a write touches, parent first, with the column naming the session.
TABLES = (("sessions", "id"), ("messages", "session_id"))

Cell = tuple[str, str, object]  # (column, typeof, value); TEXT as its UTF-8 bytes
Row = tuple[int, list[Cell]]
State = dict[str, list[Row]]


def table_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(row[1]) for row in conn.execute(f"PRAGMA table_info({quote(table)})")]


def _rows(conn: sqlite3.Connection, table: str, key: str, session_id: str) -> list[Row]:
    names = table_columns(conn, table)
    cells = ", ".join(
        f"typeof({quote(c)}), CASE WHEN typeof({quote(c)}) = 'text' "
        f"THEN CAST({quote(c)} AS BLOB) ELSE {quote(c)} END"
        for c in names
    )
    return [
        (int(rowid), [(c, str(flat[2 * i]), flat[2 * i + 1]) for i, c in enumerate(names)])
        for rowid, *flat in conn.execute(
            f"SELECT rowid, {cells} FROM {quote(table)} WHERE {quote(key)} = ? ORDER BY rowid",
            (session_id,),
        )
    ]


def capture(conn: sqlite3.Connection, session_id: str) -> State:
    return {table: _rows(conn, table, key, session_id) for table, key in TABLES}


def fingerprint(conn: sqlite3.Connection, session_id: str) -> str:
    """A hash of the session's rows as they are now (every cell of every row)."""
    digest = hashlib.sha256()
    for table, rows in capture(conn, session_id).items():
        digest.update(f"\0table {table}\0".encode())
        for rowid, cells in rows:
            digest.update(f"\0row {rowid}\0".encode())
            for column, kind, value in cells:
                digest.update(f"{column}\0{kind}\0".encode())
                digest.update(value if isinstance(value, bytes) else repr(value).encode())
    return digest.hexdigest()


def write_rows(pending: backup_rows.PendingRows, state: State) -> None:
    for table, _ in TABLES:
        pending.add_rows(table, state.get(table, []))


def _insert(conn: sqlite3.Connection, table: str, row: Row, names: Sequence[str]) -> None:
    rowid, cells = row
    columns: list[str] = ["rowid"]
    marks: list[str] = ["?"]
    values: list[object] = [rowid]
    taken = conn.execute(f"SELECT 1 FROM {quote(table)} WHERE rowid = ?", (rowid,)).fetchone()
    if taken is not None:
        columns, marks, values = [], [], []
    for column, kind, value in cells:
        if column not in names:
            raise StoreError(
                f"the backup names column `{shown(column)}` that {table} no longer has; "
                "nothing was written"
            )
        columns.append(quote(column))
        marks.append("CAST(? AS TEXT)" if kind == "text" else "?")
        values.append(value)
    conn.execute(
        f"INSERT INTO {quote(table)} ({', '.join(columns)}) VALUES ({', '.join(marks)})", values
    )


def replace_rows(conn: sqlite3.Connection, session_id: str, stored: State) -> None:
    """The session's rows become ``stored`` (removed, then put back with their old rowids)."""
    for table, key in reversed(TABLES):
        conn.execute(f"DELETE FROM {quote(table)} WHERE {quote(key)} = ?", (session_id,))
    for table, _ in TABLES:
        names = table_columns(conn, table)
        for row in stored.get(table, []):
            _insert(conn, table, row, names)


def details(state: State) -> dict[str, Any]:
    return {"tables": [t for t, _ in TABLES], "rows": {t: len(r) for t, r in state.items()}}
