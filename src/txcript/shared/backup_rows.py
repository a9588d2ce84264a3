"""Row backups being written inside a store's transaction, and the sweep after killed writers.

See :mod:`txcript.shared.backups` for the kinds of backup and where they live. A row backup is an
SQLite file of ``cells`` (table, rowid, column, storage class, value) and ``meta`` (its manifest
and the harness's details), written as ``<id>.rows-partial`` under an exclusive ``flock``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from txcript.errors import StoreError
from txcript.shared.backups import (
    ID_PATTERN,
    PARTIAL,
    SIDECARS,
    SUFFIX,
    Backup,
    Claim,
    backup_dir,
    ensure_dir,
    fsync_dir,
    is_abandoned,
    new_id,
    parse_manifest,
    remove_with_sidecars,
    stamp,
    write_manifest,
)
from txcript.shared.files import missing_directories, remove_empty
from txcript.shared.gcpause import without_gc


class PendingRows:
    """A row backup being written inside a store's write transaction.

    The rows go into ``<id>.rows-partial`` (an SQLite file, no journal: a torn one is simply
    swept). :meth:`seal` adds the manifest and fsyncs the file; the caller commits its write and
    then calls :meth:`publish`, which renames the file into place and writes ``<id>.json``. A
    writer killed between its COMMIT and :meth:`publish` leaves a sealed partial that
    :func:`sweep` completes once the write is seen to have committed.
    """

    def __init__(self, *, harness: str, database: Path, operation: str, session: str) -> None:
        self._created = missing_directories(backup_dir())
        directory = ensure_dir()
        self.id, moment = new_id(harness, operation, session)
        self.created_at = stamp(moment)
        self.harness, self.operation, self.session = harness, operation, session
        self.database = str(database.resolve())
        self.partial = directory / f"{self.id}{PARTIAL['row']}"
        self.published = False
        self.backup: Backup | None = None

    def begin(self) -> None:
        """Create the partial file; on any failure (or a signal) it is gone again."""
        try:
            self.claim = Claim(self.partial)
            self.conn = sqlite3.connect(self.partial, isolation_level=None)
            # 16 KiB pages: a session's megabytes of cells in a quarter of the pages (and of the
            # overflow-page overhead) of 4 KiB ones; a backup of two sidebar values stays small.
            self.conn.execute("PRAGMA page_size=16384")
            self.conn.execute("PRAGMA journal_mode=OFF")
            self.conn.execute("PRAGMA synchronous=OFF")
            self.conn.execute("BEGIN")
            self.conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            self.conn.execute(
                "CREATE TABLE cells (tbl TEXT, rid INTEGER, pos INTEGER, col TEXT, "
                "type TEXT, value)"
            )
        except (OSError, sqlite3.Error) as exc:
            self.abandon()
            raise StoreError(f"backing up {self.database}: {exc}; nothing was written") from None
        except BaseException:
            self.abandon()
            raise

    def add_rows(
        self, table: str, rows: Sequence[tuple[int, Sequence[tuple[str, str, object]]]]
    ) -> None:
        """Store ``(rowid, ((column, typeof, value), …))`` rows of ``table`` (TEXT as bytes)."""
        try:
            self.conn.executemany(
                "INSERT INTO cells VALUES (?, ?, ?, ?, ?, ?)",
                (
                    (table, rowid, pos, column, kind, value)
                    for rowid, cells in rows
                    for pos, (column, kind, value) in enumerate(cells)
                ),
            )
        except sqlite3.Error as exc:
            raise StoreError(f"backing up {self.database}: {exc}; nothing was written") from None

    def seal(self, *, before_hash: str, after_hash: str, details: Mapping[str, Any]) -> Backup:
        """Write the manifest into the file and make it durable; call before the store commits."""
        try:
            (pages,) = self.conn.execute("PRAGMA page_count").fetchone()
            (page_size,) = self.conn.execute("PRAGMA page_size").fetchone()
            self.backup = Backup(
                id=self.id,
                harness=self.harness,
                database=self.database,
                operation=self.operation,
                session=self.session,
                created_at=self.created_at,
                size=int(pages) * int(page_size),
                kind="row",
                before_hash=before_hash,
                after_hash=after_hash,
            )
            manifest = json.dumps(self.backup.as_json() | {"path": None})
            self.conn.execute("INSERT INTO meta VALUES ('manifest', ?)", (manifest,))
            self.conn.execute(
                "INSERT INTO meta VALUES ('details', ?)", (json.dumps(dict(details)),)
            )
            self.conn.execute("COMMIT")
            self.conn.close()
            os.fsync(self.claim.fd)
            fsync_dir(self.partial.parent)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"backing up {self.database}: {exc}; nothing was written") from None
        return self.backup

    def publish(self) -> Backup:
        """After the store's COMMIT: the backup becomes ``<id>.rows`` with its manifest."""
        assert self.backup is not None
        target = self.backup.path
        os.replace(self.partial, target)
        self.published = True
        write_manifest(self.backup)
        fsync_dir(target.parent)
        self.claim.release()
        return self.backup

    def abandon(self) -> None:
        """The write did not happen: remove the partial file (nothing else was written)."""
        if self.published:
            return
        with contextlib.suppress(sqlite3.Error, AttributeError):
            self.conn.close()
        remove_with_sidecars(self.partial)
        if hasattr(self, "claim"):
            self.claim.release()
        remove_empty(self._created)  # the backup dir, if this backup was the first


