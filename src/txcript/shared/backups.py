"""Backups taken before every destructive write, that ``txcript restore`` brings back.

Two kinds, each with an ``<id>.json`` manifest naming what it came from:

* ``sqlite``: a consistent copy of a database made with SQLite's online backup API (safe while the
  app has the database open), stored as ``<id>.sqlite``;
* ``files``: copies of a file-backed session's files (and side directories), stored under
  ``<id>.files/<n>/<name>``, put back at their original paths on restore.

The newest :data:`KEEP` backups of each database (or first file) are kept; older ones are pruned
once the write a new backup guards has succeeded.

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
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from txcript.errors import BadInput, StoreError
from txcript.shared.dirs import data_dir

#: How many backups of one database are kept (``TXCRIPT_BACKUP_KEEP`` overrides).
KEEP = 10


@dataclass(frozen=True)
class Backup:
    id: str
    harness: str
    #: The database backed up (for ``files`` backups: the first file), as an absolute path.
    database: str
    operation: str
    session: str | None
    created_at: str
    size: int
    kind: str = "sqlite"
    #: ``files`` backups: the original absolute path of each stored copy, in order.
    files: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "files": list(self.files), "path": str(self.path)}

    @property
    def path(self) -> Path:
        suffix = ".files" if self.kind == "files" else ".sqlite"
        return backup_dir() / f"{self.id}{suffix}"


def backup_dir() -> Path:
    return data_dir() / "backups"


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


def _new_id(harness: str, operation: str, session: str | None) -> tuple[str, datetime]:
    now = datetime.now(UTC)
    label = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in (session or "")[:36])
    backup_id = f"{now:%Y%m%dT%H%M%S%fZ}-{harness}-{operation}" + (f"-{label}" if label else "")
    return backup_id, now


def _write_manifest(backup: Backup, what: object) -> None:
    manifest = backup_dir() / f"{backup.id}.json"
    try:
        manifest.write_text(json.dumps(backup.as_json() | {"path": None}, indent=2) + "\n")
    except OSError as exc:
        discard(backup)
        raise StoreError(f"backing up {what}: {exc.strerror or exc}; nothing was written") from None


def create(
    database: Path,
    *,
    harness: str,
    operation: str,
    session: str | None = None,
    busy_timeout: float = 5.0,
    protect: str | None = None,
    prune_now: bool = True,
) -> Backup:
    """Back ``database`` up before ``operation``; raise :class:`StoreError` if that fails.

    Pruning never removes the backup whose id is ``protect`` (the one being restored). With
    ``prune_now=False`` the caller prunes (:func:`prune`) once its write has committed, so a
    failed write never costs an older backup.
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
    backup_id, now = _new_id(harness, operation, session)
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
    _write_manifest(backup, database)
    if prune_now:
        prune(backup, protect)
    return backup


def create_files(
    paths: Sequence[Path], *, harness: str, operation: str, session: str | None = None
) -> Backup:
    """Copy a file-backed session's files (directories whole) before ``operation``."""
    existing = [path.absolute() for path in paths if path.exists()]
    if not existing:
        raise StoreError("backing up: none of the session's files exist; nothing was written")
    directory = backup_dir()
    backup_id, now = _new_id(harness, operation, session)
    target = directory / f"{backup_id}.files"
    partial = directory / f"{backup_id}.partial"
    try:
        size = sum(_size(path) for path in existing)
        directory.mkdir(parents=True, exist_ok=True)
        if shutil.disk_usage(directory).free < size + (1 << 20):
            raise StoreError(
                f"backing up {existing[0]}: not enough free space in {directory}; "
                "nothing was written"
            )
        for index, path in enumerate(existing):
            slot = partial / str(index)
            slot.mkdir(parents=True)
            if path.is_dir():
                shutil.copytree(path, slot / path.name, symlinks=True)
            else:
                shutil.copy2(path, slot / path.name)
        os.replace(partial, target)
    except OSError as exc:
        shutil.rmtree(partial, ignore_errors=True)
        raise StoreError(f"backing up {existing[0]}: {exc}; nothing was written") from None
    backup = Backup(
        id=backup_id,
        harness=harness,
        database=str(existing[0]),
        operation=operation,
        session=session,
        created_at=now.isoformat().replace("+00:00", "Z"),
        size=size,
        kind="files",
        files=tuple(str(path) for path in existing),
    )
    _write_manifest(backup, existing[0])
    prune(backup)
    return backup


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size


def discard(backup: Backup) -> None:
    """Remove a backup (its copy and manifest), e.g. when the write it guarded did not happen."""
    if backup.kind == "files":
        shutil.rmtree(backup.path, ignore_errors=True)
    for suffix in (".sqlite", ".json"):
        with contextlib.suppress(OSError):
            (backup_dir() / f"{backup.id}{suffix}").unlink()


def _read_manifest(path: Path) -> Backup | None:
    try:
        data = json.loads(path.read_text())
        data.pop("path", None)
        data["files"] = tuple(data.get("files", ()))
        backup = Backup(**data)
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    return backup if backup.path.exists() else None


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


def prune(backup: Backup, protect: str | None = None) -> None:
    """Keep the newest :data:`KEEP` backups of ``backup``'s database; never ``protect``."""
    for old in list_backups(Path(backup.database))[_keep() :]:
        if old.id != protect:
            discard(old)


def find(backup_id: str) -> Backup:
    """A backup by id or unique id prefix."""
    if not backup_id.strip():
        raise BadInput("a backup id is empty (try `txcript restore` to list them)")
    matches = [b for b in list_backups() if b.id.startswith(backup_id)]
    exact = [b for b in matches if b.id == backup_id]
    if exact:
        return exact[0]
    if not matches:
        raise BadInput(f"no backup matches `{backup_id}` (try `txcript restore`)")
    if len(matches) > 1:
        raise BadInput(f"`{backup_id}` matches {len(matches)} backups — add characters")
    return matches[0]


def restore(backup: Backup, *, busy_timeout: float = 5.0) -> Backup | None:
    """Copy ``backup`` over its database (or files), after backing the current state up in turn.

    Returns the backup of the state that was replaced, so a restore can itself be undone, or
    None when there was nothing to replace.
    """
    if backup.kind == "files":
        return _restore_files(backup)
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
    return safety


def _restore_files(backup: Backup) -> Backup | None:
    originals = [Path(p) for p in backup.files]
    present = [p for p in originals if p.exists()]
    safety = (
        create_files(
            present, harness=backup.harness, operation="pre-restore", session=backup.session
        )
        if present
        else None
    )
    for index, original in enumerate(originals):
        stored = backup.path / str(index) / original.name
        try:
            original.parent.mkdir(parents=True, exist_ok=True)
            if stored.is_dir():
                shutil.rmtree(original, ignore_errors=True)
                shutil.copytree(stored, original, symlinks=True)
            else:
                shutil.copy2(stored, original)
        except OSError as exc:
            raise StoreError(f"restoring {original}: {exc.strerror or exc}") from None
    return safety
