"""Reading an app's SQLite database without disturbing the app or changing a byte beside it.

Cursor desktop, the Cursor CLI and OpenCode keep their sessions in SQLite databases that the app
may hold open and write while txcript reads. A read must never block the app for long, never
create or change a file beside the database, and always see the last committed state:

* **Resting WAL database** (header bytes 18/19 = 2, no ``-wal``/``-shm`` beside it): nobody has
  it open in WAL mode, so it is opened with ``immutable=1``. A plain ``mode=ro`` open would
  *create* ``-wal`` and ``-shm`` sidecars and leave them behind.
* **WAL database with a ``-wal`` but no ``-shm``** (a closed app, or a copied store): the newest
  commits live only in the ``-wal``, so ``immutable=1`` would show an older state, and
  ``mode=ro`` would create a ``-shm``. The read opens a private snapshot instead: the database is
  hard-linked (or copied, across file systems) and the ``-wal`` copied into a fresh directory
  under txcript's cache dir, and that copy is opened ``mode=ro``. Nothing is created beside the
  original; a hard link changes only the file's link count and ctime, never its bytes or mtime.
* **Live WAL database** (a ``-shm`` exists): ``mode=ro``. SQLite's WAL protocol lets the read
  proceed beside the writer; the sidecars belong to the running app.
* **Rollback-journal database** (bytes 18/19 = 1): ``mode=ro``, which creates nothing, inside one
  short transaction that waits up to the busy timeout while a writer commits.

Because the app could start or write during an immutable or snapshot read, the file's size, mtime
and sidecars are compared before and after; if anything changed, the read is repeated.

Every read runs inside one transaction, so its queries see one consistent snapshot. SQLite
failures become one-line :class:`~txcript.errors.StoreError` (locked, I/O) or
:class:`~txcript.errors.StoreUnreadable` (not SQLite, truncated, malformed) messages naming the
file by the caller's label.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import msgspec

from txcript.errors import StoreError, StoreUnreadable
from txcript.shared.dirs import cache_dir

T = TypeVar("T")

_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100
#: SQLite error codes (primary) that mean "the file is not a usable database".
_UNREADABLE_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED
#: How many times a read is repeated because the file changed under it.
_MAX_ATTEMPTS = 5


class InvalidText:
    """A TEXT cell whose bytes are not UTF-8; such cells are treated as missing."""

    __slots__ = ("raw",)

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def __repr__(self) -> str:
        return f"InvalidText({self.raw[:20]!r}…)"


def decode_text(raw: bytes) -> str | InvalidText:
    """The connection's ``text_factory``: UTF-8 text, or :class:`InvalidText` for bad bytes."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return InvalidText(raw)


class FileInfo(msgspec.Struct, frozen=True, gc=False):
    """What the database file's first 100 bytes say, before SQLite opens it."""

    size: int
    wal: bool
    #: ``(page_size * page_count)`` from a valid in-header size, else None.
    declared_size: int | None


def inspect(path: Path, label: str) -> FileInfo | None:
    """Sniff the file: None when it does not exist; raise when it is not an SQLite database.

    A FIFO, socket or device is refused without being opened for reading.
    """
    from txcript.shared.files import open_regular

    try:
        if not path.exists():
            return None
    except OSError as exc:
        raise StoreError(f"cannot read {label}: {exc.strerror or exc}") from None
    if path.is_dir():
        raise StoreUnreadable(f"{label} is a directory, not a database")
    try:
        with open_regular(path) as handle:
            head = handle.read(_HEADER_SIZE)
            size = os.fstat(handle.fileno()).st_size
    except StoreUnreadable as exc:
        raise StoreUnreadable(f"{label} is not a database ({exc})") from None
    except OSError as exc:
        raise StoreError(f"cannot read {label}: {exc.strerror or exc}") from None
    if size == 0:
        # SQLite treats an empty file as an empty database.
        return FileInfo(size=0, wal=False, declared_size=None)
    if not head.startswith(_MAGIC):
        if _MAGIC.startswith(head):
            raise StoreUnreadable(f"{label} is truncated ({size} bytes)")
        raise StoreUnreadable(f"{label} is not an SQLite database")
    if len(head) < _HEADER_SIZE:
        raise StoreUnreadable(f"{label} is truncated ({size} bytes)")
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


def sidecars(path: Path) -> tuple[bool, bool, bool]:
    """Whether ``-wal``, ``-shm`` and ``-journal`` files exist beside the database."""
    base = str(path)
    return (
        os.path.lexists(base + "-wal"),
        os.path.lexists(base + "-shm"),
        os.path.lexists(base + "-journal"),
    )


def _stat_pair(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)


def _file_state(path: Path) -> tuple[object, ...]:
    base = str(path)
    return (_stat_pair(base), _stat_pair(base + "-wal"), sidecars(path))


#: A file written this recently (ns) may be written again within its file system's timestamp
#: granularity without its size or mtime moving, so it gives no change token yet.
_SETTLED_NS = 2_000_000_000


