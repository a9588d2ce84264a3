"""Writing into Goose's ``sessions.db``: one schema-checked transaction, backed up first.

See ``docs/formats/goose.md`` for why this route and not ``goose session import``. A save only
writes into an **existing** database that Goose has migrated (its ``schema_version`` table is
there): Goose creates and migrates it on its first run, and a database txcript made would lack
that bookkeeping. Inside one ``BEGIN IMMEDIATE`` transaction: the schema check (``sessions`` and
``messages`` with every column written, no ``NOT NULL`` column without a default that the rows
leave empty), a row backup of the session's current rows (:mod:`txcript.shared.session_rows`;
``txcript restore`` undoes the save), then the rows. A message keeps its stored ``id`` when no
other row has it, else SQLite assigns the next one. A delete removes the session's rows after
the same kind of backup.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from txcript.errors import BadInput, StoreError
from txcript.shared import backups
from txcript.shared.ids import GOOSE_IDS
from txcript.shared.session_rows import Tables, quote, transaction, undo

from .database import BUSY_TIMEOUT, describe
from .native import HARNESS, GooseSession

TABLES = Tables(HARNESS, (("sessions", "id"), ("messages", "session_id")))
MIGRATIONS = "schema_version"


class _Column:
    __slots__ = ("name", "required")

    def __init__(self, name: str, required: bool) -> None:
        self.name, self.required = name, required


def _columns(conn: sqlite3.Connection, table: str) -> dict[str, _Column]:
    return {
        str(row[1]): _Column(str(row[1]), bool(row[3]) and row[4] is None and not row[5])
        for row in conn.execute(f"PRAGMA table_info({quote(table)})")
    }


def _unknown(database: Path, detail: str) -> StoreError:
    return StoreError(f"{describe(database)} has an unknown schema ({detail}); nothing was written")


def check_schema(
    conn: sqlite3.Connection, database: Path, native: GooseSession
) -> dict[str, dict[str, _Column]]:
    tables = {
        str(name) for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    if MIGRATIONS not in tables:
        raise _unknown(
            database, f"no `{MIGRATIONS}` table: Goose has not migrated it; run `goose` once"
        )
    written = {
        "sessions": {k for k, v in native.session.items() if v is not None},
        # (every message row gets its session; a session without messages writes none)
        "messages": {"id", "session_id"}.union(
            *({k for k, v in m.row.items() if v is not None} for m in native.messages)
        ),
    }
    found = {}
    for table, wanted in (
        ("sessions", ("id", "working_dir", "created_at", "updated_at")),
        ("messages", ("session_id", "role", "content_json", "created_timestamp")),
    ):
        columns = _columns(conn, table) if table in tables else {}
        if not columns:
            raise _unknown(database, f"no `{table}` table")
        missing = [c for c in wanted if c not in columns]
        if missing:
            raise _unknown(database, f"`{table}` has no `{missing[0]}` column")
        rows = native.messages if table == "messages" else (native.session,)
        for column in columns.values():
            if rows and column.required and column.name not in written[table]:
                raise _unknown(database, f"`{table}.{column.name}` needs a value txcript lacks")
        found[table] = columns
    return found


def _insert(conn: sqlite3.Connection, table: str, row: dict[str, Any], columns: Any) -> None:
    kept = {k: v for k, v in row.items() if k in columns}
    names = list(kept)
    conn.execute(
        f"INSERT INTO {quote(table)} ({', '.join(quote(n) for n in names)}) "
        f"VALUES ({', '.join('?' for _ in names)})",
        [kept[n] for n in names],
    )


def save(database: Path, native: GooseSession) -> backups.Backup | None:
    if native.legacy is not None:
        raise BadInput(
            "a session of Goose's older JSONL files is written into its database; convert it "
            "through Common first (txcript continue --with goose)"
        )
    session_id = GOOSE_IDS.check(native.id, "Goose")
    columns: dict[str, dict[str, _Column]] = {}

    def check(conn: sqlite3.Connection) -> None:
        columns.update(check_schema(conn, database, native))

    def apply(conn: sqlite3.Connection) -> None:
        TABLES.delete(conn, session_id)
        _insert(conn, "sessions", native.session, columns["sessions"])
        for message in native.messages:
            row = {**message.row, "session_id": session_id}
            ident = row.get("id")
            if (
                ident is not None
                and conn.execute("SELECT 1 FROM messages WHERE id = ?", (ident,)).fetchone()
            ):
                row.pop("id")
            _insert(conn, "messages", row, columns["messages"])

    try:
        return transaction(
            TABLES,
            database,
            session_id,
            "save",
            label=describe(database),
            busy_timeout=BUSY_TIMEOUT,
            check=check,
            apply=apply,
        )
    except UnicodeEncodeError as exc:
        raise StoreError(f"writing {database}: text is not UTF-8 ({exc})") from None


def delete(database: Path, session_id: str) -> backups.Backup | None:
    def check(conn: sqlite3.Connection) -> None:
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise BadInput(f"no Goose session {session_id} in {database}")

    return transaction(
        TABLES,
        database,
        session_id,
        "delete",
        label=describe(database),
        busy_timeout=BUSY_TIMEOUT,
        check=check,
        apply=lambda conn: TABLES.delete(conn, session_id),
    )


def undo_backup(backup: backups.Backup, *, force: bool = False) -> backups.Backup | None:
    database = Path(backup.database)
    return undo(TABLES, backup, force=force, label=describe(database), busy_timeout=BUSY_TIMEOUT)


def committed(backup: backups.Backup, partial: Path) -> bool:
    from txcript.shared.session_rows import committed as rows_committed

    from . import database

    return rows_committed(
        TABLES, backup, lambda path, work: database.read(path, lambda conn, _s: work(conn))
    )
