"""Backups taken before destructive writes, that ``txcript restore`` brings back.

Three kinds, each with an ``<id>.json`` manifest naming what it came from:

* ``row``: the rows one write into an SQLite store replaces or removes, copied into a small
  SQLite file ``<id>.rows`` inside that write's transaction (see
  :class:`txcript.shared.backup_rows.PendingRows`); the harness that wrote it undoes exactly
  that one write;
* ``snapshot``: a whole-database copy made with SQLite's online backup API on request
  (``txcript backup``), stored as ``<id>.sqlite`` (manifests of older txcript versions call
  it ``sqlite``);
* ``files``: copies of a file-backed session's files (and side directories), stored under
  ``<id>.files/<n>/<name>``, put back at their original paths on restore.

Manifests are input: a manifest is only used when its id matches :data:`ID_PATTERN`, its file is
named after that id, and every field has its type, so no path derived from one leaves the
backup directory.

Housekeeping: a backup being written is a ``*-partial`` file (or ``.partial`` directory) under an
exclusive ``flock`` for as long as its writer lives; SIGINT, SIGTERM and exceptions remove it,
and :func:`txcript.shared.backup_rows.sweep` removes (or, for a row backup whose write did
commit, completes) one whose writer was killed. :func:`prune` keeps the newest
:func:`keep_count` backups of each store and at most :func:`max_total_bytes` in all, never the
backup just taken or being restored, and removes the SQLite sidecars of what it removes.

The data directory is platformdirs' user data dir for ``txcript`` (``~/.local/share/txcript`` on
Linux, ``~/Library/Application Support/txcript`` on macOS, ``%LOCALAPPDATA%\\txcript`` on
Windows); ``TXCRIPT_DATA_DIR`` overrides it. Backups live in its ``backups/`` subdirectory.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import Ambiguous, BadInput, NotFound, StoreError
from txcript.shared.dirs import data_dir
from txcript.shared.files import read_regular, regular_files_size, write_atomic

try:
    import fcntl
except ImportError:  # Windows: no flock; a partial file is then swept only by age
    fcntl = None  # type: ignore[assignment]

#: How many backups of one store are kept by default (``TXCRIPT_BACKUP_KEEP`` overrides).
KEEP = 20
#: The most all backups together may take by default (``TXCRIPT_BACKUP_MAX_SIZE`` overrides).
MAX_TOTAL_BYTES = 4 << 30
#: ``<UTC time>-<harness>-<operation>[-<session label>]``, a safe file name by construction.
ID_PATTERN = re.compile(r"[0-9]{8}T[0-9]{12}Z-[a-z_]{1,40}-[a-z-]{1,40}(-[A-Za-z0-9_-]{1,36})?")
KINDS = ("row", "snapshot", "files")
SUFFIX = {"row": ".rows", "snapshot": ".sqlite", "files": ".files"}
PARTIAL = {"row": ".rows-partial", "snapshot": ".sqlite-partial", "files": ".partial"}
SIDECARS = ("-journal", "-wal", "-shm")
_MANIFEST_LIMIT = 1 << 20
_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


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
    kind: str = "snapshot"
    #: ``files`` backups: the original absolute path of each stored copy, in order.
    files: tuple[str, ...] = ()
    #: ``row`` backups: hashes of the session's state before and after the write.
    before_hash: str | None = None
    after_hash: str | None = None

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "files": list(self.files), "path": str(self.path)}

    @property
    def path(self) -> Path:
        return backup_dir() / f"{self.id}{SUFFIX[self.kind]}"

    @property
    def created(self) -> datetime | None:
        try:
            return datetime.fromisoformat(self.created_at.replace("Z", "+00:00"))
        except ValueError:
            return None


def backup_dir() -> Path:
    return data_dir() / "backups"


# ------------------------------------------------------------------------------ settings


def keep_count() -> int:
    """``TXCRIPT_BACKUP_KEEP`` (a positive integer), else :data:`KEEP`."""
    raw = os.environ.get("TXCRIPT_BACKUP_KEEP")
    if raw is None or raw == "":
        return KEEP
    if not raw.strip().isdigit() or int(raw) < 1:
        raise BadInput(f"TXCRIPT_BACKUP_KEEP must be a whole number of at least 1, not `{raw}`")
    return int(raw)


def max_total_bytes() -> int:
    """``TXCRIPT_BACKUP_MAX_SIZE`` (bytes, or with a K/M/G/T suffix), else 4 GiB."""
    raw = os.environ.get("TXCRIPT_BACKUP_MAX_SIZE")
    if raw is None or raw == "":
        return MAX_TOTAL_BYTES
    match = re.fullmatch(r"\s*([0-9]+)\s*([kmgtKMGT]?)(i?[bB])?\s*", raw)
    if match is None or int(match.group(1)) < 1:
        raise BadInput(
            f"TXCRIPT_BACKUP_MAX_SIZE must be a size such as 500M or 4G (at least 1), not `{raw}`"
        )
    return int(match.group(1)) * _SIZE_UNITS[match.group(2).lower()]


def check_settings() -> None:
    """Fail before a write starts when a backup knob is set to a value that means nothing."""
    keep_count()
    max_total_bytes()


# ------------------------------------------------------------------------------ identity


def new_id(harness: str, operation: str, session: str | None) -> tuple[str, datetime]:
    now = datetime.now(UTC)
    label = "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "_" for ch in session or ""
    )
    backup_id = f"{now:%Y%m%dT%H%M%S%fZ}-{harness}-{operation}" + (
        f"-{label[:36]}" if label else ""
    )
    if not ID_PATTERN.fullmatch(backup_id):
        raise StoreError(f"cannot name a backup for {harness} {operation}")
    return backup_id, now


def stamp(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _inside(path: Path) -> bool:
    """Whether ``path`` is directly inside the backup directory (no escape by any route)."""
    try:
        return path.parent.resolve() == backup_dir().resolve() and not path.is_symlink()
    except OSError:
        return False


# ------------------------------------------------------------------------------ signals


class Interrupted(KeyboardInterrupt):
    """SIGTERM arrived while a backup or a guarded write was in progress."""


@contextlib.contextmanager
def signals_as_exceptions() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`Interrupted` (as SIGINT does), so cleanup runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_interrupted(signum: int, frame: FrameType | None) -> None:
        raise Interrupted(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, raise_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT/SIGTERM back for a step that must not be cut in two (COMMIT + publish)."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    wanted = {signal.SIGINT, signal.SIGTERM}
    old = mask(signal.SIG_BLOCK, wanted)
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, old)


# ------------------------------------------------------------------------------ partial files


class Claim:
    """An exclusive ``flock`` on a partial file or directory, held while its writer works."""

    def __init__(self, path: Path, *, directory: bool = False) -> None:
        self.path = path
        if directory:
            path.mkdir(parents=True)
            flags = os.O_RDONLY
        else:
            flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        self.fd = os.open(path, flags, 0o600)
        if fcntl is not None:
            fcntl.flock(self.fd, fcntl.LOCK_EX)

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the only descriptor drops the flock
            self.fd = -1


def is_abandoned(path: Path) -> bool:
    """Whether no live writer holds ``path`` (a partial file or directory)."""
    if fcntl is None:
        try:
            return datetime.now(UTC).timestamp() - path.stat().st_mtime > 3600
        except OSError:
            return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_with_sidecars(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()
    for sidecar in SIDECARS:
        with contextlib.suppress(OSError):
            Path(str(path) + sidecar).unlink()


def write_manifest(backup: Backup) -> None:
    data = (json.dumps(backup.as_json() | {"path": None}, indent=2) + "\n").encode()
    write_atomic(backup_dir() / f"{backup.id}.json", data)


def ensure_dir() -> Path:
    directory = backup_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"cannot create {directory}: {exc.strerror or exc}; nothing was written"
        ) from None
    if directory.is_symlink() or not directory.is_dir():
        raise StoreError(f"{directory} is not a directory; nothing was written")
    return directory


# ------------------------------------------------------------------------------ snapshots


def snapshot(
    database: Path,
    *,
    harness: str,
    operation: str = "snapshot",
    session: str | None = None,
    copy: Callable[[sqlite3.Connection], None],
    protect: str | None = None,
) -> Backup:
    """A whole-database copy: ``copy(target)`` fills the target connection (the backup API)."""
    check_settings()
    directory = ensure_dir()
    try:
        size = database.stat().st_size
        free = shutil.disk_usage(directory).free
    except OSError as exc:
        raise StoreError(f"backing up {database}: {exc.strerror or exc}") from None
    if free < size + (size >> 4) + (1 << 20):
        raise StoreError(
            f"backing up {database}: not enough free space in {directory} "
            f"({size >> 20} MiB needed, {free >> 20} MiB free); nothing was written"
        )
    backup_id, now = new_id(harness, operation, session)
    partial = directory / f"{backup_id}{PARTIAL['snapshot']}"
    claim: Claim | None = None
    try:
        with signals_as_exceptions():
            try:
                claim = Claim(partial)
                target = sqlite3.connect(partial)
                try:
                    copy(target)
                finally:
                    target.close()
                os.fsync(claim.fd)
                backup = Backup(
                    id=backup_id,
                    harness=harness,
                    database=str(database.resolve()),
                    operation=operation,
                    session=session,
                    created_at=stamp(now),
                    size=partial.stat().st_size,
                    kind="snapshot",
                )
                with signals_deferred():
                    os.replace(partial, backup.path)
                    try:
                        write_manifest(backup)
                    except StoreError:
                        remove_with_sidecars(backup.path)
                        raise
            except (sqlite3.Error, OSError) as exc:
                raise StoreError(f"backing up {database}: {exc}; nothing was written") from None
    except BaseException:
        remove_with_sidecars(partial)
        raise
    finally:
        if claim is not None:
            claim.release()
    prune(protect=(backup.id, protect))
    return backup


def restore_snapshot(backup: Backup, *, copy_into: Callable[[Path], None]) -> Backup | None:
    """Copy a snapshot over its database, after snapshotting the current state in turn.

    ``copy_into(database)`` does the copy (the harness knows how to open its store). Returns
    the snapshot of the state that was replaced, or None when there was nothing to replace.
    """
    database = Path(backup.database)
    safety = None
    if database.is_file():
        safety = snapshot(
            database,
            harness=backup.harness,
            operation="pre-restore",
            copy=lambda target: _copy_file(database, target),
            protect=backup.id,
        )
    copy_into(database)
    return safety


def _copy_file(source: Path, target: sqlite3.Connection) -> None:
    src = sqlite3.connect(source.absolute().as_uri() + "?mode=ro", uri=True, timeout=5.0)
    try:
        src.backup(target)
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
    prune_now: bool = True,
) -> Backup:
    """A whole-database snapshot of a plain SQLite file (see :func:`snapshot`)."""

    def copy(target: sqlite3.Connection) -> None:
        src = sqlite3.connect(
            database.absolute().as_uri() + "?mode=ro", uri=True, timeout=busy_timeout
        )
        try:
            src.backup(target)
        finally:
            src.close()

    return snapshot(
        database, harness=harness, operation=operation, session=session, copy=copy, protect=protect
    )


# ------------------------------------------------------------------------------ files


def create_files(
    paths: Sequence[Path], *, harness: str, operation: str, session: str | None = None
) -> Backup:
    """Copy a file-backed session's files (directories whole) before ``operation``."""
    existing = [path.absolute() for path in paths if path.exists()]
    if not existing:
        raise StoreError("backing up: none of the session's files exist; nothing was written")
    check_settings()
    directory = backup_dir()
    backup_id, now = new_id(harness, operation, session)
    target = directory / f"{backup_id}.files"
    partial = directory / f"{backup_id}{PARTIAL['files']}"
    claim: Claim | None = None
    try:
        with signals_as_exceptions():
            try:
                size = sum(regular_files_size(path) for path in existing)
                directory.mkdir(parents=True, exist_ok=True)
                if shutil.disk_usage(directory).free < size + (1 << 20):
                    raise StoreError(
                        f"backing up {existing[0]}: not enough free space in {directory}; "
                        "nothing was written"
                    )
                claim = Claim(partial, directory=True)
                for index, path in enumerate(existing):
                    slot = partial / str(index)
                    slot.mkdir(parents=True)
                    if path.is_dir():
                        shutil.copytree(path, slot / path.name, symlinks=True)
                    else:
                        shutil.copy2(path, slot / path.name)
                backup = Backup(
                    id=backup_id,
                    harness=harness,
                    database=str(existing[0]),
                    operation=operation,
                    session=session,
                    created_at=stamp(now),
                    size=size,
                    kind="files",
                    files=tuple(str(path) for path in existing),
                )
                with signals_deferred():
                    os.replace(partial, target)
                    try:
                        write_manifest(backup)
                    except StoreError:
                        remove_with_sidecars(target)
                        raise
            except OSError as exc:
                raise StoreError(f"backing up {existing[0]}: {exc}; nothing was written") from None
    except BaseException:
        remove_with_sidecars(partial)
        raise
    finally:
        if claim is not None:
            claim.release()
    prune(protect=(backup.id,))
    return backup


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


