"""An extension's globalState in a VS Code-family ``state.vscdb``: read it, write it, undo it.

VS Code (and its forks: Insiders, Cursor, VSCodium) keeps every extension's ``globalState`` as one
row of the ``ItemTable`` of ``<User>/globalStorage/state.vscdb``: the key is the extension's id
(in the case its manifest gives, e.g. ``RooVeterinaryInc.roo-cline``), the value the JSON text
of all its keys. Older Cline and Roo releases kept their task history there (``taskHistory``).

A write changes that one row and nothing else in the database, inside one ``BEGIN IMMEDIATE``
transaction: the row as it was is copied into a row backup
(:class:`~txcript.shared.backup_rows.PendingRows`) under the write lock first, the change is
made, the backup is sealed before COMMIT and published after it. ``alongside`` lets the caller do
its file writes inside the same window (a task directory), adding what they replace to the same
backup: a failure anywhere rolls the row back, and the caller undoes its files. :func:`undo`
puts the row back byte for byte, refusing (unless forced) when the row is no longer what the
write left (the editor rewrote it since).

The editor caches globalState in memory and writes it back, so callers refuse to write while the
editor runs (see :func:`txcript.shared.processes.find_processes`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError
from txcript.shared import backup_rows, backups
from txcript.shared import sqlite as shared_sqlite
from txcript.shared.text import shown

STATE_DB = "state.vscdb"
TABLE = "ItemTable"
BUSY_TIMEOUT = 5.0

Cell = tuple[str, str, object]
Row = tuple[int, list[Cell]]


def label(path: Path) -> str:
    return f"editor state database {path}"


@dataclass(frozen=True, slots=True)
class Item:
    """One ``ItemTable`` row: its stored key, its value as text, and whether that was a BLOB."""

    key: str
    text: str
    blob: bool


def _find(conn: sqlite3.Connection, key: str) -> Item | None:
    """The row whose key is ``key`` (compared case-insensitively, exact first)."""
    rows = conn.execute(
        f"SELECT key, CAST(value AS BLOB), typeof(value) FROM {TABLE} "
        "WHERE key = ? OR lower(key) = lower(?) ORDER BY key = ? DESC, rowid LIMIT 1",
        (key, key, key),
    ).fetchall()
    if not rows:
        return None
    stored, raw, kind = rows[0]
    if not isinstance(stored, str) or not isinstance(raw, bytes):
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise StoreError(
            f"the `{shown(stored)}` state is not UTF-8 text; nothing was written"
        ) from None
    return Item(stored, text, kind == "blob")


def _has_table(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
        ).fetchone()
        is not None
    )


def read_item(path: Path, key: str) -> Item | None:
    """The extension's state row, read without changing a byte; None when there is none."""
    info = shared_sqlite.inspect(path, label(path))
    if info is None:
        return None

    def work(conn: sqlite3.Connection) -> Item | None:
        return _find(conn, key) if _has_table(conn) else None

    return shared_sqlite.read(path, info, work, label=label(path), busy_timeout=BUSY_TIMEOUT)


# ------------------------------------------------------------------------------ the row


def _capture(conn: sqlite3.Connection, key: str) -> list[Row]:
    """The row (with rowid and every cell's storage class and bytes), or no row."""
    columns = [str(c[1]) for c in conn.execute(f"PRAGMA table_info({TABLE})")]
    cells = ", ".join(
        f'typeof("{c}"), CASE WHEN typeof("{c}") = \'text\' THEN CAST("{c}" AS BLOB) ELSE "{c}" END'
        for c in columns
    )
    found = []
    for rowid, *flat in conn.execute(
        f"SELECT rowid, {cells} FROM {TABLE} WHERE key = ? ORDER BY rowid", (key,)
    ):
        found.append(
            (int(rowid), [(c, str(flat[2 * i]), flat[2 * i + 1]) for i, c in enumerate(columns)])
        )
    return found


