"""The Gemini CLI store: chat files under ``~/.gemini/tmp/<project>/chats/``.

**Root.** ``~/.gemini``; ``GEMINI_CLI_HOME`` replaces the home directory (the store is then
``$GEMINI_CLI_HOME/.gemini``). ``--out DIR`` names the ``.gemini`` directory itself.

**Layout.** ``tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of id>.jsonl`` (or a legacy
``.json``) is a main chat; ``tmp/<project>/chats/<parent session id>/<id>.json(l)`` is a sub-agent
chat. ``<project>`` is a slug or the sha256 of the root (see :mod:`.projects`); a project's root
comes from its ``.project_root``, else from ``projects.json``, else from the ``projectHash`` the
chat records.

**Discovery** walks every project's ``chats/`` (and one level of sub-agent directories) without
following directory symlinks, reads each chat through
:func:`~txcript.shared.files.read_regular` (regular files only, size-capped), decides its form by
content, and derives its Meta with the same :func:`~.codec.meta_of` a load uses. A session found
twice — in a sha256 directory and in the slug directory that replaced it — is listed once: the
copy updated last, the slug one on a tie. Sub-agent chats are listed as their own sessions with
``parent`` set. :meth:`GeminiStore.lookup` (an id or id prefix) reads only the chats whose name
allows such an id, and any chat named otherwise.

**Noticing changes** (:class:`~txcript.harnesses.base.ListsByFile`). A chat file's listing
depends on more than the file: its cwd on the project's ``.project_root`` (else on
``projects.json``), and whether it is listed at all on the other copies of its session. So its
fingerprint is its ``"<mtime ns>:<size>"`` and its project's part (a digest of the marker's
root, else the registry's key), joined with a digest of the same for every chat that may hold
the same session: main chats whose name carries the same first 8 characters of an id (the same
assumption :meth:`GeminiStore.lookup` makes), sub-agent chats of the same parent, and main chats
named otherwise (they may hold any main chat's session). A copy that loses to another lists
nothing; the search index records that under its fingerprint, which moves with its rivals'.

**Saving** is all or nothing and never replaces a chat without ``force``: the project is
registered first (``projects.json`` entry and ``.project_root`` marker, only when missing; a
registry that does not parse is never touched), the chat file last; a failure undoes every step.

**Deleting** backs the chat file up (:func:`txcript.shared.backups.create_files`) and removes it;
only chat files inside ``tmp/`` (links resolved) are deleted.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from txcript.diagnostics import TranscriptWarning, skipped
from txcript.errors import BadInput, StoreError, StoreUnreadable, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.model import Meta
from txcript.shared import backups
from txcript.shared.cache import metadata_cache
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    Undo,
    decode_lossless,
    file_key,
    modified_at,
    preflight_write,
    read_regular,
)
from txcript.shared.ids import check_session_id
from txcript.shared.text import scrub
from txcript.shared.timeutil import format_rfc3339, now, parse_rfc3339
from txcript.shared.workdir import filing_directory

from . import projects
from .codec import meta_from, meta_of
from .native import HARNESS, Chat, GeminiSession, parse, render, replay
from .scan import scan

_SUFFIXES = (".jsonl", ".json")
#: A copy whose last update is older than this may be pruned by Gemini's session retention.
_RETENTION_NOTE_AGE = timedelta(days=1)


#: A chat file is listed from the metadata cache only once its mtime is this much in the past
#: (a file rewritten within the clock's resolution could keep its size and mtime).
_SETTLED_NS = 2_000_000_000


class _Listing(msgspec.Struct, frozen=True, gc=False):
    """What a chat file gives its listing, as the metadata cache keeps it under the file's
    ``<mtime ns>:<size>``: its Meta (without the cwd, which comes from its project directory and
    the registry, outside the file), the ``projectHash`` of its header and of its first record,
    and its header's last update."""

    meta: Meta
    project_hash: str | None
    head_hash: str | None
    updated: datetime | None


_encode_listing = msgspec.json.Encoder().encode
_decode_listing = msgspec.json.Decoder(_Listing).decode


@dataclass(frozen=True, slots=True)
class _Found:
    path: Path
    project: Path
    parent: str | None


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as listing:
            return sorted(listing, key=lambda e: e.name)
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_chat_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.name.endswith(_SUFFIXES) and entry.is_file()
    except OSError:
        return False


