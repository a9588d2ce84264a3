"""Crush's global ``projects.json``: the one list of every project's data directory.

``{"projects": [{"path": <project dir>, "data_dir": <its .crush dir>, "last_accessed": …}]}``
in Crush's global data directory (``$CRUSH_GLOBAL_DATA``, else ``$XDG_DATA_HOME/crush``, else
``~/.local/share/crush``; ``%LOCALAPPDATA%\\crush`` on Windows). A ``data_dir`` that is not
absolute is taken relative to its project. Entries that are not objects with a string ``path``
are skipped, and counted in one warning.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from txcript.diagnostics import warn
from txcript.errors import StoreError, TxcriptError
from txcript.shared.files import read_regular
from txcript.shared.jsonutil import INVALID, try_loads

INDEX = "projects.json"
DB_NAME = "crush.db"
LOCK_NAME = "crush.lock"
_LIMIT = 16 << 20


@dataclass(frozen=True, slots=True)
class Project:
    path: str
    data_dir: Path

    @property
    def database(self) -> Path:
        return self.data_dir / DB_NAME

    @property
    def lock(self) -> Path:
        return self.data_dir / LOCK_NAME


def index_path(root: Path) -> Path:
    return root / INDEX


def read(root: Path) -> list[Project]:
    """The projects of ``projects.json`` under ``root`` (none when it does not exist), each
    database listed once."""
    path = index_path(root)
    if not os.path.lexists(path):
        return []
    try:
        value = try_loads(read_regular(path, limit=_LIMIT))
    except TxcriptError as exc:
        raise StoreError(f"cannot read Crush's project list {path}: {exc}") from None
    entries = value.get("projects") if isinstance(value, dict) else INVALID
    if not isinstance(entries, list):
        raise StoreError(f"Crush's project list {path} is not a {{projects: […]}} document")
    found: list[Project] = []
    seen: set[str] = set()
    skipped = 0
    for entry in entries:
        project = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(project, str) or not project:
            skipped += 1
            continue
        data_dir = entry.get("data_dir")
        if not isinstance(data_dir, str) or not data_dir:
            data_dir = ".crush"
        directory = Path(data_dir)
        if not directory.is_absolute():
            directory = Path(project) / directory
        key = os.path.normpath(str(directory))
        if key in seen:
            continue
        seen.add(key)
        found.append(Project(project, directory))
    if skipped:
        warn(f"{path}: skipped {skipped} project entries without a path")
    return found