def change_token(path: Path) -> str:
    """A token that moves whenever the database at ``path`` may have been written (its file, its
    WAL or its rollback journal), from ``stat`` alone; ``""`` (unknown) when a file cannot be
    examined or was written in the last two seconds."""
    base = str(path)
    settled = time.time_ns() - _SETTLED_NS
    parts = []
    for name in (base, base + "-wal", base + "-journal"):
        try:
            st = os.stat(name)
        except FileNotFoundError:
            parts.append("-")
            continue
        except OSError:
            return ""
        if st.st_mtime_ns >= settled:
            return ""
        parts.append(f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}")
    return "/".join(parts)


def connect(path: Path, *, immutable: bool, busy_timeout: float) -> sqlite3.Connection:
    """A read-only connection (``immutable=1`` or ``mode=ro``) decoding text leniently."""
    query = "?immutable=1" if immutable else "?mode=ro"
    uri = path.absolute().as_uri() + query
    conn = sqlite3.connect(uri, uri=True, timeout=busy_timeout, isolation_level=None)
    conn.text_factory = decode_text
    return conn


def translate(
    label: str, path: Path, exc: sqlite3.Error, *, busy_hint: str = "", writing: bool = False
) -> Exception:
    """An SQLite failure as the one-line error the CLI shows (of a write, rolled back, when
    ``writing``)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if primary in _BUSY_CODES or "locked" in message:
        hint = f"; {busy_hint}" if busy_hint else ""
        return StoreError(
            f"{label} is locked by another process (waited for the busy timeout){hint}"
        )
    if "readonly" in message and os.path.exists(str(path) + "-journal"):
        return StoreError(
            f"{label} has a hot journal left by an interrupted write; a read-only "
            "reader cannot roll it back. Open the app (or run any txcript write) to recover it"
        )
    if primary in _UNREADABLE_CODES:
        return StoreUnreadable(f"{label} is unreadable: {message}")
    if writing:
        return StoreError(f"cannot write {label}: {message}; nothing was written")
    return StoreError(f"cannot read {label}: {message}")


def check_complete(path: Path, info: FileInfo, label: str) -> None:
    """Refuse a file shorter than its header says (truncated), unless a journal explains it."""
    if (
        info.declared_size is not None
        and not any(sidecars(path))
        and info.size < info.declared_size
    ):
        raise StoreUnreadable(f"{label} is truncated ({info.size} of {info.declared_size} bytes)")


@contextlib.contextmanager
def _snapshot(path: Path, label: str) -> Iterator[Path]:
    """A private copy of a WAL database and its ``-wal``, removed afterwards."""
    import shutil  # (with tempfile, only here: most reads never copy, and these import a lot)
    import tempfile

    parent = cache_dir() / "snapshots"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        directory = Path(tempfile.mkdtemp(prefix="read-", dir=parent))
    except OSError:
        directory = Path(tempfile.mkdtemp(prefix="txcript-read-"))
    try:
        copy = directory / path.name
        try:
            os.link(path, copy)
        except OSError:
            try:
                shutil.copyfile(path, copy)
            except OSError as exc:
                raise StoreError(
                    f"cannot read {label}: copying it for a read that leaves its directory "
                    f"untouched failed: {exc.strerror or exc}"
                ) from None
        try:
            shutil.copyfile(str(path) + "-wal", str(copy) + "-wal")
        except FileNotFoundError:
            pass  # checkpointed away since: the main file alone is the newest state
        except OSError as exc:
            raise StoreError(f"cannot read {label}-wal: {exc.strerror or exc}") from None
        yield copy
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def read(
    path: Path,
    info: FileInfo,
    work: Callable[[sqlite3.Connection], T],
    *,
    label: str,
    busy_timeout: float,
    busy_hint: str = "",
) -> T:
    """Run ``work`` in one read transaction on ``path``; see the module notes for the open mode."""
    check_complete(path, info, label)
    for _ in range(_MAX_ATTEMPTS):
        wal, shm, _ = sidecars(path)
        mode = "live"
        if info.wal and not (wal or shm):
            mode = "immutable"
        elif info.wal and wal and not shm:
            mode = "snapshot"
        before = _file_state(path)
        with contextlib.ExitStack() as stack:
            target = stack.enter_context(_snapshot(path, label)) if mode == "snapshot" else path
            try:
                conn = connect(target, immutable=mode == "immutable", busy_timeout=busy_timeout)
            except sqlite3.Error as exc:
                raise translate(label, path, exc, busy_hint=busy_hint) from None
            try:
                conn.execute("BEGIN")
                result = work(conn)
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise translate(label, path, exc, busy_hint=busy_hint) from None
            finally:
                conn.close()
        if mode == "live" or _file_state(path) == before:
            return result
        # The app opened or changed the file during the read: read it again.
    raise StoreError(f"cannot read {label}: it kept changing while being read; try again")
