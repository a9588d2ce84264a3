"""Reading Goose's ``sessions.db``: explicit columns of ``sessions`` and ``messages`` only.

Every read goes through :mod:`txcript.shared.sqlite`. Columns come from ``PRAGMA table_info``, so
each of Goose's schema versions reads (``description`` before ``name``, the token and recipe
columns as they were added). The ``threads``, ``thread_messages`` and ``usage_ledger`` tables are
never read.
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

from .native import GooseMessage, GooseSession

T = TypeVar("T")
BUSY_TIMEOUT = 5.0
_BUSY_HINT = "try again when Goose is idle"
_LISTED = (
    "id",
    "name",
    "description",
    "working_dir",
    "created_at",
    "updated_at",
    "model_config_json",
    "session_type",
    "archived_at",
)


def describe(path: Path) -> str:
    return f"Goose database {path}"


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
    if "id" not in sessions or not {"session_id", "role", "content_json"} <= set(messages):
        raise StoreUnreadable(
            f"{describe(path)} is not a Goose database (no sessions(id) and "
            "messages(session_id, role, content_json) tables)"
        )
    return Schema(tables, sessions, messages)


def read(path: Path, work: Callable[[sqlite3.Connection, Schema], T]) -> T | None:
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
    columns = [c for c in _LISTED if c in schema.session_columns]
    sql = f"SELECT {', '.join(quote(c) for c in columns)} FROM sessions"
    args: tuple[Any, ...] = ()
    if bounds is not None:
        sql += " WHERE id >= ? AND id < ?"
        args = bounds
    return [dict(zip(columns, row, strict=True)) for row in conn.execute(sql, args)]


def load(conn: sqlite3.Connection, schema: Schema, path: Path, session_id: str) -> GooseSession:
    names = ", ".join(quote(c) for c in schema.session_columns)
    row = conn.execute(f"SELECT {names} FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        raise BadInput(f"no Goose session {session_id} in {path}")
    session = _clean(dict(zip(schema.session_columns, row, strict=True)), session_id)
    if session is None:
        raise StoreUnreadable(f"Goose session {session_id} in {path} holds text that is not UTF-8")
    columns = schema.message_columns
    order = "id" if "id" in columns else "rowid"
    messages = []
    for values in conn.execute(
        f"SELECT {', '.join(quote(c) for c in columns)} FROM messages WHERE session_id = ? "
        f"ORDER BY {order}",
        (session_id,),
    ):
        message = _clean(
            dict(zip(columns, values, strict=True)), f"Goose session {session_id}: a message"
        )
        if message is not None:
            messages.append(GooseMessage(message))
    return GooseSession(session=session, messages=tuple(messages))


def fingerprints(
    conn: sqlite3.Connection, schema: Schema, session_ids: Iterable[str]
) -> dict[str, str]:
    out: dict[str, str] = {}
    stamp = "updated_at" if "updated_at" in schema.session_columns else "id"
    for session_id in session_ids:
        row = conn.execute(
            f"SELECT rowid, {quote(stamp)} FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        if row is None:
            out[session_id] = ""
            continue
        count, rowids, size = conn.execute(
            "SELECT COUNT(*), TOTAL(rowid), TOTAL(length(content_json)) FROM messages "
            "WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        out[session_id] = f"{row[0]}:{row[1]}:{count}:{rowids}:{size}"
    return out
