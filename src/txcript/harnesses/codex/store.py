"""The Codex store: rollout files under ``$CODEX_HOME`` (default ``~/.codex``).

**Layout.** Live threads are ``sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDThh-mm-ss>-<id>.jsonl``;
archived ones sit under ``archived_sessions/``; the original TypeScript CLI wrote one
``rollout-….json`` document per session. Newer builds may compress a rollout as
``….jsonl.zst``; when both exist the plain file wins. ``session_index.jsonl`` is an append-only
log of ``{id, thread_name, updated_at}`` whose last line for an id is the thread's name, and a
SQLite state database may mirror thread metadata (see :mod:`.statedb`).

**Discovery** walks both trees without following directory symlinks (symlinked files are listed),
sniffs each file by content (its first JSON line must be a rollout header; a ``.json`` file must
be a legacy document), and reads only the head of a rollout — until :class:`~.codec.MetaScan` has
everything, normally a handful of lines — so its metadata is exactly what load + ``to_common``
gives. ``updated_at`` is the file's mtime.

**Noticing changes.** A rollout's fingerprint is its own ``"<mtime ns>:<size>"`` joined with
``session_index.jsonl``'s: a listing depends on both (the thread name comes from the index), so a
search index that keeps listings (:class:`~txcript.harnesses.base.ListsByFile`) lists a rollout
again when either moved, and only then.

**Compressed rollouts** need a zstd decoder: Python 3.14's ``compression.zstd`` or the
``zstandard`` package. Without one, discovery skips them with one warning and loading one is a
one-line error.

**Saving** is all or nothing. It validates the id and checks the state database's schema (an
unknown one refuses the save) before anything is written; then it appends the thread's name to
``session_index.jsonl`` (when it has one the index does not already give it; a name alone shows
no session), writes the rollout atomically, and registers the thread in the database in one
transaction last. When a step fails, the earlier ones are undone: the rollout removed (or its
previous bytes put back), the index line cut off again, the directories it created removed.

**Deleting** resolves symlinks and refuses anything outside ``sessions/`` and
``archived_sessions/`` or that is not a rollout. It first copies the rollout into a ``files``
backup (:func:`txcript.shared.backups.create_files`; if that fails nothing is removed), then
removes the file and the database row in one transaction. ``session_index.jsonl`` is
append-only and is left alone, so ``txcript restore <backup id>`` — which puts the rollout back
byte for byte — brings the session back with its name; the database row is not restored (Codex
re-registers a thread from its rollout; the next txcript save of it does too).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from txcript.diagnostics import skipped, warn
from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.model import Text, prompt_title
from txcript.shared import backups
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    MAX_SIDE_FILE_BYTES,
    FileRefused,
    PathRefused,
    Undo,
    decode_lossless,
    file_key,
    modified_at,
    open_regular,
    preflight_write,
    read_capped,
    read_regular,
    sqlite_files,
)
from txcript.shared.ids import UUID_IDS
from txcript.shared.jsonutil import INVALID, try_loads
from txcript.shared.timeutil import now

from . import codec, statedb
from .codec import MetaScan, stamp
from .native import (
    HARNESS,
    CodexSession,
    id_from_file_name,
    is_rollout_head,
    line_record,
    parse,
    records,
    render,
)
from .tools import dumps

_SUFFIXES = (".jsonl", ".jsonl.zst", ".json")
_CHUNK = 1 << 16


# ------------------------------------------------------------------------------------ files


class _NeedsZstd(Exception):
    """A ``.zst`` rollout and no zstd decoder installed."""


def _zstd_module() -> Any | None:
    """Python 3.14's ``compression.zstd``, else the ``zstandard`` package, else None."""
    for name in ("compression.zstd", "zstandard"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


@contextlib.contextmanager
def _open(path: Path) -> Iterator[IO[bytes]]:
    """The rollout's bytes as a stream: a regular file only (:func:`open_regular`), decompressed
    for ``.zst`` (callers cap what they read, so a decompression bomb cannot exhaust memory)."""
    module = _zstd_module() if path.name.endswith(".zst") else None
    if path.name.endswith(".zst") and module is None:
        raise _NeedsZstd(str(path))
    with contextlib.ExitStack() as stack:
        raw = stack.enter_context(open_regular(path))
        if module is None:
            yield raw
            return
        stream: IO[bytes] = stack.enter_context(module.open(raw, "rb"))
        yield stream


def _read_errors() -> tuple[type[BaseException], ...]:
    """What reading a rollout can raise: OS errors, a truncated or corrupt zstd frame."""
    module = _zstd_module()
    found = getattr(module, "ZstdError", None) if module is not None else None
    extra = (found,) if isinstance(found, type) and issubclass(found, BaseException) else ()
    return (OSError, EOFError, ValueError, *extra)


def _zstd_error(path: Path) -> StoreError:
    return StoreError(
        f"reading {path}: compressed Codex rollouts need a zstd decoder "
        "(install the `zstandard` package)"
    )


def _read_bytes(path: Path) -> bytes:
    if not os.path.lexists(path):
        raise BadInput(f"no Codex session at {path}")
    try:
        with _open(path) as stream:
            return read_capped(stream, MAX_SESSION_FILE_BYTES, path)
    except _NeedsZstd:
        raise _zstd_error(path) from None
    except _read_errors() as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise StoreError(f"reading {path}: {detail}") from None


def _lines(stream: IO[bytes], label: Path, limit: int = MAX_SESSION_FILE_BYTES) -> Iterator[bytes]:
    """The stream's lines without their ``\\n``, read in chunks: linear in the bytes read (each
    chunk is searched once, a long line is joined once) and refused past ``limit`` bytes."""
    parts: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        total += len(chunk)
        if total > limit:
            raise FileRefused(f"{label} is over the {limit >> 20} MiB limit")
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            parts.append(chunk[start:end])
            yield b"".join(parts)
            parts.clear()
            start = end + 1
        if start < len(chunk):
            parts.append(chunk[start:])
    yield b"".join(parts)


def _within(path: Path, directory: Path) -> bool:
    return path.parts[: len(directory.parts)] == directory.parts


# ------------------------------------------------------------------------------------ index


def read_index(path: Path) -> dict[str, str]:
    """Thread names from ``session_index.jsonl``: the last line for an id wins.

    A missing index names nothing; one that is not a regular file, or is over its cap, is left
    out with a warning (sessions are still listed, by their derived titles).
    """
    if not os.path.lexists(path):
        return {}
    try:
        data = read_regular(path, limit=MAX_SIDE_FILE_BYTES)
    except TxcriptError as exc:
        warn(f"ignoring thread names: {exc}")
        return {}
    names: dict[str, str] = {}
    for raw in data.split(b"\n"):
        value = try_loads(decode_lossless(raw)) if raw.strip() else INVALID
        if not isinstance(value, dict):
            continue
        thread_id, name = value.get("id"), value.get("thread_name")
        if isinstance(thread_id, str) and isinstance(name, str):
            if name:
                names[thread_id] = name
            else:
                names.pop(thread_id, None)
    return names


def _append_index(path: Path, thread_id: str, name: str) -> Callable[[], None]:
    """Append a name line to the index; returns the step that cuts it off again."""
    entry = dumps({"id": thread_id, "thread_name": name, "updated_at": stamp(now())}) + "\n"
    existed = os.path.lexists(path)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o666)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise PathRefused(f"refusing to write {path}: it is not a regular file")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "ab+") as handle:
            handle.seek(0, io.SEEK_END)
            before = handle.tell()
            if before:
                handle.seek(-1, io.SEEK_END)
                if handle.read(1) != b"\n":
                    entry = "\n" + entry
            data = entry.encode("utf-8", "surrogateescape")
            try:
                handle.write(data)
                handle.flush()
            except OSError:
                with contextlib.suppress(OSError):
                    handle.truncate(before)
                raise
    except OSError as exc:
        raise StoreError(f"writing {path}: {exc.strerror or exc}") from None
    after = before + len(data)

    def undo() -> None:
        with open(path, "r+b") as handle:
            if os.fstat(handle.fileno()).st_size != after:
                return  # someone appended since: leave their lines (and ours) alone
            handle.truncate(before)
        if not existed:
            path.unlink()

    return undo


