"""Codex's SQLite state database: registering a written thread, and forgetting a deleted one.

Newer Codex builds mirror thread metadata in ``$CODEX_HOME/state.sqlite`` (``state_<N>.sqlite``
in later builds; the highest ``N`` is the live one) and look a thread up there before scanning
``sessions/``. The rollout alone is enough for ``codex resume <id>`` (Codex repairs the database
from the files), but registering the thread makes the picker list it at once.

The schema is checked, not assumed: the ``threads`` table must have ``id`` and ``rollout_path``,
and every column that requires a value (``NOT NULL`` without a default) must be one txcript knows
how to fill (:data:`_KNOWN`). Anything else is an unknown schema and the write is refused before
anything is written. Columns txcript does not know but that may be left empty are left to their
defaults. Time columns follow their declared type: ``INTEGER`` columns hold Unix seconds (or
milliseconds, when the rows already there are in milliseconds), ``TEXT`` columns RFC 3339.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from txcript.errors import StoreError
from txcript.shared.timeutil import format_rfc3339, to_epoch_ms

_DB_NAME = re.compile(r"state(?:_(\d{1,6}))?\.sqlite\Z")
BUSY_TIMEOUT = 5.0
_TIME_COLUMNS = frozenset(("created_at", "updated_at"))


@dataclass(frozen=True, slots=True)
class Thread:
    """The facts a ``threads`` row records about one session."""

    id: str
    rollout_path: str
    created_at: datetime
    updated_at: datetime
    cwd: str
    title: str
    first_user_message: str
    model: str | None
    cli_version: str
    git_branch: str | None
    tokens_used: int
    has_user_event: bool


_KNOWN: dict[str, Callable[[Thread], Any]] = {
    "id": lambda t: t.id,
    "rollout_path": lambda t: t.rollout_path,
    "created_at": lambda t: t.created_at,
    "updated_at": lambda t: t.updated_at,
    "source": lambda t: "cli",
    "model_provider": lambda t: "openai",
    "cwd": lambda t: t.cwd,
    "title": lambda t: t.title,
    "first_user_message": lambda t: t.first_user_message,
    "sandbox_policy": lambda t: '{"type":"read-only"}',
    "approval_mode": lambda t: "on-request",
    "tokens_used": lambda t: t.tokens_used,
    "has_user_event": lambda t: int(t.has_user_event),
    "archived": lambda t: 0,
    "archived_at": lambda t: None,
    "cli_version": lambda t: t.cli_version,
    "model": lambda t: t.model,
    "git_branch": lambda t: t.git_branch,
    "git_sha": lambda t: None,
    "git_origin_url": lambda t: None,
}


@dataclass(frozen=True, slots=True)
class _Column:
    name: str
    declared: str
    required: bool


def find(root: Path) -> Path | None:
    """The live state database under ``root`` (the highest-versioned one), or None."""
    best: tuple[int, Path] | None = None
    try:
        entries = list(os.scandir(root))
    except OSError:
        return None
    for entry in entries:
        match = _DB_NAME.match(entry.name)
        if match and entry.is_file():
            version = int(match.group(1) or 0)
            if best is None or version > best[0]:
                best = (version, Path(entry.path))
    return None if best is None else best[1]


def _connect(db: Path) -> sqlite3.Connection:
    uri = "file:" + quote(str(db.resolve())) + "?mode=rw"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)
        connection.execute("PRAGMA busy_timeout = 5000")
    except sqlite3.Error as exc:
        raise StoreError(f"opening the Codex state database {db}: {exc}") from None
    return connection


def _columns(connection: sqlite3.Connection) -> dict[str, _Column]:
    rows = connection.execute("PRAGMA table_info(threads)").fetchall()
    return {
        row[1]: _Column(row[1], str(row[2] or "").upper(), bool(row[3]) and row[4] is None)
        for row in rows
    }


def _checked(db: Path, columns: dict[str, _Column]) -> dict[str, _Column]:
    def unknown(detail: str) -> StoreError:
        return StoreError(
            f"the Codex state database {db} has an unknown schema ({detail}); nothing was written"
        )

    if not columns:
        raise unknown("no `threads` table")
    for needed in ("id", "rollout_path"):
        if needed not in columns:
            raise unknown(f"`threads` has no `{needed}` column")
    for column in columns.values():
        if column.required and column.name not in _KNOWN:
            raise unknown(f"`threads.{column.name}` requires a value txcript cannot supply")
    return columns


def check(db: Path) -> None:
    """Refuse (:class:`StoreError`) unless the database has a ``threads`` table txcript can fill."""
    connection = _connect(db)
    try:
        _checked(db, _columns(connection))
    except sqlite3.Error as exc:
        raise StoreError(f"reading the Codex state database {db}: {exc}") from None
    finally:
        connection.close()


def _in_millis(connection: sqlite3.Connection) -> bool:
    row = connection.execute("SELECT MAX(created_at) FROM threads").fetchone()
    return bool(row) and isinstance(row[0], int) and row[0] > 100_000_000_000


def _time(value: datetime, column: _Column, millis: bool) -> Any:
    if "TEXT" in column.declared or "CHAR" in column.declared:
        return format_rfc3339(value)
    ms = to_epoch_ms(value)
    if "REAL" in column.declared or "FLOA" in column.declared:
        return ms / 1000
    return ms if millis else ms // 1000


def register(db: Path, thread: Thread) -> None:
    """Insert (or update) the thread's row in one transaction."""
    connection = _connect(db)
    try:
        connection.execute("BEGIN IMMEDIATE")
        try:
            columns = _checked(db, _columns(connection))
            millis = "created_at" in columns and _in_millis(connection)
            values: dict[str, Any] = {}
            for name, column in columns.items():
                if name not in _KNOWN:
                    continue
                value = _KNOWN[name](thread)
                if isinstance(value, datetime) and name in _TIME_COLUMNS:
                    value = _time(value, column, millis)
                if value is None and column.required:
                    raise StoreError(
                        f"the Codex state database {db} has an unknown schema (`threads.{name}` "
                        "requires a value txcript cannot supply); nothing was written"
                    )
                if value is not None:
                    values[name] = value
            exists = connection.execute(
                "SELECT 1 FROM threads WHERE id = ?", (thread.id,)
            ).fetchone()
            names = list(values)
            if exists:
                assignments = ", ".join(f'"{n}" = ?' for n in names if n != "id")
                connection.execute(
                    f"UPDATE threads SET {assignments} WHERE id = ?",
                    [values[n] for n in names if n != "id"] + [thread.id],
                )
            else:
                quoted = ", ".join(f'"{n}"' for n in names)
                marks = ", ".join("?" for _ in names)
                connection.execute(
                    f"INSERT INTO threads ({quoted}) VALUES ({marks})", [values[n] for n in names]
                )
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
    except sqlite3.Error as exc:
        raise StoreError(
            f"registering the thread in the Codex state database {db}: {exc}"
        ) from None
    finally:
        connection.close()


def unregister(db: Path, thread_id: str, remove: Callable[[], None]) -> None:
    """Delete the thread's row and run ``remove`` (the file deletion) in one transaction."""
    connection = _connect(db)
    try:
        connection.execute("BEGIN IMMEDIATE")
        try:
            columns = _columns(connection)
            if "id" in columns:
                connection.execute("DELETE FROM threads WHERE id = ?", (thread_id,))
            remove()
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
    except sqlite3.Error as exc:
        raise StoreError(f"removing the thread from the Codex state database {db}: {exc}") from None
    finally:
        connection.close()
