"""File writes that never leave a half-written file behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

from txcript.errors import StoreError


def _default_mode() -> int:
    """The mode a plain ``open(path, "w")`` would give a new file under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    A symlink is written through (its target is replaced, the link stays); an existing file keeps
    its permission bits, a new one gets the umask's (``mkstemp`` alone would leave 0600).
    """
    if path.is_symlink():
        path = path.resolve()
    try:
        mode = path.stat().st_mode & 0o7777
    except OSError:
        mode = _default_mode()
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise StoreError(f"writing {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise StoreError(f"writing {path}: {exc.strerror or exc}") from None


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
        out[path] = f"{stat.st_mtime_ns}:{stat.st_size}"
    return out


def decode_lossless(data: bytes) -> str:
    """Bytes as text, invalid UTF-8 kept as surrogate escapes (re-encodes to the same bytes)."""
    return data.decode("utf-8", errors="surrogateescape")


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
        missing: list[Path] = []
        current = directory
        while not os.path.lexists(current) and current.parent != current:
            missing.append(current)
            current = current.parent
        self._steps.extend(created.rmdir for created in reversed(missing))
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"creating {directory}: {exc.strerror or exc}") from None

    def write(self, path: Path, data: bytes) -> None:
        """Write ``path`` atomically; an undo puts back what it held (or removes it)."""
        if not os.path.lexists(path):
            write_atomic(path, data)
            self._steps.append(path.unlink)
            return
        try:
            previous = path.read_bytes()
        except OSError as exc:
            raise StoreError(f"reading {path}: {exc.strerror or exc}") from None
        write_atomic(path, data)
        self._steps.append(lambda: write_atomic(path, previous))
