"""Writing into Hermes's database: one checked transaction, backed up first.

Hermes has no command that imports a session (``hermes sessions`` lists, exports, renames,
prunes, archives and deletes; ``hermes import`` restores a backup zip; the session importer is a
library function behind the web dashboard), so a save writes the rows itself. Inside one
``BEGIN IMMEDIATE`` transaction it:

1. checks the schema: ``sessions`` and ``messages`` with the columns a session needs, and no
   ``NOT NULL`` column without a default that txcript cannot fill (anything else is refused
   before a byte is written). Columns the session carries that the table lacks (an older schema)
   are left out; columns the table has that the session does not are left to their defaults;
2. copies the rows the save can replace (the session's own, when it is already there) into a
   row backup (:mod:`.rowbackup`); ``txcript restore <id>`` undoes exactly that save;
3. writes the session row and its message rows (Hermes's triggers index them for its search)
   and commits. A failure rolls everything back and drops the backup.

A title another session already has gets `` (2)``, `` (3)``… (Hermes keeps titles unique). With
no database yet (a fresh ``--out`` root), txcript creates one: the two tables with the columns
the session has, and Hermes's schema version; Hermes adds the rest of its schema (columns,
indexes, its search index) the first time it opens it. A delete archives
the session (``archived = 1``, as ``hermes sessions archive`` does) where the schema has that
column, else removes its rows, after the same kind of backup.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError
from txcript.shared import backup_rows, backups
from txcript.shared import sqlite as shared_sqlite
from txcript.shared.ids import HERMES_IDS

from . import rowbackup
from .database import BUSY_TIMEOUT, describe, quote
from .native import HARNESS, HermesSession

#: The schema version a database txcript creates says it has (Hermes 0.19's); Hermes adds every
#: column, index and trigger it wants beyond what txcript created the first time it opens it.
CREATED_VERSION = 22
#: Declared types of the columns Hermes's schema gives them, so a created table stores each
#: value as Hermes's own would (a column named otherwise is created without a type: values are
#: kept as they are given).
_REAL = frozenset(
    (
        "started_at",
        "ended_at",
        "timestamp",
        "estimated_cost_usd",
        "actual_cost_usd",
        "compression_failure_cooldown_until",
    )
)
_INTEGER = frozenset(
    (
        "message_count",
        "tool_call_count",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
        "api_call_count",
        "expiry_finalized",
        "compression_fallback_streak",
        "rewind_count",
        "archived",
        "token_count",
        "observed",
        "active",
        "compacted",
    )
)
_TEXT = frozenset(
    (
        "source",
        "user_id",
        "session_key",
        "chat_id",
        "chat_type",
        "thread_id",
        "display_name",
        "origin_json",
        "model",
        "model_config",
        "system_prompt",
        "parent_session_id",
        "end_reason",
        "cwd",
        "git_branch",
        "git_repo_root",
        "billing_provider",
        "billing_base_url",
        "billing_mode",
        "cost_status",
        "cost_source",
        "pricing_version",
        "title",
        "handoff_state",
        "handoff_platform",
        "handoff_error",
        "compression_failure_error",
        "profile_name",
        "role",
        "content",
        "tool_call_id",
        "tool_calls",
        "tool_name",
        "effect_disposition",
        "finish_reason",
        "reasoning",
        "reasoning_content",
        "reasoning_details",
        "codex_reasoning_items",
        "codex_message_items",
        "platform_message_id",
        "api_content",
    )
)
#: The columns every session needs, and those Hermes's own schema script indexes before it adds
#: any missing column (a database without them fails to open in Hermes).
_SESSION_CORE = ("id", "source", "started_at")
_SESSION_INDEXED = ("parent_session_id",)
_MESSAGE_CORE = ("role", "content", "timestamp")


def _declared(name: str) -> str:
    kind = (
        "REAL"
        if name in _REAL
        else "INTEGER"
        if name in _INTEGER
        else "TEXT"
        if name in _TEXT
        else ""
    )
    return f"{quote(name)} {kind}".rstrip()


def _create_sql(native: HermesSession) -> str:
    """Tables with the columns the session has (and the few every session needs): a copy into
    a new database reads back exactly as it was."""
    session = list(dict.fromkeys((*native.session, *_SESSION_CORE, *_SESSION_INDEXED)))
    messages = list(dict.fromkeys((*(k for row in native.messages for k in row), *_MESSAGE_CORE)))
    session_defs = [
        "id TEXT PRIMARY KEY"
        if c == "id"
        else f"{_declared(c)} NOT NULL"
        if c in _SESSION_CORE
        else _declared(c)
        for c in session
    ]
    message_defs = [
        "id INTEGER PRIMARY KEY AUTOINCREMENT",
        "session_id TEXT NOT NULL REFERENCES sessions(id)",
        *(
            f"{_declared(c)} NOT NULL" if c in ("role", "timestamp") else _declared(c)
            for c in messages
            if c not in ("id", "session_id")
        ),
    ]
    return (
        "CREATE TABLE schema_version (version INTEGER NOT NULL);"
        f"INSERT INTO schema_version VALUES ({CREATED_VERSION});"
        f"CREATE TABLE sessions ({', '.join(session_defs)});"
        f"CREATE TABLE messages ({', '.join(message_defs)});"
        "CREATE INDEX idx_messages_session ON messages(session_id, timestamp);"
    )


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


def _create(database: Path, native: HermesSession) -> None:
    """A new database holding Hermes's two session tables (nothing else is there to keep)."""
    try:
        database.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(database, isolation_level=None)
        try:
            conn.executescript(f"BEGIN;{_create_sql(native)}COMMIT;")
        finally:
            conn.close()
        os.chmod(database, 0o600)
    except (OSError, sqlite3.Error) as exc:
        _remove_database(database)
        raise StoreError(f"creating {describe(database)}: {exc}; nothing was written") from None


