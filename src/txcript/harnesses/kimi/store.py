"""The Kimi Code store: ``<root>/session_index.jsonl`` and ``<root>/sessions/<key>/<id>/``.

**Root.** ``KIMI_CODE_HOME``, else ``~/.kimi-code`` (the same under the user profile on every
system). ``<key>`` is ``wd_<slug of the work dir's basename>_<first 12 hex of its sha256>``.

**The index.** ``session_index.jsonl`` is append-only: ``{sessionId, sessionDir, workDir}`` per
session, and ``{sessionId, deleted: true}`` tombstones. The last line about an id wins; a
tombstoned session is not listed even when its directory is still there.

**Discovery** walks ``sessions/*/session_*/`` (never following directory symlinks) and reads
each session's ``state.json`` and its main wire log up to its first prompt — what
:func:`~.codec.meta_of` reads — naming the work dir from the index.

**Read-only.** Kimi Code cannot be installed from any registry this project reaches, so no
write into its store can be verified against the real app; a copy goes through Kimi's own
import instead (``txcript continue … --with kimi_cli``, then ``kimi migrate``). ``save`` and
``delete`` refuse with a one-line error.
"""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from txcript.diagnostics import TranscriptWarning, warn
from txcript.errors import BadInput, TxcriptError, Unconvertible
from txcript.harnesses.base import Discovered, Saved
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    MAX_SIDE_FILE_BYTES,
    decode_lossless,
    file_fingerprints,
    modified_at,
    read_head,
    read_regular,
)
from txcript.shared.jsonlines import Line, parse_lines
from txcript.shared.jsonutil import try_loads
from txcript.shared.listing import cached_listing, stat_key

from .codec import meta_of, parse_time
from .native import HARNESS, KimiCodeSession

INDEX = "session_index.jsonl"
WIRE = ("agents", "main", "wire.jsonl")
_SESSION_NAME = re.compile(r"session_[0-9A-Za-z-]{1,100}")
_KEY_NAME = re.compile(r"wd_[a-z0-9._-]{0,40}_[0-9a-f]{12}")
#: Enough of a wire log to reach its first prompt in any real session.
_WIRE_HEAD = 1 << 20
READ_ONLY = (
    "Kimi Code is a read-only source here (its resume of a copy cannot be verified); "
    "write a Kimi CLI copy (--with kimi_cli) and import it with `kimi migrate`"
)


def work_dir_key(work_dir: str) -> str:
    """Kimi Code's directory name for a work directory's sessions."""
    path = work_dir.replace("\\", "/").rstrip("/") or "/"
    base = path.rsplit("/", 1)[-1].lower()
    slug = re.sub(r"[^a-z0-9._-]", "", base)[:40]
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"wd_{slug}_{digest}"


def read_index(root: Path) -> dict[str, dict[str, Any] | None]:
    """id → its last index entry, None for a tombstoned id (a damaged index warns once)."""
    path = root / INDEX
    if not os.path.lexists(path):
        return {}
    try:
        text = decode_lossless(read_regular(path, limit=MAX_SIDE_FILE_BYTES))
    except TxcriptError as exc:
        warn(f"ignoring {path}: {exc}")
        return {}
    out: dict[str, dict[str, Any] | None] = {}
    bad = 0
    for raw in text.splitlines():
        if not raw.strip():
            continue
        value = try_loads(raw)
        ident = value.get("sessionId") if isinstance(value, dict) else None
        if not isinstance(ident, str):
            bad += 1
            continue
        out[ident] = None if value.get("deleted") is True else value
    if bad:
        warn(f"{path}: {bad} lines are not session index entries; ignored")
    return out


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as listing:
            return sorted(listing, key=lambda e: e.name)
    except OSError:
        return []


