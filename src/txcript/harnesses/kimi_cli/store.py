"""The Kimi CLI store: ``<root>/kimi.json`` and ``<root>/sessions/<md5(work dir)>/<uuid>/``.

**Root.** ``KIMI_SHARE_DIR``, else ``~/.kimi`` (``Path.home()`` on every system).

**The index.** ``kimi.json`` lists ``work_dirs: [{path, kaos, last_session_id}]``; a work
directory's sessions live under ``sessions/<md5 of its path>`` (``<kaos>_<md5>`` for a non-local
runtime). Discovery walks ``sessions/`` itself (a directory the index no longer names is still
the user's sessions, listed without a cwd) and names each directory's work dir from the index.

**Discovery** lists every ``<uuid>/`` holding a ``context.jsonl`` with at least one message (or a
custom title), and every flat ``<uuid>.jsonl`` of the oldest layout that has no directory yet. It
reads ``state.json`` and the wire's first lines up to its first ``TurnBegin``, the same fields
:func:`~.codec.meta_of` reads; directory symlinks are never followed. Each listing is kept in the
metadata cache under the stat of its files and the index (:mod:`txcript.shared.listing`).

**Saving** writes the session directory (``context.jsonl``, ``wire.jsonl``, ``state.json``, each
by an atomic rename) and then — what makes ``cd <work dir>; kimi -r <id>`` find it — adds the work
directory to ``kimi.json`` when the index lacks it (every other byte of the index kept as Kimi
wrote it; an index that does not parse is never touched). Every path is preflighted first; a
failure undoes every step. **Deleting** backs the session directory up
(:func:`txcript.shared.backups.create_files`, which ``txcript restore`` undoes) and removes it;
the index entry stays (Kimi keeps it too).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from txcript.diagnostics import TranscriptWarning, warn
from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    MAX_SIDE_FILE_BYTES,
    Undo,
    decode_lossless,
    file_fingerprints,
    modified_at,
    preflight_write,
    read_head,
    read_regular,
)
from txcript.shared.ids import UUID_IDS
from txcript.shared.jsonlines import Line, parse_lines
from txcript.shared.jsonutil import loads_strict
from txcript.shared.listing import cached_listing, stat_key
from txcript.shared.text import scrub
from txcript.shared.workdir import filing_directory

from .codec import meta_of
from .native import HARNESS, KimiCliSession, parse_context, render_context, render_wire

INDEX = "kimi.json"
_SESSION_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z-]{0,127}")
_HASH_DIR = re.compile(r"(?:[A-Za-z0-9_]+_)?[0-9a-f]{32}")
#: Enough of a wire file to reach its first prompt in any real session.
_WIRE_HEAD = 1 << 20


def work_dir_key(path: str, kaos: str = "local") -> str:
    """The directory name Kimi CLI keeps a work directory's sessions under."""
    digest = hashlib.md5(path.encode("utf-8", "surrogateescape"), usedforsecurity=False)
    return digest.hexdigest() if kaos == "local" else f"{kaos}_{digest.hexdigest()}"


@dataclass(frozen=True, slots=True)
class Index:
    path: Path
    document: dict[str, Any] | None
    text: str | None
    #: sessions/ directory name → work directory path
    work_dirs: dict[str, str]


def read_index(root: Path, *, strict: bool) -> Index:
    """``kimi.json``; with ``strict`` an index that exists but does not parse is an error."""
    path = root / INDEX
    if not os.path.lexists(path):
        return Index(path, None, None, {})
    try:
        text = decode_lossless(read_regular(path, limit=MAX_SIDE_FILE_BYTES))
    except TxcriptError as exc:
        if strict:
            raise StoreError(f"cannot use {path}: {exc}") from None
        warn(f"ignoring {path}: {exc}")
        return Index(path, None, None, {})
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        document = loads_strict(text)
    except ValueError as exc:
        if strict:
            raise StoreError(f"{path} is not valid JSON ({exc}); not touching it") from None
        warn(f"ignoring {path}: not valid JSON ({exc})")
        return Index(path, None, text, {})
    listed = document.get("work_dirs") if isinstance(document, dict) else None
    if not isinstance(document, dict) or not (listed is None or isinstance(listed, list)):
        if strict:
            raise StoreError(f"{path} is not a Kimi index ({{work_dirs: […]}}); not touching it")
        warn(f"ignoring {path}: not a Kimi index")
        return Index(path, None, text, {})
    work_dirs: dict[str, str] = {}
    for entry in listed or []:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            kaos = entry.get("kaos")
            key = work_dir_key(entry["path"], kaos if isinstance(kaos, str) else "local")
            work_dirs.setdefault(key, entry["path"])
    return Index(path, document, text, work_dirs)


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as listing:
            return sorted(listing, key=lambda e: e.name)
    except OSError:
        return []


