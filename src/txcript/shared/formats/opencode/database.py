"""Reading OpenCode's SQLite database: explicit columns of three tables, nothing else.

Every read goes through :mod:`txcript.shared.sqlite` (nothing is created or changed beside the
database; the newest commits in a ``-wal`` are seen). Only the ``session``, ``message`` and
``part`` tables are read, each through an explicit column list built from ``PRAGMA table_info``:
the credential tables (``account``, ``control_account``, ``credential``, ``session_share``) are
never named in a query, and a ``session`` column whose name looks like a secret is never selected.
The event-sourcing tables (``event``, ``event_sequence``) duplicate ``message``/``part`` and are
ignored. Session columns the schema has gained over time are read when present and carried as
they are; a schema without the three tables is not an OpenCode database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreUnreadable
from txcript.shared import sqlite as shared_sqlite
from txcript.shared.jsonutil import INVALID

from .codec import first_assistant_model, meta_of
from .native import OPENCODE, Dialect, NativeMessage, OpenCodeSession, Record, is_secret_column

BUSY_TIMEOUT = 5.0
MIGRATION_TABLES = ("migration", "__drizzle_migrations")


def describe(path: Path, dialect: Dialect = OPENCODE) -> str:
    return f"{dialect.name} database {path}"


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True, slots=True)
class Schema:
    tables: frozenset[str]
    #: ``session`` columns txcript reads, in table order.
    session_columns: tuple[str, ...]
    message_columns: frozenset[str]
    part_columns: frozenset[str]

    @property
    def migrations(self) -> str | None:
        return next((t for t in MIGRATION_TABLES if t in self.tables), None)


def _columns(conn: sqlite3.Connection, table: str) -> tuple[str, ...]:
    return tuple(
        str(row[1]) for row in conn.execute(f"PRAGMA table_info({quote(table)})") if row[1]
    )


def probe(conn: sqlite3.Connection, path: Path, dialect: Dialect = OPENCODE) -> Schema:
    """The schema, or :class:`StoreUnreadable` when this is not an OpenCode database."""
    tables = frozenset(
        str(name)
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if isinstance(name, str)
    )
    session = tuple(c for c in _columns(conn, "session") if not is_secret_column(c))
    message = frozenset(_columns(conn, "message"))
    part = frozenset(_columns(conn, "part"))
    missing = [
        what
        for what, ok in (
            ("session(id)", "id" in session),
            ("message(id, session_id, data)", {"id", "session_id", "data"} <= message),
            ("part(id, message_id, data)", {"id", "message_id", "data"} <= part),
        )
        if not ok
    ]
    if missing:
        raise StoreUnreadable(
            f"{describe(path, dialect)} is not {dialect.a_name} database (no {', '.join(missing)})"
        )
    return Schema(tables, session, message, part)


def read(path: Path, work: Any, dialect: Dialect = OPENCODE) -> Any:
    """Run ``work(conn, schema)`` in one read transaction; None when the file does not exist."""
    label = describe(path, dialect)
    info = shared_sqlite.inspect(path, label)
    if info is None:
        return None
    return shared_sqlite.read(
        path,
        info,
        lambda conn: work(conn, probe(conn, path, dialect)),
        label=label,
        busy_timeout=BUSY_TIMEOUT,
        busy_hint=dialect.busy_hint,
    )


_decoder = msgspec.json.Decoder()


def _record(record_id: Any, created: Any, updated: Any, data: Any, what: str) -> Record | None:
    """A row as a record, its ``data`` (read as bytes: no per-cell text callback) decoded once."""
    if not isinstance(record_id, str) or not isinstance(data, bytes):
        warn(f"{what}: it has no id or no data; skipped")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        warn(f"{what}: its data is not UTF-8 text; skipped")
        return None
    try:
        parsed = _decoder.decode(data)
    except (msgspec.DecodeError, RecursionError):
        parsed = INVALID  # the record parses it leniently (or marks it invalid) itself
    return Record(record_id, text, _int(created), _int(updated), parsed)


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _select(columns: Iterable[str]) -> str:
    return ", ".join(quote(c) for c in columns)


def session_rows(
    conn: sqlite3.Connection,
    schema: Schema,
    session_id: str | None = None,
    bounds: tuple[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Session rows: all, the one with ``session_id``, or those whose id is in ``bounds``
    (``[low, high)``, a range on the primary key's index)."""
    sql = f"SELECT {_select(schema.session_columns)} FROM session"
    args: tuple[Any, ...] = ()
    if session_id is not None:
        sql += " WHERE id = ?"
        args = (session_id,)
    elif bounds is not None:
        sql += " WHERE id >= ? AND id < ?"
        args = bounds
    return [dict(zip(schema.session_columns, row, strict=True)) for row in conn.execute(sql, args)]