# ------------------------------------------------------------------------------ listing


def parse_manifest(data: Any, name: str) -> Backup | None:
    """A manifest as a :class:`Backup`, or None (with the reason warned) when it is not one."""
    problem = None
    if not isinstance(data, dict):
        problem = "not a JSON object"
    else:
        kind = data.get("kind", "snapshot")
        kind = "snapshot" if kind == "sqlite" else kind
        backup_id = data.get("id")
        strings = ("harness", "database", "operation", "created_at")
        if not isinstance(backup_id, str) or not ID_PATTERN.fullmatch(backup_id):
            problem = "its id is not a backup id"
        elif f"{backup_id}.json" != name:
            problem = "its id does not match its file name"
        elif kind not in KINDS:
            problem = f"unknown kind `{kind}`"
        elif not all(isinstance(data.get(k), str) for k in strings):
            problem = "a field is missing or not text"
        elif not os.path.isabs(data["database"]):
            problem = "its database path is not absolute"
        elif not (data.get("session") is None or isinstance(data.get("session"), str)):
            problem = "its session is not text"
        elif type(data.get("size", 0)) is not int or data.get("size", 0) < 0:
            problem = "its size is not a byte count"
        elif not isinstance(data.get("files", []), list) or not all(
            isinstance(f, str) and os.path.isabs(f) for f in data.get("files", [])
        ):
            problem = "its file list is not a list of absolute paths"
        elif not all(
            data.get(h) is None or isinstance(data.get(h), str)
            for h in ("before_hash", "after_hash")
        ):
            problem = "its hashes are not text"
        else:
            return Backup(
                id=backup_id,
                harness=data["harness"],
                database=data["database"],
                operation=data["operation"],
                session=data.get("session"),
                created_at=data["created_at"],
                size=data.get("size", 0),
                kind=kind,
                files=tuple(data.get("files", ())),
                before_hash=data.get("before_hash"),
                after_hash=data.get("after_hash"),
            )
    warn(f"ignoring backup manifest {name}: {problem}")
    return None


