"""One session's rows in an app's SQLite database: copied into a row backup, fingerprinted, and
put back, inside one write transaction.

A harness whose sessions are rows of a few tables (``TABLES``: each table with the column naming
the session, parents first) writes a session through :func:`transaction`: ``BEGIN IMMEDIATE``,
its schema check, a copy of the session's current rows into a row backup
(:class:`txcript.shared.backup_rows.PendingRows`), its change, the backup sealed before COMMIT
and published after it. Only the session's own rows of those tables are ever read into a backup,
so a backup holds no other session and no credential. :func:`undo` puts the stored rows back
(children first, then the parent row, so an app's triggers on child inserts cannot rewrite the
restored parent), refusing when the rows no longer hash as the write left them unless forced.

Foreign keys are left off on these connections (SQLite's default): a parent row may be written
after its children, which is what keeps trigger-maintained counters as stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError
from txcript.shared import backup_rows, backups
from txcript.shared import sqlite as shared_sqlite
from txcript.shared.text import shown

Cell = tuple[str, str, object]  # (column, typeof, value); TEXT as its UTF-8 bytes
Row = tuple[int, list[Cell]]
State = dict[str, list[Row]]


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Tables:
    """The tables one session's rows live in: ``(table, session column)``, parents first."""

    harness: str
    tables: tuple[tuple[str, str], ...]

    def columns(self, conn: sqlite3.Connection, table: str) -> list[str]:
        return [str(row[1]) for row in conn.execute(f"PRAGMA table_info({quote(table)})")]

    def capture_table(
        self, conn: sqlite3.Connection, table: str, key: str, session_id: str
    ) -> list[Row]:
        columns = self.columns(conn, table)
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

    def capture(self, conn: sqlite3.Connection, session_id: str) -> State:
        return {
            table: self.capture_table(conn, table, key, session_id) for table, key in self.tables
        }

    def fingerprint(self, conn: sqlite3.Connection, session_id: str) -> str:
        """A hash of the session's rows now: every cell of the parent row, and per child table
        the count, the rowids and the summed byte lengths of every cell (SQL aggregates, so a
        long session is not read into Python)."""
        digest = hashlib.sha256()
        for index, (table, key) in enumerate(self.tables):
            digest.update(f"\0table {table}\0".encode())
            if index == 0:
                for _rowid, cells in self.capture_table(conn, table, key, session_id):
                    for column, kind, value in cells:
                        digest.update(f"{column}\0{kind}\0".encode())
                        digest.update(value if isinstance(value, bytes) else repr(value).encode())
                continue
            columns = self.columns(conn, table)
            lengths = " + ".join(f"COALESCE(length(CAST({quote(c)} AS BLOB)), -1)" for c in columns)
            row = conn.execute(
                f"SELECT COUNT(*), TOTAL(rowid), TOTAL({lengths}) FROM {quote(table)} "
                f"WHERE {quote(key)} = ?",
                (session_id,),
            ).fetchone()
            digest.update(repr(tuple(row)).encode())
        return digest.hexdigest()

    def delete(self, conn: sqlite3.Connection, session_id: str) -> None:
        for table, key in reversed(self.tables):
            conn.execute(f"DELETE FROM {quote(table)} WHERE {quote(key)} = ?", (session_id,))

    def replace(self, conn: sqlite3.Connection, session_id: str, stored: State) -> None:
        """The session's rows replaced by ``stored`` (children first, the parent row last)."""
        self.delete(conn, session_id)
        for table, _ in reversed(self.tables):
            columns = self.columns(conn, table)
            for row in stored.get(table, []):
                _insert(conn, table, row, columns)

    def details(self, state: State) -> dict[str, Any]:
        return {
            "tables": [table for table, _ in self.tables],
            "rows": {table: len(rows) for table, rows in state.items()},
        }


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


def connect(database: Path, label: str, busy_timeout: float) -> sqlite3.Connection:
    """A read-write connection to an existing, complete database (never creates one)."""
    info = shared_sqlite.inspect(database, label)
    if info is None:
        raise StoreError(f"no {label}; nothing was written")
    shared_sqlite.check_complete(database, info, label)
    try:
        conn = sqlite3.connect(
            database.absolute().as_uri() + "?mode=rw",
            uri=True,
            timeout=busy_timeout,
            isolation_level=None,
        )
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        conn.execute("PRAGMA foreign_keys = OFF")
    except sqlite3.Error as exc:
        raise shared_sqlite.translate(label, database, exc) from None
    return conn


def transaction(
    tables: Tables,
    database: Path,
    session_id: str,
    operation: str,
    *,
    label: str,
    busy_timeout: float,
    check: Callable[[sqlite3.Connection], None],
    apply: Callable[[sqlite3.Connection], None],
) -> backups.Backup | None:
    """``check`` then ``apply`` in one ``BEGIN IMMEDIATE`` transaction, guarded by a row backup
    of the session's rows (see the module notes); the backup is removed when nothing commits.
    When the write commits but its backup cannot be published, the write stands: one warning,
    the sealed backup is completed by the next write's sweep, and None is returned."""
    backups.check_settings()
    conn = connect(database, label, busy_timeout)
    pending: backup_rows.PendingRows | None = None
    taken: backups.Backup | None = None
    try:
        with backups.signals_as_exceptions():
            try:
                conn.execute("BEGIN IMMEDIATE")
                check(conn)
                before = tables.capture(conn, session_id)
                before_hash = tables.fingerprint(conn, session_id)
                pending = backup_rows.PendingRows(
                    harness=tables.harness,
                    database=database,
                    operation=operation,
                    session=session_id,
                )
                pending.begin()
                for table, _ in tables.tables:
                    pending.add_rows(table, before.get(table, []))
                apply(conn)
                pending.seal(
                    before_hash=before_hash,
                    after_hash=tables.fingerprint(conn, session_id),
                    details=tables.details(before),
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
                raise shared_sqlite.translate(label, database, exc) from None
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


def undo(
    tables: Tables,
    backup: backups.Backup,
    *,
    force: bool,
    label: str,
    busy_timeout: float,
    check: Callable[[sqlite3.Connection], None] | None = None,
) -> backups.Backup | None:
    """Undo the one write ``backup`` guarded; returns the backup of the undo itself (None when
    it could not be published: see :func:`transaction`)."""
    if backup.kind != "row" or not backup.session:
        raise BadInput(f"backup {backup.id} is not a {tables.harness} row backup")
    stored, _details = backup_rows.read_rows(backup)
    state: State = {table: stored.get(table, []) for table, _ in tables.tables}
    session_id = backup.session

    def guard(conn: sqlite3.Connection) -> None:
        if check is not None:
            check(conn)
        if tables.fingerprint(conn, session_id) != backup.after_hash and not force:
            raise BadInput(
                f"session {session_id} changed since backup {backup.id} was taken (the app kept "
                "working in it); nothing was written. Pass --force to undo anyway"
            )

    return transaction(
        tables,
        Path(backup.database),
        session_id,
        "undo",
        label=label,
        busy_timeout=busy_timeout,
        check=guard,
        apply=lambda conn: tables.replace(conn, session_id, state),
    )


def committed(
    tables: Tables, backup: backups.Backup, read: Callable[[Path, Callable[..., Any]], Any]
) -> bool:
    """Did the write a sealed, unpublished backup guards commit? Its rows hash as it left them.
    ``read(database, work)`` runs ``work(conn)`` in a read transaction."""
    session = backup.session or ""
    found = read(Path(backup.database), lambda conn: tables.fingerprint(conn, session))
    return found is not None and found == backup.after_hash