def _is_prompt(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("type") != "context.append_message":
        return False
    message = value.get("message")
    return isinstance(message, dict) and message.get("role") == "user"


class KimiCodeStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.sessions = root / "sessions"

    def location(self, reference: str) -> str:
        return reference

    def session_dirs(self, id_prefix: str = "") -> list[Path]:
        out = []
        for group in _entries(self.sessions):
            if not group.is_dir(follow_symlinks=False):
                continue
            for entry in _entries(Path(group.path)):
                if (
                    _SESSION_NAME.fullmatch(entry.name)
                    and entry.name.startswith(id_prefix)
                    and entry.is_dir(follow_symlinks=False)
                ):
                    out.append(Path(entry.path))
        return out

    def _read(self, directory: Path, work_dir: str | None, *, head: bool) -> KimiCodeSession:
        state_path = directory / "state.json"
        state = None
        if os.path.lexists(state_path):
            state = decode_lossless(read_regular(state_path, limit=MAX_SIDE_FILE_BYTES))
        wire_path = directory.joinpath(*WIRE)
        lines: tuple[Line, ...] = ()
        trailing = True
        if os.path.lexists(wire_path):
            lines, trailing = _read_wire(wire_path, head=head)
        elif state is None:
            raise BadInput(f"{directory} holds neither state.json nor agents/main/wire.jsonl")
        return KimiCodeSession(directory.name, state, lines, trailing, work_dir)

    def _list_one(self, directory: Path, work_dir: str | None) -> Discovered | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TranscriptWarning)
                native = self._read(directory, work_dir, head=True)
            stamp = directory.stat()
        except (TxcriptError, OSError) as exc:
            warn(f"skipping {directory}: {exc}")
            return None
        updated = native.state_value().get("updatedAt")  # (archived ones are listed too)
        meta = meta_of(native)
        return Discovered.from_meta(
            HARNESS, str(directory), meta, updated_at=parse_time(updated) or modified_at(stamp)
        )

    def _listed(self, directories: Iterable[Path], *, complete: bool) -> list[Discovered]:
        """The sessions among ``directories``, newest first, tombstoned ones left out; one whose
        files (and the index) are unchanged since the metadata cache kept it is only
        ``stat``-ed."""
        index = read_index(self.root)
        places: dict[str, tuple[Path, str | None]] = {}
        for directory in directories:
            entry = index.get(directory.name, {})
            if entry is None and directory.name in index:
                continue  # tombstoned: Kimi Code deleted it
            work_dir = entry.get("workDir") if isinstance(entry, dict) else None
            places[str(directory)] = (directory, work_dir if isinstance(work_dir, str) else None)
        keys = {
            reference: stat_key(
                [directory / "state.json", directory.joinpath(*WIRE), self.root / INDEX]
            )
            for reference, (directory, _) in places.items()
        }

        def list_one(reference: str) -> Discovered | None:
            return self._list_one(*places[reference])

        scope = f"{HARNESS}:{self.sessions}"
        out = cached_listing(scope, keys, list_one, Discovered, complete=complete)
        out.sort(key=lambda d: d.updated_at or d.timestamp, reverse=True)
        return out

    def discover(self) -> list[Discovered]:
        return self._listed(self.session_dirs(), complete=True)

    def lookup(self, id_prefix: str) -> list[Discovered]:
        return self._listed(self.session_dirs(id_prefix), complete=False)

    def load(self, reference: str) -> KimiCodeSession:
        directory = Path(reference)
        if not os.path.isdir(directory):
            raise BadInput(f"no Kimi Code session at {reference}")
        entry = read_index(self.root).get(directory.name)
        work_dir = entry.get("workDir") if isinstance(entry, dict) else None
        return self._read(directory, work_dir if isinstance(work_dir, str) else None, head=False)

    def save(self, native: KimiCodeSession, *, force: bool = False) -> Saved:
        raise Unconvertible(HARNESS, READ_ONLY)

    def delete(self, reference: str, *, force: bool = False) -> None:
        raise BadInput(f"{READ_ONLY}; nothing was deleted")

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        out = {}
        for reference in references:
            directory = Path(reference)
            parts = file_fingerprints(
                [str(directory / "state.json"), str(directory.joinpath(*WIRE))]
            )
            out[reference] = "|".join(parts.values())
        return out


def _read_wire(path: Path, *, head: bool) -> tuple[tuple[Line, ...], bool]:
    """The wire's lines; with ``head``, those up to its first prompt (all when none is there)."""
    if head:
        data = read_head(path, limit=_WIRE_HEAD)
        position = 0
        while True:
            cut = data.find(b'"context.append_message"', position)
            if cut < 0:
                break
            end = data.find(b"\n", cut)
            if end < 0:
                break
            start = data.rfind(b"\n", 0, cut) + 1
            if _is_prompt(try_loads(decode_lossless(data[start:end]))):
                return parse_lines(decode_lossless(data[: end + 1]))
            position = end + 1
    return parse_lines(decode_lossless(read_regular(path, limit=MAX_SESSION_FILE_BYTES)))