def _read_manifest(path: Path) -> Backup | None:
    if not _inside(path):
        return None
    try:
        data = json.loads(read_regular(path, limit=_MANIFEST_LIMIT))
    except (StoreError, ValueError, RecursionError):
        warn(f"ignoring backup manifest {path.name}: not readable JSON")
        return None
    backup = parse_manifest(data, path.name)
    if backup is None or not _inside(backup.path) or not backup.path.exists():
        return None
    return backup


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


def discard(backup: Backup) -> None:
    """Remove a backup: its data, its manifest and any SQLite sidecars of its file."""
    if _inside(backup.path):
        remove_with_sidecars(backup.path)
    with contextlib.suppress(OSError):
        (backup_dir() / f"{backup.id}.json").unlink()


def prune(protect: Sequence[str | None] = ()) -> None:
    """Keep the newest :func:`keep_count` per store and :func:`max_total_bytes` in all."""
    keep, budget = keep_count(), max_total_bytes()
    kept: list[Backup] = []
    seen: dict[str, int] = {}
    for backup in list_backups():
        seen[backup.database] = seen.get(backup.database, 0) + 1
        if seen[backup.database] > keep and backup.id not in protect:
            discard(backup)
        else:
            kept.append(backup)
    total = sum(b.size for b in kept)
    for backup in reversed(kept):  # oldest first
        if total <= budget:
            break
        if backup.id not in protect:
            discard(backup)
            total -= backup.size


