"""Writing into OpenCode's database: one schema-checked transaction, backed up first.

A save writes the session's ``session``, ``message`` and ``part`` rows directly (see
``docs/formats/opencode.md`` for why this, and not ``opencode import``). Inside one ``BEGIN
IMMEDIATE`` transaction it:

1. checks the schema: the three tables with the columns txcript writes, a known migrations table
   (``migration`` or ``__drizzle_migrations``), and no ``NOT NULL`` column without a default that
   txcript cannot fill. Anything else is an unknown schema: refused before anything is written;
2. copies the rows the save can replace (the session's own rows, if it is already there) into a
   row backup (:mod:`.rowbackup`) — only those three tables, so no credential ever reaches a
   backup. ``txcript restore <id>`` undoes exactly that save;
3. replaces the session's rows and commits. A failure rolls everything back and drops the backup.

Columns the native session carries but the table lacks (an older schema) are left out; columns
the table has but the session does not are left to their defaults. A delete archives the session
in place (sets ``time_archived``), as OpenCode does, after the same kind of backup.

A save into a directory that holds no database (a copy under ``--out DIR``; ``continue`` never
creates the live one, which is the app's) first creates it with the newest schema txcript knows
(:func:`create_database`, :mod:`.schema`), and removes it again when the save fails.
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
from txcript.shared import files as shared_files
from txcript.shared import sqlite as shared_sqlite
from txcript.shared.ids import check_session_id
from txcript.shared.timeutil import now, to_epoch_ms

from . import rowbackup
from .database import BUSY_TIMEOUT, MIGRATION_TABLES, describe, quote
from .native import OPENCODE, Dialect, OpenCodeSession, Record
from .tools import SESSION_ID

_MESSAGE = ("id", "session_id", "time_created", "time_updated", "data")
_PART = ("id", "message_id", "session_id", "time_created", "time_updated", "data")


class _Column:
    __slots__ = ("name", "required")

    def __init__(self, name: str, required: bool) -> None:
        self.name = name
        self.required = required


def _columns(conn: sqlite3.Connection, table: str) -> dict[str, _Column]:
    return {
        str(row[1]): _Column(str(row[1]), bool(row[3]) and row[4] is None and not row[5])
        for row in conn.execute(f"PRAGMA table_info({quote(table)})")
    }


def _unknown(database: Path, detail: str, dialect: Dialect = OPENCODE) -> StoreError:
    return StoreError(
        f"{describe(database, dialect)} has an unknown schema ({detail}); nothing was written"
    )


def check_schema(
    conn: sqlite3.Connection,
    database: Path,
    session: dict[str, Any],
    dialect: Dialect = OPENCODE,
) -> dict[str, dict[str, _Column]]:
    tables = {
        str(name) for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    if not any(t in tables for t in MIGRATION_TABLES):
        raise _unknown(database, "no `migration` or `__drizzle_migrations` table", dialect)
    found = {}
    for table, wanted in (("session", ("id",)), ("message", _MESSAGE), ("part", _PART)):
        columns = _columns(conn, table) if table in tables else {}
        if not columns:
            raise _unknown(database, f"no `{table}` table", dialect)
        missing = [c for c in wanted if c not in columns]
        if missing:
            raise _unknown(database, f"`{table}` has no `{missing[0]}` column", dialect)
        fills = (
            set(wanted) if table != "session" else {k for k, v in session.items() if v is not None}
        )
        for column in columns.values():
            if column.required and column.name not in fills:
                raise _unknown(
                    database, f"`{table}.{column.name}` needs a value txcript lacks", dialect
                )
        found[table] = columns
    return found


def _connect(database: Path, dialect: Dialect) -> sqlite3.Connection:
    label = describe(database, dialect)
    info = shared_sqlite.inspect(database, label)
    if info is None:
        raise StoreError(
            f"no {dialect.name} database at {database}; run `{dialect.program}` once to create "
            "it (nothing was written)"
        )
    shared_sqlite.check_complete(database, info, label)
    try:
        conn = sqlite3.connect(
            database.absolute().as_uri() + "?mode=rw",
            uri=True,
            timeout=BUSY_TIMEOUT,
            isolation_level=None,
        )
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
    except sqlite3.Error as exc:
        raise shared_sqlite.translate(label, database, exc, writing=True) from None
    return conn


def create_database(database: Path) -> bool:
    """Create ``database`` with :data:`.schema.SCHEMA` and its migrations recorded, unless it
    exists; True when it was created. It is built beside its place and linked there, which
    fails when a database appeared meanwhile (nothing is replaced): whole or not at all."""
    from txcript.shared.formats.opencode import schema

    if os.path.lexists(database):
        return False
    import tempfile

    try:
        database.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".txcript-", suffix=".db", dir=database.parent)
        os.close(fd)
    except OSError as exc:
        raise StoreError(f"creating {database}: {exc.strerror or exc}") from None
    temp = Path(name)
    try:
        conn = sqlite3.connect(temp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.executescript(f"BEGIN;\n{schema.SCHEMA}")
            completed = to_epoch_ms(now())
            conn.executemany(
                "INSERT INTO migration (id, time_completed) VALUES (?, ?)",
                [(migration, completed) for migration in schema.MIGRATIONS],
            )
            conn.execute("COMMIT")
        finally:
            conn.close()  # (the last connection: the -wal is checkpointed and removed)
        os.link(temp, database)
    except FileExistsError:
        return False  # another writer created it first: use that one
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"creating {database}: {exc}") from None
    finally:
        for path in shared_files.sqlite_files(temp):
            with contextlib.suppress(OSError):
                os.unlink(path)
    return True


def remove_created(database: Path) -> None:
    """Take back a database :func:`create_database` made for a save that then failed."""
    for path in shared_files.sqlite_files(database):
        with contextlib.suppress(OSError):
            os.unlink(path)


def transaction(
    database: Path,
    session_id: str,
    operation: str,
    *,
    check: Callable[[sqlite3.Connection], None],
    apply: Callable[[sqlite3.Connection], None],
    dialect: Dialect = OPENCODE,
) -> backups.Backup | None:
    """``check`` then ``apply`` in one ``BEGIN IMMEDIATE`` transaction, guarded by a row backup.

    ``check`` runs first, so a refused write costs nothing. The session's rows are then copied
    into a row backup, ``apply`` changes them, and the backup is sealed (fsynced) before COMMIT
    and published right after it, with SIGINT/SIGTERM held back between the two. If the
    transaction does not commit, the backup is removed. If it commits but the backup cannot be
    published, the write stands: that is one warning, the sealed backup is completed by the next
    write's sweep, and None is returned.
    """
    backups.check_settings()
    conn = _connect(database, dialect)
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
                    harness=dialect.harness,
                    database=database,
                    operation=operation,
                    session=session_id,
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
                    describe(database, dialect), database, exc, writing=True
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


class _Save:
    def __init__(self, database: Path, native: OpenCodeSession, dialect: Dialect) -> None:
        self.database = database
        self.dialect = dialect
        self.native = native
        self.columns: dict[str, dict[str, _Column]] = {}
        self.row = dict(native.session)

    def __call__(self, conn: sqlite3.Connection) -> None:
        if self.row.get("project_id") is None:
            self.row["project_id"] = _project_for(conn, self.row.get("directory"))
        self.columns = check_schema(conn, self.database, self.row, self.dialect)

    def apply(self, conn: sqlite3.Connection) -> None:
        session_id = self.native.id
        for table, column in reversed(rowbackup.TABLES):
            conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (session_id,))
        row = {k: v for k, v in self.row.items() if k in self.columns["session"]}
        names = list(row)
        conn.execute(
            f"INSERT INTO session ({', '.join(quote(n) for n in names)}) "
            f"VALUES ({', '.join('?' for _ in names)})",
            [row[n] for n in names],
        )
        parts = [
            (message.record.id, part) for message in self.native.messages for part in message.parts
        ]
        for message in self.native.messages:
            record = message.record
            created, updated = _times(record, 0)
            conn.execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) "
                "VALUES (?, ?, ?, ?, ?)",
                (record.id, session_id, created, updated, record.text),
            )
        conn.executemany(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (part.id, message_id, session_id, *_times(part, 0), part.text)
                for message_id, part in [*parts, *self.native.orphan_parts]
            ],
        )


def _times(record: Record, default: int) -> tuple[int, int]:
    created = record.time_created if record.time_created is not None else default
    return created, record.time_updated if record.time_updated is not None else created


def _project_for(conn: sqlite3.Connection, directory: Any) -> str:
    """The project a new session in ``directory`` belongs to: the one OpenCode already filed
    sessions of that directory under, else the project whose worktree it is, else ``global``."""
    if isinstance(directory, str) and directory:
        try:
            row = conn.execute(
                "SELECT project_id FROM session WHERE directory = ? AND project_id IS NOT NULL "
                "ORDER BY time_created DESC LIMIT 1",
                (directory,),
            ).fetchone()
            if row is None and "worktree" in _columns(conn, "project"):
                row = conn.execute(
                    "SELECT id FROM project WHERE worktree = ? LIMIT 1", (directory,)
                ).fetchone()
        except sqlite3.Error:
            row = None
        if row is not None and isinstance(row[0], str):
            return row[0]
    return "global"


def save(
    database: Path, native: OpenCodeSession, dialect: Dialect = OPENCODE
) -> tuple[str, str | None]:
    """Write ``native`` into ``database`` (replacing a session of the same id); returns its id
    and the id of the row backup that undoes the write (None when the write committed but its
    backup could not be published; that was warned about)."""
    session_id = check_session_id(native.id)
    if not SESSION_ID.match(session_id):
        raise BadInput(
            f"`{session_id}` is not {dialect.a_name} session id (ses_ + letters and digits)"
        )
    work = _Save(database, native, dialect)
    try:
        taken = transaction(
            database, session_id, "save", check=work, apply=work.apply, dialect=dialect
        )
    except UnicodeEncodeError as exc:
        raise StoreError(f"writing {database}: text is not encodable as UTF-8 ({exc})") from None
    return session_id, None if taken is None else taken.id


class _Archive:
    def __init__(self, database: Path, session_id: str, dialect: Dialect) -> None:
        self.database = database
        self.session_id = session_id
        self.dialect = dialect

    def __call__(self, conn: sqlite3.Connection) -> None:
        columns = _columns(conn, "session")
        if "time_archived" not in columns:
            raise _unknown(self.database, "`session` has no `time_archived` column", self.dialect)
        row = conn.execute(
            "SELECT time_archived FROM session WHERE id = ?", (self.session_id,)
        ).fetchone()
        if row is None:
            name = self.dialect.name
            raise BadInput(f"no {name} session {self.session_id} in {self.database}")
        if row[0] is not None:
            name = self.dialect.name
            raise BadInput(f"{name} session {self.session_id} is already deleted (archived)")

    def apply(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "UPDATE session SET time_archived = ? WHERE id = ?",
            (to_epoch_ms(now()), self.session_id),
        )


def archive(database: Path, session_id: str, dialect: Dialect = OPENCODE) -> str | None:
    """Archive one session in place (OpenCode no longer lists it); returns the backup id (None
    when the write stands but its backup could not be published yet)."""
    work = _Archive(database, session_id, dialect)
    taken = transaction(
        database, session_id, "delete", check=work, apply=work.apply, dialect=dialect
    )
    return None if taken is None else taken.id


def undo(
    backup: backups.Backup, *, force: bool, busy_timeout: float, dialect: Dialect = OPENCODE
) -> backups.Backup | None:
    """Undo the one save or delete ``backup`` guarded; returns the backup of the undo itself
    (None when the undo stands but its backup could not be published yet)."""
    if backup.kind != "row" or not backup.session or backup.harness != dialect.harness:
        raise BadInput(f"backup {backup.id} is not {dialect.a_name} row backup")
    stored, _details = backup_rows.read_rows(backup)
    state: rowbackup.State = {table: stored.get(table, []) for table, _ in rowbackup.TABLES}
    session_id = backup.session

    def check(conn: sqlite3.Connection) -> None:
        current = rowbackup.fingerprint(conn, session_id)
        if current != backup.after_hash and not force:
            raise BadInput(
                f"{dialect.name} session {session_id} changed since backup {backup.id} was "
                f"taken ({dialect.name} kept working in it); nothing was written. Pass --force "
                "to undo anyway"
            )

    return transaction(
        Path(backup.database),
        session_id,
        "undo",
        check=check,
        apply=lambda conn: rowbackup.replace_rows(conn, session_id, state),
        dialect=dialect,
    )


def undo_backup(backup: backups.Backup, *, force: bool = False) -> backups.Backup | None:
    """:func:`undo` with OpenCode's own lock timeout."""
    return undo(backup, force=force, busy_timeout=BUSY_TIMEOUT)