# ------------------------------------------------------------------------------------ store


class CodexStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.sessions = root / "sessions"
        self.archived = root / "archived_sessions"
        self.index = root / "session_index.jsonl"

    # -- discovery --------------------------------------------------------------------------
    def _files(self, id_prefix: str = "") -> list[Path]:
        """Rollout files, sorted; with ``id_prefix``, only those whose name carries an id that
        starts with it."""
        found: list[Path] = []
        for top in (self.sessions, self.archived):
            for directory, _dirs, names in os.walk(top, followlinks=False):
                present = set(names)
                for name in names:
                    if not name.endswith(_SUFFIXES):
                        continue
                    if id_prefix and not id_from_file_name(name).startswith(id_prefix):
                        continue
                    if name.endswith(".zst") and name[: -len(".zst")] in present:
                        continue
                    found.append(Path(directory, name))
        return sorted(found)

    def _head(self, path: Path) -> MetaScan | None:
        """The meta scan of a rollout's head, or None when the file is not a Codex session."""
        if path.name.endswith(".json"):
            native = parse_legacy(decode_lossless(read_regular(path, limit=MAX_SESSION_FILE_BYTES)))
            return None if native is None else codec.scan_meta(records(native))
        scan = MetaScan()
        sniffed = False
        with _open(path) as stream:
            for index, raw in enumerate(_lines(stream, path)):
                if not raw.strip():
                    continue
                value = try_loads(decode_lossless(raw))
                if not sniffed:
                    if value is INVALID:
                        continue
                    if not is_rollout_head(value):
                        return None
                    sniffed = True
                record = line_record(index, value)
                if record is not None and scan.feed(record):
                    break
        return scan if sniffed else None

    def discover(self) -> list[Discovered]:
        return self._listed(self._files())

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The sessions whose id starts with ``id_prefix``, found by rollout file name (Codex
        names each rollout after its thread id) and listed exactly as :meth:`discover` does."""
        found = self._listed(self._files(id_prefix))
        return [d for d in found if d.meta_id.startswith(id_prefix)]

    def fingerprinted(self) -> dict[str, str]:
        """Every rollout :meth:`discover` looks at, with its fingerprint now (see
        :class:`txcript.harnesses.base.ListsByFile`)."""
        names = self._index_key()
        return {str(path): _fingerprint(str(path), names) for path in self._files()}

    def discover_references(self, references: Iterable[str]) -> list[Discovered]:
        """The sessions among ``references`` (rollouts :meth:`fingerprinted` named), each exactly
        as :meth:`discover` lists it. A rollout gone since, or a compressed one whose plain twin
        now exists, is not listed (discovery would not look at it)."""
        paths = []
        for reference in references:
            if reference.endswith(".zst") and os.path.lexists(reference[: -len(".zst")]):
                continue
            if os.path.lexists(reference):
                paths.append(Path(reference))
        return self._listed(paths)

    def _index_key(self) -> str | None:
        """``session_index.jsonl``'s part of every fingerprint: ``-`` when there is none, None
        when it cannot be examined (nothing is then known)."""
        try:
            return file_key(os.stat(self.index))
        except FileNotFoundError:
            return "-"
        except OSError:
            return None

    def _listed(self, paths: list[Path]) -> list[Discovered]:
        titles = read_index(self.index)
        found: list[Discovered] = []
        compressed = 0
        for path in paths:
            try:
                scan = self._head(path)
                stat = path.stat()
            except _NeedsZstd:
                compressed += 1
                continue
            except TxcriptError as exc:
                skipped(path, exc)
                continue
            except _read_errors() as exc:
                skipped(path, exc)
                continue
            if scan is None:
                continue
            fallback = id_from_file_name(path.name)
            session_id = scan.meta(None, fallback).id
            meta = scan.meta(titles.get(session_id), fallback)
            found.append(
                Discovered.from_meta(HARNESS, str(path), meta, updated_at=modified_at(stat))
            )
        if compressed:
            warn(
                f"skipped {compressed} compressed Codex rollout(s) under {self.root}: "
                "install the `zstandard` package to read .jsonl.zst files"
            )
        return found

    # -- load / save ------------------------------------------------------------------------
    def load(self, reference: str) -> CodexSession:
        path = Path(reference)
        native = parse(decode_lossless(_read_bytes(path)), label=str(path))
        native = replace(native, fallback_id=id_from_file_name(path.name))
        session_id = codec.meta_of(native).id
        return replace(native, title=read_index(self.index).get(session_id))

    def target(self, native: CodexSession) -> tuple[str, Path]:
        """The session id (validated) and the path ``native`` is saved at: from id and start."""
        meta = codec.meta_of(native)
        session_id = UUID_IDS.check(meta.id, "Codex")
        t = meta.timestamp
        day = (f"{t.year:04d}", f"{t.month:02d}", f"{t.day:02d}")
        clock = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}-{t.minute:02d}-{t.second:02d}"
        suffix = ".json" if native.legacy else ".jsonl"
        return session_id, self.sessions.joinpath(*day, f"rollout-{clock}-{session_id}{suffix}")

    def save(self, native: CodexSession, *, force: bool = False) -> Saved:
        session_id, path = self.target(native)
        try:
            data = render(native).encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:
            raise StoreError(f"writing {path}: text is not encodable as UTF-8 ({exc})") from None
        db = statedb.find(self.root)
        preflight_write(
            self.root, [path, self.index, *(sqlite_files(db) if db else [])], store="Codex"
        )
        thread = None
        if db is not None:
            statedb.check(db)
            thread = self._thread(native, path)
        name = native.title
        if name is not None and read_index(self.index).get(session_id) == name:
            name = None
        undo = Undo()
        try:
            undo.make_dirs(path.parent)
            if name is not None:
                undo.add(_append_index(self.index, session_id, name))
            undo.write(path, data)
            if db is not None and thread is not None:
                statedb.register(db, thread)
        except OSError as exc:
            undo.run()
            raise StoreError(f"writing {exc.filename or path}: {exc.strerror or exc}") from None
        except BaseException:
            undo.run()
            raise
        return Saved(id=session_id, reference=str(path), location=str(path))

    def _thread(self, native: CodexSession, path: Path) -> statedb.Thread:
        transcript = codec.to_common(native)
        meta = transcript.meta
        prompts = [m for m in transcript.messages if m.role == "user" and prompt_title(m.content)]
        first = ""
        if prompts:
            first = "\n".join(b.text for b in prompts[0].content if isinstance(b, Text))
        updated = max([meta.timestamp, *(m.timestamp for m in transcript.messages)])
        tokens = sum(
            m.usage.input_tokens + m.usage.output_tokens for m in transcript.messages if m.usage
        )
        return statedb.Thread(
            id=meta.id,
            rollout_path=str(path.resolve()),
            created_at=meta.timestamp,
            updated_at=updated,
            cwd=meta.cwd or "",
            title=meta.title or "",
            first_user_message=first,
            model=meta.model,
            cli_version=meta.cli_version or "",
            git_branch=meta.git_branch,
            tokens_used=tokens,
            has_user_event=bool(prompts),
        )

    # -- delete / fingerprints --------------------------------------------------------------
    def delete(self, reference: str, *, force: bool = False) -> None:
        """Remove one rollout and its database row, after backing the rollout up.

        If the backup fails nothing is removed. The file is first renamed aside (and renamed
        back if the database transaction fails), so a failed delete leaves the session as it was.
        """
        given = Path(reference)
        real = Path(os.path.realpath(given))
        roots = [Path(os.path.realpath(top)) for top in (self.sessions, self.archived)]
        if not any(_within(real, top) for top in roots):
            raise BadInput(f"{reference} is not inside the Codex store {self.root}")
        if not real.is_file():
            raise BadInput(f"no Codex session at {reference}")
        try:
            scan = self._head(real)
        except _NeedsZstd:
            scan = MetaScan() if real.name.startswith("rollout-") else None
        except _read_errors() as exc:
            raise StoreError(f"reading {real}: {exc}") from None
        if scan is None:
            raise BadInput(f"{reference} is not a Codex rollout")
        session_id = scan.meta(None, id_from_file_name(real.name)).id
        backup = backups.create_files(
            [real], harness=HARNESS, operation="delete", session=session_id
        )
        aside = real.with_name(f".{real.name}.txcript-deleting")

        def remove() -> None:
            try:
                os.rename(real, aside)
            except OSError as exc:
                raise StoreError(
                    f"deleting {real}: {exc.strerror or exc}; nothing was deleted"
                ) from None

        db = statedb.find(self.root)
        try:
            if db is None:
                remove()
            else:
                statedb.unregister(db, session_id, remove)
        except BaseException:
            if not os.path.lexists(real):
                with contextlib.suppress(OSError):
                    os.rename(aside, real)
            if os.path.lexists(real):  # nothing was deleted: the backup guards nothing
                backups.discard(backup)
            raise
        with contextlib.suppress(OSError):
            aside.unlink()
        if given.is_symlink() and _within(
            Path(os.path.abspath(given)), Path(os.path.abspath(self.root))
        ):
            with contextlib.suppress(OSError):
                given.unlink()

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        """What :meth:`fingerprinted` gives each of ``references`` (the rollout and the index
        of thread names, which its listing and its load both read)."""
        names = self._index_key()
        return {reference: _fingerprint(reference, names) for reference in references}

    def location(self, reference: str) -> str:
        return reference


def _fingerprint(reference: str, names: str | None) -> str:
    """A rollout's fingerprint: its file key and the index's (``""`` when either is unknown)."""
    if names is None:
        return ""
    try:
        return f"{file_key(os.stat(reference))}+{names}"
    except OSError:
        return ""


def parse_legacy(text: str) -> CodexSession | None:
    """A legacy ``{session, items}`` document as a body, or None when ``text`` is not one."""
    value = try_loads(text)
    if not (isinstance(value, dict) and isinstance(value.get("session"), dict)):
        return None
    if not isinstance(value.get("items"), list):
        return None
    return parse(text)
