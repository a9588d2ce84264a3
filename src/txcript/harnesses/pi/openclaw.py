"""The OpenClaw store: pi-format transcripts under ``<state dir>/agents/<agent>/sessions/``.

The state dir is ``$OPENCLAW_STATE_DIR`` or ``~/.openclaw``. Each agent (``main`` by default)
keeps ``sessions/<sessionId>.jsonl`` transcripts (Telegram topics as
``<sessionId>-topic-<thread>.jsonl``) and the index ``sessions/sessions.json``, a JSON object from
a routing key (``agent:main:main``, ``cron:<job>``, …) to the session it currently points at:
``{sessionId, sessionFile?, label?, displayName?, modelOverride?, updatedAt, …}``. Rotated
(``*.reset.<time>``, ``*.deleted.<time>``) and checkpoint (``*.checkpoint.*.jsonl``) copies are
not sessions of their own and are not listed.

**Reading.** Every transcript is listed, whether an index entry points at it or not (a key's
older sessions are left unindexed when it rotates). The entry that names a session (by
``sessionId``, else by ``sessionFile``) rides along in its native body: its ``label``, else its
``displayName``, is the title; its ``modelOverride`` the model when the transcript names none.

**Writing** is for the file-backed (legacy) layout, and only while no OpenClaw gateway or agent
runs: the gateway is the one writer of its index, keeps it in memory and would overwrite or drop
an entry written under it, so a save refuses while one of its processes is found (``--force``
overrides). The transcript goes to ``agents/<agent>/sessions/<id>.jsonl``, then the index is
replaced atomically with one more entry under ``agent:<agent>:import-<id>`` (other entries kept
as they were); a failure undoes both. OpenClaw builds from about 2026.8 keep sessions in SQLite
and read such a copy only after ``openclaw doctor --session-sqlite import``; the save says so.
Deleting backs up the transcript and the index, then removes both the file and the entries
naming it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import StoreError, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.model import Meta
from txcript.shared.files import (
    MAX_SIDE_FILE_BYTES,
    Undo,
    file_key,
    preflight_write,
    read_regular,
)
from txcript.shared.ids import UUID_IDS
from txcript.shared.jsonutil import try_loads
from txcript.shared.processes import find_processes
from txcript.shared.timeutil import to_epoch_ms

from .meta import with_index
from .native import PiSession
from .store import PiFamilyStore
from .tree import header_of

HARNESS = "openclaw"
INDEX = "sessions.json"
DEFAULT_AGENT = "main"
#: Process names of OpenClaw's gateway and CLI, and of its earlier names (Linux cuts a process
#: name at 15 characters, so the cut forms are listed too).
PROCESS_NAMES = (
    "openclaw",
    "openclaw-gateway",
    "openclaw-gatewa",
    "openclaw-agent",
    "clawdbot",
    "clawdbot-gateway",
    "clawdbot-gatew",
    "moltbot",
    "moltbot-gateway",
    "moltbot-gatewa",
)
SQLITE_NOTE = (
    "OpenClaw 2026.8 and later keep sessions in SQLite: they see this copy after "
    "`openclaw doctor --session-sqlite import` (with the gateway stopped)"
)


class GatewayRunning(TxcriptError):
    """An OpenClaw gateway or agent runs; writing its index under it is refused (exit 1)."""


def refuse_while_running() -> None:
    pids = find_processes(PROCESS_NAMES)
    if pids:
        shown = ", ".join(str(p) for p in pids[:3])
        raise GatewayRunning(
            f"OpenClaw is running (pid {shown}); its gateway owns sessions.json and would "
            "overwrite an entry written under it. Stop the gateway (`openclaw gateway stop`) "
            "and retry, or pass --force"
        )


def _is_transcript(name: str) -> bool:
    return name.endswith(".jsonl") and ".checkpoint." not in name and name != INDEX


def read_index(path: Path) -> dict[str, Any]:
    """An agent's ``sessions.json`` as a dict (empty when missing); a damaged one is ignored
    with a warning (its transcripts are still listed)."""
    if not os.path.lexists(path):
        return {}
    try:
        value = try_loads(read_regular(path, limit=MAX_SIDE_FILE_BYTES))
    except TxcriptError as exc:
        warn(f"ignoring the OpenClaw index: {exc}")
        return {}
    if not isinstance(value, dict):
        warn(f"ignoring the OpenClaw index {path}: it is not a JSON object")
        return {}
    return value


def entry_for(
    index: dict[str, Any], session_id: str, file_name: str
) -> tuple[str, dict[str, Any]] | None:
    """The index key and entry that name a session: by ``sessionId``, else by ``sessionFile``."""
    by_file = None
    for key, entry in index.items():
        if not isinstance(entry, dict):
            continue
        if entry.get("sessionId") == session_id:
            return key, entry
        named = entry.get("sessionFile")
        if by_file is None and isinstance(named, str) and os.path.basename(named) == file_name:
            by_file = (key, entry)
    return by_file


def _dumps_index(index: dict[str, Any]) -> bytes:
    """The index as OpenClaw writes it: two-space indented JSON, raw UTF-8."""
    return (json.dumps(index, indent=2, ensure_ascii=False) + "\n").encode(
        "utf-8", "surrogateescape"
    )


class OpenClawStore(PiFamilyStore):
    harness = HARNESS
    label = "OpenClaw"

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.agents = root / "agents"

    def _agent_dirs(self) -> list[Path]:
        try:
            entries = sorted(os.scandir(self.agents), key=lambda e: e.name)
        except OSError:
            return []
        out = []
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    out.append(Path(entry.path) / "sessions")
            except OSError:
                continue
        return out

    def session_directories(self) -> list[Path]:
        return self._agent_dirs()

    def _references(self, id_prefix: str = "") -> list[str]:
        found: list[str] = []
        for directory in self._agent_dirs():
            try:
                entries = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                if not _is_transcript(name) or not name.startswith(id_prefix):
                    continue
                try:
                    if not entry.is_dir():
                        found.append(entry.path)
                except OSError:
                    continue
        return found

    def read_meta(self, path: Path) -> tuple[Meta | None, os.stat_result] | None:
        read = super().read_meta(path)
        if read is None:
            return None
        meta, status = read
        if meta is None:
            return read
        found = entry_for(read_index(path.parent / INDEX), meta.id, path.name)
        return with_index(meta, found[1] if found else None), status

    def fingerprinted(self) -> dict[str, str]:
        """Each transcript's fingerprint joins its agent index's: a listing reads both."""
        return self.fingerprints(self._references())

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for reference in references:
            try:
                own = file_key(os.stat(reference))
            except OSError:
                out[reference] = ""
                continue
            try:
                index = file_key(os.stat(Path(reference).parent / INDEX))
            except FileNotFoundError:
                index = "-"
            except OSError:
                out[reference] = ""
                continue
            out[reference] = f"{own}+{index}"
        return out

    def _listed(self, references: list[str], *, complete: bool) -> list[Discovered]:
        # The metadata cache keys on the file alone, and the index adds to the listing: list
        # afresh (the search index still skips unchanged files through ``fingerprinted``).
        out: list[Discovered] = []
        from txcript.shared.files import modified_at

        for reference in references:
            read = self.read_meta(Path(reference))
            if read is None:
                continue
            meta, status = read
            if meta is None:
                continue
            out.append(
                Discovered.from_meta(self.harness, reference, meta, updated_at=modified_at(status))
            )
        out.sort(key=lambda d: d.timestamp, reverse=True)
        return out

    def load(self, reference: str) -> PiSession:
        from .codec import meta_of

        native = super().load(reference)
        path = Path(reference)
        session_id = meta_of(native).id
        found = entry_for(read_index(path.parent / INDEX), session_id, path.name)
        if found is None:
            return native
        return replace(native, index_key=found[0], index_entry=found[1])

    # -- save -------------------------------------------------------------------------------
    def target(self, native: PiSession) -> tuple[str, Path]:
        header = header_of(native)
        named = header.get("id")
        session_id = UUID_IDS.check(named if isinstance(named, str) else "", self.label)
        return session_id, self.agents / self._agent_of(native) / "sessions" / f"{session_id}.jsonl"

    @staticmethod
    def _agent_of(native: PiSession) -> str:
        key = native.index_key or ""
        parts = key.split(":")
        if len(parts) >= 3 and parts[0] == "agent" and parts[1]:
            from txcript.shared.ids import check_session_id

            return check_session_id(parts[1])
        return DEFAULT_AGENT

    def save(self, native: PiSession, *, force: bool = False) -> Saved:
        """Write the transcript and its index entry, only while OpenClaw is stopped (unless
        ``force``); all or nothing."""
        session_id, path = self.target(native)
        data = self.encoded(native, path)
        index_path = path.parent / INDEX
        preflight_write(self.root, [path, index_path], store=self.label)
        if not force:
            refuse_while_running()
        index = self._index_for_write(index_path)
        key = native.index_key or f"agent:{self._agent_of(native)}:import-{session_id}"
        entry = (
            dict(native.index_entry)
            if native.index_entry is not None
            else self._fresh_entry(native, path)
        )
        updated = {k: v for k, v in index.items() if k != key}
        updated[key] = entry
        undo = Undo()
        try:
            undo.make_dirs(path.parent)
            undo.write(path, data)
            undo.write(index_path, _dumps_index(updated))
        except BaseException:
            undo.run()
            raise
        return Saved(id=session_id, reference=str(path), location=str(path), notes=(SQLITE_NOTE,))

    @staticmethod
    def _index_for_write(index_path: Path) -> dict[str, Any]:
        """The index to add to: refuse to write over one that cannot be read as an object."""
        if not os.path.lexists(index_path):
            return {}
        value = try_loads(read_regular(index_path, limit=MAX_SIDE_FILE_BYTES))
        if not isinstance(value, dict):
            raise StoreError(
                f"refusing to write {index_path}: it is not a JSON object (nothing was written)"
            )
        return value

    @staticmethod
    def _fresh_entry(native: PiSession, path: Path) -> dict[str, Any]:
        from .codec import meta_of

        meta = meta_of(native)
        started = to_epoch_ms(meta.timestamp)
        entry: dict[str, Any] = {
            "sessionId": meta.id,
            "sessionFile": str(path),
            "sessionStartedAt": started,
            "lastInteractionAt": started,
            "updatedAt": started,
            "chatType": "direct",
        }
        if meta.title is not None:
            entry["displayName"] = meta.title
        return entry

    # -- delete -----------------------------------------------------------------------------
    def delete(self, reference: str, *, force: bool = False) -> None:
        """Remove a transcript and the index entries naming it, after backing both up."""
        real, session_id = self.check_deletable(reference)
        index_path = real.parent / INDEX
        preflight_write(self.root, [index_path], store=self.label)
        if not force:
            refuse_while_running()
        index = self._index_for_write(index_path)
        kept = {
            k: v
            for k, v in index.items()
            if not (isinstance(v, dict) and entry_for({k: v}, session_id, real.name) is not None)
        }
        from txcript.shared import backups

        saved = [real, *([index_path] if os.path.lexists(index_path) else [])]
        backup = backups.create_files(
            saved, harness=self.harness, operation="delete", session=session_id
        )
        undo = Undo()
        try:
            if kept != index:
                undo.write(index_path, _dumps_index(kept))
            real.unlink()
        except OSError as exc:
            undo.run()
            backups.discard(backup)
            raise StoreError(
                f"deleting {real}: {exc.strerror or exc}; nothing was deleted"
            ) from None
        except BaseException:
            undo.run()
            backups.discard(backup)
            raise


__all__ = ["OpenClawStore", "refuse_while_running"]
