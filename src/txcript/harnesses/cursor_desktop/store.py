"""The Cursor desktop store: sessions in the app's global ``state.vscdb`` (read side).

**Where.** The root is the app's ``User`` directory (declared in the registry); every session
lives in ``<root>/globalStorage/state.vscdb``. :mod:`.database` opens it without disturbing the app.

**Listing** is :mod:`.discovery` (which sessions, their listing fields, the metadata cache);
the head of a session, which load and discovery derive alike, is :mod:`.heads`; where the
database sits under the root is :mod:`.locations`.

**Load.** Every cell is the exact text Cursor stored (``CAST(value AS TEXT)``); NULL rows and
cells that are not UTF-8 are dropped. Bubbles are the exact key range in rowid order. Aux rows
are the rows keyed ``<kind>:<cid>`` or ``<kind>:<cid>:…`` for every kind except ``bubbleId``,
``composerData`` and ``agentKv``, matched exactly (:data:`.database.AUX_ROWS_SQL`), in rowid
order. The rowid order is sorted in Python, never with ``ORDER BY``: SQLite would sort the values
themselves (megabytes for a long session) through a temp file, so a read-only export would need
temp space.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from txcript.errors import BadInput, StoreUnreadable, TxcriptError
from txcript.harnesses.base import Discovered, Saved, prefix_bounds
from txcript.harnesses.cursor_desktop import database
from txcript.harnesses.cursor_desktop.database import (
    AUX_ROWS_SQL,
    Schema,
    cell_integer,
    cell_text,
    quote_identifier,
)
from txcript.harnesses.cursor_desktop.discovery import HARNESS, discover_sessions
from txcript.harnesses.cursor_desktop.heads import (
    bubble_range_sql,
    cid_column,
    fields_of,
    header_row,
    read_item_heads,
    resolve_head,
)
from txcript.harnesses.cursor_desktop.locations import (
    BUSY_TIMEOUT_ENV,
    DEFAULT_BUSY_TIMEOUT,
    busy_timeout_setting,
    database_path,
)
from txcript.harnesses.cursor_desktop.native import CursorSession, KVRow
from txcript.shared.files import preflight_write, sqlite_files
from txcript.shared.ids import CURSOR_IDS
from txcript.shared.jsonutil import try_loads
from txcript.shared.text import shown

__all__ = [
    "BUSY_TIMEOUT_ENV",
    "DEFAULT_BUSY_TIMEOUT",
    "CursorDesktopStore",
    "busy_timeout_setting",
    "database_of",
    "snapshot",
    "snapshot_of",
]


#: Aux rows. The distinct key kinds (the text before the first ``:``) are enumerated with a
#: skip-scan of the key index — one seek per kind, plus a pass over keys without a colon — and
#: each kind but ``bubbleId``, ``composerData`` and ``agentKv`` is probed for exactly
#: ``<kind>:<cid>`` and for the range ``<kind>:<cid>:`` … ``<kind>:<cid>;``. No ``LIKE``, no
#: substring match, cost independent of how many sessions the database holds.


def _fetched_rows(
    conn: sqlite3.Connection, sql: str, parameters: tuple[str, ...]
) -> tuple[KVRow, ...]:
    """:func:`_rows_by_rowid` of a statement, its text decoded by SQLite itself (the lenient
    ``text_factory`` is a Python call per cell, 20,000 of them for a long session). A cell that
    is not UTF-8 makes SQLite refuse the statement; it then runs again with the lenient factory,
    which drops that cell as every read does."""
    lenient = conn.text_factory
    conn.text_factory = str
    try:
        return _rows_by_rowid(conn.execute(sql, parameters))
    except sqlite3.OperationalError as exc:
        if "decode" not in str(exc).lower():
            raise
    finally:
        conn.text_factory = lenient
    return _rows_by_rowid(conn.execute(sql, parameters))


def _rows_by_rowid(cursor: Iterable[Sequence[Any]]) -> tuple[KVRow, ...]:
    """``(rowid, key, value)`` records as rows in rowid order.

    Sorted here, not with ``ORDER BY rowid``: SQLite would sort the whole values (megabytes for a
    long session) through a temp file, so a read would need temp space and fail when the temp
    dir is full or missing. Only the small rowids are compared here.
    """
    records = sorted(cursor, key=lambda record: record[0])
    return tuple(
        KVRow(key, value)
        for _, key, value in records
        if isinstance(key, str) and isinstance(value, str)
    )


# ------------------------------------------------------------------------------------ the store


class CursorDesktopStore:
    """Read access to one Cursor ``User`` directory's ``globalStorage/state.vscdb``.

    ``busy_timeout`` (seconds) is how long a read waits for a writer's lock before failing.
    """

    def __init__(self, root: Path, *, busy_timeout: float | None = None) -> None:
        self.root = root
        self.database = database_path(root)
        self.busy_timeout = busy_timeout if busy_timeout is not None else busy_timeout_setting()

    def location(self, reference: str) -> str:
        return str(self.database)

    def discover(self) -> list[Discovered]:
        """Every session with at least one message, newest first.

        A missing database, an empty file, and a database without a ``cursorDiskKV`` table hold
        no sessions (``[]``). A path that is a directory, not SQLite, truncated or corrupt raises
        :class:`~txcript.errors.StoreUnreadable`; a lock held past the busy timeout raises
        :class:`~txcript.errors.StoreError`.
        """
        return self._discover(None, with_model=True)

    def discover_titles(self) -> list[Discovered]:
        """:meth:`discover` for a listing that shows no model: a session whose head gives its
        title and cwd is listed without reading its composerData cell (its model is None)."""
        return self._discover(None, with_model=False)

    def _discover(self, bounds: tuple[str, str] | None, *, with_model: bool) -> list[Discovered]:
        info = database.inspect(self.database)
        if info is None or info.size == 0:
            return []
        scope = f"{HARNESS}:{self.database}"
        found = database.read(
            self.database,
            info,
            lambda conn, schema: discover_sessions(conn, schema, scope, bounds, with_model),
            busy_timeout=self.busy_timeout,
        )
        found.sort(key=lambda item: (item[0] is None, -(item[0] or 0), item[1].reference))
        return [discovered for _, discovered in found]

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The listed sessions whose composer id starts with ``id_prefix``, exactly as
        :meth:`discover` lists them: the same statement, limited to one key range of the
        ``composerHeaders`` and ``cursorDiskKV`` key indexes, so its cost does not grow with
        the number of sessions in the database."""
        bounds = prefix_bounds(id_prefix)
        return [] if bounds is None else self._discover(bounds, with_model=True)

    def load(self, reference: str) -> CursorSession:
        """The session's native body; :class:`~txcript.errors.BadInput` when there is none."""
        if not reference:
            raise BadInput(_no_session(reference))
        info = database.inspect(self.database)
        if info is None:
            raise BadInput(f"{_no_session(reference)}: no database at {self.database}")
        path = self.database

        def work(conn: sqlite3.Connection, schema: Schema) -> CursorSession:
            if not schema.has_kv:
                raise StoreUnreadable(
                    f"cursor_desktop database {path} has no cursorDiskKV table "
                    "(not a Cursor state database?)"
                )
            return _load(conn, schema, reference)

        return database.read(path, info, work, busy_timeout=self.busy_timeout)

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        """A change token per reference; ``""`` when unknown (treat as changed). Never raises.

        The token is ``<lastUpdatedAt>/<composerData rowid>/<bubble count>/<max bubble rowid>``:
        the header column (empty without a header row), then row facts that move whenever the
        app — or any ``INSERT OR REPLACE`` — rewrites the session's content, since a replaced
        row gets a new rowid. So re-saved content changes the token even when ``lastUpdatedAt``
        stays put (the reference's blind spot), and legacy sessions get a token too.
        """
        refs = list(dict.fromkeys(references))
        result = dict.fromkeys(refs, "")
        if not refs:
            return result
        try:
            info = database.inspect(self.database)
            if info is None or info.size == 0:
                return result
            result.update(
                database.read(
                    self.database,
                    info,
                    lambda conn, schema: _fingerprints(conn, schema, refs),
                    busy_timeout=self.busy_timeout,
                )
            )
        except (TxcriptError, sqlite3.Error, OSError):
            return dict.fromkeys(refs, "")
        return result

    def save(self, native: CursorSession, *, force: bool = False) -> Saved:
        """Write a session into the database in one transaction, after a backup.

        See :mod:`.saving`; refuses while Cursor is running unless ``force``.
        """
        from txcript.harnesses.cursor_desktop import saving

        CURSOR_IDS.check(saving.session_id_of(native), "Cursor desktop")
        preflight_write(
            self.root, sqlite_files(self.database), store="Cursor desktop", access=False
        )
        return saving.save(
            self.database, self.root, native, force=force, busy_timeout=self.busy_timeout
        )

    def delete(self, reference: str, *, force: bool = False) -> None:
        """Remove a session (header, cells, sidebar membership) in one transaction, after a
        row backup that ``txcript restore`` undoes it with."""
        from txcript.harnesses.cursor_desktop import saving

        saving.delete(self.database, reference, force=force, busy_timeout=self.busy_timeout)


