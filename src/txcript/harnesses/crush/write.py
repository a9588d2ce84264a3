"""Writing into a Crush project's database: one schema-checked transaction, backed up first.

Crush has no import command, so a save writes the rows Crush reads (see ``docs/formats/crush.md``
for why this route). It only writes into an **existing, migrated** ``crush.db`` (Crush ran in
that project once: its migration table ``goose_db_version`` is there), found through
``projects.json`` by the session's project directory; a fresh database would lack Crush's
migration bookkeeping, so none is ever created. While Crush runs in the project it holds an
``flock`` on ``crush.lock``: the save is then refused (``--force`` overrides), and otherwise the
save holds that lock itself, so Crush cannot start in the project mid-write.

Inside one ``BEGIN IMMEDIATE`` transaction: the schema check (both tables with the columns written,
no ``NOT NULL`` column without a default that the rows leave empty), a row backup of the
session's current rows (:mod:`txcript.shared.session_rows`; ``txcript restore`` undoes the
save), then the rows. Messages are inserted before their session row: Crush's triggers bump the
session's ``message_count`` and ``updated_at`` on every message insert, and a session row
inserted last keeps exactly the values written. A delete removes the session's rows after the
same kind of backup.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from txcript.errors import BadInput, StoreError
from txcript.shared import backups
from txcript.shared.ids import CRUSH_IDS
from txcript.shared.session_rows import Tables, quote, transaction, undo

from .database import BUSY_TIMEOUT, describe
from .native import HARNESS, CrushSession
from .projects import LOCK_NAME

TABLES = Tables(HARNESS, (("sessions", "id"), ("messages", "session_id")))
MIGRATIONS = "goose_db_version"

try:
    import fcntl
except ImportError:  # Windows: Crush's lock cannot be probed; the save goes ahead
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def project_lock(data_dir: Path, *, force: bool) -> Iterator[None]:
    """Hold Crush's ``crush.lock`` for the write; refuse (unless ``force``) while Crush holds it.

    The lock file is opened read-only and never created: a project without one has no Crush
    running in it."""
    path = data_dir / LOCK_NAME
    if fcntl is None or not path.is_file():
        yield
        return
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise StoreError(f"cannot check {path}: {exc.strerror or exc}") from None
            if not force:
                raise StoreError(
                    f"Crush is running in {data_dir.parent} (it holds {path}); quit it first, "
                    "or pass --force. Nothing was written"
                ) from None
        yield
    finally:
        os.close(fd)  # drops the lock, if this process took it


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
    conn: sqlite3.Connection, database: Path, native: CrushSession
) -> dict[str, dict[str, _Column]]:
    tables = {
        str(name) for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    if MIGRATIONS not in tables:
        raise _unknown(
            database, f"no `{MIGRATIONS}` table: Crush has not migrated it; run `crush` there once"
        )
    found = {}
    written: dict[str, set[str]] = {
        "sessions": {k for k, v in native.session.items() if v is not None},
        # (every message row gets its session; a session without messages writes none)
        "messages": {"session_id"}.union(
            *({k for k, v in m.row.items() if v is not None} for m in native.messages)
        ),
    }
    for table, wanted in (
        ("sessions", ("id", "title", "created_at", "updated_at")),
        ("messages", ("id", "session_id", "role", "parts", "created_at")),
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


def save(
    database: Path, data_dir: Path, native: CrushSession, *, force: bool
) -> backups.Backup | None:
    """Write ``native`` into ``database`` (replacing a session of the same id)."""
    session_id = CRUSH_IDS.check(native.id, "Crush")
    columns: dict[str, dict[str, _Column]] = {}

    def check(conn: sqlite3.Connection) -> None:
        columns.update(check_schema(conn, database, native))
        for message in native.messages:
            owner = message.row.get("session_id")
            if owner is not None and owner != session_id:
                raise BadInput(f"message {message.id} belongs to session {owner}, not {session_id}")

    def apply(conn: sqlite3.Connection) -> None:
        TABLES.delete(conn, session_id)
        for message in native.messages:
            _insert(
                conn, "messages", {**message.row, "session_id": session_id}, columns["messages"]
            )
        _insert(conn, "sessions", native.session, columns["sessions"])

    with project_lock(data_dir, force=force):
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


def delete(
    database: Path, data_dir: Path, session_id: str, *, force: bool
) -> backups.Backup | None:
    def check(conn: sqlite3.Connection) -> None:
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise BadInput(f"no Crush session {session_id} in {database}")

    with project_lock(data_dir, force=force):
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
    """Undo the one save or delete ``backup`` guarded (refused while Crush runs there)."""
    database = Path(backup.database)
    with project_lock(database.parent, force=force):
        return undo(
            TABLES, backup, force=force, label=describe(database), busy_timeout=BUSY_TIMEOUT
        )


def committed(backup: backups.Backup, partial: Path) -> bool:
    from txcript.shared.session_rows import committed as rows_committed

    from . import database

    return rows_committed(
        TABLES, backup, lambda path, work: database.read(path, lambda conn, _s: work(conn))
    )
