"""The Grok store: ``$GROK_HOME/sessions/<percent-encoded cwd>/<uuid>/`` (default ``~/.grok``).

**Discovery** looks exactly two levels down, follows no symbolic link, and lists a directory
that holds either log (see :mod:`.native`). Its Meta comes from ``summary.json`` and, where the
summary lacks a start time, the display log's first timed line — read only that far — through the
same :func:`~.codec.meta_of` a load uses.

**Saving** writes all three files into a hidden directory beside the target and renames it into
place, so Grok never sees half a session. A session already there is replaced only with
``force``, and then the old directory is renamed aside first and removed last; any failure puts
everything back. The project-level ``prompt_history.jsonl`` and the root's search index are not
touched (Grok rebuilds its index).

**Deleting** backs the session directory up (``txcript restore`` puts it back) and removes it;
only a session directory inside the store, holding a log and reached without a symbolic link, is
deleted.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError
from txcript.harnesses.base import Discovered, Saved
from txcript.shared import backups
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    MAX_SIDE_FILE_BYTES,
    Undo,
    decode_lossless,
    file_key,
    open_regular,
    preflight_write,
    read_regular,
    write_atomic,
)
from txcript.shared.ids import UUID_IDS, id_problem
from txcript.shared.workdir import filing_directory

from . import display
from .codec import meta_from
from .native import CHAT, FILES, HARNESS, SUMMARY, UPDATES, GrokSession, project_dir

#: The longest display-log line read while looking for a session's first time.
_HEAD_LINE_BYTES = 1 << 20


def _dirs(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as listing:
            return sorted(
                (e for e in listing if e.is_dir(follow_symlinks=False)), key=lambda e: e.name
            )
    except OSError:
        return []


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_session(directory: Path) -> bool:
    return _is_file(directory / CHAT) or _is_file(directory / UPDATES)


def _read(path: Path, limit: int) -> str | None:
    if not os.path.lexists(path):
        return None
    if os.path.islink(path):
        raise StoreError(f"refusing to read {path}: it is a symbolic link")
    return decode_lossless(read_regular(path, limit=limit))


def _first_time(path: Path) -> datetime | None:
    """The display log's first timed line's time, reading only as far as it."""
    if not _is_file(path):
        return None
    with open_regular(path) as handle:
        for raw in handle:
            if len(raw) > _HEAD_LINE_BYTES:
                continue
            found = display.first_time(decode_lossless(raw))
            if found is not None:
                return found
    return None


def _first_of(session: Path) -> Callable[[], datetime | None]:
    return lambda: _first_time(session / UPDATES)


class GrokStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.sessions = root / "sessions"

    # -- where ------------------------------------------------------------------------------
    def _session_dirs(self) -> Iterator[Path]:
        for project in _dirs(self.sessions):
            for session in _dirs(Path(project.path)):
                path = Path(session.path)
                if _is_session(path):
                    yield path

    def _checked(self, reference: str, *, verb: str) -> Path:
        """``reference`` as a session directory of this store, else a one-line error."""
        path = Path(os.path.abspath(reference))
        if path.parent.parent != Path(os.path.abspath(self.sessions)):
            raise BadInput(f"no Grok session at {reference} (not inside {self.sessions})")
        for step in (path.parent, path):
            if os.path.islink(step):
                raise StoreError(f"refusing to {verb} {reference}: {step} is a symbolic link")
        try:
            real, base = path.resolve(strict=True), self.sessions.resolve(strict=True)
        except (OSError, RuntimeError):
            raise BadInput(f"no Grok session at {reference}") from None
        if not real.is_relative_to(base) or not path.is_dir():
            raise StoreError(f"refusing to {verb} {reference}: it is outside the Grok store")
        if not _is_session(path):
            raise StoreError(f"refusing to {verb} {reference}: it holds no Grok session log")
        return path

    def location(self, reference: str) -> str:
        return reference

    # -- discovery --------------------------------------------------------------------------
    def discover(self) -> list[Discovered]:
        found = []
        for path in self._session_dirs():
            try:
                summary = _read(path / SUMMARY, MAX_SIDE_FILE_BYTES)
                meta = meta_from(summary, path.name, path.parent.name, _first_of(path))
            except (StoreError, BadInput, OSError) as exc:
                warn(f"skipped the Grok session {path}: {exc}")
                continue
            found.append(Discovered.from_meta(HARNESS, str(path), meta))
        return found

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> GrokSession:
        path = self._checked(reference, verb="read")
        return GrokSession(
            id=path.name,
            project=path.parent.name,
            chat=_read(path / CHAT, MAX_SESSION_FILE_BYTES),
            updates=_read(path / UPDATES, MAX_SESSION_FILE_BYTES),
            summary=_read(path / SUMMARY, MAX_SIDE_FILE_BYTES),
        )

    # -- write ------------------------------------------------------------------------------
    def save(self, native: GrokSession, *, force: bool = False) -> Saved:
        session_id = UUID_IDS.check(native.id, "Grok")
        # (A session with no cwd is filed under the directory it is written from, as every
        # writer files one: ``continue`` says so.)
        project = native.project or project_dir(filing_directory(None))
        problem = id_problem(project)
        if problem is not None or project.startswith("."):
            raise BadInput(
                f"`{project}` cannot be a Grok project directory ({problem or 'hidden'})"
            )
        directory = self.sessions / project
        target = directory / session_id
        staging = directory / f".{session_id}.txcript-new"
        aside = directory / f".{session_id}.txcript-old"
        contents = [
            (name, text)
            for name, text in zip(FILES, (native.chat, native.updates, native.summary), strict=True)
            if text is not None
        ]
        if native.updates is None:
            raise BadInput(
                "a Grok session needs its display log (updates.jsonl): without it Grok cannot "
                "see the session"
            )
        preflight_write(
            self.root,
            [p / name for p in (target, staging) for name in FILES] + [aside / SUMMARY],
            store="Grok",
        )
        exists = os.path.lexists(target)
        if exists and not force:
            raise BadInput(f"the Grok store already holds a session {session_id} at {target}")
        for leftover in (staging, aside):
            if os.path.lexists(leftover):
                raise StoreError(f"{leftover} is left from an interrupted write; remove it first")
        undo = Undo()
        try:
            undo.make_dirs(directory)
            try:
                staging.mkdir()
            except OSError as exc:
                raise StoreError(f"creating {staging}: {exc.strerror or exc}") from None
            undo.add(lambda: shutil.rmtree(staging, ignore_errors=True))
            for name, text in contents:
                write_atomic(
                    staging / name, text.encode("utf-8", "surrogateescape"), follow_symlinks=False
                )
            if exists:
                os.rename(target, aside)
                undo.add(lambda: os.rename(aside, target))
            os.rename(staging, target)
            undo.add(lambda: os.rename(target, staging))
            if exists:
                shutil.rmtree(aside, ignore_errors=True)
        except OSError as exc:
            undo.run()
            raise StoreError(
                f"writing {target}: {exc.strerror or exc}; nothing was written"
            ) from None
        except BaseException:
            undo.run()
            raise
        return Saved(id=session_id, reference=str(target), location=str(target))

    def delete(self, reference: str, *, force: bool = False) -> None:
        path = self._checked(reference, verb="delete")
        backup = backups.create_files(
            [path], harness=HARNESS, operation="delete", session=path.name
        )
        try:
            shutil.rmtree(path)
        except OSError as exc:
            backups.discard(backup)
            raise StoreError(f"deleting {path}: {exc.strerror or exc}") from None

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        out = {}
        for reference in references:
            parts = []
            for name in FILES:
                with contextlib.suppress(OSError):
                    parts.append(f"{name}={file_key(os.lstat(Path(reference) / name))}")
            out[reference] = ";".join(parts)
        return out
