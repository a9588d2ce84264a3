"""Writing into Cursor's live ``state.vscdb``: save and delete, in one transaction each.

The database belongs to a running app and holds every session the user has, so a write here:

* refuses while Cursor is running unless forced (:func:`refuse_while_running`): the app keeps
  sessions in memory and may overwrite the change, or not show it until it restarts;
* validates everything first: the session id (a usable file name, no ``%``), that the head, the
  reference it was loaded under and ``composerData`` name the same session, and that every row
  the body carries belongs to that session (``bubbleId:<cid>:…``, ``<kind>:<cid>[:…]``), so a
  hostile text form cannot overwrite another session's rows; a read-only file or directory is
  refused before anything is opened;
* takes ``BEGIN IMMEDIATE`` (waiting up to the busy timeout for the app's lock, then failing with
  nothing written), refuses a database with a trigger on a table it writes
  (:func:`refuse_triggers`), then copies the rows the write can replace or remove into a row
  backup (:mod:`.rowbackup`) while holding that lock, so the backup is exactly the state the
  write replaces; the backup is sealed and fsynced before COMMIT. A save first runs dry
  (:class:`_Edits`): when it would write nothing, no backup is taken;
* writes inside that one transaction, and only what differs: the session's bubbles are replaced
  wholesale after the longest prefix that is already stored byte for byte (NULL tombstone rows
  are left alone), aux rows and ``composerData`` are upserted unless already identical, the header
  row is updated *column by column* and only where the stored cell does not already read as the
  body's value (so NULL, REAL, TEXT-typed cells and columns this version does not know, such as
  ``subagentTypeName``, keep their bytes), and the Agents-sidebar registration (:mod:`.sidebar`)
  and the 3.7 head index are spliced into their JSON text, refusing rather than replacing a value
  they cannot parse. Saving a body that is already stored writes nothing;
* on any failure (SIGINT and SIGTERM included) rolls back and removes the backup it took: a
  failed command writes nothing. :func:`undo` reverses one write from its row backup. A
  rollback journal that SQLite left hot after an I/O error is rolled back at once
  (:func:`_settle`), so read-only readers are not locked out.

Keys are always compared exactly (key ranges and ``=``); ``LIKE`` never meets an id.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.harnesses.base import Saved
from txcript.harnesses.cursor_desktop import codec, database, rowbackup, sidebar
from txcript.harnesses.cursor_desktop.database import (
    AUX_KEYS_SQL,
    ITEM_HEADERS_KEY,
    cell_integer,
    cell_text,
    quote_identifier,
)
from txcript.harnesses.cursor_desktop.locations import busy_timeout_setting
from txcript.harnesses.cursor_desktop.native import CursorSession, KVRow
from txcript.harnesses.cursor_desktop.vocabulary import NAMESPACE
from txcript.harnesses.cursor_desktop.workspaces import resolve_workspace_id
from txcript.shared import backup_rows, backups
from txcript.shared.files import missing_directories, remove_empty
from txcript.shared.fileuri import vscode_uri
from txcript.shared.gcpause import without_gc
from txcript.shared.ids import check_session_id
from txcript.shared.jsonutil import try_loads
from txcript.shared.processes import find_processes
from txcript.shared.text import shown

T = TypeVar("T")

HARNESS = "cursor_desktop"
#: Executable names of the desktop app (macOS ``Cursor``, Linux ``cursor``, Windows
#: ``Cursor.exe``).
APP_PROCESS_NAMES = ("Cursor", "cursor")
#: The schema of a fresh Cursor 3.16+ ``state.vscdb``, for a database txcript creates itself.
_FRESH_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
    "CREATE TABLE IF NOT EXISTS cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
    "CREATE TABLE IF NOT EXISTS composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, "
    "createdAt INTEGER, lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, "
    "recency INTEGER, checkpointAt INTEGER, subagentTypeName TEXT, value TEXT)",
    "CREATE INDEX IF NOT EXISTS idx_composerHeaders_0 ON composerHeaders "
    "(workspaceId, isSubagent, isArchived, recency)",
)
_EXCLUDED_AUX_KINDS = ("bubbleId", "composerData", "agentKv")
#: The write connection's page cache limit (KiB); pages are only allocated as they are read.
_CACHE_KIB = 256 * 1024


class AppRunning(TxcriptError):
    """Cursor is running; writing under it is refused unless forced (exit 1)."""


def refuse_while_running() -> None:
    pids = find_processes(APP_PROCESS_NAMES)
    if pids:
        shown = ", ".join(str(p) for p in pids[:3])
        raise AppRunning(
            f"Cursor is running (pid {shown}); it keeps state.vscdb open and can overwrite or "
            "hide a session written under it. Quit Cursor and retry, or pass --force"
        )


# ----------------------------------------------------------------------------- validation


def session_id_of(session: CursorSession) -> str:
    """The composer id a body is saved under: its head's ``composerId``, else its reference.

    A body loaded under one reference whose head names another session is refused: saving it
    would overwrite that other session's header row.
    """
    head = try_loads(session.header)
    named = head.get("composerId") if isinstance(head, dict) else None
    cid = named if isinstance(named, str) and named else session.reference
    if not cid:
        raise BadInput("the cursor_desktop session has no composer id (its head names none)")
    if session.reference and cid != session.reference:
        raise BadInput(
            f"the head names session `{shown(cid)}` but the body was loaded as "
            f"`{shown(session.reference)}`; refusing to write it"
        )
    check_session_id(cid)
    for wildcard in "%_":
        if wildcard in cid:
            raise BadInput(
                f"session id `{shown(cid)}` contains `{wildcard}`, which SQL LIKE patterns read as "
                "a wildcard over other sessions in this database; refusing to write it"
            )
    return cid


def check_rows_belong(session: CursorSession, cid: str, composer: Any = None) -> None:
    """Every row the body carries must be this session's own; refuse before writing anything.

    ``composer`` is ``session.composer_data`` parsed, where the caller has it already.
    """
    prefix = f"bubbleId:{cid}:"
    for row in session.bubbles:
        if not row.key.startswith(prefix):
            raise BadInput(f"bubble row `{shown(row.key)}` does not belong to session `{cid}`")
    for row in session.aux:
        kind, _, rest = row.key.partition(":")
        owner = rest.split(":", 1)[0]
        if not kind or owner != cid or kind in _EXCLUDED_AUX_KINDS:
            raise BadInput(f"row `{shown(row.key)}` does not belong to session `{cid}`")
    if session.composer_data is not None:
        if composer is None:
            composer = try_loads(session.composer_data)
        named = composer.get("composerId") if isinstance(composer, dict) else None
        if isinstance(named, str) and named != cid:
            raise BadInput(f"composerData names session `{shown(named)}`, not `{cid}`")


# ---------------------------------------------------------------------------- transaction


def _check_writable(path: Path) -> None:
    """Refuse a read-only database or directory before SQLite opens (and creates) anything.

    SQLite would open a read-only file read-only and fail at the first write, leaving ``-wal`` and
    ``-shm`` files behind in WAL mode; a rollback journal needs the directory to be writable.
    """
    if path.exists() and not os.access(path, os.W_OK):
        raise StoreError(f"{path} is read-only; nothing was written")
    directory = path.parent
    if directory.is_dir() and not os.access(directory, os.W_OK | os.X_OK):
        raise StoreError(
            f"the directory {directory} is read-only (SQLite keeps its journal beside the "
            "database); nothing was written"
        )


def _open_for_write(path: Path, busy_timeout: float) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {path} for writing: {exc}") from None
    conn.text_factory = str
    # Room for every page a write reads (this connection's own cache, nothing on disk): the
    # session's rows read for the backup are the pages its DELETE then walks again.
    with contextlib.suppress(sqlite3.Error):
        conn.execute(f"PRAGMA cache_size = {-_CACHE_KIB}")
    return conn


def _write_error(path: Path, exc: sqlite3.Error) -> TxcriptError:
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    name = getattr(exc, "sqlite_errorname", "") or ""
    if "locked" in message or "busy" in message or name.startswith(("SQLITE_BUSY", "SQLITE_LOCK")):
        return StoreError(
            f"{path} is locked by another process (waited for the busy timeout); nothing was "
            "written. Try again when Cursor is idle"
        )
    if name == "SQLITE_READONLY_DIRECTORY":
        return StoreError(f"the directory of {path} is read-only; nothing was written")
    if "readonly" in message or "read-only" in message:
        return StoreError(f"{path} is read-only; nothing was written")
    if "full" in message or name == "SQLITE_FULL":
        return StoreError(f"the disk holding {path} is full; nothing was written")
    return StoreError(f"writing {path} failed: {message}; nothing was written")


_GUARDED_TABLES = ("cursordiskkv", "itemtable", "composerheaders")


def refuse_triggers(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a database with a trigger on a table txcript writes.

    A trigger runs inside txcript's transaction with txcript's rights, and can change rows no
    backup covers (another session's, say), so the write could neither be checked nor undone.
    Dropping it for the duration is not provably safe (it may be the app's own, and its effects
    are arbitrary SQL), so the database is refused instead, before anything is written.
    """
    for name, table in conn.execute(
        "SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'"
    ):
        if isinstance(table, str) and table.lower() in _GUARDED_TABLES:
            raise StoreError(
                f"{path} has a trigger `{shown(str(name))}` on {table}; it would run inside "
                "txcript's write and change rows no backup covers, so txcript does not write "
                "into this database (nothing was written)"
            )


