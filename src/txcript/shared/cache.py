"""txcript's own caches (the search index, listing metadata): one SQLite file each, disposable.

A cache is only ever a faster way to get what the stores hold, so every failure degrades instead
of failing the command: a cache that cannot be opened, is locked past a short timeout, or sits in
a read-only directory is replaced by an in-memory database for this run, with one warning. A
damaged one (not a database, malformed, or missing a table or column of its schema) is deleted
and built again, also with one warning: left in place, it would cost every later run a build in
memory. Each cache records the ``format`` it was written in (a version and a checksum of its
schema, :func:`format_stamp`); a different one (a new txcript with a new layout) discards its
contents. Files are WAL with ``synchronous=NORMAL``: one writer, any number of readers, and an
interrupted writer loses at most its open transaction.

Entries are keyed on a store's *fingerprint* of a session (``Store.fingerprints``): a string that
changes whenever the session's content may have changed. An empty fingerprint means "unknown"
and never matches, so such sessions are always read afresh. The search index keys a session's
lines on it; the metadata cache (:class:`MetadataCache`) keys a session's listing fields on the
part of it the listing depends on: the same ``"<mtime ns>:<size>"`` for a file store, and for
Cursor desktop the composerData cell's identity (rowid, the header's ``lastUpdatedAt``, byte
length) rather than its bubbles, which a listing never reads. A store with a *change token*
(``Harness.change_token(root)``: one value that moves whenever any of its sessions may have
changed) also has its whole listing kept under that token, so an untouched store is listed
without being read.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from txcript.diagnostics import warn
from txcript.shared.dirs import cache_dir

_BUSY_TIMEOUT = 2.0
#: (cache dir, reason) of every "cache unavailable" warning this process gave.
_warned: set[tuple[Path, str]] = set()


def cache_path(name: str) -> Path:
    return cache_dir() / f"{name}.sqlite3"


def format_stamp(format_version: str, schema: str) -> str:
    """What a cache records as its format: the version and a checksum of the schema, so a
    file laid out by any other schema (a build between two versions, a table added without a
    new version) is discarded rather than failing every run with "no such table"."""
    return f"{format_version}/{zlib.crc32(schema.encode()):08x}"


def _prepare(conn: sqlite3.Connection, format_version: str, schema: str) -> None:
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("CREATE TABLE IF NOT EXISTS cache_meta(key TEXT PRIMARY KEY, value TEXT)")
    row = conn.execute("SELECT value FROM cache_meta WHERE key = 'format'").fetchone()
    stamp = format_stamp(format_version, schema)
    if row is None or row[0] != stamp:
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
        conn.execute("INSERT OR REPLACE INTO cache_meta(key, value) VALUES ('format', ?)", (stamp,))
        conn.execute("COMMIT")


def open_cache(name: str, format_version: str, schema: str) -> tuple[sqlite3.Connection, bool]:
    """The cache ``name`` (created with ``schema`` when new or of another format).

    Returns the connection and whether it is persistent; a damaged file is replaced (see
    :func:`rebuilt_cache`); on any other failure, an in-memory cache and one warning
    (``txcript: warning: <name> cache unavailable (…); running without it``).
    """
    try:
        return _opened(cache_path(name), format_version, schema), True
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            return rebuilt_cache(name, format_version, schema, exc)
        cache_failed(name, exc)
    except (sqlite3.Error, OSError) as exc:
        cache_failed(name, exc)
    return memory_cache(format_version, schema), False


def is_damage(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` says the file itself is bad (not a database, malformed pages, a table
    or column of its schema missing), not that it is locked, busy, read-only or on a full disk
    (other OperationalErrors: the file may be sound)."""
    if isinstance(exc, sqlite3.OperationalError):
        return str(exc).startswith(("no such table", "no such column"))
    return isinstance(exc, sqlite3.DatabaseError)


