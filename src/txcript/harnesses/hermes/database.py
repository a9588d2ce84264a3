"""Reading Hermes's ``state.db`` by the columns it has.

Real databases span schema versions 6 to 30 and more: version 6 has no ``messages.active``,
``messages.compacted``, ``sessions.cwd``, ``sessions.git_branch`` or ``sessions.archived``. So every
query is built from ``PRAGMA table_info`` of ``sessions`` and ``messages`` — never from a fixed
column list — and a column a schema lacks reads as its meaning (no ``active``: every row is
live; no ``archived``: no session is archived). Only those two tables are read; a column whose
name looks like a credential is never selected. Every read goes through
:mod:`txcript.shared.sqlite`: read-only, nothing created beside the database, the newest
commits in its ``-wal`` seen.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from txcript.errors import BadInput, StoreUnreadable
from txcript.shared import sqlite as shared_sqlite

from .native import HermesSession, is_secret_column

T = TypeVar("T")
BUSY_TIMEOUT = 5.0
_BUSY_HINT = "try again when Hermes is idle"
#: Message columns a copy gets anew rather than carries.
ROW_KEYS = ("id", "session_id")


def describe(path: Path) -> str:
    return f"Hermes database {path}"


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True, slots=True)
class Schema:
    #: ``sessions`` columns read, in table order.
    sessions: tuple[str, ...]
    #: ``messages`` columns read (without ``id`` and ``session_id``), in table order.
    messages: tuple[str, ...]

    def has(self, table: str, column: str) -> bool:
        return column in (self.sessions if table == "sessions" else self.messages)


def columns(conn: sqlite3.Connection, table: str) -> tuple[str, ...]:
    return tuple(
        str(row[1])
        for row in conn.execute(f"PRAGMA table_info({quote(table)})")
        if isinstance(row[1], str) and not is_secret_column(row[1])
    )


def probe(conn: sqlite3.Connection, path: Path) -> Schema:
    sessions = columns(conn, "sessions")
    messages = columns(conn, "messages")
    missing = [
        what
        for what, ok in (
            ("sessions(id)", "id" in sessions),
            ("messages(session_id, role)", {"session_id", "role"} <= set(messages)),
        )
        if not ok
    ]
    if missing:
        raise StoreUnreadable(
            f"{describe(path)} is not a Hermes database (no {', '.join(missing)})"
        )
    return Schema(sessions, tuple(c for c in messages if c not in ROW_KEYS))


def read(path: Path, work: Callable[[sqlite3.Connection, Schema], T]) -> T | None:
    """``work(conn, schema)`` in one read transaction; None when the file does not exist."""
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


def _select(names: Iterable[str]) -> str:
    return ", ".join(quote(n) for n in names)


def _cell(value: Any) -> Any:
    return None if isinstance(value, shared_sqlite.InvalidText) else value


def session_rows(
    conn: sqlite3.Connection, schema: Schema, session_id: str | None = None
) -> list[dict[str, Any]]:
    sql = f"SELECT {_select(schema.sessions)} FROM sessions"
    args: tuple[Any, ...] = ()
    if session_id is not None:
        sql += " WHERE id = ?"
        args = (session_id,)
    elif "archived" in schema.sessions:
        sql += " WHERE archived IS NULL OR archived = 0"
    return [
        {c: _cell(v) for c, v in zip(schema.sessions, row, strict=True)}
        for row in conn.execute(sql, args)
    ]


def message_rows(conn: sqlite3.Connection, schema: Schema, session_id: str) -> list[dict[str, Any]]:
    if not schema.messages:
        return []
    return [
        {c: _cell(v) for c, v in zip(schema.messages, row, strict=True)}
        for row in conn.execute(
            f"SELECT {_select(schema.messages)} FROM messages WHERE session_id = ? ORDER BY rowid",
            (session_id,),
        )
    ]


def first_user_rows(conn: sqlite3.Connection, schema: Schema) -> dict[str, dict[str, Any]]:
    """Each session's first live ``user`` row's content (what an untitled session is named by)."""
    if "content" not in schema.messages:
        return {}
    live = " AND (active IS NULL OR active != 0)" if "active" in schema.messages else ""
    found: dict[str, dict[str, Any]] = {}
    for session_id, content in conn.execute(
        "SELECT session_id, content FROM messages WHERE rowid IN (SELECT MIN(rowid) FROM messages "
        f"WHERE role = 'user'{live} GROUP BY session_id)"
    ):
        if isinstance(session_id, str):
            found[session_id] = {"role": "user", "content": _cell(content)}
    return found


def load(conn: sqlite3.Connection, schema: Schema, path: Path, session_id: str) -> HermesSession:
    rows = session_rows(conn, schema, session_id)
    if not rows:
        raise BadInput(f"no Hermes session {session_id} in {path}")
    return HermesSession(session=rows[0], messages=tuple(message_rows(conn, schema, session_id)))


def fingerprints(conn: sqlite3.Connection, schema: Schema, ids: Iterable[str]) -> dict[str, str]:
    """Per session: its row's values, and its messages' count, newest rowid and live count."""
    out = {}
    live = "TOTAL(active)" if "active" in schema.messages else "0"
    for session_id in ids:
        rows = session_rows(conn, schema, session_id)
        if not rows:
            out[session_id] = ""
            continue
        count, newest, alive = conn.execute(
            f"SELECT COUNT(*), MAX(rowid), {live} FROM messages WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        digest = hashlib.blake2b(repr(sorted(rows[0].items())).encode(), digest_size=8)
        out[session_id] = f"{digest.hexdigest()}:{count}:{newest}:{alive}"
    return out
