"""The Claude Code store: ``<root>/projects/<encoded cwd>/<session id>.jsonl``.

``root`` is the Claude config directory: ``CLAUDE_CONFIG_DIR`` when set and non-empty, else
``~/.claude``. A session's side files live in the same-named directory beside it
(``<session id>/subagents/…``, ``<session id>/tool-results/…``) and travel with its body.

Discovery is a cheap scan: it parses lines only until the start time, the first turn and the
first model are known, then looks at title records alone (lines are matched as bytes before any
parse), and it never follows directory symlinks. Its Meta is the Meta a full load gives, by
construction: both feed the same :class:`~txcript.shared.formats.claude_jsonl.meta.MetaScan`. Its
result is kept in the metadata cache (:mod:`txcript.shared.cache`) under the file's
``"<mtime ns>:<size>"``, so a file that has not changed is only ``stat``-ed;
:meth:`ClaudeCodeStore.lookup` reads only the files whose name (the session id) starts with a
given prefix.

A save is all or nothing: side files first, the session file (what makes the session visible)
last, and every file and directory it wrote undone when a later step fails. A delete backs the
session file and its side directories up (:func:`txcript.shared.backups.create_files`) before
removing anything; ``txcript restore <backup id>`` puts them back byte for byte.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

import msgspec

from txcript.diagnostics import skipped, warn
from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.model import Meta
from txcript.shared.cache import metadata_cache
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    Undo,
    decode_lossless,
    file_fingerprints,
    file_key,
    modified_at,
    preflight_write,
    read_regular,
    read_regular_stat,
    write_atomic,
)
from txcript.shared.formats.claude_jsonl.meta import MetaScan, scan_head
from txcript.shared.formats.claude_jsonl.native import (
    SIDE_DIRS,
    ClaudeSession,
    SideFile,
    parse_lines,
    render_text,
)
from txcript.shared.formats.claude_jsonl.projects import encode_project
from txcript.shared.ids import UUID_IDS, id_problem
from txcript.shared.jsonutil import try_loads
from txcript.shared.workdir import filing_directory

HARNESS = "claude_code"
#: Claude Code shortens longer project directory names with a hash suffix we cannot recompute.
_MAX_PROJECT_NAME = 200
#: A file modified this recently (ns) may still change within its file system's mtime
#: resolution (up to 2 s) without its (size, mtime) changing, so its listing is not cached yet.
_SETTLED_NS = 2_000_000_000


def scan_bytes(data: bytes, session_id: str) -> MetaScan:
    """The metadata of a session file's bytes, parsing as few lines as the rules allow."""
    return scan_head(data, session_id, try_loads)


def _side_path_problem(path: str) -> str | None:
    """Why a side file's relative path may not be written, or None when it may."""
    parts = path.split("/")
    if len(parts) < 2 or parts[0] not in SIDE_DIRS:
        return f"it is not under {' or '.join(SIDE_DIRS)}/"
    for part in parts:
        problem = id_problem(part)
        if problem is not None:
            return f"a path component is not usable ({problem})"
    return None


class ClaudeCodeStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.projects = root / "projects"

    def location(self, reference: str) -> str:
        return reference

    # -- discovery --------------------------------------------------------------------------
    def session_files(self, id_prefix: str = "") -> list[Path]:
        """``projects/<dir>/<name>.jsonl`` files (only names starting with ``id_prefix``);
        directory symlinks are never followed."""
        return [Path(reference) for reference in self._session_references(id_prefix)]

    def _session_references(self, id_prefix: str = "") -> list[str]:
        """:meth:`session_files` as the path strings sessions are referenced by, in the same
        order (by project, then file name), without building a ``Path`` per file."""
        return [entry.path for entry in self._session_entries(id_prefix)]

    def _session_entries(
        self, id_prefix: str = "", *, ordered: bool = True
    ) -> list[os.DirEntry[str]]:
        """The directory entries of :meth:`session_files`, in its order (``ordered=False``: in
        the order the directories give them)."""
        found: list[tuple[str, str, os.DirEntry[str]]] = []
        try:
            projects = list(os.scandir(self.projects))
        except OSError:
            return []
        for project in projects:
            try:
                if not project.is_dir(follow_symlinks=False):
                    continue
                entries = list(os.scandir(project.path))
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                if not name.endswith(".jsonl") or not name[: -len(".jsonl")].startswith(id_prefix):
                    continue
                try:
                    # Not only regular files: a FIFO or device is refused with a warning by scan.
                    if not entry.is_dir():
                        found.append((project.name, name, entry))
                except OSError:
                    continue
        if ordered:
            found.sort(key=lambda item: (item[0], item[1]))
        return [entry for _, _, entry in found]

    def fingerprinted(self) -> dict[str, str]:
        """Every file :meth:`discover` looks at, with its fingerprint now (``""`` when it cannot
        be statted): a file whose fingerprint stands is listed as it was (see
        :class:`txcript.harnesses.base.ListsByFile`)."""
        out: dict[str, str] = {}
        for entry in self._session_entries(ordered=False):  # (a query lists changes in any order)
            try:
                out[entry.path] = file_key(entry.stat())
            except OSError:
                out[entry.path] = ""
        return out

    def discover_references(self, references: Iterable[str]) -> list[Discovered]:
        """The sessions among ``references`` (files :meth:`fingerprinted` named), each exactly as
        :meth:`discover` lists it, newest first."""
        return self._listed(list(references), complete=False)

    def scan(self, path: Path) -> tuple[Meta, datetime] | None:
        """The Meta of a session file and its mtime; None when it is not a readable session."""
        read = self._read_scan(path)
        if read is None or read[0] is None:
            return None
        return read[0], modified_at(read[1])

    def _read_scan(self, path: Path) -> tuple[Meta | None, os.stat_result] | None:
        """``(Meta, stat)`` of a session file as read, ``(None, stat)`` for a file that is no
        listed session (a sub-agent transcript, bookkeeping only), None after a warning."""
        try:
            data, stat = read_regular_stat(path, limit=MAX_SESSION_FILE_BYTES)
        except TxcriptError as exc:
            skipped(path, exc)
            return None
        if data.strip() and not data.lstrip().startswith(b"{"):
            # Not JSON lines at all: say which file, instead of the session silently missing.
            skipped(path, "not a Claude Code session file (no JSON records)")
            return None
        scan = scan_bytes(data, path.stem)
        if scan.first is None or scan.is_sidechain_file:
            return None, stat
        return scan.meta(), stat

    def discover(self) -> list[Discovered]:
        return self._listed(self._session_references(), complete=True)

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The sessions whose id (the file stem) starts with ``id_prefix``: only the files so
        named are read, and they are listed exactly as :meth:`discover` lists them."""
        return self._listed(self._session_references(id_prefix), complete=False)

    def _listed(self, references: list[str], *, complete: bool) -> list[Discovered]:
        """The sessions among ``references`` (file paths), newest first. A file whose (size,
        mtime ns) is what the metadata cache holds it under is not read; ``complete`` (every
        file of the store) also forgets cached files that are gone."""
        cache = metadata_cache()
        scope = f"{HARNESS}:{self.projects}"
        known = cache.entries(scope, None if complete else references)
        fresh: dict[str, tuple[str, bytes]] = {}
        settled = time.time_ns() - _SETTLED_NS
        out: list[Discovered] = []
        for reference in references:
            meta: Meta | None
            try:
                status = os.stat(reference)
                entry = known.get(reference)
                if entry is None or entry[0] != file_key(status):
                    raise LookupError
                meta = _cached_meta(entry[1])
            except (OSError, LookupError, msgspec.DecodeError, msgspec.ValidationError):
                read = self._read_scan(Path(reference))
                if read is None:
                    continue
                meta, status = read
                cached = _cache_fields(meta)
                if cached is not None and status.st_mtime_ns < settled:
                    fresh[reference] = (file_key(status), cached)
            if meta is not None:
                updated_at = modified_at(status)
                out.append(Discovered.from_meta(HARNESS, reference, meta, updated_at=updated_at))
        gone: list[str] = []
        if complete:
            present = set(references)
            gone = [reference for reference in known if reference not in present]
        cache.update(scope, fresh, gone)
        out.sort(key=lambda d: d.timestamp, reverse=True)
        return out

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> ClaudeSession:
        path = Path(reference)
        if not os.path.lexists(path):
            raise BadInput(f"reading {reference}: no such Claude Code session file")
        data = read_regular(path, limit=MAX_SESSION_FILE_BYTES)
        lines, final_newline = parse_lines(decode_lossless(data))
        return ClaudeSession(
            session_id=path.stem,
            lines=lines,
            final_newline=final_newline,
            side_files=self._side_files(path.parent / path.stem),
        )

    @staticmethod
    def _side_files(directory: Path) -> tuple[SideFile, ...]:
        """Regular files under ``<dir>/subagents`` and ``<dir>/tool-results`` (no dir symlinks)."""
        out: list[SideFile] = []
        for side in SIDE_DIRS:
            base = directory / side
            if not base.is_dir() or base.is_symlink():
                continue
            for current, dirs, files in os.walk(base, followlinks=False):
                dirs.sort()
                for name in sorted(files):
                    full = Path(current) / name
                    try:
                        data = read_regular(full, limit=MAX_SESSION_FILE_BYTES)
                    except TxcriptError as exc:
                        warn(f"leaving out side file {full}: {exc}")
                        continue
                    relative = full.relative_to(directory).as_posix()
                    out.append(SideFile(relative, data))
        return tuple(out)

    # -- save -------------------------------------------------------------------------------
    def project_dir(self, cwd: str | None) -> Path:
        """Where sessions of ``cwd`` live (the current directory when it has none).

        A name longer than Claude Code keeps is matched against existing directories that
        start with its kept prefix; otherwise the full encoding is used.
        """
        name = encode_project(filing_directory(cwd))
        if len(name) > _MAX_PROJECT_NAME:
            prefix = name[:_MAX_PROJECT_NAME]
            try:
                for entry in sorted(os.scandir(self.projects), key=lambda e: e.name):
                    if entry.name.startswith(prefix) and entry.is_dir(follow_symlinks=False):
                        return Path(entry.path)
            except OSError:
                pass
        return self.projects / name

    def save(self, native: ClaudeSession, *, force: bool = False) -> Saved:
        """Write the session and its side files (``force`` is accepted and has no effect: Claude
        Code's files can be written while it runs).

        All or nothing: the side files go first and the session file, which makes the session
        visible, last; when any step fails the files and directories written so far are put back
        as they were (removed, or their previous bytes restored)."""
        session_id = UUID_IDS.check(native.session_id, "Claude Code")
        for side in native.side_files:
            problem = _side_path_problem(side.path)
            if problem is not None:
                raise BadInput(f"side file `{side.path}` of session {session_id}: {problem}")
        scan = MetaScan(session_id)
        for _, record in native.records():
            scan.feed(record)
            if scan.first is not None:
                break
        directory = self.project_dir(scan.meta().cwd)
        path = directory / f"{session_id}.jsonl"
        try:
            data = render_text(native).encode("utf-8", errors="surrogateescape")
        except UnicodeEncodeError as exc:
            raise StoreError(f"writing {path}: text is not encodable as UTF-8 ({exc})") from None
        targets = [path, *(directory / session_id / side.path for side in native.side_files)]
        preflight_write(self.root, targets, store="Claude Code")
        undo = Undo()
        try:
            undo.make_dirs(directory)
            for side in native.side_files:
                target = directory / session_id / side.path
                undo.make_dirs(target.parent)
                undo.write(target, side.data)
            write_atomic(path, data, follow_symlinks=False)
        except OSError as exc:
            undo.run()
            raise StoreError(f"writing {directory}: {exc.strerror or exc}") from None
        except BaseException:
            undo.run()
            raise
        return Saved(id=session_id, reference=str(path), location=str(path))

    # -- delete -----------------------------------------------------------------------------

    def delete(self, reference: str, *, force: bool = False) -> None:
        """Remove one session: its ``.jsonl`` file and its side directories, after a backup.

        Only ``.jsonl`` files inside ``projects/`` (links resolved) are deleted. The side
        directories (``<session id>/subagents``, ``<session id>/tool-results``) go too, unless
        they (or ``<session id>/``) are symlinks, which are left alone. Everything removed is
        first copied into a ``files`` backup, so ``txcript restore`` brings the session back
        byte for byte; if the backup fails nothing is removed. ``force`` has no effect.
        """
        path = Path(reference).absolute()
        try:
            projects = self.projects.resolve(strict=True)
            target = path.resolve(strict=True)
            parent = path.parent.resolve(strict=True)
        except (OSError, RuntimeError):
            raise BadInput(f"no Claude Code session at {reference}") from None
        inside = target.is_relative_to(projects) and parent.is_relative_to(projects)
        if not inside:
            raise StoreError(
                f"refusing to delete {reference}: it is outside the Claude Code projects "
                f"directory {self.projects}"
            )
        if not target.is_file() or target.suffix != ".jsonl":
            raise StoreError(f"refusing to delete {reference}: it is not a session file")
        side_root = path.parent / path.stem
        sides = self._side_dirs(side_root)
        from txcript.shared import backups

        backup = backups.create_files(
            [path, *sides], harness=HARNESS, operation="delete", session=path.stem
        )
        # Side directories are moved aside first (a rename, undone if anything later fails),
        # then the session file goes, and only then is what was moved aside removed for good.
        import shutil  # (with uuid, which loads the platform module: for delete alone)
        import uuid

        trash = side_root / f".txcript-deleting-{uuid.uuid4().hex}"
        moved: list[Path] = []
        try:
            if sides:
                trash.mkdir()
                for side in sides:
                    os.rename(side, trash / side.name)
                    moved.append(side)
            path.unlink()
        except OSError as exc:
            restored = True
            for side in reversed(moved):
                try:
                    os.rename(trash / side.name, side)
                except OSError:
                    restored = False
            with contextlib.suppress(OSError):
                trash.rmdir()
            if restored:  # nothing was deleted: the backup guards nothing
                backups.discard(backup)
            if isinstance(exc, FileNotFoundError) and not os.path.lexists(path):
                raise BadInput(f"no Claude Code session at {reference}") from None
            outcome = "nothing was deleted" if restored else f"backup {backup.id} holds a copy"
            raise StoreError(
                f"deleting {exc.filename or reference}: {exc.strerror or exc}; {outcome}"
            ) from None
        if sides:
            shutil.rmtree(trash, ignore_errors=True)
            with contextlib.suppress(OSError):
                side_root.rmdir()
            if trash.exists():
                warn(
                    f"deleted session {path.stem}, but could not remove all of {trash}; "
                    f"backup {backup.id} holds a copy"
                )

    @staticmethod
    def _side_dirs(side_root: Path) -> list[Path]:
        """The session's side directories that a delete removes: real directories only."""
        if side_root.is_symlink() or not side_root.is_dir():
            return []
        return [
            side_root / name
            for name in SIDE_DIRS
            if (side_root / name).is_dir() and not (side_root / name).is_symlink()
        ]

    # -- change cursors ---------------------------------------------------------------------
    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        return file_fingerprints(references)


def _cache_fields(meta: Meta | None) -> bytes | None:
    """A scan's result as the metadata cache keeps it (``null`` for a file that is no listed
    session); None when it cannot be kept (text that is not UTF-8 is read afresh each time)."""
    try:
        return msgspec.json.encode(meta)
    except (msgspec.EncodeError, UnicodeEncodeError):
        return None


_meta_decoder: msgspec.json.Decoder[Meta | None] = msgspec.json.Decoder(Meta | None)


def _cached_meta(fields: bytes) -> Meta | None:
    return _meta_decoder.decode(fields)
