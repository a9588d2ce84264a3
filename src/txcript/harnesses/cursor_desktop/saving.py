"""Writing into Cursor's live ``state.vscdb``: save and delete, in one transaction each.

The database belongs to a running app and holds every session the user has, so a write here:

* refuses while Cursor is running unless forced (:func:`refuse_while_running`): the app keeps
  sessions in memory and may overwrite the change, or not show it until it restarts;
* validates everything first: the session id (a usable file name, no ``%``), and that every row
  the body carries belongs to that session (``bubbleId:<cid>:…``, ``<kind>:<cid>[:…]``), so a
  hostile text form cannot overwrite another session's rows;
* takes ``BEGIN IMMEDIATE`` (waiting up to the busy timeout for the app's lock, then failing with
  nothing written), then backs the database up with SQLite's online backup API while holding
  that lock, so the backup is exactly the state the write replaces;
* writes inside that one transaction: the session's bubbles replaced wholesale, aux rows and
  ``composerData`` upserted, the header row upserted *column by column* (columns this version
  does not know, such as ``subagentTypeName``, keep their values), and the Agents-sidebar
  registration (:mod:`.sidebar`), which refuses rather than replaces a value it cannot parse;
* on any failure rolls back and removes the backup it took: a failed command writes nothing.

Keys are always compared exactly (key ranges and ``=``); ``LIKE`` never meets an id.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from txcript import backups
from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.harnesses.base import Saved
from txcript.harnesses.cursor_desktop import codec, database, sidebar, tools
from txcript.harnesses.cursor_desktop.native import CursorSession
from txcript.harnesses.cursor_desktop.vocabulary import NAMESPACE
from txcript.harnesses.cursor_desktop.workspaces import resolve_workspace_id
from txcript.shared.fileuri import vscode_uri
from txcript.shared.ids import check_session_id
from txcript.shared.processes import find_processes

T = TypeVar("T")

HARNESS = "cursor_desktop"
#: Executable names of the desktop app (macOS ``Cursor``, Linux ``cursor``, Windows
#: ``Cursor.exe``).
APP_PROCESS_NAMES = ("Cursor", "cursor")
ITEM_HEADERS_KEY = "composer.composerHeaders"
_HEADER_COLUMNS = (
    "composerId",
    "workspaceId",
    "createdAt",
    "lastUpdatedAt",
    "isArchived",
    "isSubagent",
    "recency",
    "checkpointAt",
    "value",
)
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
    """The composer id a body is saved under: its head's ``composerId``, else its reference."""
    head = tools.parse_json(session.header)
    cid = head.get("composerId") if isinstance(head, dict) else None
    if not isinstance(cid, str) or not cid:
        cid = session.reference
    if not cid:
        raise BadInput("the cursor_desktop session has no composer id (its head names none)")
    check_session_id(cid)
    if "%" in cid:
        raise BadInput(
            f"session id `{cid}` contains `%`, which other tools would read as a wildcard over "
            "every session in this database; refusing to write it"
        )
    return cid


def check_rows_belong(session: CursorSession, cid: str) -> None:
    """Every row the body carries must be this session's own; refuse before writing anything."""
    for row in session.bubbles:
        if not row.key.startswith(f"bubbleId:{cid}:"):
            raise BadInput(f"bubble row `{row.key}` does not belong to session `{cid}`")
    for row in session.aux:
        kind, _, rest = row.key.partition(":")
        owner = rest.split(":", 1)[0]
        if not kind or owner != cid or kind in _EXCLUDED_AUX_KINDS:
            raise BadInput(f"row `{row.key}` does not belong to session `{cid}`")
    if session.composer_data is not None:
        composer = tools.parse_json(session.composer_data)
        named = composer.get("composerId") if isinstance(composer, dict) else None
        if isinstance(named, str) and named != cid:
            raise BadInput(f"composerData names session `{named}`, not `{cid}`")


# ---------------------------------------------------------------------------- transaction


def _open_for_write(path: Path, busy_timeout: float) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {path} for writing: {exc}") from None
    conn.text_factory = str
    return conn


def _write_error(path: Path, exc: sqlite3.Error) -> TxcriptError:
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "locked" in message or "busy" in message:
        return StoreError(
            f"{path} is locked by another process (waited for the busy timeout); nothing was "
            "written. Try again when Cursor is idle"
        )
    if "readonly" in message or "read-only" in message:
        return StoreError(f"{path} is read-only; nothing was written")
    if "full" in message:
        return StoreError(f"the disk holding {path} is full; nothing was written")
    return StoreError(f"writing {path} failed: {message}; nothing was written")