def read_rows(
    backup: Backup,
) -> tuple[dict[str, list[tuple[int, list[tuple[str, str, object]]]]], dict[str, Any]]:
    """The stored rows of a row backup by table, and its details (raise StoreError if broken)."""
    return _read_rows_file(backup.path)


@without_gc  # a row per cell, megabytes of them: no cycle scans while they are built
def _read_rows_file(
    path: Path,
) -> tuple[dict[str, list[tuple[int, list[tuple[str, str, object]]]]], dict[str, Any]]:
    try:
        conn = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read backup {path.name}: {exc}") from None
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        # In the order written (no ORDER BY: SQLite would sort megabytes of values through a
        # temp file first), then ordered here by table, rowid and position.
        by_row: dict[tuple[str, int], list[tuple[int, str, str, object]]] = {}
        kinds = ("text", "blob", "integer", "real", "null")
        for tbl, rid, pos, col, kind, value in conn.execute(
            "SELECT tbl, rid, pos, col, type, value FROM cells"
        ):
            if not (
                isinstance(tbl, str)
                and isinstance(rid, int)
                and isinstance(pos, int)
                and isinstance(col, str)
            ):
                raise StoreError(f"backup {path.name} holds a malformed row")
            if kind not in kinds:
                raise StoreError(f"backup {path.name} holds a cell of unknown type")
            cells = by_row.get((tbl, rid))
            if cells is None:
                cells = by_row[(tbl, rid)] = []
            cells.append((pos, col, kind, value))
        tables: dict[str, list[tuple[int, list[tuple[str, str, object]]]]] = {}
        for tbl, rid in sorted(by_row):
            cells = by_row[(tbl, rid)]
            cells.sort(key=lambda cell: cell[0])
            tables.setdefault(tbl, []).append((rid, [(c, k, v) for _, c, k, v in cells]))
        details = json.loads(meta.get("details", "{}"))
        if not isinstance(details, dict):
            raise StoreError(f"backup {path.name} has malformed details")
        details["manifest"] = meta.get("manifest")
        return tables, details
    except (sqlite3.Error, ValueError) as exc:
        raise StoreError(f"cannot read backup {path.name}: {exc}") from None
    finally:
        conn.close()


def sweep(resolve: Callable[[Backup, Path], bool] | None = None) -> None:
    """Tidy the backup directory after writers that were killed.

    An abandoned partial file or directory is removed, except a sealed row backup whose write
    committed (``resolve(backup, partial)`` says so), which is completed. A manifest
    without its data and data without a manifest are removed too.
    """
    directory = backup_dir()
    if not directory.is_dir():
        return
    for path in sorted(directory.iterdir()):
        name = path.name
        if not name.endswith((".rows-partial", ".sqlite-partial", ".partial")):
            continue
        if not is_abandoned(path):
            continue
        if name.endswith(".rows-partial"):
            _settle_rows(path, resolve)
        else:
            remove_with_sidecars(path)
    for path in directory.iterdir():
        stem, dot, suffix = path.name.partition(".")
        if not ID_PATTERN.fullmatch(stem) or not dot:
            continue
        if suffix in ("rows", "sqlite", "files") and not (directory / f"{stem}.json").exists():
            if not path.is_symlink() and _age(path) > 60:
                remove_with_sidecars(path)
        elif suffix == "json" and not any(
            (directory / f"{stem}{s}").exists() for s in SUFFIX.values()
        ):
            with contextlib.suppress(OSError):
                path.unlink()
        elif suffix.endswith(SIDECARS) and not (directory / f"{stem}.json").exists():
            remove_with_sidecars(path)


def _age(path: Path) -> float:
    try:
        return datetime.now(UTC).timestamp() - path.lstat().st_mtime
    except OSError:
        return 0.0


def _settle_rows(partial: Path, resolve: Callable[[Backup, Path], bool] | None) -> None:
    try:
        _, details = _read_rows_file(partial)
        manifest = details.get("manifest")
        backup = (
            None
            if manifest is None
            else parse_manifest(
                json.loads(manifest), partial.name.replace(".rows-partial", ".json")
            )
        )
    except (StoreError, ValueError):
        backup = None
    committed = False
    if backup is not None and resolve is not None:
        try:
            committed = resolve(backup, partial)
        except Exception:  # an unreadable store: the backup cannot be shown to be needed
            committed = False
    if backup is None or not committed:
        remove_with_sidecars(partial)
        return
    with contextlib.suppress(OSError, StoreError):
        os.replace(partial, backup.path)
        write_manifest(backup)