def _message_model(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The first assistant message's model (what :func:`~.codec.meta_of` falls back to)."""
    rows = conn.execute("SELECT data FROM message WHERE session_id = ? ORDER BY id", (session_id,))
    for (text,) in rows:
        record = Record("", text) if isinstance(text, str) else None
        data = record.data if record is not None else None
        if isinstance(data, dict) and data.get("role") == "assistant":
            return first_assistant_model(data)
    return None


def discover_rows(
    conn: sqlite3.Connection, schema: Schema, bounds: tuple[str, str] | None = None
) -> list[tuple[dict[str, Any], Any]]:
    """Every listed session (or those whose id is in ``bounds``): its row and its Meta
    (archived sessions are not listed)."""
    found = []
    for row in session_rows(conn, schema, bounds=bounds):
        if row.get("time_archived") is not None or not isinstance(row.get("id"), str):
            continue
        model = None if "model" in row else _message_model(conn, row["id"])
        found.append((row, meta_of(row, model)))
    return found


def load(
    conn: sqlite3.Connection,
    schema: Schema,
    path: Path,
    session_id: str,
    dialect: Dialect = OPENCODE,
) -> OpenCodeSession:
    rows = session_rows(conn, schema, session_id)
    if not rows:
        raise BadInput(f"no {dialect.name} session {session_id} in {path}")
    label = f"{dialect.name} session {session_id}"
    times = [c if c in schema.message_columns else "NULL" for c in ("time_created", "time_updated")]
    messages: dict[str, tuple[Record, list[Record]]] = {}
    for message_id, created, updated, data in conn.execute(
        f"SELECT id, {times[0]}, {times[1]}, CAST(data AS BLOB) FROM message "
        "WHERE session_id = ? ORDER BY id",
        (session_id,),
    ):
        record = _record(message_id, created, updated, data, f"{label}: message {message_id}")
        if record is not None:
            messages[record.id] = (record, [])
    times = [c if c in schema.part_columns else "NULL" for c in ("time_created", "time_updated")]
    if "session_id" in schema.part_columns:
        where = "session_id = ?"
    else:
        where = "message_id IN (SELECT id FROM message WHERE session_id = ?)"
    orphans: list[tuple[str, Record]] = []
    for part_id, message_id, created, updated, data in conn.execute(
        f"SELECT id, message_id, {times[0]}, {times[1]}, CAST(data AS BLOB) FROM part "
        f"WHERE {where} ORDER BY id",
        (session_id,),
    ):
        part = _record(part_id, created, updated, data, f"{label}: part {part_id}")
        if part is None:
            continue
        owner = messages.get(message_id)
        if owner is None:
            orphans.append((str(message_id), part))
        else:
            owner[1].append(part)
    return OpenCodeSession(
        session=rows[0],
        messages=tuple(NativeMessage(record, tuple(parts)) for record, parts in messages.values()),
        orphan_parts=tuple(orphans),
    )


def fingerprints(
    conn: sqlite3.Connection, schema: Schema, session_ids: Iterable[str]
) -> dict[str, str]:
    out: dict[str, str] = {}
    updated = "time_updated" if "time_updated" in schema.session_columns else "id"
    for session_id in session_ids:
        row = conn.execute(
            f"SELECT {quote(updated)} FROM session WHERE id = ?", (session_id,)
        ).fetchone()
        if row is None:
            out[session_id] = ""
            continue
        stamp = "time_updated" if "time_updated" in schema.part_columns else "rowid"
        count, latest = conn.execute(
            f"SELECT COUNT(*), MAX({stamp}) FROM part WHERE message_id IN "
            "(SELECT id FROM message WHERE session_id = ?)",
            (session_id,),
        ).fetchone()
        messages = conn.execute(
            "SELECT COUNT(*) FROM message WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
        out[session_id] = f"{row[0]}:{messages}:{count}:{latest}"
    return out