def transaction(
    path: Path,
    work: Callable[[sqlite3.Connection, database.Schema], T],
    *,
    operation: str,
    session: str,
    busy_timeout: float,
    backup: Callable[[sqlite3.Connection, database.Schema], bool] | None = None,
) -> T:
    """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction, with a backup taken under the lock.

    ``backup(conn, schema)`` decides whether a backup is needed (e.g. delete checks the session
    exists first). The backup is removed again if the transaction does not commit.
    """
    existed = path.is_file() and path.stat().st_size > 0
    if existed:
        database.inspect(path)  # a clear error for a file that is not SQLite at all
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = _open_for_write(path, busy_timeout)
    taken: backups.Backup | None = None
    try:
        try:
            conn.execute("BEGIN IMMEDIATE")
            schema = database.probe(conn)
            if existed and (backup is None or backup(conn, schema)):
                taken = backups.create(
                    path,
                    harness=HARNESS,
                    operation=operation,
                    session=session,
                    busy_timeout=busy_timeout,
                )
            result = work(conn, schema)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _write_error(path, exc) from None
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        if taken is not None:
            for suffix in (".sqlite", ".json"):
                with contextlib.suppress(OSError):
                    (taken.path.with_suffix(suffix)).unlink()
        raise
    finally:
        conn.close()
    return result


def _column_map(schema: database.Schema) -> dict[str, str]:
    """Lower-cased column name → the table's own spelling."""
    return {name.lower(): name for name in schema.header_columns}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _upsert_header(
    conn: sqlite3.Connection,
    schema: database.Schema,
    session: CursorSession,
    cid: str,
    workspace_id: str | None,
) -> None:
    """Insert or update the header row, touching only the columns the body knows about."""
    columns = _column_map(schema)
    values: dict[str, Any] = {
        "composerid": cid,
        "workspaceid": workspace_id,
        "createdat": session.created_at,
        "lastupdatedat": session.last_updated_at,
        "isarchived": int(session.is_archived),
        "issubagent": int(session.is_subagent),
        "recency": session.recency,
        "checkpointat": session.checkpoint_at,
        "value": session.header,
    }
    for name, value in session.extra_columns:
        values.setdefault(name.lower(), value)
    present = [(columns[key], value) for key, value in values.items() if key in columns]
    names = ", ".join(_quote(name) for name, _ in present)
    marks = ", ".join("?" for _ in present)
    cid_column = _quote(columns["composerid"])
    updates = ", ".join(
        f"{_quote(name)} = excluded.{_quote(name)}"
        for name, _ in present
        if name.lower() != "composerid"
    )
    params = [value for _, value in present]
    try:
        conn.execute(
            f"INSERT INTO composerHeaders ({names}) VALUES ({marks}) "
            f"ON CONFLICT({cid_column}) DO UPDATE SET {updates}",
            params,
        )
    except sqlite3.OperationalError as exc:
        if "ON CONFLICT" not in str(exc) and "constraint" not in str(exc):
            raise
        # A header table without a unique composerId: update in place, else insert.
        sets = ", ".join(f"{_quote(name)} = ?" for name, _ in present)
        cursor = conn.execute(
            f"UPDATE composerHeaders SET {sets} WHERE {cid_column} = ?", [*params, cid]
        )
        if cursor.rowcount == 0:
            conn.execute(f"INSERT INTO composerHeaders ({names}) VALUES ({marks})", params)


