"""The Qwen Code store: ``<root>/projects/<project id>/chats/<session id>.jsonl``.

**Root.** Qwen's runtime base: ``QWEN_RUNTIME_DIR``, else ``QWEN_HOME``, else ``~/.qwen`` (the
same path under the user profile on Windows and macOS). ``<project id>`` is the project root
with every character outside ``[A-Za-z0-9]`` replaced by ``-`` (Windows paths lowercased first).

**Discovery** lists every ``chats/*.jsonl`` file named as Qwen names chats (a 32–36 character
hex-and-dash stem), never following directory symlinks. It parses lines only until the first
record, the first prompt and the first model are known, then only the lines that hold a
``custom_title`` (matched as bytes first); both it and a full load feed the same
:class:`~.codec.MetaScan`, so their Meta agree. Each listing is kept in the metadata cache under
the file's ``"<mtime ns>:<size>"`` (:mod:`txcript.shared.listing`), so an unchanged chat is only
``stat``-ed. ``chats/archive/`` (sessions the user archived,
which ``qwen --resume`` does not offer) and sub-agent logs are not listed.

**Saving** writes one new chat file by an atomic rename into the project directory of the
session's cwd (``qwen --resume <id>`` run from that directory finds it), after
:func:`~txcript.shared.files.preflight_write`; it refuses to replace an existing chat without
``force``. **Deleting** backs the file up (:func:`txcript.shared.backups.create_files`, which
``txcript restore`` undoes) and removes it; only chat files inside ``projects/``.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable
from pathlib import Path

from txcript.diagnostics import TranscriptWarning, warn
from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.model import Meta
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    Undo,
    decode_lossless,
    file_fingerprints,
    modified_at,
    preflight_write,
    read_regular,
    read_regular_stat,
)
from txcript.shared.ids import UUID_IDS
from txcript.shared.jsonutil import try_loads
from txcript.shared.listing import cached_listing, stat_key
from txcript.shared.text import scrub
from txcript.shared.workdir import filing_directory

from .codec import MetaScan, meta_of
from .native import HARNESS, QwenSession, is_record, parse, render

#: The chat file names Qwen lists (its own pattern).
CHAT_NAME = re.compile(r"[0-9a-fA-F-]{32,36}\.jsonl")
_TITLE_LINE = re.compile(rb'"subtype"\s*:\s*"custom_title"')
_WINDOWS_PATH = re.compile(r"[A-Za-z]:[\\/]")


def project_id(cwd: str) -> str:
    """Qwen's directory name for a project root: ``/home/a/my.app`` → ``-home-a-my-app``."""
    if _WINDOWS_PATH.match(cwd):
        cwd = cwd.lower()
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def scan_bytes(data: bytes, fallback_id: str) -> MetaScan:
    """A chat file's Meta from its bytes, parsing as few lines as :class:`MetaScan` needs."""
    scan = MetaScan(fallback_id)
    position, size = 0, len(data)
    while position < size and scan.needs_head:
        end = data.find(b"\n", position)
        end = size if end < 0 else end
        value = try_loads(decode_lossless(data[position:end])) if end > position else None
        position = end + 1
        if isinstance(value, dict) and is_record(value):
            scan.feed(value)
    while position < size:
        found = _TITLE_LINE.search(data, position)
        if found is None:
            break
        start = max(data.rfind(b"\n", position, found.start()) + 1, position)
        end = data.find(b"\n", found.end())
        end = size if end < 0 else end
        value = try_loads(decode_lossless(data[start:end]))
        if isinstance(value, dict) and is_record(value):
            scan.feed(value)
        position = end + 1
    return scan


