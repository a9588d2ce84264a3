"""Files read without surprises and written without leaving half a file behind.

Reads: a store file or a document is opened only if it is a regular file (checked with ``fstat``
on the open descriptor, opened with ``O_NONBLOCK`` so a FIFO cannot block the open), and read with
a size cap, so a FIFO, a device or a link to ``/dev/zero`` can neither hang txcript nor exhaust
its memory. The caps are documented in ``docs/security.md``.

Writes: through a temporary file in the same directory and a rename, so a reader never sees a
partial file; :class:`Undo` takes back every step of a multi-file save that fails half way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, BinaryIO

from txcript.errors import StoreError, StoreUnreadable

MIB = 1 << 20
#: The largest session file of a store read whole (a Claude Code or Codex JSONL, a Gemini chat).
MAX_SESSION_FILE_BYTES = 1024 * MIB
#: The largest small side file read (``workspace.json``, ``meta.json``, ``projects.json``, an
#: index line file such as ``session_index.jsonl``).
MAX_SIDE_FILE_BYTES = 64 * MIB
#: The largest document (``export``/``convert``/``continue`` input) read.
MAX_DOCUMENT_BYTES = 512 * MIB


class FileRefused(StoreUnreadable):
    """A file txcript will not read: not a regular file, or over its size cap."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def open_regular(path: Path | str) -> BinaryIO:
    """Open ``path`` for binary reading if it is a regular file (symlinks to one are followed).

    Raises :class:`FileRefused` for a FIFO, socket, device or directory, without blocking, and
    :class:`StoreError` when the file cannot be opened.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise FileRefused(f"{path} is a directory, not a file") from None
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise FileRefused(f"{path} is {_kind(mode)}, not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path | str, *, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`open_regular`)."""
    return read_regular_stat(path, limit=limit)[0]


def read_regular_stat(path: Path | str, *, limit: int) -> tuple[bytes, os.stat_result]:
    """:func:`read_regular`, with the ``fstat`` of the file it read (its size and mtime)."""
    with open_regular(path) as handle:
        status = os.fstat(handle.fileno())
        if status.st_size > limit:
            raise FileRefused(f"{path} is {status.st_size} bytes, over the {_mib(limit)} limit")
        data = read_capped(handle, limit, path)
    return data, status