def _remove_database(database: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            os.unlink(f"{database}{suffix}")


def _connect(database: Path) -> sqlite3.Connection:
    info = shared_sqlite.inspect(database, describe(database))
    if info is None:
        raise StoreError(f"no Hermes database at {database} (nothing was written)")
    shared_sqlite.check_complete(database, info, describe(database))
    try:
        conn = sqlite3.connect(
            database.absolute().as_uri() + "?mode=rw",
            uri=True,
            timeout=BUSY_TIMEOUT,
            isolation_level=None,
        )
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
    except sqlite3.Error as exc:
        raise shared_sqlite.translate(describe(database), database, exc) from None
    return conn


def transaction(
    database: Path,
    session_id: str,
    operation: str,
    *,
    check: Callable[[sqlite3.Connection], None],
    apply: Callable[[sqlite3.Connection], None],
) -> backups.Backup | None:
    """``check`` then ``apply`` in one ``BEGIN IMMEDIATE`` transaction, guarded by a row backup
    that is sealed before COMMIT and published right after it (signals held between the two);
    if the transaction does not commit, the backup is removed. If it commits but the backup
    cannot be published, the write stands: one warning, the sealed backup is completed by the
    next write's sweep, and None is returned."""
    backups.check_settings()
    conn = _connect(database)
    pending: backup_rows.PendingRows | None = None
    taken: backups.Backup | None = None
    try:
        with backups.signals_as_exceptions():
            try:
                conn.execute("BEGIN IMMEDIATE")
                check(conn)
                before = rowbackup.capture(conn, session_id)
                before_hash = rowbackup.fingerprint(conn, session_id)
                pending = backup_rows.PendingRows(
                    harness=HARNESS, database=database, operation=operation, session=session_id
                )
                pending.begin()
                rowbackup.write_rows(pending, before)
                apply(conn)
                pending.seal(
                    before_hash=before_hash,
                    after_hash=rowbackup.fingerprint(conn, session_id),
                    details=rowbackup.details(before),
                )
                with backups.signals_deferred():
                    conn.execute("COMMIT")
                    try:
                        taken = pending.publish()
                    except (OSError, StoreError) as exc:
                        warn(
                            f"the write is done but its backup could not be published: {exc} "
                            "(the next txcript write completes it)"
                        )
            except sqlite3.Error as exc:
                raise shared_sqlite.translate(
                    describe(database), database, exc, writing=True
                ) from None
    except BaseException:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        if pending is not None and taken is None:
            pending.abandon()
        raise
    finally:
        conn.close()
    if taken is not None:
        backups.prune(protect=[taken.id])
    return taken


def _fillable(columns: dict[str, _Column], fills: set[str], table: str, database: Path) -> None:
    for column in columns.values():
        if column.required and column.name not in fills:
            raise _unknown(database, f"`{table}.{column.name}` needs a value txcript lacks")


class _Save:
    def __init__(self, database: Path, native: HermesSession) -> None:
        self.database = database
        self.native = native
        self.session_id = native.id
        self.row = dict(native.session)
        self.sessions: dict[str, _Column] = {}
        self.messages: dict[str, _Column] = {}
        self.notes: list[str] = []
        self.rows: list[dict[str, Any]] = []

    def check(self, conn: sqlite3.Connection) -> None:
        self.sessions, self.messages = _columns(conn, "sessions"), _columns(conn, "messages")
        if not self.sessions or not self.messages:
            raise _unknown(self.database, "no `sessions` or `messages` table")
        for table, columns, wanted in (
            ("sessions", self.sessions, ("id", "source", "started_at")),
            ("messages", self.messages, ("session_id", "role", "content", "timestamp")),
        ):
            missing = [c for c in wanted if c not in columns]
            if missing:
                raise _unknown(self.database, f"`{table}` has no `{missing[0]}` column")
        dropped = {k for k, v in self.row.items() if k not in self.sessions and v is not None}
        self.row = {k: v for k, v in self.row.items() if k in self.sessions and v is not None}
        _fillable(self.sessions, set(self.row), "sessions", self.database)
        self.rows = [self._fitted(row) for row in self.native.messages]
        for row in self.rows:
            dropped |= {
                k
                for k, v in row.items()
                if k not in self.messages and v is not None and (k, v) != ("active", 1)
            }
            fills = {k for k, v in row.items() if k in self.messages and v is not None}
            _fillable(self.messages, fills | {"session_id"}, "messages", self.database)
        dropped -= {"id", "session_id"}
        if dropped:
            self.notes.append(
                "this database's older schema has no "
                f"{', '.join(f'`{c}`' for c in sorted(dropped))} column: what the copy held "
                "there is not in it"
            )
        title = self.row.get("title")
        if isinstance(title, str) and title:
            self.row["title"] = self._free_title(conn, title)

    def _fitted(self, row: dict[str, Any]) -> dict[str, Any]:
        """A row in this schema's columns: reasoning text moves to the older ``reasoning``."""
        older = "reasoning_content" not in self.messages and "reasoning" in self.messages
        if older and row.get("reasoning_content") is not None and row.get("reasoning") is None:
            row = dict(row)
            row["reasoning"] = row.pop("reasoning_content")
        return row

    def _free_title(self, conn: sqlite3.Connection, title: str) -> str:
        candidate, n = title, 1
        while conn.execute(
            "SELECT 1 FROM sessions WHERE title = ? AND id != ?", (candidate, self.session_id)
        ).fetchone():
            n += 1
            candidate = f"{title} ({n})"
        if candidate != title:
            self.notes.append(f"Hermes keeps titles unique: the copy is titled `{candidate}`")
        return candidate

    def apply(self, conn: sqlite3.Connection) -> None:
        for table, key in reversed(rowbackup.TABLES):
            conn.execute(f"DELETE FROM {quote(table)} WHERE {quote(key)} = ?", (self.session_id,))
        names = list(self.row)
        conn.execute(
            f"INSERT INTO sessions ({', '.join(quote(n) for n in names)}) "
            f"VALUES ({', '.join('?' for _ in names)})",
            [self.row[n] for n in names],
        )
        for row in self.rows:
            cells = {
                k: v for k, v in row.items() if k in self.messages and k not in ("id", "session_id")
            }
            cells["session_id"] = self.session_id
            keys = list(cells)
            conn.execute(
                f"INSERT INTO messages ({', '.join(quote(k) for k in keys)}) "
                f"VALUES ({', '.join('?' for _ in keys)})",
                [cells[k] for k in keys],
            )


def save(database: Path, native: HermesSession) -> tuple[str, backups.Backup | None, list[str]]:
    """Write ``native`` into ``database`` (replacing a session of the same id); returns its id,
    the backup that undoes it and what the user should know."""
    session_id = HERMES_IDS.check(native.id, "Hermes")
    created = not os.path.lexists(database)
    if created:
        _create(database, native)
    work = _Save(database, native)
    try:
        backup = transaction(database, session_id, "save", check=work.check, apply=work.apply)
    except UnicodeEncodeError as exc:
        if created:
            _remove_database(database)
        raise StoreError(f"writing {database}: text is not encodable as UTF-8 ({exc})") from None
    except BaseException:
        if created:
            _remove_database(database)
        raise
    return session_id, backup, work.notes


class _Delete:
    def __init__(self, database: Path, session_id: str) -> None:
        self.database, self.session_id = database, session_id
        self.archive = False

    def check(self, conn: sqlite3.Connection) -> None:
        columns = _columns(conn, "sessions")
        self.archive = "archived" in columns
        archived = "archived" if self.archive else "0"
        row = conn.execute(
            f"SELECT {archived} FROM sessions WHERE id = ?", (self.session_id,)
        ).fetchone()
        if row is None:
            raise BadInput(f"no Hermes session {self.session_id} in {self.database}")
        if row[0]:
            raise BadInput(f"Hermes session {self.session_id} is already deleted (archived)")

    def apply(self, conn: sqlite3.Connection) -> None:
        if self.archive:
            conn.execute("UPDATE sessions SET archived = 1 WHERE id = ?", (self.session_id,))
            return
        for table, key in reversed(rowbackup.TABLES):
            conn.execute(f"DELETE FROM {quote(table)} WHERE {quote(key)} = ?", (self.session_id,))


def delete(database: Path, session_id: str) -> str:
    work = _Delete(database, session_id)
    taken = transaction(database, session_id, "delete", check=work.check, apply=work.apply)
    return "" if taken is None else taken.id


def undo_backup(backup: backups.Backup, *, force: bool = False) -> backups.Backup | None:
    """Undo the one save or delete ``backup`` guarded; returns the backup of the undo itself."""
    if backup.kind != "row" or not backup.session:
        raise BadInput(f"backup {backup.id} is not a Hermes row backup")
    stored, _details = backup_rows.read_rows(backup)
    state: rowbackup.State = {table: stored.get(table, []) for table, _ in rowbackup.TABLES}
    session_id = backup.session

    def check(conn: sqlite3.Connection) -> None:
        if rowbackup.fingerprint(conn, session_id) != backup.after_hash and not force:
            raise BadInput(
                f"Hermes session {session_id} changed since backup {backup.id} was taken "
                "(Hermes kept working in it); nothing was written. Pass --force to undo anyway"
            )

    return transaction(
        Path(backup.database),
        session_id,
        "undo",
        check=check,
        apply=lambda conn: rowbackup.replace_rows(conn, session_id, state),
    )


def committed(backup: backups.Backup, partial: Path) -> bool:
    """Did the write a sealed (unpublished) backup guards commit? Its rows hash as it left them."""
    from . import database

    session = backup.session or ""
    found: Any = database.read(
        Path(backup.database), lambda conn, _schema: rowbackup.fingerprint(conn, session)
    )
    return found is not None and found == backup.after_hash
