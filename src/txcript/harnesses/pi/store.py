"""The pi-family stores: one JSONL file per session under an agent directory's ``sessions/``.

pi keeps ``<agent dir>/sessions/--<cwd>--/<time>_<uuid>.jsonl``, the agent dir being
``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``; the project directory is the cwd without its
leading separator, ``/``, ``\\`` and ``:`` turned into ``-``, wrapped in ``--``. Apps built on
pi's session manager write the same files under their own agent dir (Campfire:
``~/.campfire/agent``, ``$CAMPFIRE_CODING_AGENT_DIR``). :class:`PiFamilyStore` is that layout,
parameterized by harness; OpenClaw's own layout builds on it in :mod:`.openclaw`.

**Discovery** lists ``*.jsonl`` files directly under ``sessions/`` (where pi puts sessions when
its session dir is set explicitly) and one directory below it, whatever the project directory is
called (oh-my-pi names them its own way); directory symlinks are never followed. A file is a
session only if its first JSON line is a ``session`` header. Only the head of a file is parsed,
plus the ``session_info`` lines (found as bytes), so a listing's metadata is what a full load
gives (:class:`.meta.MetaScan`); it is kept in the metadata cache under the file's
``"<mtime ns>:<size>"``. ``updated_at`` is the file's mtime.

**oh-my-pi** keeps its sessions in ``<home>/.omp/agent/sessions`` (``$PI_CONFIG_DIR`` renames
``.omp``), or ``$XDG_DATA_HOME/omp/sessions`` when that exists; it shares pi's
``PI_CODING_AGENT_DIR``. Those are extra session dirs of pi's default store: when the pi store is
the one under a home (``<home>/.pi/agent``), its listing includes oh-my-pi's sessions, each
attributed to the file it was found in. Writes go to pi's own root.

**An explicit session dir** (``$PI_CODING_AGENT_SESSION_DIR``, Campfire's
``$CAMPFIRE_CODING_AGENT_SESSION_DIR``) is where the app keeps new sessions flat and looks for an
id first. For the app's own agent dir, it is listed too and saves go into it.

**Saving** writes ``sessions/--<cwd>--/<time>_<id>.jsonl`` atomically after the id check and the
write preflight; the directories it creates are removed again when the write fails. **Deleting**
backs the file up first (``txcript restore`` puts it back) and refuses anything outside the
sessions directories or that is not a pi session.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
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
    file_fingerprints,
    file_key,
    modified_at,
    preflight_write,
    read_regular,
    read_regular_stat,
)
from txcript.shared.ids import UUID_IDS
from txcript.shared.jsonutil import INVALID, try_loads
from txcript.shared.timeutil import format_millis

from .meta import SESSION_INFO_LINE, MetaScan
from .native import PiSession, id_from_file_name, is_header, parse, render
from .tree import header_of

#: A file modified this recently (ns) may still change without its (size, mtime) moving.
_SETTLED_NS = 2_000_000_000


def project_dir_name(cwd: str) -> str:
    """pi's directory name for ``cwd``: one leading separator dropped, ``/ \\ :`` → ``-``,
    wrapped in ``--`` (``C:\\Users\\u\\p`` → ``--C--Users-u-p--``)."""
    trimmed = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    for ch in "/\\:":
        trimmed = trimmed.replace(ch, "-")
    return f"--{trimmed}--"


def file_stamp(timestamp: Any, fallback: str) -> str:
    """The time part of a session file name: the header's timestamp with ``:`` and ``.`` → ``-``."""
    text = timestamp if isinstance(timestamp, str) and timestamp else fallback
    return text.replace(":", "-").replace(".", "-")


def scan_bytes(data: bytes, fallback_id: str) -> Meta | None:
    """The Meta of a session file's bytes, or None when it is not a pi session. Lines are
    parsed until the head fields are known; after that only ``session_info`` lines are."""
    scan = MetaScan(fallback_id)
    position, size = 0, len(data)
    first = True
    while position < size and scan.needs_head:
        end = data.find(b"\n", position)
        end = size if end < 0 else end
        line = data[position:end]
        position = end + 1
        if not line.strip():
            continue
        value = try_loads(decode_lossless(line))
        if first:
            if value is INVALID:
                continue  # not JSON: pi skips such lines
            if not is_header(value):
                return None
            first = False
        scan.feed(value)
    if first:
        return None
    while position < size:
        found = SESSION_INFO_LINE.search(data, position)
        if found is None:
            break
        start = max(data.rfind(b"\n", position, found.start()) + 1, position)
        end = data.find(b"\n", found.end())
        end = size if end < 0 else end
        scan.feed(try_loads(decode_lossless(data[start:end])))
        position = end + 1
    return scan.meta()


def _within(path: Path, directory: Path) -> bool:
    return path.parts[: len(directory.parts)] == directory.parts


