"""Reading one project's ``crush.db``: explicit columns of ``sessions`` and ``messages`` only.

Every read goes through :mod:`txcript.shared.sqlite` (nothing is created beside the database,
and the newest commits of its ``-wal`` are seen). Columns are those ``PRAGMA table_info`` lists,
so older schemas (before ``provider``, ``summary_message_id``, ``is_summary_message``, ``todos``)
read as well as the newest. ``files`` and ``read_files`` (file versions) are never read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreUnreadable
from txcript.shared import sqlite as shared_sqlite
from txcript.shared.session_rows import quote
from txcript.shared.sqlite import InvalidText

from .native import CrushMessage, CrushSession

T = TypeVar("T")
BUSY_TIMEOUT = 5.0
_BUSY_HINT = "try again when Crush is idle"
#: What a listing reads of each session row.
_LISTED = ("id", "parent_session_id", "title", "message_count", "created_at", "updated_at")


def describe(path: Path) -> str:
    return f"Crush database {path}"


@dataclass(frozen=True, slots=True)
class Schema:
    tables: frozenset[str]
    session_columns: tuple[str, ...]
    message_columns: tuple[str, ...]


def _columns(conn: sqlite3.Connection, table: str) -> tuple[str, ...]:
    return tuple(
        str(row[1]) for row in conn.execute(f"PRAGMA table_info({quote(table)})") if row[1]
    )


def probe(conn: sqlite3.Connection, path: Path) -> Schema:
    tables = frozenset(
        str(name)
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if isinstance(name, str)
    )
    sessions = _columns(conn, "sessions")
    messages = _columns(conn, "messages")
    if not {"id", "title", "created_at"} <= set(sessions) or not {
        "id",
        "session_id",
        "role",
        "parts",
        "created_at",
    } <= set(messages):
        raise StoreUnreadable(
            f"{describe(path)} is not a Crush database (no sessions(id, title, created_at) and "
            "messages(id, session_id, role, parts, created_at) tables)"
        )
    return Schema(tables, sessions, messages)


def read(path: Path, work: Callable[[sqlite3.Connection, Schema], T]) -> T | None:
    """``work(conn, schema)`` in one read transaction; None when the database does not exist."""
    label = describe(path)
    info = shared_sqlite.inspect(path, label)
    if info is None:
        return None
    return shared_sqlite.read(
        path,
        info,
        lambda conn: work(conn, probe(conn, path)),
        label=label,
        busy_timeout=BUSY_TIMEOUT,
        busy_hint=_BUSY_HINT,
    )


def _clean(row: dict[str, Any], what: str) -> dict[str, Any] | None:
    if any(isinstance(v, InvalidText | bytes) for v in row.values()):
        warn(f"{what}: a column holds bytes that are not UTF-8 text; skipped")
        return None
    return row


def session_rows(
    conn: sqlite3.Connection, schema: Schema, bounds: tuple[str, str] | None = None
) -> list[dict[str, Any]]:
    """Listing fields of every session row (or those whose id is in ``bounds``)."""
    columns = [c for c in _LISTED if c in schema.session_columns]
    sql = f"SELECT {', '.join(quote(c) for c in columns)} FROM sessions"
    args: tuple[Any, ...] = ()
    if bounds is not None:
        sql += " WHERE id >= ? AND id < ?"
        args = bounds
    return [dict(zip(columns, row, strict=True)) for row in conn.execute(sql, args)]


def first_models(conn: sqlite3.Connection, schema: Schema) -> dict[str, str]:
    """The model of each session's first assistant message that names one (in Crush's order)."""
    if "model" not in schema.message_columns:
        return {}
    found: dict[str, str] = {}
    for session_id, model in conn.execute(
        "SELECT session_id, model FROM messages WHERE role = 'assistant' AND model IS NOT NULL "
        "AND trim(model) != '' ORDER BY created_at, rowid"
    ):
        if isinstance(session_id, str) and isinstance(model, str):
            found.setdefault(session_id, model)
    return found


def load(
    conn: sqlite3.Connection, schema: Schema, path: Path, session_id: str, project: str | None
) -> CrushSession:
    names = ", ".join(quote(c) for c in schema.session_columns)
    row = conn.execute(f"SELECT {names} FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        raise BadInput(f"no Crush session {session_id} in {path}")
    session = _clean(dict(zip(schema.session_columns, row, strict=True)), f"{session_id}")
    if session is None:
        raise StoreUnreadable(f"Crush session {session_id} in {path} holds text that is not UTF-8")
    columns = schema.message_columns
    messages = []
    for values in conn.execute(
        f"SELECT {', '.join(quote(c) for c in columns)} FROM messages WHERE session_id = ? "
        "ORDER BY rowid",
        (session_id,),
    ):
        message = _clean(
            dict(zip(columns, values, strict=True)), f"Crush session {session_id}: a message"
        )
        if message is not None:
            messages.append(CrushMessage(message))
    return CrushSession(session=session, messages=tuple(messages), project=project)


def fingerprints(
    conn: sqlite3.Connection, schema: Schema, session_ids: Iterable[str]
) -> dict[str, str]:
    out: dict[str, str] = {}
    updated = "updated_at" if "updated_at" in schema.message_columns else "created_at"
    for session_id in session_ids:
        stamp = "updated_at" if "updated_at" in schema.session_columns else "created_at"
        row = conn.execute(
            f"SELECT rowid, {stamp}, title FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        if row is None:
            out[session_id] = ""
            continue
        count, rowids, latest, size = conn.execute(
            f"SELECT COUNT(*), TOTAL(rowid), MAX({updated}), TOTAL(length(parts)) FROM messages "
            "WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        out[session_id] = f"{row[0]}:{row[1]}:{len(str(row[2]))}:{count}:{rowids}:{latest}:{size}"
    return out