# ------------------------------------------------------------------------------ lookup


def find(backup_id: str) -> Backup:
    """A backup by id or unique id prefix."""
    if not backup_id.strip():
        raise BadInput("a backup id is empty (try `txcript restore` to list them)")
    matches = [b for b in list_backups() if b.id.startswith(backup_id)]
    exact = [b for b in matches if b.id == backup_id]
    if exact:
        return exact[0]
    if not matches:
        raise NotFound(f"no backup matches `{backup_id}` (try `txcript restore`)")
    if len(matches) > 1:
        raise Ambiguous(f"`{backup_id}` matches {len(matches)} backups — add characters")
    return matches[0]


def restore(backup: Backup, *, busy_timeout: float = 5.0) -> Backup | None:
    """Put a snapshot or a files backup back (row backups are undone by their harness)."""
    if backup.kind == "files":
        return _restore_files(backup)
    if backup.kind != "snapshot":
        raise BadInput(f"backup {backup.id} is a row backup; its harness undoes it")

    def copy_into(database: Path) -> None:
        database.parent.mkdir(parents=True, exist_ok=True)
        try:
            src = sqlite3.connect(backup.path.absolute().as_uri() + "?mode=ro", uri=True)
            try:
                dst = sqlite3.connect(database, timeout=busy_timeout)
                try:
                    src.backup(dst)
                finally:
                    dst.close()
            finally:
                src.close()
        except sqlite3.Error as exc:
            raise StoreError(f"restoring {database}: {exc}") from None

    return restore_snapshot(backup, copy_into=copy_into)