def _read_wire(path: Path, *, head: bool) -> tuple[tuple[Line, ...], bool]:
    """The wire's lines; with ``head``, only those up to its first ``TurnBegin`` event (all of
    them when the head holds none)."""
    if head:
        data = read_head(path, limit=_WIRE_HEAD)
        cut = data.find(b'"TurnBegin"')
        if cut >= 0:
            end = data.find(b"\n", cut)
            lines, trailing = parse_lines(decode_lossless(data if end < 0 else data[: end + 1]))
            if any(_is_turn(line.value) for line in lines):
                return lines, trailing
    data = read_regular(path, limit=MAX_SESSION_FILE_BYTES)
    return parse_lines(decode_lossless(data))


def _is_turn(value: Any) -> bool:
    message = value.get("message") if isinstance(value, dict) else None
    return isinstance(message, dict) and message.get("type") == "TurnBegin"


def _has_message(lines: Iterable[Line]) -> bool:
    for line in lines:
        role = line.value.get("role") if isinstance(line.value, dict) else None
        if isinstance(role, str) and not role.startswith("_"):
            return True
    return False


class KimiCliStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.sessions = root / "sessions"

    def location(self, reference: str) -> str:
        return reference

    # -- discovery --------------------------------------------------------------------------
    def session_paths(self, id_prefix: str = "") -> list[tuple[Path, str]]:
        """``(path, hash dir name)`` of every session directory, and of every flat legacy file
        that has no directory yet, whose id starts with ``id_prefix``."""
        out: list[tuple[Path, str]] = []
        for group in _entries(self.sessions):
            if not _HASH_DIR.fullmatch(group.name) or not group.is_dir(follow_symlinks=False):
                continue
            names = set()
            entries = _entries(Path(group.path))
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and _SESSION_NAME.fullmatch(entry.name):
                    names.add(entry.name)
                    if entry.name.startswith(id_prefix):
                        out.append((Path(entry.path), group.name))
            for entry in entries:
                stem = entry.name[: -len(".jsonl")]
                if (
                    entry.name.endswith(".jsonl")
                    and _SESSION_NAME.fullmatch(stem)
                    and stem not in names
                    and stem.startswith(id_prefix)
                    and not entry.is_dir(follow_symlinks=False)
                ):
                    out.append((Path(entry.path), group.name))
        return out

    def _read(self, path: Path, work_dir: str | None, *, head: bool) -> KimiCliSession | None:
        """The session at ``path``; with ``head`` the wire is read only up to its first prompt.
        None for a directory that holds no context (Kimi does not list it either)."""
        flat = path.suffix == ".jsonl"
        context_path = path if flat else path / "context.jsonl"
        if not os.path.lexists(context_path):
            return None
        raw = read_regular(context_path, limit=MAX_SESSION_FILE_BYTES)
        context, context_newline = parse_context(decode_lossless(raw), str(context_path))
        wire: tuple[Line, ...] | None = None
        wire_newline = True
        state: str | None = None
        if not flat:
            wire_path = path / "wire.jsonl"
            if os.path.lexists(wire_path):
                wire, wire_newline = _read_wire(wire_path, head=head)
            state_path = path / "state.json"
            if os.path.lexists(state_path):
                state = decode_lossless(read_regular(state_path, limit=MAX_SIDE_FILE_BYTES))
        return KimiCliSession(
            session_id=path.stem if flat else path.name,
            work_dir=work_dir,
            context=context,
            context_newline=context_newline,
            wire=wire,
            wire_newline=wire_newline,
            state=state,
            flat=flat,
        )

    def _list_one(self, path: Path, work_dir: str | None) -> Discovered | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TranscriptWarning)
                native = self._read(path, work_dir, head=True)
            stamp = (path if path.suffix == ".jsonl" else path / "context.jsonl").stat()
        except (TxcriptError, OSError) as exc:
            warn(f"skipping {path}: {exc}")
            return None
        if native is None:
            return None
        if not _has_message(native.context) and not native.state_value().get("custom_title"):
            return None  # an empty session: Kimi does not list it either
        meta = meta_of(native)
        return Discovered.from_meta(HARNESS, str(path), meta, updated_at=modified_at(stamp))

    def _listed(self, found: list[tuple[Path, str]], *, complete: bool) -> list[Discovered]:
        """The sessions among ``found``, newest first; one whose files (and the index, which
        names its work dir) are unchanged since the metadata cache kept it is only ``stat``-ed."""
        index = read_index(self.root, strict=False)
        groups = {str(path): (path, group) for path, group in found}
        keys = {
            reference: stat_key([*_files_of(path), self.root / INDEX])
            for reference, (path, _) in groups.items()
        }

        def list_one(reference: str) -> Discovered | None:
            path, group = groups[reference]
            return self._list_one(path, index.work_dirs.get(group))

        scope = f"{HARNESS}:{self.sessions}"
        out = cached_listing(scope, keys, list_one, Discovered, complete=complete)
        out.sort(key=lambda d: d.updated_at or d.timestamp, reverse=True)
        return out

    def discover(self) -> list[Discovered]:
        return self._listed(self.session_paths(), complete=True)

    def lookup(self, id_prefix: str) -> list[Discovered]:
        return self._listed(self.session_paths(id_prefix), complete=False)

    # -- load / save ------------------------------------------------------------------------
    def load(self, reference: str) -> KimiCliSession:
        path = Path(reference)
        if not os.path.lexists(path):
            raise BadInput(f"no Kimi CLI session at {reference}")
        index = read_index(self.root, strict=False)
        native = self._read(path, index.work_dirs.get(path.parent.name), head=False)
        if native is None:
            raise BadInput(f"{reference} holds no Kimi CLI context (context.jsonl)")
        return native

    def save(self, native: KimiCliSession, *, force: bool = False) -> Saved:
        session_id = UUID_IDS.check(native.session_id, "Kimi CLI")
        # (A session with no work directory is filed under the one it is written from.)
        work_dir = filing_directory(native.work_dir)
        directory = self.sessions / work_dir_key(work_dir) / session_id
        files = {"context.jsonl": render_context(native)}
        wire = render_wire(native)
        if wire is not None:
            files["wire.jsonl"] = wire
        if native.state is not None:
            files["state.json"] = native.state
        try:
            data = {name: text.encode("utf-8", "surrogateescape") for name, text in files.items()}
        except UnicodeEncodeError as exc:
            raise StoreError(
                f"writing {directory}: text is not encodable as UTF-8 ({exc})"
            ) from None
        index_path = self.root / INDEX
        targets = [directory / name for name in data] + [index_path]
        preflight_write(self.root, targets, store="Kimi CLI")
        index = read_index(self.root, strict=True)
        if os.path.lexists(directory) and not force:
            raise BadInput(
                f"Kimi CLI already holds a session `{scrub(session_id)}` at {directory}; "
                "refusing to overwrite it (pass --force to replace it)"
            )
        undo = Undo()
        try:
            undo.make_dirs(directory)
            for name, payload in data.items():
                undo.write(directory / name, payload)
            if work_dir_key(work_dir) not in index.work_dirs:
                undo.write(index_path, _indexed(index, work_dir))
        except BaseException:
            undo.run()
            raise
        return Saved(id=session_id, reference=str(directory), location=str(directory))

    # -- delete / fingerprints --------------------------------------------------------------
    def delete(self, reference: str, *, force: bool = False) -> None:
        given = Path(reference).absolute()
        try:
            sessions = self.sessions.resolve(strict=True)
            real = given.resolve(strict=True)
        except (OSError, RuntimeError):
            raise BadInput(f"no Kimi CLI session at {reference}") from None
        if not real.is_relative_to(sessions) or len(real.relative_to(sessions).parts) != 2:
            raise StoreError(f"refusing to delete {reference}: it is not a Kimi CLI session")
        flat = real.is_file() and real.suffix == ".jsonl"
        if not flat and not (real.is_dir() and (real / "context.jsonl").is_file()):
            raise StoreError(f"refusing to delete {reference}: it is not a Kimi CLI session")
        from txcript.shared import backups

        session = real.stem if flat else real.name
        backup = backups.create_files([real], harness=HARNESS, operation="delete", session=session)
        try:
            if flat:
                real.unlink()
            else:
                shutil.rmtree(real)
        except OSError as exc:
            raise StoreError(
                f"deleting {real}: {exc.strerror or exc}; backup {backup.id} holds a copy"
            ) from None

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        out = {}
        for reference in references:
            path = Path(reference)
            if path.suffix == ".jsonl":
                out.update(file_fingerprints([reference]))
                continue
            parts = file_fingerprints(
                [str(path / name) for name in ("context.jsonl", "wire.jsonl", "state.json")]
            )
            out[reference] = "|".join(parts.values())
        return out


def _files_of(path: Path) -> list[Path]:
    """The files a session's listing is read from."""
    if path.suffix == ".jsonl":
        return [path]
    return [path / "context.jsonl", path / "wire.jsonl", path / "state.json"]


def _indexed(index: Index, work_dir: str) -> bytes:
    """``kimi.json`` with ``work_dir`` added, laid out as Kimi lays it out (two-space JSON)."""
    document = dict(index.document or {})
    listed = list(document.get("work_dirs") or [])
    listed.append({"path": work_dir, "kaos": "local", "last_session_id": None})
    document["work_dirs"] = listed
    return json.dumps(document, indent=2, ensure_ascii=False).encode("utf-8", "surrogateescape")