class PiFamilyStore:
    """Sessions of one pi-format app under ``<root>/sessions`` (and the extra and explicit
    session dirs it is given)."""

    harness = "pi"
    label = "pi"

    def __init__(
        self, root: Path, extra_sessions: tuple[Path, ...] = (), session_dir: Path | None = None
    ) -> None:
        self.root = root
        self.sessions = root / "sessions"
        #: Other apps' session dirs listed with this store (oh-my-pi's, for pi's default root).
        self.extra_sessions = extra_sessions
        #: The app's explicit session dir (``<APP>_CODING_AGENT_SESSION_DIR``), where it keeps
        #: new sessions flat and looks for them first; saves go there when it is set.
        self.session_dir = session_dir

    def location(self, reference: str) -> str:
        return reference

    # -- discovery --------------------------------------------------------------------------
    def session_directories(self) -> list[Path]:
        """Where session files are looked for (the primary one first)."""
        explicit = [self.session_dir] if self.session_dir else []
        return [self.sessions, *self.extra_sessions, *explicit]

    def _references(self, id_prefix: str = "") -> list[str]:
        """Session files (flat under each sessions dir, and one directory below), sorted, only
        those whose name carries an id starting with ``id_prefix``."""
        found: list[str] = []
        for top in self.session_directories():
            try:
                entries = sorted(os.scandir(top), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        inner = sorted(os.scandir(entry.path), key=lambda e: e.name)
                        found.extend(e.path for e in inner if self._wanted(e, id_prefix))
                    elif self._wanted(entry, id_prefix):
                        found.append(entry.path)
                except OSError:
                    continue
        return found

    @staticmethod
    def _wanted(entry: os.DirEntry[str], id_prefix: str) -> bool:
        if not entry.name.endswith(".jsonl"):
            return False
        if id_prefix and not id_from_file_name(entry.name).startswith(id_prefix):
            return False
        try:
            return not entry.is_dir()
        except OSError:
            return False

    def read_meta(self, path: Path) -> tuple[Meta | None, os.stat_result] | None:
        """``(Meta, stat)`` of a file, ``(None, stat)`` for a file that is no pi session, None
        after a warning (unreadable)."""
        try:
            data, status = read_regular_stat(path, limit=MAX_SESSION_FILE_BYTES)
        except TxcriptError as exc:
            warn(f"skipping {path}: {exc}")
            return None
        meta = scan_bytes(data, id_from_file_name(path.name))
        if meta is None and data.strip() and not data.lstrip().startswith(b"{"):
            # Not JSON lines at all: say which file, rather than the session silently missing.
            warn(f"skipping {path}: not a {self.label} session file (no JSON lines)")
        return meta, status

    def discover(self) -> list[Discovered]:
        return self._listed(self._references(), complete=True)

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The sessions whose id starts with ``id_prefix``: only files so named are read (pi
        names each file after its session id)."""
        found = self._listed(self._references(id_prefix), complete=False)
        return [d for d in found if d.meta_id.startswith(id_prefix)]

    def fingerprinted(self) -> dict[str, str]:
        return file_fingerprints(self._references())

    def discover_references(self, references: Iterable[str]) -> list[Discovered]:
        return self._listed([r for r in references if os.path.lexists(r)], complete=False)

    def _listed(self, references: list[str], *, complete: bool) -> list[Discovered]:
        cache = metadata_cache()
        scope = f"{self.harness}:{self.root}"
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
                meta = _meta_decoder.decode(entry[1])
            except (OSError, LookupError, msgspec.DecodeError, msgspec.ValidationError):
                read = self.read_meta(Path(reference))
                if read is None:
                    continue
                meta, status = read
                cached = _cache_fields(meta)
                if cached is not None and status.st_mtime_ns < settled:
                    fresh[reference] = (file_key(status), cached)
            if meta is not None:
                out.append(
                    Discovered.from_meta(
                        self.harness, reference, meta, updated_at=modified_at(status)
                    )
                )
        gone = [r for r in known if r not in set(references)] if complete else []
        cache.update(scope, fresh, gone)
        out.sort(key=lambda d: d.timestamp, reverse=True)
        return out

    # -- load / save ------------------------------------------------------------------------
    def load(self, reference: str) -> PiSession:
        path = Path(reference)
        if not os.path.lexists(path):
            raise BadInput(f"reading {reference}: no such {self.label} session file")
        text = decode_lossless(read_regular(path, limit=MAX_SESSION_FILE_BYTES))
        native = parse(text, label=str(path))
        return PiSession(
            lines=native.lines,
            trailing_newline=native.trailing_newline,
            fallback_id=id_from_file_name(path.name),
        )

    def target(self, native: PiSession) -> tuple[str, Path]:
        """The session id (checked) and where ``native`` is saved."""
        header = header_of(native)
        named = header.get("id")
        session_id = UUID_IDS.check(named if isinstance(named, str) else "", self.label)
        cwd = header.get("cwd")
        if not isinstance(cwd, str) or not cwd:
            try:
                cwd = os.getcwd()
            except OSError as exc:
                raise StoreError(f"the current directory is gone: {exc.strerror or exc}") from None
        from .codec import meta_of

        stamp = file_stamp(header.get("timestamp"), format_millis(meta_of(native).timestamp))
        name = f"{stamp}_{session_id}.jsonl"
        if self.session_dir is not None:
            return session_id, self.session_dir / name
        return session_id, self.sessions / project_dir_name(cwd) / name

    def encoded(self, native: PiSession, path: Path) -> bytes:
        try:
            return render(native).encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:
            raise StoreError(f"writing {path}: text is not encodable as UTF-8 ({exc})") from None

    def save(self, native: PiSession, *, force: bool = False) -> Saved:
        """Write the session file (``force`` has no effect: pi appends to its files and never
        holds a store open)."""
        session_id, path = self.target(native)
        data = self.encoded(native, path)
        preflight_write(self.session_dir or self.root, [path], store=self.label)
        undo = Undo()
        try:
            undo.make_dirs(path.parent)
            undo.write(path, data)
        except BaseException:
            undo.run()
            raise
        return Saved(id=session_id, reference=str(path), location=str(path))

    # -- delete / fingerprints --------------------------------------------------------------
    def check_deletable(self, reference: str) -> tuple[Path, str]:
        """The real path of a session file inside this store, and its session id."""
        real = Path(os.path.realpath(reference))
        tops = [Path(os.path.realpath(top)) for top in self.session_directories()]
        if not any(_within(real, top) and real != top for top in tops):
            raise BadInput(f"{reference} is not inside the {self.label} store {self.root}")
        if not real.is_file() or real.suffix != ".jsonl":
            raise BadInput(f"no {self.label} session at {reference}")
        read = self.read_meta(real)
        if read is None or read[0] is None:
            raise BadInput(f"{reference} is not a {self.label} session")
        return real, read[0].id

    def delete(self, reference: str, *, force: bool = False) -> None:
        """Remove one session file after backing it up (``txcript restore`` undoes it)."""
        real, session_id = self.check_deletable(reference)
        from txcript.shared import backups

        backup = backups.create_files(
            [real], harness=self.harness, operation="delete", session=session_id
        )
        try:
            real.unlink()
        except OSError as exc:
            backups.discard(backup)
            raise StoreError(
                f"deleting {real}: {exc.strerror or exc}; nothing was deleted"
            ) from None
        given = Path(reference)
        if given.is_symlink():
            with contextlib.suppress(OSError):
                given.unlink()

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        return file_fingerprints(references)


class PiStore(PiFamilyStore):
    harness = "pi"
    label = "pi"


class CampfireStore(PiFamilyStore):
    harness = "campfire"
    label = "Campfire"


def _is_default_root(root: Path, home_name: str, prefix: str) -> bool:
    """Is ``root`` the app's own agent dir (``$<PREFIX>_CODING_AGENT_DIR``, else
    ``<home>/<home_name>/agent``), rather than a copy's root given with ``--out``?"""
    named = os.environ.get(f"{prefix}_CODING_AGENT_DIR")
    if named:
        return Path(os.path.expanduser(named)) == root
    return root.name == "agent" and root.parent.name == home_name