def _hash(rows: list[Row]) -> str:
    digest = hashlib.sha256(b"vscode globalState row v1\n")
    for rowid, cells in rows:
        digest.update(b"row %d\n" % rowid)
        for column, kind, value in cells:
            raw = value if isinstance(value, bytes) else repr(value).encode()
            digest.update(b"%s\0%s\0%d\0" % (column.encode(), kind.encode(), len(raw)))
            digest.update(raw)
    return digest.hexdigest()


def _connect(path: Path) -> sqlite3.Connection:
    info = shared_sqlite.inspect(path, label(path))
    if info is None:
        raise StoreError(f"no {label(path)}; nothing was written")
    shared_sqlite.check_complete(path, info, label(path))
    if not os.access(path, os.W_OK):
        raise StoreError(f"{path} is read-only; nothing was written")
    try:
        conn = sqlite3.connect(
            path.absolute().as_uri() + "?mode=rw",
            uri=True,
            timeout=BUSY_TIMEOUT,
            isolation_level=None,
        )
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
    except sqlite3.Error as exc:
        raise shared_sqlite.translate(label(path), path, exc, writing=True) from None
    return conn


def _refuse_triggers(conn: sqlite3.Connection, path: Path) -> None:
    """A trigger on ItemTable would run inside the write and change rows no backup covers."""
    for name, table in conn.execute(
        "SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'"
    ):
        if isinstance(table, str) and table.lower() == TABLE.lower():
            raise StoreError(
                f"{path} has a trigger `{shown(str(name))}` on {TABLE}; txcript does not write "
                "into this database (nothing was written)"
            )


def _put(conn: sqlite3.Connection, item: Item | None, key: str, text: str) -> None:
    """Set the row to ``text``, keeping the storage class the editor gave it."""
    if item is None:
        conn.execute(f"INSERT INTO {TABLE} (key, value) VALUES (?, ?)", (key, text))
        return
    cell: str | bytes = text.encode("utf-8") if item.blob else text
    conn.execute(f"UPDATE {TABLE} SET value = ? WHERE key = ?", (cell, item.key))


