"""Row backups of one write into OpenCode's database, and the undo that reverses exactly it.

A save or a delete (archive) can replace or remove only the session's own rows: its ``session``
row and its ``message`` and ``part`` rows. Only those are copied (inside the write's transaction,
before its first change, through :class:`txcript.shared.backup_rows.PendingRows`), each with its
rowid and the storage class and bytes of every cell. No other table is ever read, so a backup can
hold no credential.

The manifest records a fingerprint of the session's rows before and after the write. :func:`undo`
refuses when the rows no longer hash as the write left them (OpenCode kept working in the
session) unless forced, then replaces the session's rows by the stored ones (with their old
rowids where those are free), in one transaction that is itself backed up.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from txcript.errors import StoreError
from txcript.shared import backup_rows, backups
from txcript.shared.text import shown

from .database import quote

#: The tables a write touches, parents first, with the column naming the session.
TABLES = (("session", "id"), ("message", "session_id"), ("part", "session_id"))

Cell = tuple[str, str, object]  # (column, typeof, value); TEXT as its UTF-8 bytes
Row = tuple[int, list[Cell]]
State = dict[str, list[Row]]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(row[1]) for row in conn.execute(f"PRAGMA table_info({quote(table)})")]


def capture_table(
    conn: sqlite3.Connection, table: str, key: str, session_id: str, columns: Sequence[str]
) -> list[Row]:
    cells = ", ".join(
        f"typeof({quote(c)}), CASE WHEN typeof({quote(c)}) = 'text' "
        f"THEN CAST({quote(c)} AS BLOB) ELSE {quote(c)} END"
        for c in columns
    )
    return [
        (int(rowid), [(c, str(flat[2 * i]), flat[2 * i + 1]) for i, c in enumerate(columns)])
        for rowid, *flat in conn.execute(
            f"SELECT rowid, {cells} FROM {quote(table)} WHERE {quote(key)} = ? ORDER BY rowid",
            (session_id,),
        )
    ]


def capture(conn: sqlite3.Connection, session_id: str) -> State:
    """The session's rows in :data:`TABLES`, in rowid order."""
    return {
        table: capture_table(conn, table, key, session_id, _columns(conn, table))
        for table, key in TABLES
    }


def fingerprint(conn: sqlite3.Connection, session_id: str) -> str:
    """A hash of the session's rows as they are now, computed by SQL aggregates.

    The session row is hashed cell by cell; its messages and parts by count, rowids, the bytes of
    every cell summed by length and the newest ``time_updated`` (OpenCode moves it on every
    change), so a large session is fingerprinted without reading it into Python.
    """
    digest = hashlib.sha256()
    for table, key in TABLES:
        columns = _columns(conn, table)
        digest.update(f"\0table {table}\0".encode())
        if table == "session":
            for _rowid, cells in capture_table(conn, table, key, session_id, columns):
                for column, kind, value in cells:
                    digest.update(f"{column}\0{kind}\0".encode())
                    digest.update(value if isinstance(value, bytes) else repr(value).encode())
            continue
        lengths = " + ".join(f"COALESCE(length(CAST({quote(c)} AS BLOB)), -1)" for c in columns)
        newest = "MAX(time_updated)" if "time_updated" in columns else "0"
        row = conn.execute(
            f"SELECT COUNT(*), TOTAL(rowid), TOTAL({lengths}), {newest} FROM {quote(table)} "
            f"WHERE {quote(key)} = ?",
            (session_id,),
        ).fetchone()
        digest.update(repr(tuple(row)).encode())
    return digest.hexdigest()


def write_rows(pending: backup_rows.PendingRows, state: State) -> None:
    for table, _ in TABLES:
        pending.add_rows(table, state.get(table, []))


def _insert(conn: sqlite3.Connection, table: str, row: Row, columns: Sequence[str]) -> None:
    rowid, cells = row
    names, marks, values = [], [], []
    for column, kind, value in cells:
        if column not in columns:
            raise StoreError(
                f"the backup names column `{shown(column)}` that {table} no longer has; "
                "nothing was written"
            )
        names.append(quote(column))
        marks.append("CAST(? AS TEXT)" if kind == "text" else "?")
        values.append(value)
    taken = conn.execute(f"SELECT 1 FROM {quote(table)} WHERE rowid = ?", (rowid,)).fetchone()
    if taken is None:
        names.insert(0, "rowid")
        marks.insert(0, "?")
        values.insert(0, rowid)
    conn.execute(
        f"INSERT INTO {quote(table)} ({', '.join(names)}) VALUES ({', '.join(marks)})", values
    )


def replace_rows(conn: sqlite3.Connection, session_id: str, stored: State) -> None:
    for table, key in reversed(TABLES):
        conn.execute(f"DELETE FROM {quote(table)} WHERE {quote(key)} = ?", (session_id,))
    for table, _ in TABLES:
        columns = _columns(conn, table)
        for row in stored.get(table, []):
            _insert(conn, table, row, columns)


def committed(backup: backups.Backup, partial: Path) -> bool:
    """Did the write a sealed (unpublished) backup guards commit? Its rows hash as it left them."""
    from . import database

    session = backup.session or ""
    found = database.read(Path(backup.database), lambda conn, _schema: fingerprint(conn, session))
    return found is not None and found == backup.after_hash


def details(state: State) -> dict[str, Any]:
    return {"tables": [table for table, _ in TABLES], "rows": {t: len(r) for t, r in state.items()}}
