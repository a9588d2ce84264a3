"""OpenCode's JSON file stores, from before the database (read only).

Two layouts, both under the data directory:

* ``storage/session/<projectID>/<ses>.json`` (the session), ``storage/message/<ses>/<msg>.json``
  and ``storage/part/<msg>/<prt>.json`` (1.x before the database; migrated into it on upgrade);
* the oldest, per project: ``project/<projectID>/storage/session/info/<ses>.json``,
  ``…/session/message/<ses>/<msg>.json`` and ``…/session/part/<ses>/<msg>/<prt>.json`` (0.5.x).

Every file is read with :func:`txcript.shared.files.read_regular` (a regular file, size capped).
A file that is not one, is not JSON, or is not an object is skipped with a warning. Messages and
parts are ordered by id, as OpenCode orders them. A session whose info has no ``directory`` (the
oldest layout) takes the working directory its first assistant message records.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError, StoreUnreadable
from txcript.shared.files import MAX_SIDE_FILE_BYTES, read_regular
from txcript.shared.formats.opencode.native import NativeMessage, OpenCodeSession
from txcript.shared.formats.opencode.text import record_from_object, session_row
from txcript.shared.jsonutil import INVALID, try_loads


@dataclass(frozen=True, slots=True)
class SessionFile:
    """Where one file-store session lives: its info file and its message and part directories."""

    info: Path
    messages: Path
    #: ``parts / <msg>`` holds a message's parts.
    parts: Path


def _json_files(directory: Path) -> list[Path]:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    return sorted(Path(e.path) for e in entries if e.name.endswith(".json") and not e.is_dir()) + [
        Path(e.path) for e in entries if e.name.endswith(".json") and e.is_dir()
    ]


def _subdirs(directory: Path) -> list[Path]:
    try:
        return sorted(
            Path(e.path) for e in os.scandir(directory) if e.is_dir(follow_symlinks=False)
        )
    except OSError:
        return []


def sessions(root: Path) -> Iterator[SessionFile]:
    """Every session info file of both layouts under the data directory ``root``."""
    storage = root / "storage"
    for project in _subdirs(storage / "session"):
        for info in _json_files(project):
            session_id = info.name[: -len(".json")]
            yield SessionFile(info, storage / "message" / session_id, storage / "part")
    for project in _subdirs(root / "project"):
        base = project / "storage" / "session"
        for info in _json_files(base / "info"):
            session_id = info.name[: -len(".json")]
            yield SessionFile(info, base / "message" / session_id, base / "part" / session_id)


def locate(root: Path, info: Path) -> SessionFile | None:
    """The session whose info file is ``info`` (a discovery reference), if it is one."""
    return next((s for s in sessions(root) if s.info == info), None)


def read_object(path: Path) -> dict[str, Any] | None:
    """A JSON object file, or None (with a warning) when it is unreadable or not an object."""
    try:
        data = read_regular(path, limit=MAX_SIDE_FILE_BYTES)
    except (StoreError, StoreUnreadable) as exc:
        warn(f"OpenCode file store: {exc}; skipped")
        return None
    value = try_loads(data)
    if value is INVALID or not isinstance(value, dict):
        warn(f"OpenCode file store: {path} is not a JSON object; skipped")
        return None
    return value


def _objects(directory: Path) -> Iterator[dict[str, Any]]:
    for path in _json_files(directory):
        value = read_object(path)
        if value is not None and isinstance(value.get("id"), str):
            yield value
        elif value is not None:
            warn(f"OpenCode file store: {path} has no string `id`; skipped")


def _messages(location: SessionFile, *, first_assistant: bool) -> list[NativeMessage]:
    found: list[NativeMessage] = []
    for value in sorted(_objects(location.messages), key=lambda v: str(v["id"])):
        record = record_from_object(value, "sessionID")
        if first_assistant:
            if isinstance(record.data, dict) and record.data.get("role") == "assistant":
                return [NativeMessage(record)]
            continue
        parts = sorted(_objects(location.parts / record.id), key=lambda v: str(v["id"]))
        found.append(
            NativeMessage(
                record, tuple(record_from_object(p, "sessionID", "messageID") for p in parts)
            )
        )
    return found


def _with_directory(row: dict[str, Any], messages: list[NativeMessage]) -> dict[str, Any]:
    if row.get("directory"):
        return row
    for message in messages:
        data = message.record.obj or {}
        path = data.get("path")
        if data.get("role") == "assistant" and isinstance(path, dict):
            cwd = path.get("cwd")
            return {**row, "directory": cwd} if isinstance(cwd, str) else row
    return row


def head(location: SessionFile) -> tuple[dict[str, Any], NativeMessage | None] | None:
    """The session row and its first assistant message (what discovery needs), or None."""
    info = read_object(location.info)
    if info is None or not isinstance(info.get("id"), str):
        return None
    first = _messages(location, first_assistant=True)
    row = _with_directory(session_row(info), first)
    return row, (first[0] if first else None)


def load(location: SessionFile) -> OpenCodeSession:
    info = read_object(location.info)
    if info is None or not isinstance(info.get("id"), str):
        raise BadInput(f"{location.info} is not an OpenCode session file")
    messages = _messages(location, first_assistant=False)
    return OpenCodeSession(_with_directory(session_row(info), messages), tuple(messages))