def snapshot(path: Path, busy_timeout: float) -> Any:
    """A whole-database snapshot of ``path``, read without touching the files beside it."""
    from txcript.shared import backups

    info = database.inspect(path)
    if info is None or info.size == 0:
        raise BadInput(f"there is no cursor_desktop database at {path} to back up")

    def copy(target: sqlite3.Connection) -> None:
        def work(conn: sqlite3.Connection, _schema: Schema) -> None:
            conn.backup(target)

        database.read(path, info, work, busy_timeout=busy_timeout)

    return backups.snapshot(path, harness="cursor_desktop", copy=copy)


def _no_session(cid: str) -> str:
    return f"no cursor_desktop session `{shown(cid)}`"


def _load(conn: sqlite3.Connection, schema: Schema, cid: str) -> CursorSession:
    row = None
    if schema.has_header_table:
        columns = ", ".join(quote_identifier(column) for column in schema.header_columns)
        record = conn.execute(
            f"SELECT {columns} FROM composerHeaders WHERE {cid_column(schema)} = ?", (cid,)
        ).fetchone()
        row = None if record is None else header_row(schema, record)
    cd_record = conn.execute(
        "SELECT CAST(value AS TEXT) FROM cursorDiskKV WHERE key = ?", (f"composerData:{cid}",)
    ).fetchone()
    composer_data = None if cd_record is None else cell_text(cd_record[0])
    item_head = None
    if row is None or cell_text(row.get("value")) is None:
        item_head = read_item_heads(conn, schema).get(cid)
    if row is None and item_head is None and cd_record is None:
        raise BadInput(_no_session(cid))
    fields: dict[str, Any] = {}
    if row is None and composer_data is not None:
        # Only a head without a header row takes values from composerData; a long session's
        # document is megabytes, which the codec parses anyway.
        fields = fields_of(try_loads(composer_data)) or {}
    head = resolve_head(cid, row, item_head, fields)
    bubbles = _fetched_rows(
        conn,
        "SELECT rowid, key, CAST(value AS TEXT) FROM cursorDiskKV "
        "WHERE key >= ? AND key < ? AND value IS NOT NULL",
        (f"bubbleId:{cid}:", f"bubbleId:{cid};"),
    )
    return CursorSession(
        header=head.header,
        bubbles=bubbles,
        workspace_id=head.workspace_id,
        created_at=head.created_at,
        last_updated_at=head.last_updated_at,
        is_archived=head.is_archived,
        is_subagent=head.is_subagent,
        recency=head.recency,
        checkpoint_at=head.checkpoint_at,
        composer_data=composer_data,
        aux=_fetched_rows(conn, AUX_ROWS_SQL, (cid,)),
        extra_columns=head.extra_columns,
        header_origin=head.origin,
        reference=cid,
    )