def _transaction(
    path: Path,
    key: str,
    *,
    harness: str,
    session: str,
    operation: str,
    body: Callable[[sqlite3.Connection, Item | None, backup_rows.PendingRows], str],
) -> backups.Backup | None:
    """``body(conn, item, pending)`` in one ``BEGIN IMMEDIATE`` transaction, after the row named
    ``key`` (found case-insensitively; ``body`` returns the key it left the row under) was copied
    into ``pending``; the backup is sealed before COMMIT and published right after it, with
    SIGINT/SIGTERM held back between the two. Nothing is left behind when it fails. If it
    commits but the backup cannot be published, the write stands: that is one warning, the
    sealed backup is completed by the next write's sweep, and None is returned."""
    backups.check_settings()
    conn = _connect(path)
    pending: backup_rows.PendingRows | None = None
    taken: backups.Backup | None = None
    try:
        with backups.signals_as_exceptions():
            try:
                conn.execute("BEGIN IMMEDIATE")
                if not _has_table(conn):
                    raise StoreError(
                        f"{path} has no {TABLE} table: not an editor state database; "
                        "nothing was written"
                    )
                _refuse_triggers(conn, path)
                item = _find(conn, key)
                stored_key = item.key if item is not None else key
                before = _capture(conn, stored_key)
                pending = backup_rows.PendingRows(
                    harness=harness, database=path, operation=operation, session=session
                )
                pending.begin()
                pending.add_rows(TABLE, before)
                stored_key = body(conn, item, pending)
                after = _capture(conn, stored_key)
                pending.seal(
                    before_hash=_hash(before),
                    after_hash=_hash(after),
                    details={"key": stored_key},
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
                raise shared_sqlite.translate(label(path), path, exc, writing=True) from None
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


def write(
    path: Path,
    key: str,
    change: Callable[[Item | None], str | None],
    *,
    harness: str,
    session: str,
    operation: str,
    alongside: Callable[[backup_rows.PendingRows], None] | None = None,
) -> backups.Backup | None:
    """Change the extension's state row in one transaction, guarded by a row backup.

    ``change(item)`` gives the row's new text (None: leave it as it is; a new row is created
    under ``key``). ``alongside(pending)`` runs after the row is backed up and before it changes;
    it may add rows of its own to the backup (the files it replaces) and write files, which its
    caller undoes if this raises.
    """

    def body(conn: sqlite3.Connection, item: Item | None, pending: backup_rows.PendingRows) -> str:
        new_text = change(item)
        if alongside is not None:
            alongside(pending)
        if new_text is not None and (item is None or new_text != item.text):
            _put(conn, item, key, new_text)
        return item.key if item is not None else key

    return _transaction(path, key, harness=harness, session=session, operation=operation, body=body)


def undo(
    backup: backups.Backup,
    *,
    force: bool = False,
    alongside: Callable[[dict[str, list[Row]], backup_rows.PendingRows], None] | None = None,
) -> backups.Backup | None:
    """Put the state row back as the backup holds it, in one (backed-up) transaction.

    Refuses, writing nothing, when the row is no longer what the write left, unless ``force``.
    ``alongside(stored, pending)`` then undoes the caller's own part (its files) in the same
    window; the rows it adds to ``pending`` are what the undo's own backup keeps of them.
    """
    if backup.kind != "row" or not backup.session:
        raise BadInput(f"backup {backup.id} is not a row backup of an editor's state")
    path = Path(backup.database)
    if not path.is_file():
        raise StoreError(f"{path} no longer exists; nothing was written")
    stored, details = backup_rows.read_rows(backup)
    key = details.get("key")
    if not isinstance(key, str):
        raise StoreError(f"backup {backup.id} names no state key; refusing it")
    old_rows = stored.get(TABLE, [])
    for _rowid, cells in old_rows:
        named = {c.lower(): (k, v) for c, k, v in cells}.get("key")
        if named is None or named[1] != key.encode("utf-8"):
            raise StoreError(f"backup {backup.id} holds a row of another key; refusing it")

    def body(conn: sqlite3.Connection, item: Item | None, pending: backup_rows.PendingRows) -> str:
        if _hash(_capture(conn, key)) != backup.after_hash and not force:
            raise StoreError(
                f"the `{shown(key)}` state in {path} has changed since backup {backup.id} was "
                "taken (the editor rewrote it?); nothing was written. Pass --force to undo "
                "anyway, losing those changes"
            )
        if alongside is not None:
            alongside(stored, pending)
        conn.execute(f"DELETE FROM {TABLE} WHERE key = ?", (key,))
        for rowid, cells in old_rows:
            names = ["rowid", *(f'"{c}"' for c, _, _ in cells)]
            marks = ["?", *("CAST(? AS TEXT)" if k == "text" else "?" for _, k, _ in cells)]
            conn.execute(
                f"INSERT INTO {TABLE} ({', '.join(names)}) VALUES ({', '.join(marks)})",
                [rowid, *(v for _, _, v in cells)],
            )
        return key

    return _transaction(
        path,
        key,
        harness=backup.harness,
        session=backup.session,
        operation="undo",
        body=body,
    )


def committed(backup: backups.Backup, partial: Path) -> bool:
    """For the sweep: did the write a sealed, unpublished backup guarded commit? Its row no
    longer hashes as it did before the write."""
    path = Path(backup.database)
    info = shared_sqlite.inspect(path, label(path))
    if info is None:
        return False
    _, details = backup_rows._read_rows_file(partial)  # the partial is not at backup.path yet
    key = details.get("key")
    if not isinstance(key, str):
        return False
    now = shared_sqlite.read(
        path, info, lambda conn: _capture(conn, key), label=label(path), busy_timeout=1.0
    )
    return _hash(now) != backup.before_hash