#: A main chat's name as Gemini (and txcript) writes it: its start, then its id's first 8.
_MAIN_CHAT_NAME = re.compile(r"session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-(?P<head>.{8})")


def _may_hold(found: _Found, id_prefix: str) -> bool:
    """Can the chat file hold a session whose id starts with ``id_prefix``, by its name?"""
    stem = found.path.name.rsplit(".", 1)[0]
    if found.parent is not None:  # chats/<parent id>/<id>.json(l)
        return stem.startswith(id_prefix)
    named = _MAIN_CHAT_NAME.fullmatch(stem)
    return named is None or named["head"].startswith(id_prefix[:8])


#: The group of main chats named otherwise: they may hold any main chat's session.
_ANY_MAIN = ("main", None)


def _copies_group(found: _Found) -> tuple[str, str | None]:
    """Which chats may hold the same session as ``found`` (and so decide which copy is listed):
    main chats named after the same 8 characters of an id, sub-agent chats of one parent."""
    if found.parent is not None:
        return "sub", found.parent
    named = _MAIN_CHAT_NAME.fullmatch(found.path.name.rsplit(".", 1)[0])
    return _ANY_MAIN if named is None else ("main", named["head"])


def _digest(parts: Iterable[str]) -> str:
    return hashlib.blake2b(
        "\0".join(parts).encode("utf-8", "surrogateescape"), digest_size=8
    ).hexdigest()


def _project_root(project: Path, registry: projects.Registry) -> str | None:
    """The root a project directory stands for: its marker, else the registry's word."""
    return projects.read_marker(project) or registry.root_of(project.name)


def _root(directory: str | None, head: Any, registry: projects.Registry) -> str | None:
    """A chat's cwd: its project directory's root, else the one its ``projectHash`` names."""
    if directory is not None:
        return directory
    project_hash = head.get("projectHash") if isinstance(head, dict) else None
    return registry.root_with_hash(project_hash) if isinstance(project_hash, str) else None


class GeminiStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.tmp = root / "tmp"

    # -- files ------------------------------------------------------------------------------
    def _chat_files(self) -> Iterator[_Found]:
        for project in _entries(self.tmp):
            if not _is_dir(project):
                continue
            chats = Path(project.path, "chats")
            if chats.is_symlink() or not chats.is_dir():
                continue
            for entry in _entries(chats):
                if _is_chat_file(entry):
                    yield _Found(Path(entry.path), Path(project.path), None)
                elif _is_dir(entry):
                    for child in _entries(Path(entry.path)):
                        if _is_chat_file(child):
                            yield _Found(Path(child.path), Path(project.path), entry.name)

    def _place(self, path: Path) -> tuple[Path | None, str | None]:
        """The project directory and the parent session id a chat file's location implies."""
        parent = path.parent
        if parent.name == "chats":
            return parent.parent, None
        if parent.parent.name == "chats":
            return parent.parent.parent, parent.name
        return None, None

    def _read(
        self, path: Path, project: Path | None, parent: str | None, registry: projects.Registry
    ) -> GeminiSession:
        data = read_regular(path, limit=MAX_SESSION_FILE_BYTES)
        native = parse(decode_lossless(data), label=str(path))
        stem = path.name.rsplit(".", 1)[0]
        return replace(
            native,
            cwd=self._cwd(native, project, registry),
            parent_id=parent,
            fallback_id=stem,
        )

    def _cwd(
        self, native: GeminiSession, project: Path | None, registry: projects.Registry
    ) -> str | None:
        head = native.lines[0].value if native.lines else None
        directory = None if project is None else _project_root(project, registry)
        return _root(directory, head, registry)

    # -- discovery --------------------------------------------------------------------------
    def discover(self) -> list[Discovered]:
        return self._listed(self._chat_files(), complete=True)

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The sessions whose id starts with ``id_prefix``, listed exactly as :meth:`discover`
        lists them, reading only the chat files whose name allows such an id: a main chat is
        named after the first 8 characters of its id, a sub-agent chat after its whole id. A
        file named otherwise is read too (its name tells nothing), so every copy of a matching
        session is weighed as discovery weighs it."""
        found = self._listed(f for f in self._chat_files() if _may_hold(f, id_prefix))
        return [d for d in found if d.meta_id.startswith(id_prefix)]

    def fingerprinted(self) -> dict[str, str]:
        """Every chat file :meth:`discover` looks at, with its fingerprint now (see the module's
        *Noticing changes* and :class:`txcript.harnesses.base.ListsByFile`)."""
        files = list(self._chat_files())
        own: dict[str, str] = {}
        groups: dict[tuple[str, str | None], list[str]] = {}
        parts: dict[Path, str | None] = {}
        registry: list[str | None] = []
        for found in files:
            reference = str(found.path)
            if found.project not in parts:
                parts[found.project] = self._project_part(found.project, registry)
            part = parts[found.project]
            try:
                own[reference] = "" if part is None else f"{file_key(found.path.stat())}/{part}"
            except OSError:
                own[reference] = ""
            groups.setdefault(_copies_group(found), []).append(reference)
        anywhere = groups.get(_ANY_MAIN, [])
        every_main = [r for group, refs in groups.items() if group[0] == "main" for r in refs]
        out: dict[str, str] = {}
        for group, references in groups.items():
            if group == _ANY_MAIN:
                rivals = every_main
            elif group[0] == "main":
                rivals = references + anywhere
            else:
                rivals = references
            shared = _digest(f"{r}\0{own[r]}" for r in sorted(rivals))
            for reference in references:
                out[reference] = own[reference] and f"{own[reference]}#{shared}"
        return out

    def _project_part(self, project: Path, registry: list[str | None]) -> str | None:
        """What a project directory contributes to its chats' fingerprints: a digest of the root
        its marker names, else the registry's file key (read once, into ``registry``); None
        when that cannot be examined."""
        marker = projects.read_marker(project)
        if marker is not None:
            return "m" + _digest([marker])
        if not registry:
            try:
                registry.append(file_key((self.root / projects.REGISTRY).stat()))
            except FileNotFoundError:
                registry.append("-")
            except OSError:
                registry.append(None)
        key = registry[0]
        return None if key is None else "r" + key

    def discover_references(self, references: Iterable[str]) -> list[Discovered]:
        """The sessions among ``references`` (chat files :meth:`fingerprinted` named), each
        exactly as :meth:`discover` lists it: every chat that may hold the same session is
        weighed too (a reference that loses to another copy lists nothing)."""
        wanted = set(references)
        files = list(self._chat_files())
        groups = {_copies_group(f) for f in files if str(f.path) in wanted}
        if _ANY_MAIN in groups:
            groups.update(_copies_group(f) for f in files if f.parent is None)
        elif any(group[0] == "main" for group in groups):
            groups.add(_ANY_MAIN)
        weighed = [f for f in files if _copies_group(f) in groups]
        return [d for d in self._listed(weighed) if d.reference in wanted]

    def _listed(self, files: Iterable[_Found], *, complete: bool = False) -> list[Discovered]:
        """The sessions of ``files``, one per session (the best copy). A file whose (mtime,
        size) is what the metadata cache holds it under is not read; ``complete`` (every chat
        file of the store) also forgets cached files that are gone."""
        files = list(files)
        cache = metadata_cache()
        scope = f"{HARNESS}:{self.tmp}"
        references = [str(found.path) for found in files]
        known = cache.entries(scope, None if complete else references)
        fresh: dict[str, tuple[str, bytes]] = {}
        settled = time.time_ns() - _SETTLED_NS
        registry = projects.read_registry(self.root, strict=False)
        best: dict[tuple[str, str, str | None], tuple[tuple[object, ...], Discovered]] = {}
        unkeyed: list[Discovered] = []
        roots: dict[Path, str | None] = {}
        for found, reference in zip(files, references, strict=True):
            try:
                listing, stat = self._listing(found, known.get(reference))
            except (TxcriptError, OSError) as exc:
                # A file named as Gemini names its chats that cannot be read is a damaged chat,
                # not a stranger: say so rather than let it vanish from the list.
                if found.path.name.startswith("session-") or found.parent is not None:
                    skipped(found.path, exc)
                continue
            held = known.get(reference)
            if (held is None or held[0] != file_key(stat)) and stat.st_mtime_ns < settled:
                fresh[reference] = (file_key(stat), _encode_listing(listing))
            if found.project not in roots:
                roots[found.project] = _project_root(found.project, registry)
            cwd = _root(roots[found.project], {"projectHash": listing.head_hash}, registry)
            meta = msgspec.structs.replace(listing.meta, cwd=cwd)
            entry = Discovered.from_meta(
                HARNESS,
                str(found.path),
                meta,
                updated_at=modified_at(stat),
                parent=found.parent,
            )
            if not meta.id:
                unkeyed.append(entry)
                continue
            project_key = (
                listing.project_hash if listing.project_hash is not None else (meta.cwd or "")
            )
            key = (project_key, meta.id, found.parent)
            rank = (
                listing.updated or meta.timestamp,
                not projects.is_hash_dir(found.project.name),
                found.path.suffix == ".jsonl",
            )
            winner = best.get(key)
            if winner is None or rank > winner[0]:
                best[key] = (rank, entry)
        gone = [r for r in known if r not in set(references)] if complete else []
        cache.update(scope, fresh, gone)
        return [entry for _, entry in best.values()] + unkeyed

    def _listing(
        self, found: _Found, held: tuple[str, bytes] | None
    ) -> tuple[_Listing, os.stat_result]:
        """What ``found`` gives its listing (from the cache when ``held`` still matches the
        file), and the file's status."""
        stat = found.path.stat()
        if held is not None and held[0] == file_key(stat):
            try:
                return _decode_listing(held[1]), stat
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass  # a damaged entry: read the file, and replace it
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TranscriptWarning)
            chat, head = self._scan(found.path)
        stat = found.path.stat()
        header_hash = chat.header.get("projectHash")
        head_hash = head.get("projectHash") if isinstance(head, dict) else None
        listing = _Listing(
            meta=meta_from(chat, found.path.name.rsplit(".", 1)[0], None),
            project_hash=header_hash if isinstance(header_hash, str) else None,
            head_hash=head_hash if isinstance(head_hash, str) else None,
            updated=parse_rfc3339(chat.header.get("lastUpdated")),
        )
        return listing, stat

    def _scan(self, path: Path) -> tuple[Chat, Any]:
        """A chat file's replayed chat and first value, read the cheap way when possible."""
        data = read_regular(path, limit=MAX_SESSION_FILE_BYTES)
        scanned = scan(data, str(path))
        if scanned is not None:
            return scanned
        native = parse(decode_lossless(data), label=str(path))
        return replay(native), native.lines[0].value

    # -- load / save ------------------------------------------------------------------------
    def load(self, reference: str) -> GeminiSession:
        path = Path(reference)
        if not os.path.lexists(path):
            raise BadInput(f"no Gemini chat at {reference}")
        project, parent = self._place(path)
        registry = projects.read_registry(self.root, strict=False)
        return self._read(path, project, parent, registry)

    def target(self, native: GeminiSession, slug: str) -> Path:
        meta = meta_of(native)
        session_id = check_session_id(meta.id)
        suffix = ".json" if native.legacy else ".jsonl"
        chats = self.tmp / slug / "chats"
        if native.parent_id is not None:
            return chats / check_session_id(native.parent_id) / f"{session_id}{suffix}"
        t = meta.timestamp
        clock = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}-{t.minute:02d}"
        return chats / f"session-{clock}-{session_id[:8]}{suffix}"

    def _same_session(self, directory: Path, session_id: str) -> list[Path]:
        """Chat files in ``directory`` that hold ``session_id``."""
        held = []
        for entry in _entries(directory):
            if not _is_chat_file(entry):
                continue
            if session_id[:8] not in entry.name:
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", TranscriptWarning)
                    data = read_regular(entry.path, limit=MAX_SESSION_FILE_BYTES)
                    header = replay(parse(decode_lossless(data))).header
            except (TxcriptError, OSError):
                continue
            if header.get("sessionId") == session_id:
                held.append(Path(entry.path))
        return held

    def save(self, native: GeminiSession, *, force: bool = False) -> Saved:
        meta = meta_of(native)
        session_id = check_session_id(meta.id)
        root_dir = projects.normalized(filing_directory(native.cwd))
        # The registry is read before the slug (and so the chat's path) is known: its path is
        # checked first, so a planted link is refused rather than read.
        preflight_write(self.root, [self.root / projects.REGISTRY], store="Gemini")
        with projects.locked(self.root):
            path = self._write(native, session_id, root_dir, force=force)
        return Saved(
            id=session_id, reference=str(path), location=str(path), notes=self._notes(native)
        )

    def _write(self, native: GeminiSession, session_id: str, root_dir: str, *, force: bool) -> Path:
        """The save's reads and writes, under :func:`projects.locked`; the chat's path."""
        registry = projects.read_registry(self.root, strict=True)
        slug = registry.projects.get(root_dir) or projects.claim_slug(registry, self.tmp, root_dir)
        path = self.target(native, slug)
        project = self.tmp / slug
        preflight_write(self.root, [path, project / projects.MARKER, registry.path], store="Gemini")
        existing = self._same_session(path.parent, session_id)
        if existing and not force:
            raise BadInput(
                f"Gemini already holds a chat `{scrub(session_id)}` at {existing[0]}; "
                "refusing to overwrite it (pass --force to replace it)"
            )
        for other in existing:
            if other.suffix == path.suffix:
                path = other  # replace it in place: one file per chat
            elif other != path:
                raise StoreError(
                    f"Gemini holds chat `{scrub(session_id)}` in the other file form at {other}; "
                    "delete it first"
                )
        try:
            data = render(native).encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:
            raise StoreError(f"writing {path}: text is not encodable as UTF-8 ({exc})") from None
        preflight_write(self.root, [path], store="Gemini")  # it may now be the existing file
        undo = Undo()
        try:
            undo.make_dirs(path.parent)
            if projects.read_marker(project) is None:
                undo.write(project / projects.MARKER, root_dir.encode("utf-8", "surrogateescape"))
            text = projects.with_project(self.root, root_dir, slug)
            if text is not None:
                undo.write(registry.path, text.encode("utf-8", "surrogateescape"))
            undo.write(path, data)
        except BaseException:
            undo.run()
            raise
        return path

    def _notes(self, native: GeminiSession) -> tuple[str, ...]:
        header = replay(native).header
        updated = parse_rfc3339(header.get("lastUpdated")) or meta_of(native).timestamp
        if now() - updated <= _RETENTION_NOTE_AGE:
            return ()
        when: datetime = updated
        return (
            f"the Gemini copy keeps its last update {format_rfc3339(when)}; Gemini CLI's session "
            "retention (general.sessionRetention) deletes old chats at start-up, so it may "
            "remove this one (continue without --out to give the copy a fresh date)",
        )

    # -- delete / fingerprints --------------------------------------------------------------
    def delete(self, reference: str, *, force: bool = False) -> None:
        """Remove one chat file after backing it up; only chat files inside ``tmp/``."""
        given = Path(reference).absolute()
        try:
            tmp = self.tmp.resolve(strict=True)
            real = given.resolve(strict=True)
        except (OSError, RuntimeError):
            raise BadInput(f"no Gemini chat at {reference}") from None
        if not real.is_relative_to(tmp):
            raise StoreError(
                f"refusing to delete {reference}: it is outside the Gemini store {self.tmp}"
            )
        if not real.is_file() or real.suffix not in _SUFFIXES:
            raise StoreError(f"refusing to delete {reference}: it is not a Gemini chat file")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TranscriptWarning)
                data = read_regular(real, limit=MAX_SESSION_FILE_BYTES)
                session_id = meta_of(parse(decode_lossless(data))).id
        except (TxcriptError, StoreUnreadable):
            raise StoreError(f"refusing to delete {reference}: it is not a Gemini chat") from None
        backup = backups.create_files(
            [real], harness=HARNESS, operation="delete", session=session_id
        )
        try:
            real.unlink()
        except OSError as exc:
            backups.discard(backup)
            raise StoreError(
                f"deleting {real}: {exc.strerror or exc}; nothing was deleted"
            ) from None

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        """What :meth:`fingerprinted` gives each of ``references`` (``""`` for a file that is
        no chat of this store)."""
        now = self.fingerprinted()
        return {reference: now.get(reference, "") for reference in references}

    def location(self, reference: str) -> str:
        return reference