def _fingerprints(conn: sqlite3.Connection, schema: Schema, refs: list[str]) -> dict[str, str]:
    if not schema.has_kv:
        return {}
    exists, updated, join = "0", "NULL", ""
    if schema.has_header_table:
        cid_col = cid_column(schema)
        join = f"LEFT JOIN composerHeaders h ON h.{cid_col} = r.value"
        exists = f"h.{cid_col} IS NOT NULL"
        named = [c for c in schema.header_columns if c.lower() == "lastupdatedat"]
        updated = f"h.{quote_identifier(named[0])}" if named else "NULL"
    bubbles = (
        f"FROM cursorDiskKV b WHERE {bubble_range_sql('r.value', 'b')} AND b.value IS NOT NULL"
    )
    sql = (
        f"SELECT r.value, {exists}, {updated}, "
        "(SELECT rowid FROM cursorDiskKV WHERE key = 'composerData:' || r.value), "
        f"(SELECT count(*) {bubbles}), (SELECT max(b.rowid) {bubbles}) "
        f"FROM json_each(?1) r {join}"
    )
    tokens: dict[str, str] = {}
    for cid, has_row, last_updated, cd_rowid, count, max_rowid in conn.execute(
        sql, (json.dumps(refs),)
    ):
        if not isinstance(cid, str) or cid in tokens:
            continue
        if not has_row and cd_rowid is None:
            tokens[cid] = ""
            continue
        parts = (cell_integer(last_updated), cd_rowid, count, max_rowid)
        tokens[cid] = "/".join("" if part is None else str(part) for part in parts)
    return tokens


def snapshot_of(store: CursorDesktopStore) -> Any:
    """A whole-database snapshot of the store (SQLite's online backup API)."""
    return snapshot(store.database, store.busy_timeout)


def database_of(store: CursorDesktopStore) -> Path:
    """The database a restore may write to without --force (the configured store's)."""
    return Path(store.database)