def _item_value(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT CAST(value AS TEXT) FROM ItemTable WHERE key = ?", (key,)).fetchone()
    return None if row is None or row[0] is None else str(row[0])


def _set_item(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO ItemTable (key, value) VALUES (?, ?)", (key, value))


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _item_index(conn: sqlite3.Connection) -> tuple[str | None, dict[str, Any] | None]:
    """The 3.7 head index (``{"allComposers": [...]}``), or refuse when it cannot be parsed."""
    text = _item_value(conn, ITEM_HEADERS_KEY)
    if text is None:
        return None, None
    try:
        index = json.loads(text)
    except ValueError:
        index = None
    if not isinstance(index, dict) or not isinstance(index.get("allComposers"), list):
        raise sidebar.SidebarUnreadable(
            f"the head index `{ITEM_HEADERS_KEY}` is not the shape Cursor writes; refusing to "
            "replace it (nothing was written)"
        )
    return text, index


def _upsert_item_head(conn: sqlite3.Connection, index: dict[str, Any], head: Any, cid: str) -> None:
    heads: list[Any] = index["allComposers"]
    for position, entry in enumerate(heads):
        if isinstance(entry, dict) and entry.get("composerId") == cid:
            heads[position] = head
            break
    else:
        heads.insert(0, head)
    _set_item(conn, ITEM_HEADERS_KEY, _compact(index))


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
    check_rows_belong(session, cid)
    if not force:
        refuse_while_running()
    head = tools.parse_json(session.header)
    composer = None if session.composer_data is None else tools.parse_json(session.composer_data)
    meta = codec.derive_meta(cid, session.created_at, head, codec.composer_fields(composer))
    cwd = meta.cwd
    workspace_id = session.workspace_id
    if workspace_id is None and cwd:
        workspace_id = resolve_workspace_id(root, cwd)

    def work(conn: sqlite3.Connection, schema: database.Schema) -> None:
        fresh = not schema.has_kv and not schema.has_item_table and not schema.has_header_table
        if fresh:
            for statement in _FRESH_SCHEMA:
                conn.execute(statement)
            schema = database.probe(conn)
        elif not schema.has_kv:
            raise BadInput(f"{path} has no cursorDiskKV table: not a Cursor state database")
        conn.execute(
            "DELETE FROM cursorDiskKV WHERE key >= ? AND key < ?",
            (f"bubbleId:{cid}:", f"bubbleId:{cid};"),
        )
        conn.executemany(
            "INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES (?, ?)",
            [(row.key, row.value) for row in session.bubbles],
        )
        conn.executemany(
            "INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES (?, ?)",
            [(row.key, row.value) for row in session.aux],
        )
        if session.composer_data is not None:
            conn.execute(
                "INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES (?, ?)",
                (f"composerData:{cid}", session.composer_data),
            )
        if schema.has_header_table:
            _upsert_header(conn, schema, session, cid, workspace_id)
        elif schema.has_item_table:
            _, index = _item_index(conn)
            if index is not None and isinstance(head, dict):
                _upsert_item_head(conn, index, head, cid)
        if cwd:
            if not schema.has_item_table:
                conn.execute(_FRESH_SCHEMA[0])
            projects, membership = sidebar.register(
                _item_value(conn, sidebar.PROJECTS_KEY),
                _item_value(conn, sidebar.MEMBERSHIP_KEY),
                composer_id=cid,
                cwd=cwd,
                uri=vscode_uri(cwd),
                workspace_id=workspace_id,
                created_ms=session.created_at,
                namespace=NAMESPACE,
            )
            if projects is not None:
                _set_item(conn, sidebar.PROJECTS_KEY, projects)
            if membership is not None:
                _set_item(conn, sidebar.MEMBERSHIP_KEY, membership)

    transaction(path, work, operation="save", session=cid, busy_timeout=busy_timeout)
    return Saved(id=cid, reference=cid, location=str(path))


# --------------------------------------------------------------------------------- delete


def _exists(conn: sqlite3.Connection, schema: database.Schema, cid: str) -> bool:
    if schema.has_header_table:
        column = _quote(_column_map(schema)["composerid"])
        if conn.execute(f"SELECT 1 FROM composerHeaders WHERE {column} = ?", (cid,)).fetchone():
            return True
    if not schema.has_kv:
        return False
    found = conn.execute(
        "SELECT 1 FROM cursorDiskKV WHERE key = ? OR (key >= ? AND key < ?) LIMIT 1",
        (f"composerData:{cid}", f"bubbleId:{cid}:", f"bubbleId:{cid};"),
    ).fetchone()
    return found is not None


def delete(path: Path, cid: str, *, force: bool = False, busy_timeout: float = 5.0) -> None:
    """Remove one session: its header, composerData, bubbles, aux rows and sidebar membership."""
    from txcript.harnesses.cursor_desktop.store import aux_keys_sql

    check_session_id(cid)
    if not path.is_file():
        raise BadInput(f"no cursor_desktop session `{cid}` (no database at {path})")
    if not force:
        refuse_while_running()

    def must_exist(conn: sqlite3.Connection, schema: database.Schema) -> bool:
        if not _exists(conn, schema, cid):
            raise BadInput(f"no cursor_desktop session `{cid}`")
        return True

    def work(conn: sqlite3.Connection, schema: database.Schema) -> None:
        if schema.has_header_table:
            column = _quote(_column_map(schema)["composerid"])
            conn.execute(f"DELETE FROM composerHeaders WHERE {column} = ?", (cid,))
        aux = [row[0] for row in conn.execute(aux_keys_sql(), (cid,))]
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
            _, index = _item_index(conn)
            if index is not None:
                kept = [
                    h
                    for h in index["allComposers"]
                    if not (isinstance(h, dict) and h.get("composerId") == cid)
                ]
                if len(kept) != len(index["allComposers"]):
                    index["allComposers"] = kept
                    _set_item(conn, ITEM_HEADERS_KEY, _compact(index))
            membership = sidebar.unregister(_item_value(conn, sidebar.MEMBERSHIP_KEY), cid)
            if membership is not None:
                _set_item(conn, sidebar.MEMBERSHIP_KEY, membership)

    transaction(
        path, work, operation="delete", session=cid, busy_timeout=busy_timeout, backup=must_exist
    )