def explicit_session_dir(root: Path, home_name: str, prefix: str) -> Path | None:
    """``$<PREFIX>_CODING_AGENT_SESSION_DIR`` (a leading ``~`` expanded) when it is set and
    ``root`` is the app's own agent dir: the app then keeps new sessions flat in it."""
    value = os.environ.get(f"{prefix}_CODING_AGENT_SESSION_DIR")
    if not value or not _is_default_root(root, home_name, prefix):
        return None
    return Path(os.path.expanduser(value))


def oh_my_pi_sessions(root: Path) -> tuple[Path, ...]:
    """oh-my-pi's session dirs when ``root`` is pi's under a home (``<home>/.pi/agent``, so
    ``PI_CODING_AGENT_DIR``, which oh-my-pi shares, is unset): ``<home>/<$PI_CONFIG_DIR or
    .omp>/agent/sessions``, and ``$XDG_DATA_HOME/omp/sessions`` when that exists. None for any
    other root (a copy written under ``--out``, a test's store)."""
    if root.name != "agent" or root.parent.name != ".pi":
        return ()
    home = root.parent.parent
    config = os.environ.get("PI_CONFIG_DIR") or ".omp"
    found = [home / config / "agent" / "sessions"]
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg and os.path.isdir(Path(xdg, "omp", "sessions")):
        found.append(Path(xdg, "omp", "sessions"))
    return tuple(d for d in found if d != root / "sessions")


def open_pi(root: Path) -> PiStore:
    """pi's store at ``root``, with oh-my-pi's sessions beside it and pi's explicit session dir
    for pi's own default root."""
    return PiStore(root, oh_my_pi_sessions(root), explicit_session_dir(root, ".pi", "PI"))


def open_campfire(root: Path) -> CampfireStore:
    return CampfireStore(root, (), explicit_session_dir(root, ".campfire", "CAMPFIRE"))


def _cache_fields(meta: Meta | None) -> bytes | None:
    try:
        return msgspec.json.encode(meta)
    except (msgspec.EncodeError, UnicodeEncodeError):
        return None


_meta_decoder: msgspec.json.Decoder[Meta | None] = msgspec.json.Decoder(Meta | None)