def read_capped(stream: IO[bytes], limit: int, label: Path | str) -> bytes:
    """Everything ``stream`` holds, refused with :class:`FileRefused` past ``limit`` bytes.

    For streams whose size is not known up front (a decompressor, a pipe, a file that grows).
    """
    try:
        data = stream.read(limit + 1)
    except OSError as exc:
        raise StoreError(f"cannot read {label}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise FileRefused(f"{label} is over the {_mib(limit)} limit")
    return data


def _mib(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= MIB else f"{limit} byte"


def read_head(path: Path | str, *, limit: int) -> bytes:
    """At most the first ``limit`` bytes of a regular file (for bounded head scans)."""
    with open_regular(path) as handle:
        try:
            return handle.read(limit)
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None


def _default_mode() -> int:
    """The mode a plain ``open(path, "w")`` would give a new file under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(
    path: Path, data: bytes | Iterable[bytes], *, follow_symlinks: bool = True
) -> None:
    """Write ``data`` (bytes, or chunks written as they come) to ``path`` through a temporary
    file in the same directory and a rename.

    A symlink is written through (its target is replaced, the link stays), unless
    ``follow_symlinks`` is false (every store write): then a link at ``path`` is refused, checked
    again with ``lstat`` right before the rename. An existing file keeps its permission bits, a
    new one gets the umask's (``mkstemp`` alone would leave 0600). When the chunks raise, the
    temporary file is removed and ``path`` is untouched.
    """
    if path.is_symlink():
        if not follow_symlinks:
            raise PathRefused(f"refusing to write {path}: it is a symbolic link")
        path = path.resolve()
    try:
        mode = path.stat().st_mode & 0o7777
    except OSError:
        mode = _default_mode()
    directory = path.parent if str(path.parent) else Path(".")
    try:
        import tempfile  # only writes need it (and random, which it loads)

        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise StoreError(f"writing {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in (data,) if isinstance(data, bytes) else data:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        if not follow_symlinks and os.path.islink(path):
            raise PathRefused(f"refusing to write {path}: it became a symbolic link")
        os.replace(temp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise StoreError(f"writing {path}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def write_output_file(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Write a document the user asked for with ``--out``.

    A regular file (or a new one) is written atomically. A FIFO or a character device that is
    already there is written *into* (it is never replaced by a regular file); a FIFO without a
    reader is refused instead of blocking. A directory or socket is refused.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise StoreError(f"writing {path}: {exc.strerror or exc}") from None
    if mode is None or stat.S_ISREG(mode):
        write_atomic(path, data)
        return
    if stat.S_ISDIR(mode) or stat.S_ISSOCK(mode):
        raise StoreError(f"writing {path}: it is {_kind(mode)}, not a file")
    flags = os.O_WRONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if stat.S_ISFIFO(mode) and exc.errno == errno.ENXIO:
            raise StoreError(f"writing {path}: it is a FIFO with no reader") from None
        raise StoreError(f"writing {path}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) and hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        for chunk in (data,) if isinstance(data, bytes) else data:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
    except OSError as exc:
        raise StoreError(f"writing {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def modified_at(stat: os.stat_result) -> datetime:
    """A file's modification time (a session file's ``updated_at``)."""
    return datetime.fromtimestamp(stat.st_mtime_ns / 1e9, tz=UTC)


def file_fingerprints(paths: Iterable[str]) -> dict[str, str]:
    """``"<mtime ns>:<size>"`` per path, ``""`` when it cannot be read (file stores' cursors)."""
    out: dict[str, str] = {}
    for path in paths:
        try:
            stat = os.stat(path)
        except OSError:
            out[path] = ""
            continue
        out[path] = file_key(stat)
    return out


def file_key(stat: os.stat_result) -> str:
    """A file's fingerprint, ``"<mtime ns>:<size>"``: the search index and the metadata cache
    both key a file store's sessions on it."""
    return f"{stat.st_mtime_ns}:{stat.st_size}"


def decode_lossless(data: bytes) -> str:
    """Bytes as text, invalid UTF-8 kept as surrogate escapes (re-encodes to the same bytes)."""
    return data.decode("utf-8", errors="surrogateescape")


def missing_directories(directory: Path) -> list[Path]:
    """The directories ``mkdir -p directory`` would create, deepest first."""
    missing: list[Path] = []
    current = directory
    while not os.path.lexists(current) and current.parent != current:
        missing.append(current)
        current = current.parent
    return missing


def remove_empty(directories: Iterable[Path]) -> None:
    """Remove each directory (deepest first) a failed write created, if it is still empty."""
    for directory in directories:
        with contextlib.suppress(OSError):
            directory.rmdir()


class Undo:
    """The steps a save has taken so far, undone newest first when a later step fails."""

    def __init__(self) -> None:
        self._steps: list[Callable[[], None]] = []

    def add(self, step: Callable[[], None]) -> None:
        self._steps.append(step)

    def run(self) -> None:
        for step in reversed(self._steps):
            with contextlib.suppress(OSError, StoreError):
                step()
        self._steps.clear()

    def make_dirs(self, directory: Path) -> None:
        """``mkdir -p``, remembering every directory it creates (an undo removes them)."""
        self._steps.extend(created.rmdir for created in reversed(missing_directories(directory)))
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"creating {directory}: {exc.strerror or exc}") from None

    def write(self, path: Path, data: bytes) -> None:
        """Write ``path`` atomically, never through a symlink; an undo puts back what it held
        (or removes it)."""
        if not os.path.lexists(path):
            write_atomic(path, data, follow_symlinks=False)
            self._steps.append(path.unlink)
            return
        if os.path.islink(path):
            raise PathRefused(f"refusing to write {path}: it is a symbolic link")
        previous = read_regular(path, limit=MAX_SESSION_FILE_BYTES)
        write_atomic(path, data, follow_symlinks=False)
        self._steps.append(lambda: write_atomic(path, previous, follow_symlinks=False))


# ------------------------------------------------------------------------------ write preflight

#: The longest file name (one path component, in bytes) the common file systems accept.
NAME_MAX = 255
#: The longest path (in bytes, with its terminating NUL) Linux accepts.
PATH_MAX = 4096


class PathRefused(StoreError):
    """A store write that would leave the store, pass a symlink, or cannot be made (exit 1)."""


def preflight_write(
    root: Path, targets: Iterable[Path], *, store: str, access: bool = True
) -> None:
    """Check every file a store write will create or replace, before its first byte.

    ``targets`` are the files (and fallbacks) the write may touch, each under ``root``. For each
    one, from ``root`` down: every component is at most :data:`NAME_MAX` bytes; nothing below
    ``root`` is a symbolic link (``root`` itself and its ancestors may be: a linked ``~/.claude``
    is the user's choice); what exists on the way is a directory the user can search; the
    deepest existing directory is writable; an existing target is a regular file; and the
    resolved path stays inside the resolved root. Any failure raises :class:`PathRefused`, a
    one-line error, with nothing written. Writers then replace files without following links
    (:func:`write_atomic` with ``follow_symlinks=False``), which closes the gap left between
    this check and the write.

    With ``access`` false the rules on rights and file types (searchable, writable, an existing
    target a regular file) are left to a writer that checks them itself with messages of its own
    (Cursor desktop's save transaction); names, directories on the way, symlinks and containment
    are always checked.

    A writer into an SQLite database lists :func:`sqlite_files` of it: SQLite creates and writes
    its journal, ``-wal`` and ``-shm`` beside the database, so a link planted there is refused too.
    """
    base = Path(os.path.abspath(root))
    _check_ancestors(base, store, access)
    real_base = Path(os.path.realpath(base))
    for target in targets:
        _check_target(base, real_base, Path(os.path.abspath(target)), store, access)


def sqlite_files(database: Path) -> list[Path]:
    """A database and every sidecar SQLite may create or write beside it."""
    return [database, *(Path(f"{database}{suffix}") for suffix in ("-journal", "-wal", "-shm"))]


def _lstat(path: Path, target: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise PathRefused(f"cannot write {target}: {path}: {exc.strerror or exc}") from None


def _check_names(path: Path) -> None:
    size = len(os.fsencode(str(path)))
    if size >= PATH_MAX:
        raise PathRefused(
            f"cannot write {str(path)[:40]}…: the path is {size} bytes (paths are limited to "
            f"{PATH_MAX - 1})"
        )
    for part in path.parts:
        size = len(os.fsencode(part))
        if size > NAME_MAX:
            shown = part if len(part) <= 40 else part[:39] + "…"
            raise PathRefused(
                f"cannot write {shown!r}: a path component is {size} bytes "
                f"(file names are limited to {NAME_MAX})"
            )


def _check_ancestors(base: Path, store: str, access: bool) -> None:
    """The root (or its deepest existing ancestor) is a directory this user may write in."""
    _check_names(base)
    current = base
    while True:
        status = _lstat(current, base)
        if status is not None:
            break
        if current.parent == current:
            raise PathRefused(f"cannot write under {base}: no existing directory above it")
        current = current.parent
    try:
        mode = os.stat(current).st_mode
    except OSError as exc:
        raise PathRefused(f"cannot write under {base}: {current}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(mode):
        raise PathRefused(f"cannot write the {store} store at {base}: {current} is not a directory")
    if access:
        _check_writable(current, base)


def _check_writable(directory: Path, target: Path) -> None:
    if os.access(directory, os.W_OK | os.X_OK):
        return
    with contextlib.suppress(OSError, AttributeError):
        if os.statvfs(directory).f_flag & os.ST_RDONLY:
            raise PathRefused(f"cannot write {target}: {directory} is on a read-only file system")
    raise PathRefused(f"cannot write {target}: permission denied in {directory}")


def _check_target(base: Path, real_base: Path, target: Path, store: str, access: bool) -> None:
    _check_names(target)
    if target == base or not target.is_relative_to(base):
        raise PathRefused(f"refusing to write {target}: it is outside the {store} store {base}")
    current = base
    deepest = base if os.path.lexists(base) else None
    parts = target.relative_to(base).parts
    for index, part in enumerate(parts):
        current = current / part
        status = _lstat(current, target)
        if status is None:
            break
        last = index == len(parts) - 1
        if stat.S_ISLNK(status.st_mode):
            raise PathRefused(
                f"refusing to write {target}: {current} is a symbolic link and could lead "
                f"outside the {store} store"
            )
        if last:
            if access and not stat.S_ISREG(status.st_mode):
                raise PathRefused(f"refusing to write {target}: it is {_kind(status.st_mode)}")
            continue
        if not stat.S_ISDIR(status.st_mode):
            raise PathRefused(f"cannot write {target}: {current} is not a directory")
        if access and not os.access(current, os.X_OK):
            raise PathRefused(f"cannot write {target}: permission denied in {current}")
        deepest = current
    if deepest is not None and access:
        _check_writable(deepest, target)
    real_parent = Path(os.path.realpath(deepest if deepest is not None else base))
    if not real_parent.is_relative_to(real_base):
        raise PathRefused(f"refusing to write {target}: it resolves outside the {store} store")


def regular_files_size(path: Path) -> int:
    """Bytes of the regular files at or under ``path``. Links are not followed (a link planted
    in txcript's own dirs cannot make a total count what lies elsewhere), and an entry that
    vanishes or cannot be read while walking counts as nothing."""
    try:
        top = os.lstat(path)
    except OSError:
        return 0
    if stat.S_ISREG(top.st_mode):
        return top.st_size
    total = 0
    for directory, _dirs, files in os.walk(path):
        for name in files:
            try:
                info = os.lstat(os.path.join(directory, name))
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                total += info.st_size
    return total
