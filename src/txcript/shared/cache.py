"""txcript's own caches (the search index, listing metadata): one SQLite file each, disposable.

A cache is only ever a faster way to get what the stores hold, so every failure degrades instead
of failing the command: a cache that cannot be opened, is corrupt, is locked past a short timeout,
or sits in a read-only directory is replaced by an in-memory database for this run, with one
warning. Each cache records the ``format`` it was written in; a different format (a new txcript
with a new layout) discards its contents. Files are WAL with ``synchronous=NORMAL``: one writer,
any number of readers, and an interrupted writer loses at most its open transaction.

Entries are keyed on a store's *fingerprint* of a session (``Store.fingerprints``): a string that
changes whenever the session's content may have changed. An empty fingerprint means "unknown"
and never matches, so such sessions are always read afresh.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from txcript.diagnostics import warn
from txcript.shared.dirs import cache_dir

_BUSY_TIMEOUT = 2.0


def cache_path(name: str) -> Path:
    return cache_dir() / f"{name}.sqlite3"


def _prepare(conn: sqlite3.Connection, format_version: str, schema: str) -> None:
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("CREATE TABLE IF NOT EXISTS cache_meta(key TEXT PRIMARY KEY, value TEXT)")
    row = conn.execute("SELECT value FROM cache_meta WHERE key = 'format'").fetchone()
    if row is None or row[0] != format_version:
        # Virtual tables first: dropping one drops its shadow tables with it.
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'cache_meta' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY sql NOT LIKE 'CREATE VIRTUAL%'"
            )
        ]
        conn.execute("BEGIN IMMEDIATE")
        for name in tables:
            with contextlib.suppress(sqlite3.OperationalError):  # shadow tables of a dropped FTS
                conn.execute(f'DROP TABLE IF EXISTS "{name}"')
        for statement in schema.split(";\n"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(
            "INSERT OR REPLACE INTO cache_meta(key, value) VALUES ('format', ?)", (format_version,)
        )
        conn.execute("COMMIT")


def open_cache(name: str, format_version: str, schema: str) -> tuple[sqlite3.Connection, bool]:
    """The cache ``name`` (created with ``schema`` when new or of another format).

    Returns the connection and whether it is persistent; on any failure, an in-memory cache and
    one warning (``txcript: warning: <name> cache unavailable (…); running without it``).
    """
    path = cache_path(name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=_BUSY_TIMEOUT, isolation_level=None)
        try:
            # Only the header and schema are checked here (a full check reads the whole file,
            # which costs more than a warm query): a user of a cache treats a DatabaseError
            # met later as this failure, through :func:`cache_failed`.
            _prepare(conn, format_version, schema)
        except BaseException:
            conn.close()
            raise
        return conn, True
    except (sqlite3.Error, OSError) as exc:
        cache_failed(name, exc)
    return memory_cache(format_version, schema), False


def cache_failed(name: str, exc: BaseException) -> None:
    """The one warning for a cache that cannot be used in this run."""
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    warn(f"{name} cache unavailable ({reason}); running without it")


def memory_cache(format_version: str, schema: str) -> sqlite3.Connection:
    """An empty in-memory cache laid out as ``schema`` (the stand-in for a failed file)."""
    memory = sqlite3.connect(":memory:", isolation_level=None)
    _prepare(memory, format_version, schema)
    return memory
