"""Opening Cursor's ``state.vscdb`` for reading without disturbing the app that owns it.

The app keeps this database open and writes to it while it runs. A reader here must never block
it for long, never change or create a file beside it, and always see committed data:

* **Resting WAL database** (header bytes 18/19 = 2, no ``-wal``/``-shm`` beside it): nobody has
  it open in WAL mode, so it is opened with ``immutable=1``. A plain ``mode=ro`` open would
  *create* ``-wal`` and ``-shm`` sidecars and leave them behind. Because the app could start
  during the read, the file's size, mtime and sidecars are checked again afterwards; if anything
  changed, the read is repeated with ``mode=ro``.
* **Live WAL database** (a sidecar exists): ``mode=ro``. SQLite's WAL protocol lets the read
  proceed beside the writer and sees the last committed transaction; the sidecars belong to the
  running app.
* **Rollback-journal database** (bytes 18/19 = 1): ``mode=ro``, which creates nothing. The read
  takes SQLite's shared lock for the duration of one short transaction, and waits up to the busy
  timeout while a writer commits.

Every read runs inside one transaction, so the queries of a discovery or a load see one
consistent snapshot. SQLite failures become one-line :class:`~txcript.errors.StoreError`
(locked, I/O) or :class:`~txcript.errors.StoreUnreadable` (not SQLite, truncated, malformed)
messages naming the file.
"""

from __future__ import annotations

import math
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from txcript.errors import StoreError, StoreUnreadable

T = TypeVar("T")

_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100
#: SQLite error codes (primary) that mean "the file is not a usable database".
_UNREADABLE_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED


class InvalidText:
    """A TEXT cell whose bytes are not UTF-8; such cells are treated as missing."""

    __slots__ = ("raw",)

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def __repr__(self) -> str:
        return f"InvalidText({self.raw[:20]!r}…)"


def _decode_text(raw: bytes) -> str | InvalidText:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return InvalidText(raw)


@dataclass(frozen=True, slots=True)
class FileInfo:
    """What the database file's first 100 bytes say, before SQLite opens it."""

    size: int
    wal: bool
    #: ``(page_size * page_count)`` from a valid in-header size, else None.
    declared_size: int | None


@dataclass(frozen=True, slots=True)
class Schema:
    """The tables a read can use: names are compared case-insensitively, like SQLite does."""

    has_kv: bool
    has_item_table: bool
    #: ``composerHeaders`` columns in table order; empty when the table is absent or unusable.
    header_columns: tuple[str, ...]

    @property
    def has_header_table(self) -> bool:
        return bool(self.header_columns)


def _describe(path: Path) -> str:
    return f"cursor_desktop database {path}"


def inspect(path: Path) -> FileInfo | None:
    """Sniff the file: None when it does not exist; raise when it is not an SQLite database."""
    try:
        if not path.exists():
            return None
        if path.is_dir():
            raise StoreUnreadable(f"{_describe(path)} is a directory, not a database")
        with path.open("rb") as handle:
            head = handle.read(_HEADER_SIZE)
            size = os.fstat(handle.fileno()).st_size
    except OSError as exc:
        raise StoreError(f"cannot read {_describe(path)}: {exc.strerror or exc}") from None
    if size == 0:
        # SQLite treats an empty file as an empty database.
        return FileInfo(size=0, wal=False, declared_size=None)
    if not head.startswith(_MAGIC):
        if _MAGIC.startswith(head):
            raise StoreUnreadable(f"{_describe(path)} is truncated ({size} bytes)")
        raise StoreUnreadable(f"{_describe(path)} is not an SQLite database")
    if len(head) < _HEADER_SIZE:
        raise StoreUnreadable(f"{_describe(path)} is truncated ({size} bytes)")
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    page_count = int.from_bytes(head[28:32], "big")
    change_counter = head[24:28]
    valid_for = head[92:96]
    declared = (
        page_size * page_count
        if page_count > 0 and change_counter == valid_for and page_size >= 512
        else None
    )
    return FileInfo(size=size, wal=head[18] == 2 and head[19] == 2, declared_size=declared)


def _sidecars(path: Path) -> tuple[bool, bool, bool]:
    base = str(path)
    return (
        os.path.exists(base + "-wal"),
        os.path.exists(base + "-shm"),
        os.path.exists(base + "-journal"),
    )


def _file_state(path: Path) -> tuple[int, int, tuple[bool, bool, bool]]:
    try:
        st = path.stat()
    except OSError:
        return (-1, -1, _sidecars(path))
    return (st.st_size, st.st_mtime_ns, _sidecars(path))


def _connect(path: Path, *, immutable: bool, busy_timeout: float) -> sqlite3.Connection:
    query = "?immutable=1" if immutable else "?mode=ro"
    uri = path.absolute().as_uri() + query
    conn = sqlite3.connect(uri, uri=True, timeout=busy_timeout, isolation_level=None)
    conn.text_factory = _decode_text
    return conn