def rebuilt_cache(
    name: str, format_version: str, schema: str, exc: sqlite3.Error
) -> tuple[sqlite3.Connection, bool]:
    """After damage ``exc``: the cache file deleted and created again, empty, for this run to
    fill, with one warning (``<name> cache damaged (…); building a new one``). Left in place,
    a damaged file would fail every later run the same way, each one building in memory. When
    even that fails: an in-memory cache, as :func:`open_cache` gives."""
    path = cache_path(name)
    try:
        _remove(path)
        conn = _opened(path, format_version, schema)
    except (sqlite3.Error, OSError) as failure:
        cache_failed(name, failure)
        return memory_cache(format_version, schema), False
    warn(f"{name} cache damaged ({_reason(exc)}); building a new one")
    return conn, True


def _opened(path: Path, format_version: str, schema: str) -> sqlite3.Connection:
    # Private, as the sessions they copy may hold keys and tokens: the dir, when txcript makes
    # it, and the file, which SQLite's -wal and -shm files take their mode from.
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(OSError):  # (SQLite then says why it cannot open it, as before)
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600))
    conn = sqlite3.connect(path, timeout=_BUSY_TIMEOUT, isolation_level=None)
    try:
        # Only the header and schema are checked here (a full check reads the whole file,
        # which costs more than a warm query): a user of a cache that meets a DatabaseError
        # later replaces a damaged file through :func:`rebuilt_cache`.
        _prepare(conn, format_version, schema)
    except BaseException:
        conn.close()
        raise
    return conn


def _remove(path: Path) -> None:
    """Delete a cache file with its WAL and shared-memory files (a process that still has it
    open goes on with the old inode; its writes are lost, as a cache's may be)."""
    for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()


