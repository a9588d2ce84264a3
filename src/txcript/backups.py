"""Backups of SQLite stores, taken before every write, that ``txcript restore`` brings back.

A backup is a consistent copy made with SQLite's online backup API (safe while the app has the
database open), stored in txcript's data directory as ``<id>.sqlite`` with an ``<id>.json``
manifest naming the database it came from. The newest :data:`KEEP` backups of each database are
kept; older ones are pruned after a new one is written.

The data directory is platformdirs' user data dir for ``txcript`` (``~/.local/share/txcript`` on
Linux, ``~/Library/Application Support/txcript`` on macOS, ``%LOCALAPPDATA%\\txcript`` on
Windows); ``TXCRIPT_DATA_DIR`` overrides it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from txcript.errors import BadInput, StoreError

#: How many backups of one database are kept (``TXCRIPT_BACKUP_KEEP`` overrides).
KEEP = 10


@dataclass(frozen=True)
class Backup:
    id: str
    harness: str
    database: str
    operation: str
    session: str | None
    created_at: str
    size: int

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "path": str(self.path)}

    @property
    def path(self) -> Path:
        return backup_dir() / f"{self.id}.sqlite"


def backup_dir() -> Path:
    override = os.environ.get("TXCRIPT_DATA_DIR")
    if override:
        return Path(override) / "backups"
    import platformdirs

    return Path(platformdirs.user_data_dir("txcript", appauthor=False)) / "backups"


def _keep() -> int:
    try:
        return max(1, int(os.environ.get("TXCRIPT_BACKUP_KEEP", KEEP)))
    except ValueError:
        return KEEP


def _copy(source: Path, target: Path, *, busy_timeout: float) -> None:
    """Copy ``source`` into ``target`` with the online backup API (both real SQLite files)."""
    # ``as_uri`` refuses a relative path (``continue --out rel/dir``), so make it absolute.
    src = sqlite3.connect(source.absolute().as_uri() + "?mode=ro", uri=True, timeout=busy_timeout)
    try:
        dst = sqlite3.connect(target, timeout=busy_timeout)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()


def create(
    database: Path,
    *,
    harness: str,
    operation: str,
    session: str | None = None,
    busy_timeout: float = 5.0,
    protect: str | None = None,
) -> Backup:
    """Back ``database`` up before ``operation``; raise :class:`StoreError` if that fails.

    Pruning afterwards never removes the backup whose id is ``protect`` (the one being restored).
    """
    directory = backup_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        size = database.stat().st_size
        free = shutil.disk_usage(directory).free
    except OSError as exc:
        raise StoreError(f"backing up {database}: {exc.strerror or exc}") from None
    if free < size + (size >> 4) + (1 << 20):
        raise StoreError(
            f"backing up {database}: not enough free space in {directory} "
            f"({size >> 20} MiB needed, {free >> 20} MiB free); nothing was written"
        )
    now = datetime.now(UTC)
    label = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in (session or "")[:36])
    backup_id = f"{now:%Y%m%dT%H%M%S%fZ}-{harness}-{operation}" + (f"-{label}" if label else "")
    target = directory / f"{backup_id}.sqlite"
    partial = target.with_suffix(".partial")
    try:
        _copy(database, partial, busy_timeout=busy_timeout)
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise StoreError(f"backing up {database}: {exc}; nothing was written") from None
    backup = Backup(
        id=backup_id,
        harness=harness,
        database=str(database.resolve()),
        operation=operation,
        session=session,
        created_at=now.isoformat().replace("+00:00", "Z"),
        size=target.stat().st_size,
    )
    manifest = directory / f"{backup_id}.json"
    try:
        manifest.write_text(json.dumps(asdict(backup), indent=2) + "\n")
    except OSError as exc:
        discard(backup)
        raise StoreError(
            f"backing up {database}: {exc.strerror or exc}; nothing was written"
        ) from None
    _prune(backup.database, protect)
    return backup


def discard(backup: Backup) -> None:
    """Remove a backup (its copy and manifest), e.g. when the write it guarded did not happen."""
    for suffix in (".sqlite", ".json"):
        with contextlib.suppress(OSError):
            (backup_dir() / f"{backup.id}{suffix}").unlink()


def _read_manifest(path: Path) -> Backup | None:
    try:
        data = json.loads(path.read_text())
        backup = Backup(**data)
    except (OSError, ValueError, TypeError):
        return None
    return backup if backup.path.is_file() else None


def list_backups(database: Path | None = None) -> list[Backup]:
    """Every backup (or those of ``database``), newest first."""
    directory = backup_dir()
    if not directory.is_dir():
        return []
    wanted = None if database is None else str(database.resolve())
    found = [b for p in directory.glob("*.json") if (b := _read_manifest(p)) is not None]
    if wanted is not None:
        found = [b for b in found if b.database == wanted]
    return sorted(found, key=lambda b: b.id, reverse=True)


def _prune(database: str, protect: str | None = None) -> None:
    for old in list_backups(Path(database))[_keep() :]:
        if old.id != protect:
            discard(old)


def find(backup_id: str) -> Backup:
    """A backup by id or unique id prefix."""
    matches = [b for b in list_backups() if b.id.startswith(backup_id)]
    exact = [b for b in matches if b.id == backup_id]
    if exact:
        return exact[0]
    if not matches:
        raise BadInput(f"no backup matches `{backup_id}` (try `txcript restore`)")
    if len(matches) > 1:
        raise BadInput(f"`{backup_id}` matches {len(matches)} backups — add characters")
    return matches[0]


def restore(backup: Backup, *, busy_timeout: float = 5.0) -> Backup:
    """Copy ``backup`` over its database, after backing the current state up in turn.

    Returns the backup of the state that was replaced, so a restore can itself be undone.
    """
    database = Path(backup.database)
    safety = None
    if database.is_file():
        safety = create(
            database,
            harness=backup.harness,
            operation="pre-restore",
            busy_timeout=busy_timeout,
            protect=backup.id,
        )
    else:
        database.parent.mkdir(parents=True, exist_ok=True)
    try:
        _copy(backup.path, database, busy_timeout=busy_timeout)
    except sqlite3.Error as exc:
        raise StoreError(f"restoring {database}: {exc}") from None
    return safety if safety is not None else backup