def _directories(path: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as listing:
            found = [e for e in listing if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    return sorted(found, key=lambda e: e.name)


class QwenStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.projects = root / "projects"

    def location(self, reference: str) -> str:
        return reference

    # -- discovery --------------------------------------------------------------------------
    def chat_files(self, id_prefix: str = "") -> list[Path]:
        """Every ``projects/*/chats/<id>.jsonl`` whose id starts with ``id_prefix``."""
        out: list[Path] = []
        prefix = id_prefix.lower()
        for project in _directories(self.projects):
            chats = Path(project.path) / "chats"
            try:
                if chats.is_symlink() or not chats.is_dir():
                    continue
                entries = sorted(os.scandir(chats), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                if CHAT_NAME.fullmatch(name) and name.lower().startswith(prefix):
                    try:
                        if not entry.is_dir(follow_symlinks=False):
                            out.append(Path(entry.path))
                    except OSError:
                        continue
        return out

    def _list_one(self, reference: str) -> Discovered | None:
        path = Path(reference)
        try:
            data, status = read_regular_stat(path, limit=MAX_SESSION_FILE_BYTES)
        except TxcriptError as exc:
            warn(f"skipping {path}: {exc}")
            return None
        scan = scan_bytes(data, path.stem)
        if scan.first is None:
            if data.strip():
                warn(f"skipping {path}: it holds no Qwen Code chat records")
            return None
        meta: Meta = scan.meta()
        return Discovered.from_meta(HARNESS, reference, meta, updated_at=modified_at(status))

    def _listed(self, paths: Iterable[Path], *, complete: bool) -> list[Discovered]:
        """The chats among ``paths``, newest first; a file whose (size, mtime) is what the
        metadata cache holds it under is only ``stat``-ed."""
        keys = {str(path): stat_key([path]) for path in paths}
        scope = f"{HARNESS}:{self.projects}"
        out = cached_listing(scope, keys, self._list_one, Discovered, complete=complete)
        out.sort(key=lambda d: d.updated_at or d.timestamp, reverse=True)
        return out

    def discover(self) -> list[Discovered]:
        return self._listed(self.chat_files(), complete=True)

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The sessions whose id starts with ``id_prefix``: only files so named are read."""
        found = self._listed(self.chat_files(id_prefix), complete=False)
        return [d for d in found if d.meta_id.startswith(id_prefix)]

    # -- load / save ------------------------------------------------------------------------
    def load(self, reference: str) -> QwenSession:
        path = Path(reference)
        if not os.path.lexists(path):
            raise BadInput(f"no Qwen Code chat at {reference}")
        data = read_regular(path, limit=MAX_SESSION_FILE_BYTES)
        native = parse(decode_lossless(data), label=str(path))
        return QwenSession(native.lines, native.trailing_newline, fallback_id=path.stem)

    def target(self, native: QwenSession) -> tuple[str, Path]:
        meta = meta_of(native)
        session_id = UUID_IDS.check(meta.id, "Qwen Code")
        # (A chat with no cwd is filed under the directory it is written from.)
        project = project_id(filing_directory(meta.cwd))
        return session_id, self.projects / project / "chats" / f"{session_id}.jsonl"

    def save(self, native: QwenSession, *, force: bool = False) -> Saved:
        """Write the chat where ``qwen --resume <id>``, run from its cwd, finds it."""
        session_id, path = self.target(native)
        try:
            data = render(native).encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:
            raise StoreError(f"writing {path}: text is not encodable as UTF-8 ({exc})") from None
        preflight_write(self.root, [path], store="Qwen Code")
        if os.path.lexists(path) and not force:
            raise BadInput(
                f"Qwen Code already holds a chat `{scrub(session_id)}` at {path}; refusing to "
                "overwrite it (pass --force to replace it)"
            )
        undo = Undo()
        try:
            undo.make_dirs(path.parent)
            undo.write(path, data)
        except BaseException:
            undo.run()
            raise
        return Saved(id=session_id, reference=str(path), location=str(path))

    # -- delete / fingerprints --------------------------------------------------------------
    def delete(self, reference: str, *, force: bool = False) -> None:
        """Remove one chat file after backing it up; only chat files inside ``projects/``."""
        given = Path(reference).absolute()
        try:
            projects = self.projects.resolve(strict=True)
            real = given.resolve(strict=True)
        except (OSError, RuntimeError):
            raise BadInput(f"no Qwen Code chat at {reference}") from None
        if not real.is_relative_to(projects):
            raise StoreError(
                f"refusing to delete {reference}: it is outside the Qwen Code store {self.projects}"
            )
        if not real.is_file() or not CHAT_NAME.fullmatch(real.name):
            raise StoreError(f"refusing to delete {reference}: it is not a Qwen Code chat file")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TranscriptWarning)
                data = read_regular(real, limit=MAX_SESSION_FILE_BYTES)
                parse(decode_lossless(data))
        except TxcriptError:
            raise StoreError(
                f"refusing to delete {reference}: it is not a Qwen Code chat"
            ) from None
        from txcript.shared import backups

        backup = backups.create_files(
            [real], harness=HARNESS, operation="delete", session=real.stem
        )
        try:
            real.unlink()
        except OSError as exc:
            backups.discard(backup)
            raise StoreError(
                f"deleting {real}: {exc.strerror or exc}; nothing was deleted"
            ) from None

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        return file_fingerprints(references)