def _reason(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def cache_failed(name: str, exc: BaseException) -> None:
    """The one warning for a cache that cannot be used in this run."""
    reason = _reason(exc)
    # Two caches failing for one reason (a read-only cache dir) make one warning, not two.
    seen = (cache_dir(), reason)
    if seen not in _warned:
        _warned.add(seen)
        warn(f"{name} cache unavailable ({reason}); running without it")


def memory_cache(format_version: str, schema: str) -> sqlite3.Connection:
    """An empty in-memory cache laid out as ``schema`` (the stand-in for a failed file)."""
    memory = sqlite3.connect(":memory:", isolation_level=None)
    _prepare(memory, format_version, schema)
    return memory


# ------------------------------------------------------------------------------ listing metadata

METADATA_FORMAT = "metadata-2"
METADATA_SCHEMA = """
CREATE TABLE listing(
  store TEXT NOT NULL,
  reference TEXT NOT NULL,
  key TEXT NOT NULL,
  fields BLOB NOT NULL,
  PRIMARY KEY(store, reference)
) WITHOUT ROWID;
CREATE TABLE held(
  store TEXT PRIMARY KEY,
  token TEXT NOT NULL,
  listing BLOB NOT NULL
)
"""


#: Up to this many references are looked up by name; more read the store's whole scope.
_FEW_REFERENCES = 256


class MetadataCache:
    """Each session's listing fields, per store, under the key the store derived them at.

    A store asks for its entries once per discovery (:meth:`entries`), reuses an entry only when
    the key it computes now is the one stored (an empty key never is), and hands back what it
    read afresh (:meth:`update`, one transaction). Stores never trust an entry for a session
    whose key they cannot compute in full; they read it again instead.
    """

    def __init__(self, conn: sqlite3.Connection, persistent: bool) -> None:
        self.conn = conn
        self.persistent = persistent
        #: Whether this run already replaced a damaged file (a new one gets one try).
        self._rebuilt = False

    def entries(
        self, store: str, references: Sequence[str] | None = None
    ) -> dict[str, tuple[str, bytes]]:
        """``reference → (key, fields)`` of every entry of ``store`` (of those of
        ``references`` only, when given: a lookup of a few files reads only theirs)."""
        query = "SELECT reference, key, fields FROM listing WHERE store = ?"
        try:
            if references is None or len(references) > _FEW_REFERENCES:
                rows = self.conn.execute(query, (store,)).fetchall()
            else:
                marks = ", ".join("?" * len(references))
                rows = self.conn.execute(
                    f"{query} AND reference IN ({marks})", (store, *references)
                ).fetchall()
        except sqlite3.Error as exc:
            self._fail(exc)
            return {}
        return {
            reference: (key, bytes(fields))
            for reference, key, fields in rows
            if isinstance(reference, str) and isinstance(key, str) and key
        }

    def update(
        self,
        store: str,
        fresh: dict[str, tuple[str, bytes]],
        gone: Iterable[str] = (),
    ) -> None:
        """Record ``fresh`` entries (``reference → (key, fields)``) and forget ``gone`` ones."""
        removed = [(store, reference) for reference in gone]
        rows = [(store, ref, key, fields) for ref, (key, fields) in fresh.items() if key]
        if not rows and not removed:
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.executemany(
                    "DELETE FROM listing WHERE store = ? AND reference = ?", removed
                )
                self.conn.executemany("INSERT OR REPLACE INTO listing VALUES (?, ?, ?, ?)", rows)
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            self._fail(exc)

    def held_listing(self, store: str, token: str) -> bytes | None:
        """The whole listing of ``store`` kept under change token ``token``; None when none is
        kept, or it was kept under another token (the store may have been written since)."""
        if not token:
            return None
        try:
            row = self.conn.execute(
                "SELECT listing FROM held WHERE store = ? AND token = ?", (store, token)
            ).fetchone()
        except sqlite3.Error as exc:
            self._fail(exc)
            return None
        return None if row is None or not isinstance(row[0], bytes) else row[0]

    def hold_listing(self, store: str, token: str, listing: bytes) -> None:
        """Keep ``store``'s whole listing under the change token taken before it was made (a
        write during the listing moves the token, so the kept listing is never trusted)."""
        if not token or not self.persistent:
            return
        try:
            self.conn.execute(
                "INSERT OR REPLACE INTO held VALUES (?, ?, ?)", (store, token, listing)
            )
        except sqlite3.Error as exc:
            self._fail(exc)

    def _fail(self, exc: sqlite3.Error) -> None:
        """Go on with a new file when this one is damaged (see :func:`rebuilt_cache`; once a
        run, as for the search index), else without a file for the rest of this run, with the
        warning every cache gives (:func:`cache_failed`)."""
        was_persistent = self.persistent
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()
        if was_persistent and is_damage(exc) and not self._rebuilt:
            self._rebuilt = True
            self.conn, self.persistent = rebuilt_cache(
                "metadata", METADATA_FORMAT, METADATA_SCHEMA, exc
            )
            return
        if was_persistent:
            cache_failed("metadata", exc)
        self.conn = memory_cache(METADATA_FORMAT, METADATA_SCHEMA)
        self.persistent = False


_metadata: dict[Path, MetadataCache] = {}
#: Set while :func:`metadata_cache_off` is in force.
_off: list[bool] = []


@contextlib.contextmanager
def metadata_cache_off() -> Iterator[None]:
    """Discovery inside the block neither trusts nor keeps cached listings: every session is
    read afresh and nothing is written (``doctor`` checks the stores themselves)."""
    _off.append(True)
    try:
        yield
    finally:
        _off.pop()


def metadata_cache() -> MetadataCache:
    """The metadata cache (``metadata.sqlite3`` in the cache dir), opened once per process and
    cache dir (a library user or a test may move the cache dir between calls); an empty
    in-memory one inside :func:`metadata_cache_off`."""
    if _off:
        memory = sqlite3.connect(":memory:", isolation_level=None)
        _prepare(memory, METADATA_FORMAT, METADATA_SCHEMA)
        return MetadataCache(memory, False)
    path = cache_path("metadata")
    cache = _metadata.get(path)
    if cache is None:
        for old in _metadata.values():
            with contextlib.suppress(sqlite3.Error):
                old.conn.close()
        _metadata.clear()
        conn, persistent = open_cache("metadata", METADATA_FORMAT, METADATA_SCHEMA)
        cache = _metadata[path] = MetadataCache(conn, persistent)
    return cache


def close_metadata_cache() -> None:
    """Close the process's metadata cache; the next use opens it afresh."""
    for cache in _metadata.values():
        with contextlib.suppress(sqlite3.Error):
            cache.conn.close()
    _metadata.clear()