def probe(conn: sqlite3.Connection) -> Schema:
    """Which of Cursor's tables (and header columns) the open database has."""
    tables = {
        str(name).lower()
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if isinstance(name, str)
    }
    has_kv = False
    if "cursordiskkv" in tables:
        kv_columns = {
            str(row[1]).lower() for row in conn.execute("PRAGMA table_info(cursorDiskKV)")
        }
        has_kv = {"key", "value"} <= kv_columns
    header_columns: tuple[str, ...] = ()
    if "composerheaders" in tables:
        columns = tuple(str(row[1]) for row in conn.execute("PRAGMA table_info(composerHeaders)"))
        if "composerid" in {c.lower() for c in columns}:
            header_columns = columns
    return Schema(
        has_kv=has_kv, has_item_table="itemtable" in tables, header_columns=header_columns
    )


def _translate(path: Path, exc: sqlite3.Error) -> Exception:
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if primary in _BUSY_CODES or "locked" in message:
        return StoreError(
            f"{_describe(path)} is locked by another process (waited for the busy timeout); "
            "try again when Cursor is idle"
        )
    if "readonly" in message and os.path.exists(str(path) + "-journal"):
        return StoreError(
            f"{_describe(path)} has a hot journal left by an interrupted write; a read-only "
            "reader cannot roll it back. Open Cursor (or run any txcript write) to recover it"
        )
    if primary in _UNREADABLE_CODES:
        return StoreUnreadable(f"{_describe(path)} is unreadable: {message}")
    return StoreError(f"cannot read {_describe(path)}: {message}")


def check_complete(path: Path, info: FileInfo) -> None:
    """Refuse a file shorter than its header says (truncated), unless a journal explains it."""
    if (
        info.declared_size is not None
        and not any(_sidecars(path))
        and info.size < info.declared_size
    ):
        raise StoreUnreadable(
            f"{_describe(path)} is truncated ({info.size} of {info.declared_size} bytes)"
        )


def read(
    path: Path,
    info: FileInfo,
    work: Callable[[sqlite3.Connection, Schema], T],
    *,
    busy_timeout: float,
) -> T:
    """Run ``work`` in one read transaction on ``path``; see the module notes for the open mode."""
    check_complete(path, info)
    wal, shm, _ = _sidecars(path)
    immutable = info.wal and not (wal or shm)
    while True:
        before = _file_state(path) if immutable else None
        try:
            conn = _connect(path, immutable=immutable, busy_timeout=busy_timeout)
        except sqlite3.Error as exc:
            raise _translate(path, exc) from None
        try:
            conn.execute("BEGIN")
            result = work(conn, probe(conn))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _translate(path, exc) from None
        finally:
            conn.close()
        if before is None or _file_state(path) == before:
            return result
        # The app opened or changed the file during an immutable read: read it again properly.
        immutable = False


# ------------------------------------------------------------------- shared by read and write

#: ``ItemTable`` key of the 3.7.x head index: ``{"allComposers": [head, …]}``.
ITEM_HEADERS_KEY = "composer.composerHeaders"


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def cell_text(value: object) -> str | None:
    """A cell as text: TEXT as is, a UTF-8 BLOB decoded; anything else (or bad UTF-8) None."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def cell_integer(value: object) -> int | None:
    """An integer column read leniently: INTEGER, REAL (truncated), or decimal TEXT."""
    if type(value) is int:
        return value
    if type(value) is float:
        return int(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


_AUX_MATCH = """
WITH RECURSIVE kinds(k) AS (
  SELECT (SELECT substr(key, 1, instr(key, ':')) FROM cursorDiskKV
          WHERE typeof(key) = 'text' AND instr(key, ':') > 0 ORDER BY key LIMIT 1)
  UNION ALL
  SELECT (SELECT substr(key, 1, instr(key, ':')) FROM cursorDiskKV
          WHERE key >= substr(k, 1, length(k) - 1) || ';' AND typeof(key) = 'text'
            AND instr(key, ':') > 0 ORDER BY key LIMIT 1)
  FROM kinds WHERE k IS NOT NULL
)
SELECT {columns} FROM kinds JOIN cursorDiskKV d
  ON (d.key = kinds.k || ?1 OR (d.key >= kinds.k || ?1 || ':' AND d.key < kinds.k || ?1 || ';'))
WHERE kinds.k IS NOT NULL AND kinds.k NOT IN ('bubbleId:', 'composerData:', 'agentKv:')
"""
#: Aux rows of a session for a load (parameter 1: the composer id): NULL tombstones dropped,
#: in rowid order.
AUX_ROWS_SQL = (
    _AUX_MATCH.format(columns="d.key, CAST(d.value AS TEXT)")
    + "  AND d.value IS NOT NULL\nORDER BY d.rowid\n"
)
#: Keys of every aux row of a session, NULL-valued ones included, so a delete leaves no
#: tombstone of the session behind.
AUX_KEYS_SQL = _AUX_MATCH.format(columns="d.key")