def sweep_backups() -> None:
    """Complete or remove the row backups of writers that were killed (see backups.sweep)."""
    backup_rows.sweep(
        lambda backup, partial: backup.harness == HARNESS and rowbackup.committed(backup, partial)
    )


@without_gc  # the session's rows, read and hashed: thousands of acyclic tuples, no cycle scans
def transaction(
    path: Path,
    work: Callable[[sqlite3.Connection, database.Schema], T],
    *,
    operation: str,
    session: str,
    busy_timeout: float,
    backup: Callable[[sqlite3.Connection, database.Schema], bool | rowbackup.State] | None = None,
    after: Callable[[sqlite3.Connection, rowbackup.State], rowbackup.State] | None = None,
) -> tuple[T, backups.Backup | None]:
    """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction, guarded by a row backup.

    ``backup(conn, schema)`` decides whether a backup is needed (e.g. delete checks the session
    exists first; a save runs dry). It may return the session's state it captured under this
    transaction's lock (an undo's change check): that is the backup's "before", not read again.
    The backup holds the rows of ``session`` that the write can replace or remove, read under the
    write lock before the first change; it is sealed and fsynced before COMMIT and published
    right after it, with SIGINT/SIGTERM held back between the two. If the transaction does not
    commit, the backup is removed. ``after(conn, before)`` gives the session's state once ``work``
    is done, for the hash an undo checks (default: read it all back). Returns ``work``'s result
    and the backup.
    """
    if path.exists():
        # A clear error (exit 2) for a directory, a file that is not SQLite, a truncated file.
        info = database.inspect(path)
        if info is not None:
            database.check_complete(path, info)
    existed = path.is_file() and path.stat().st_size > 0
    backups.check_settings()
    # A write that fails takes back what it created: a fresh database and its directories.
    fresh = not os.path.lexists(path)
    created = missing_directories(path.parent)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create {path.parent}: {exc.strerror or exc}") from None
    _check_writable(path)
    if existed:
        sweep_backups()
    conn = _open_for_write(path, busy_timeout)
    pending: backup_rows.PendingRows | None = None
    taken: backups.Backup | None = None
    committed = False
    try:
        with backups.signals_as_exceptions():
            try:
                conn.execute("BEGIN IMMEDIATE")
                schema = database.probe(conn)
                refuse_triggers(conn, path)
                before = None
                schema_before: dict[str, list[str]] = {}
                decision = existed and (backup is None or backup(conn, schema))
                if decision:
                    before = (
                        decision
                        if isinstance(decision, rowbackup.State)
                        else rowbackup.capture(conn, session)
                    )
                    schema_before = rowbackup.schema_of(conn)
                    pending = backup_rows.PendingRows(
                        harness=HARNESS, database=path, operation=operation, session=session
                    )
                    pending.begin()
                    rowbackup.write_rows(pending, before)
                result = work(conn, schema)
                if pending is not None and before is not None:
                    now = rowbackup.capture(conn, session) if after is None else after(conn, before)
                    pending.seal(
                        before_hash=rowbackup.session_hash(before, session),
                        after_hash=rowbackup.session_hash(now, session),
                        details={
                            "tables": before.tables,
                            "schema": schema_before,
                            "items": rowbackup.changes(before, now),
                        },
                    )
                with backups.signals_deferred():
                    conn.execute("COMMIT")
                    committed = True
                    if pending is not None:
                        try:
                            taken = pending.publish()
                        except (OSError, StoreError) as exc:
                            warn(
                                f"the write is done but its backup could not be published: "
                                f"{exc} (the next txcript write completes it)"
                            )
            except sqlite3.Error as exc:
                raise _write_error(path, exc) from None
    except BaseException:
        if not committed:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        conn.close()
        _settle(path, busy_timeout)
        if pending is not None and not committed:
            pending.abandon()
        if fresh and not committed:
            backups.remove_with_sidecars(path)
            remove_empty(created)
        raise
    conn.close()
    if taken is not None:
        # Only now: had the write failed, pruning first would have cost an older backup.
        backups.prune(protect=(taken.id,))
    return result, taken


