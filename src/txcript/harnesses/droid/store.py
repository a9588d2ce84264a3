"""The Factory droid store: ``<root>/sessions/<project key>/<uuid>.jsonl`` + ``.settings.json``.

``root`` is droid's home directory ``~/.factory`` (``%USERPROFILE%\\.factory`` on Windows); droid
itself moves it with ``FACTORY_HOME_OVERRIDE`` (a replacement for the home directory, so the
store is ``$FACTORY_HOME_OVERRIDE/.factory``). The project key is the session's cwd with leading
and trailing slashes dropped and every run of ``/`` made ``-``, after a leading ``-``
(``/Users/a/app`` → ``-Users-a-app``). Older builds kept sessions flat in ``sessions/``; both
layouts are listed. Droid finds a session by its id in any project directory, so its resume
command runs from anywhere.

**Listing** reads each session file only as far as its metadata needs (the header, the first
message's time, and the first assistant's model when the settings file names none), and the
small settings file; what it found is kept in the metadata cache under both files'
``mtime:size``, so an untouched session is only ``stat``-ed.

**A save** writes the settings file, then the session file (which makes the session visible) by
an atomic rename, each undone if a later step fails. **A delete** copies both files into a
``files`` backup (``txcript restore`` puts them back) before removing them.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.model import Meta
from txcript.shared.cache import metadata_cache
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    Undo,
    decode_lossless,
    file_key,
    modified_at,
    open_regular,
    preflight_write,
    read_regular,
)
from txcript.shared.ids import UUID_IDS
from txcript.shared.jsonl import parse_lines, render_lines
from txcript.shared.jsonutil import INVALID, try_loads

from .codec import is_context, meta_from
from .native import HARNESS, DroidSession

SETTINGS_SUFFIX = ".settings.json"
#: The largest settings file read (they are a few hundred bytes).
_SETTINGS_LIMIT = 1 << 20
_SEPARATORS = re.compile(r"[\\/]+")


def project_key(cwd: str) -> str:
    """The directory droid files a session of ``cwd`` under (``/Users/a/app`` → ``-Users-a-app``).

    Droid strips trailing and leading separators and turns each run of ``/`` into ``-``; a
    Windows path's ``\\`` and ``:`` are treated the same way so the key stays one file name.
    """
    trimmed = cwd.rstrip("/\\").lstrip("/\\")
    return "-" + _SEPARATORS.sub("-", trimmed).replace(":", "-")


def settings_path(session_file: Path) -> Path:
    return session_file.with_name(session_file.name[: -len(".jsonl")] + SETTINGS_SUFFIX)


class _Head:
    """What a cheap scan of a session file found: enough for its Meta, nothing more."""

    def __init__(self) -> None:
        self.header: dict[str, Any] | None = None
        self.seen_record = False
        self.first_time: datetime | None = None
        self.first_model: str | None = None
        self.subagent_parent: str | None = None

    def feed(self, value: Any) -> None:
        from txcript.shared.timeutil import parse_rfc3339

        if not isinstance(value, dict):
            return
        if not self.seen_record:
            self.seen_record = True
            if value.get("type") == "session_start":
                self.header = value
                parent = value.get("callingSessionId") or value.get("parent")
                self.subagent_parent = parent if isinstance(parent, str) and parent else None
                return
        if value.get("type") != "message":
            return
        if self.first_time is None and not is_context(value):
            self.first_time = parse_rfc3339(value.get("timestamp"))
        message = value.get("message")
        if self.first_model is None and isinstance(message, dict):
            model = message.get("modelId")
            if message.get("role") == "assistant" and isinstance(model, str) and model.strip():
                self.first_model = model

    def done(self, need_model: bool) -> bool:
        return (
            self.seen_record
            and self.first_time is not None
            and (not need_model or self.first_model is not None)
        )


#: A file written this recently (ns) may change again within its file system's mtime resolution
#: without its size or mtime moving, so its listing is not cached yet.
_SETTLED_NS = 2_000_000_000
_cached: msgspec.json.Decoder[tuple[Meta, str | None]] = msgspec.json.Decoder(
    tuple[Meta, str | None]
)


def _key(path: Path) -> tuple[str, int]:
    """The cache key of a session (both files' ``mtime:size``) and the newer mtime; ``""``
    when the session file cannot be statted."""
    try:
        stat = path.stat()
    except OSError:
        return "", 0
    key, newest = file_key(stat), stat.st_mtime_ns
    try:
        settings = settings_path(path).stat()
    except FileNotFoundError:
        return key + "+-", newest
    except OSError:
        return "", 0
    return f"{key}+{file_key(settings)}", max(newest, settings.st_mtime_ns)


def _lines(path: Path) -> Iterator[bytes]:
    """The file's lines (without ``\\n``), read a block at a time, up to the session limit."""
    with open_regular(path) as handle:
        read = 0
        rest = b""
        while True:
            block = handle.read(1 << 16)
            if not block:
                break
            read += len(block)
            if read > MAX_SESSION_FILE_BYTES:
                raise StoreError(f"{path} is over the session file size limit")
            lines = (rest + block).split(b"\n")
            rest = lines.pop()
            yield from lines
        if rest:
            yield rest


class DroidStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.sessions = root / "sessions"

    def location(self, reference: str) -> str:
        return reference

    # -- discovery --------------------------------------------------------------------------
    def _files(self, id_prefix: str = "") -> list[Path]:
        """Session files: ``sessions/*.jsonl`` (older flat builds) and ``sessions/*/*.jsonl``,
        never through a directory symlink."""
        found: list[tuple[str, str, Path]] = []

        def take(directory: str, entries: Iterable[os.DirEntry[str]]) -> None:
            for entry in entries:
                name = entry.name
                if name.endswith(".jsonl") and name[: -len(".jsonl")].startswith(id_prefix):
                    with contextlib.suppress(OSError):
                        if not entry.is_dir():
                            found.append((directory, name, Path(entry.path)))

        try:
            top = list(os.scandir(self.sessions))
        except OSError:
            return []
        take("", top)
        for entry in top:
            try:
                if not entry.is_dir(follow_symlinks=False):
                    continue
                take(entry.name, list(os.scandir(entry.path)))
            except OSError:
                continue
        found.sort(key=lambda item: (item[0], item[1]))
        return [path for _, _, path in found]

    def _settings_model(self, path: Path) -> str | None:
        settings = settings_path(path)
        if not settings.exists():
            return None
        try:
            value = try_loads(read_regular(settings, limit=_SETTINGS_LIMIT))
        except TxcriptError:
            return None
        model = value.get("model") if value is not INVALID and isinstance(value, dict) else None
        return model if isinstance(model, str) and model.strip() else None

    def scan(self, path: Path) -> tuple[Meta, str | None] | None:
        """The Meta of a session file and the session that spawned it; None (after a warning)
        when the file is not a readable droid session."""
        settings_model = self._settings_model(path)
        head = _Head()
        try:
            for raw in _lines(path):
                head.feed(try_loads(decode_lossless(raw)) if raw.strip() else INVALID)
                if head.seen_record and head.header is None:
                    break
                if head.done(settings_model is None):
                    break
        except TxcriptError as exc:
            warn(f"skipping {path}: {exc}")
            return None
        if head.header is None:
            warn(f"skipping {path}: not a droid session file (no session_start header)")
            return None
        stem = path.name[: -len(".jsonl")]
        meta = meta_from(head.header, stem, head.first_time, settings_model, head.first_model)
        return meta, head.subagent_parent

    def discover(self) -> list[Discovered]:
        return self._listed(self._files(), complete=True)

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The sessions whose id (the file stem) starts with ``id_prefix``."""
        return self._listed(self._files(id_prefix), complete=False)

    def _listed(self, paths: list[Path], *, complete: bool) -> list[Discovered]:
        """The sessions among ``paths``, newest first. A session whose two files have the
        ``stat`` the metadata cache holds its listing under is not read; ``complete`` (every
        file of the store) also forgets cached files that are gone."""
        cache = metadata_cache()
        scope = f"{HARNESS}:{self.sessions}"
        references = [str(path) for path in paths]
        known = cache.entries(scope, None if complete else references)
        fresh: dict[str, tuple[str, bytes]] = {}
        settled = time.time_ns() - _SETTLED_NS
        out = []
        for path, reference in zip(paths, references, strict=True):
            key, newest = _key(path)
            entry = known.get(reference)
            scanned: tuple[Meta, str | None] | None = None
            if key and entry is not None and entry[0] == key:
                with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                    scanned = _cached.decode(entry[1])
            if scanned is None:
                scanned = self.scan(path)
                if scanned is None:
                    continue
                with contextlib.suppress(msgspec.EncodeError, UnicodeEncodeError):
                    if key and newest < settled:
                        fresh[reference] = (key, msgspec.json.encode(scanned))
            meta, parent = scanned
            try:
                updated = modified_at(path.stat())
            except OSError:
                updated = None
            out.append(
                Discovered.from_meta(HARNESS, reference, meta, updated_at=updated, parent=parent)
            )
        gone = [r for r in known if r not in set(references)] if complete else []
        cache.update(scope, fresh, gone)
        out.sort(key=lambda d: d.timestamp, reverse=True)
        return out

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> DroidSession:
        path = Path(reference)
        if not os.path.lexists(path) or not path.name.endswith(".jsonl"):
            raise BadInput(f"reading {reference}: no such droid session file")
        data = read_regular(path, limit=MAX_SESSION_FILE_BYTES)
        lines, final_newline = parse_lines(decode_lossless(data))
        settings_file = settings_path(path)
        settings = None
        if os.path.lexists(settings_file):
            settings = decode_lossless(read_regular(settings_file, limit=_SETTINGS_LIMIT))
        return DroidSession(
            session_id=path.name[: -len(".jsonl")],
            lines=lines,
            final_newline=final_newline,
            settings=settings,
        )

    # -- save -------------------------------------------------------------------------------
    def path_for(self, native: DroidSession) -> Path:
        header = native.header() or {}
        cwd = header.get("cwd")
        name = f"{native.session_id}.jsonl"
        if isinstance(cwd, str) and cwd.strip("/\\"):
            return self.sessions / project_key(cwd) / name
        return self.sessions / name

    def save(self, native: DroidSession, *, force: bool = False) -> Saved:
        """Write the session where droid finds it (``force`` has no effect: droid reads the
        files on resume, and a running droid does not hold them)."""
        session_id = UUID_IDS.check(native.session_id, "Factory droid")
        path = self.path_for(native)
        settings_file = settings_path(path)
        try:
            data = render_lines(native.lines, native.final_newline).encode(
                "utf-8", errors="surrogateescape"
            )
            settings = (
                None
                if native.settings is None
                else native.settings.encode("utf-8", errors="surrogateescape")
            )
        except UnicodeEncodeError as exc:
            raise StoreError(f"writing {path}: text is not encodable as UTF-8 ({exc})") from None
        preflight_write(self.root, [path, settings_file], store="Factory droid")
        undo = Undo()
        try:
            undo.make_dirs(path.parent)
            if settings is not None:
                undo.write(settings_file, settings)
            undo.write(path, data)
        except OSError as exc:
            undo.run()
            raise StoreError(f"writing {path}: {exc.strerror or exc}") from None
        except BaseException:
            undo.run()
            raise
        return Saved(id=session_id, reference=str(path), location=str(path))

    # -- delete -----------------------------------------------------------------------------
    def delete(self, reference: str, *, force: bool = False) -> None:
        """Remove one session's files after copying them into a ``files`` backup."""
        path = Path(reference).absolute()
        try:
            sessions = self.sessions.resolve(strict=True)
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise BadInput(f"no droid session at {reference}") from None
        if not target.is_relative_to(sessions) or path.is_symlink():
            raise StoreError(
                f"refusing to delete {reference}: it is not a session file inside {self.sessions}"
            )
        if not target.is_file() or not target.name.endswith(".jsonl"):
            raise StoreError(f"refusing to delete {reference}: it is not a session file")
        side = [
            p
            for p in (settings_path(path), Path(f"{settings_path(path)}.bak"))
            if p.is_file() and not p.is_symlink()
        ]
        from txcript.shared import backups

        stem = path.name[: -len(".jsonl")]
        backups.create_files([path, *side], harness=HARNESS, operation="delete", session=stem)
        try:
            path.unlink()
            for extra in side:
                extra.unlink()
        except OSError as exc:
            what = exc.filename or reference
            raise StoreError(f"deleting {what}: {exc.strerror or exc}") from None

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        """The session file's and its settings file's ``mtime:size`` together."""
        out: dict[str, str] = {}
        for reference in references:
            path = Path(reference)
            try:
                key = file_key(path.stat())
            except OSError:
                out[reference] = ""
                continue
            with contextlib.suppress(OSError):
                key += "+" + file_key(settings_path(path).stat())
            out[reference] = key
        return out