def _settle(path: Path, busy_timeout: float) -> None:
    """Roll back a journal a failed write left hot, so read-only readers are not locked out.

    When a write fails inside a commit (an I/O error, a full disk), SQLite keeps the rollback
    journal *hot* and leaves the restore to the next connection that opens the database. Until a
    read-write connection does, every read-only reader (txcript's own ``list``) fails with
    "attempt to write a readonly database". Opening one here restores the old state at once.
    """
    if not os.path.exists(str(path) + "-journal"):
        return
    with contextlib.suppress(sqlite3.Error):
        conn = sqlite3.connect(path, timeout=min(busy_timeout, 1.0))
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()


def _column_map(schema: database.Schema) -> dict[str, str]:
    """Lower-cased column name → the table's own spelling."""
    return {name.lower(): name for name in schema.header_columns}


# ------------------------------------------------------------------------------ edits


class _Edits:
    """The writes of one save or delete: executed on ``conn``, or only counted when ``dry``.

    Reads go to ``conn`` directly. A dry run of a save tells whether it would write anything
    at all, before the backup is taken: a save of what is already stored takes no backup (a
    multi-GB copy, and one that would rotate an older, useful backup out).
    """

    def __init__(self, conn: sqlite3.Connection, *, dry: bool = False) -> None:
        self.conn = conn
        self.dry = dry
        self.count = 0
        #: Every ``cursorDiskKV`` value this run stored, by key (the last one wins): the state
        #: after the save is known from it without reading the values back.
        self.kv: dict[str, str] = {}

    def write(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.count += 1
        if not self.dry:
            self.conn.execute(sql, params)

    def write_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self.count += len(rows)
            if not self.dry:
                self.conn.executemany(sql, rows)

    def put_kv(self, rows: Sequence[tuple[str, str]]) -> None:
        """``INSERT OR REPLACE`` these ``(key, value)`` rows into ``cursorDiskKV``."""
        self.write_many("INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES (?, ?)", rows)
        if not self.dry:
            self.kv.update(rows)


# ------------------------------------------------------------------------------ header row


def _reads_as(column: str, stored: object, wanted: object) -> bool:
    """Whether the stored header cell already reads (see ``heads.resolve_head``) as ``wanted``."""
    if column in ("value", "workspaceid"):
        return cell_text(stored) == wanted
    if column in ("isarchived", "issubagent"):
        return bool(cell_integer(stored)) == bool(wanted)
    if column in ("createdat", "lastupdatedat", "recency"):
        return (cell_integer(stored) or 0) == wanted
    if column == "checkpointat":
        return cell_integer(stored) == wanted
    if isinstance(stored, database.InvalidText):
        return isinstance(wanted, bytes) and stored.raw == wanted
    return type(stored) is type(wanted) and stored == wanted


def _upsert_header(
    edits: _Edits,
    schema: database.Schema,
    session: CursorSession,
    cid: str,
    workspace_id: str | None,
    *,
    create: bool,
) -> bool:
    """Insert the header row, or update just the cells that do not already read as the body's.

    Columns the body does not model keep their values; a cell the reader interprets leniently (a
    NULL read as 0, ``isArchived`` 2 read as true, a REAL ``recency``) is left as stored when it
    already means what the body says. Returns whether the session has a row now (a missing row is
    only inserted when ``create``).
    """
    columns = _column_map(schema)
    recency = session.recency
    values: dict[str, Any] = {
        "composerid": cid,
        "workspaceid": workspace_id,
        "createdat": session.created_at,
        "lastupdatedat": session.last_updated_at,
        "isarchived": int(session.is_archived),
        "issubagent": int(session.is_subagent),
        "recency": recency,
        "checkpointat": session.checkpoint_at,
        "value": session.header,
    }
    for name, value in session.extra_columns:
        values.setdefault(name.lower(), value)
    present = [(key, columns[key], value) for key, value in values.items() if key in columns]
    cid_column = quote_identifier(columns["composerid"])
    selected = ", ".join(quote_identifier(name) for _, name, _ in present)
    conn = edits.conn
    conn.text_factory = database.decode_text
    try:
        stored = conn.execute(
            f"SELECT {selected} FROM composerHeaders WHERE {cid_column} = ?", (cid,)
        ).fetchone()
    finally:
        conn.text_factory = str
    if stored is None:
        if not create:
            return False
        if session.header_origin != "table" and not recency:
            # A head that had no row (legacy, or the 3.7 ItemTable index) was listed by its
            # creation time; a row with recency 0 would sink it to the bottom of the sidebar.
            values["recency"] = session.created_at
            present = [(k, n, values[k] if k == "recency" else v) for k, n, v in present]
        names = ", ".join(quote_identifier(name) for _, name, _ in present)
        marks = ", ".join("?" for _ in present)
        edits.write(
            f"INSERT INTO composerHeaders ({names}) VALUES ({marks})",
            [value for _, _, value in present],
        )
        return True
    changed = [
        (name, value)
        for (key, name, value), cell in zip(present, stored, strict=True)
        if key != "composerid" and not _reads_as(key, cell, value)
    ]
    if changed:
        sets = ", ".join(f"{quote_identifier(name)} = ?" for name, _ in changed)
        edits.write(
            f"UPDATE composerHeaders SET {sets} WHERE {cid_column} = ?",
            [*(value for _, value in changed), cid],
        )
    return True


# ------------------------------------------------------------------------------- KV rows


def _same_cell(conn: sqlite3.Connection, key: str, value: str) -> bool:
    """Whether ``key`` already holds ``value`` (as TEXT or as its UTF-8 BLOB)."""
    row = conn.execute(
        "SELECT CAST(value AS BLOB) FROM cursorDiskKV WHERE key = ? AND value IS NOT NULL",
        (key,),
    ).fetchone()
    return row is not None and row[0] == value.encode("utf-8", "surrogatepass")


def _put_rows(edits: _Edits, rows: Sequence[KVRow]) -> None:
    edits.put_kv([(r.key, r.value) for r in rows if not _same_cell(edits.conn, r.key, r.value)])


def _replace_bubbles(
    edits: _Edits, cid: str, bubbles: Sequence[KVRow], prefix: list[tuple[int, int | None]]
) -> None:
    """Make the session's non-NULL bubble rows exactly ``bubbles``, in that rowid order.

    The longest prefix already stored (same keys and bytes, in rowid order) is kept; the stored
    rows after it are deleted and the rest of ``bubbles`` is inserted, so new rows get rowids after
    the kept ones. NULL-valued rows (tombstones the reader skips) are not the body's to remove.
    ``prefix`` keeps what the comparison found (kept, first stale rowid) for the next run of the
    same save: the dry run and the write see the same rows, so the megabytes are compared once.
    """
    low, high = f"bubbleId:{cid}:", f"bubbleId:{cid};"
    if not prefix:
        prefix.append(_stored_prefix(edits.conn, low, high, bubbles))
    kept, first_stale = prefix[0]
    if first_stale is not None:
        edits.write(
            "DELETE FROM cursorDiskKV WHERE key >= ? AND key < ? AND value IS NOT NULL "
            "AND rowid >= ?",
            (low, high, first_stale),
        )
    edits.put_kv([(row.key, row.value) for row in bubbles[kept:]])


def _stored_prefix(
    conn: sqlite3.Connection, low: str, high: str, bubbles: Sequence[KVRow]
) -> tuple[int, int | None]:
    """How many of ``bubbles`` are stored first, byte for byte, and the rowid after them."""
    # Rowids first, sorted here: an ORDER BY over the values would sort megabytes through a
    # temp file. Each stored row is then read only while the prefix still matches.
    rowids = sorted(
        rowid
        for (rowid,) in conn.execute(
            "SELECT rowid FROM cursorDiskKV WHERE key >= ? AND key < ? AND value IS NOT NULL",
            (low, high),
        )
    )
    kept, first_stale = 0, None
    for rowid in rowids:
        if kept < len(bubbles):
            key, value = conn.execute(
                "SELECT CAST(key AS BLOB), CAST(value AS BLOB) FROM cursorDiskKV WHERE rowid = ?",
                (rowid,),
            ).fetchone()
            row = bubbles[kept]
            encoded = (
                row.key.encode("utf-8", "surrogatepass"),
                row.value.encode("utf-8", "surrogatepass"),
            )
            if (key, value) == encoded:
                kept += 1
                continue
        first_stale = rowid
        break
    return kept, first_stale


# ------------------------------------------------------------------------------ ItemTable


def _item(conn: sqlite3.Connection, key: str) -> tuple[str | None, bool]:
    """An ItemTable value as text (None when absent or NULL), and whether it is stored as BLOB."""
    row = conn.execute(
        "SELECT CAST(value AS TEXT), typeof(value) FROM ItemTable WHERE key = ?", (key,)
    ).fetchone()
    if row is None or row[0] is None:
        return None, False
    return str(row[0]), row[1] == "blob"


def _set_item(edits: _Edits, key: str, value: str, *, blob: bool = False) -> None:
    """Write an ItemTable value, keeping the storage class the app gave it."""
    cell: str | bytes = value.encode("utf-8") if blob else value
    edits.write("INSERT OR REPLACE INTO ItemTable (key, value) VALUES (?, ?)", (key, cell))


def _item_index(conn: sqlite3.Connection) -> tuple[sidebar.Container, bool] | None:
    """The 3.7 head index's ``allComposers`` array (spans in the whole value's text), or None.

    Refuses a value that is not ``{"allComposers": [...]}``: replacing it would hide every
    session the app lists from it.
    """
    text, blob = _item(conn, ITEM_HEADERS_KEY)
    if text is None:
        return None
    heads = sidebar.head_index(text)
    if heads is None:
        raise sidebar.SidebarUnreadable(
            f"the head index `{ITEM_HEADERS_KEY}` is not the shape Cursor writes; refusing to "
            "replace it (nothing was written)"
        )
    return heads, blob


def _index_positions(heads: sidebar.Container, cid: str) -> list[int]:
    return [
        i
        for i, entry in enumerate(heads.entries)
        if isinstance(entry.value, dict) and entry.value.get("composerId") == cid
    ]


def _upsert_item_head(edits: _Edits, cid: str, head: Any, header: str) -> None:
    """Put the head text into the 3.7 index (first place for a new session); others keep bytes."""
    found = _item_index(edits.conn)
    if found is None:
        return
    heads, blob = found
    positions = _index_positions(heads, cid)
    if positions:
        entry = heads.entries[positions[0]]
        if entry.value == head:
            return
        text = sidebar.replace_value(heads, entry, header)
    else:
        text = sidebar.prepend(heads, header)
    _set_item(edits, ITEM_HEADERS_KEY, text, blob=blob)


def _register(
    edits: _Edits,
    schema: database.Schema,
    session: CursorSession,
    cid: str,
    cwd: str,
    workspace_id: str | None,
    memo: dict[tuple[str | None, str | None], tuple[str | None, str | None]],
) -> None:
    """Add the session to the Agents sidebar. ``memo`` keeps the answer for the same two values
    (the dry run and the write of one save read them unchanged: parse thousands of entries once).
    """
    if not schema.has_item_table:
        edits.write(_FRESH_SCHEMA[0])
        if edits.dry:
            return  # the table is not there to read: registering writes, and that is enough
    projects_text, projects_blob = _item(edits.conn, sidebar.PROJECTS_KEY)
    membership_text, membership_blob = _item(edits.conn, sidebar.MEMBERSHIP_KEY)
    known = memo.get((projects_text, membership_text))
    if known is None:
        known = sidebar.register(
            projects_text,
            membership_text,
            composer_id=cid,
            cwd=cwd,
            uri=vscode_uri(cwd),
            workspace_id=workspace_id,
            created_ms=session.created_at,
            namespace=NAMESPACE,
        )
        memo[(projects_text, membership_text)] = known
    projects, membership = known
    if projects is not None:
        _set_item(edits, sidebar.PROJECTS_KEY, projects, blob=projects_blob)
    if membership is not None:
        _set_item(edits, sidebar.MEMBERSHIP_KEY, membership, blob=membership_blob)


# ----------------------------------------------------------------------------------- save


def save(
    path: Path,
    root: Path,
    session: CursorSession,
    *,
    force: bool = False,
    busy_timeout: float = 5.0,
) -> Saved:
    """Write ``session`` into the database at ``path`` (``root`` is the Cursor ``User`` dir)."""
    cid = session_id_of(session)
    composer = None if session.composer_data is None else try_loads(session.composer_data)
    check_rows_belong(session, cid, composer)
    if not force:
        refuse_while_running()
    head = try_loads(session.header)
    meta = codec.derive_meta(cid, session.created_at, head, codec.composer_fields(composer))
    cwd = meta.cwd
    workspace_id = session.workspace_id
    if workspace_id is None and cwd:
        workspace_id = resolve_workspace_id(root, cwd)

    registered: dict[tuple[str | None, str | None], tuple[str | None, str | None]] = {}
    prefix: list[tuple[int, int | None]] = []

    def edit(edits: _Edits, schema: database.Schema) -> None:
        conn = edits.conn
        fresh = not schema.has_kv and not schema.has_item_table and not schema.has_header_table
        if fresh:
            for statement in _FRESH_SCHEMA:
                edits.write(statement)
            if edits.dry:
                return
            schema = database.probe(conn)
        elif not schema.has_kv:
            raise BadInput(f"{path} has no cursorDiskKV table: not a Cursor state database")
        # A session already stored without a header row keeps its head where it was (the 3.7
        # index, or nowhere); a new one gets the head the database's generation lists.
        headless = session.header_origin != "table" and _exists(conn, schema, cid)
        _replace_bubbles(edits, cid, session.bubbles, prefix)
        _put_rows(edits, session.aux)
        if session.composer_data is not None:
            _put_rows(edits, [KVRow(f"composerData:{cid}", session.composer_data)])
        in_table = schema.has_header_table and _upsert_header(
            edits, schema, session, cid, workspace_id, create=not headless
        )
        synthesized = headless and session.header_origin == "synthesized"
        if not in_table and schema.has_item_table and isinstance(head, dict) and not synthesized:
            _upsert_item_head(edits, cid, head, session.header)
        if cwd:
            _register(edits, schema, session, cid, cwd, workspace_id, registered)

    pending: list[int] = []

    def needs_backup(conn: sqlite3.Connection, schema: database.Schema) -> bool:
        dry = _Edits(conn, dry=True)
        edit(dry, schema)
        pending.append(dry.count)
        return dry.count > 0

    done: list[_Edits] = []

    def work(conn: sqlite3.Connection, schema: database.Schema) -> None:
        if pending == [0]:
            return  # the dry run found nothing to write: the body is stored byte for byte
        done.append(_Edits(conn))
        edit(done[-1], schema)

    def after(conn: sqlite3.Connection, before: rowbackup.State) -> rowbackup.State:
        written = done[-1].kv if done else {}
        return rowbackup.state_after(conn, cid, unchanged=before, written=written)

    _, taken = transaction(
        path,
        work,
        operation="save",
        session=cid,
        busy_timeout=busy_timeout,
        backup=needs_backup,
        after=after,
    )
    return Saved(
        id=cid, reference=cid, location=str(path), backup=None if taken is None else taken.id
    )


# --------------------------------------------------------------------------------- delete


def _exists(conn: sqlite3.Connection, schema: database.Schema, cid: str) -> bool:
    if schema.has_header_table:
        column = quote_identifier(_column_map(schema)["composerid"])
        if conn.execute(f"SELECT 1 FROM composerHeaders WHERE {column} = ?", (cid,)).fetchone():
            return True
    if not schema.has_kv:
        return False
    found = conn.execute(
        "SELECT 1 FROM cursorDiskKV WHERE key = ? OR (key >= ? AND key < ?) LIMIT 1",
        (f"composerData:{cid}", f"bubbleId:{cid}:", f"bubbleId:{cid};"),
    ).fetchone()
    return found is not None


def delete(
    path: Path, cid: str, *, force: bool = False, busy_timeout: float = 5.0
) -> backups.Backup | None:
    """Remove one session: its header, composerData, bubbles, aux rows and sidebar membership."""
    check_session_id(cid)
    if not path.is_file():
        raise BadInput(f"no cursor_desktop session `{shown(cid)}` (no database at {path})")
    if not force:
        refuse_while_running()

    def must_exist(conn: sqlite3.Connection, schema: database.Schema) -> bool:
        if not _exists(conn, schema, cid):
            raise BadInput(f"no cursor_desktop session `{shown(cid)}`")
        return True

    def work(conn: sqlite3.Connection, schema: database.Schema) -> None:
        edits = _Edits(conn)
        if schema.has_header_table:
            column = quote_identifier(_column_map(schema)["composerid"])
            conn.execute(f"DELETE FROM composerHeaders WHERE {column} = ?", (cid,))
        if schema.has_kv:
            aux = [row[0] for row in conn.execute(AUX_KEYS_SQL, (cid,))]
            conn.executemany("DELETE FROM cursorDiskKV WHERE key = ?", [(key,) for key in aux])
            conn.execute(
                "DELETE FROM cursorDiskKV WHERE key = ? OR key = ? OR (key >= ? AND key < ?)",
                (
                    f"composerData:{cid}",
                    f"agentKv:checkpoint:{cid}",
                    f"bubbleId:{cid}:",
                    f"bubbleId:{cid};",
                ),
            )
        if schema.has_item_table:
            try:
                found = _item_index(conn)
            except sidebar.SidebarUnreadable:
                found = None  # a dangling head in an index nobody can read is harmless
            if found is not None:
                heads, blob = found
                doomed = set(_index_positions(heads, cid))
                if doomed:
                    _set_item(edits, ITEM_HEADERS_KEY, sidebar.remove(heads, doomed), blob=blob)
            text, blob = _item(conn, sidebar.MEMBERSHIP_KEY)
            membership = sidebar.unregister(text, cid)
            if membership is not None:
                _set_item(edits, sidebar.MEMBERSHIP_KEY, membership, blob=blob)

    _, taken = transaction(
        path, work, operation="delete", session=cid, busy_timeout=busy_timeout, backup=must_exist
    )
    return taken


# ----------------------------------------------------------------------------------- undo


def undo(
    backup: backups.Backup, *, force: bool = False, busy_timeout: float = 5.0
) -> backups.Backup | None:
    """Undo the one save, delete or undo a row backup guarded, in one (backed-up) transaction.

    Refuses, writing nothing, when the session's rows or its own sidebar entries are no longer
    what that write left (the app kept working in it), unless ``force``.
    """
    cid = backup.session
    if backup.kind != "row" or not cid:
        raise BadInput(f"backup {backup.id} is not a row backup of a cursor_desktop session")
    check_session_id(cid)
    path = Path(backup.database)
    if not path.is_file():
        raise StoreError(f"{path} no longer exists; nothing was written")
    stored, details = backup_rows.read_rows(backup)

    captured: list[rowbackup.State] = []

    def unchanged(conn: sqlite3.Connection, schema: database.Schema) -> rowbackup.State:
        state = rowbackup.capture(conn, cid)
        captured.append(state)
        if not force and backup.after_hash not in rowbackup.session_hashes(state, cid):
            raise StoreError(
                f"session {shown(cid)} has changed since backup {backup.id} was taken (the app "
                "kept working in it?); nothing was written. Pass --force to undo anyway, "
                "losing those changes"
            )
        return state  # what the undo's own backup holds: no second read of the same rows

    inserted: list[rowbackup.Row] = []

    def work(conn: sqlite3.Connection, schema: database.Schema) -> None:
        # Nothing changed the database since the check: its capture is the current state.
        current = captured[-1] if captured else None
        inserted.extend(rowbackup.undo(conn, cid, stored, details, backup.id, current))

    def after(conn: sqlite3.Connection, before: rowbackup.State) -> rowbackup.State:
        # Every row of the session was replaced: none of ``before`` is left.
        return rowbackup.state_after(conn, cid, inserted=inserted)

    _, taken = transaction(
        path,
        work,
        operation="undo",
        session=cid,
        busy_timeout=busy_timeout,
        backup=unchanged,
        after=after,
    )
    return taken


def undo_backup(backup: backups.Backup, *, force: bool = False) -> backups.Backup | None:
    """:func:`undo` waiting for the app's lock as long as ``TXCRIPT_BUSY_TIMEOUT`` says."""
    return undo(backup, force=force, busy_timeout=busy_timeout_setting())
