"""Map a working directory to the app's workspace hash via ``workspaceStorage/*/workspace.json``.

Cursor names each opened folder by a 32-hex-digit hash and records the folder's ``file:`` URI in
``workspaceStorage/<hash>/workspace.json``. The URI is percent-decoded and Windows drive letters
and separators are normalised on both sides before comparing, so ``file:///c%3A/Users/me/My%20Proj``
matches ``C:\\Users\\me\\My Proj``. When several hashes name the same folder, the one whose
``workspace.json`` changed last (the one in use) wins.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from txcript.diagnostics import warn
from txcript.errors import TxcriptError
from txcript.shared.files import MAX_SIDE_FILE_BYTES, read_regular_stat
from txcript.shared.fileuri import path_from_file_uri
from txcript.shared.jsonutil import try_loads

_WINDOWS = re.compile(r"[A-Za-z]:(?:[\\/]|\Z)|\\\\")


def normalise_folder(path: str) -> str:
    """A comparable folder path: Windows paths case-folded with ``\\``, no trailing separator."""
    if _WINDOWS.match(path):
        folded = path.replace("/", "\\").casefold()
        return folded if re.fullmatch(r"[a-z]:\\", folded) else folded.rstrip("\\")
    return path if path == "/" else path.rstrip("/")


def same_folder(a: str, b: str) -> bool:
    return normalise_folder(a) == normalise_folder(b)


def resolve_workspace_id(root: Path, cwd: str) -> str | None:
    """The hash of the workspace whose folder is ``cwd``, or None when the app never opened it."""
    storage = root / "workspaceStorage"
    if not cwd or not os.path.isdir(storage):
        return None
    wanted = normalise_folder(cwd)
    matches: list[tuple[int, str]] = []
    try:
        entries = sorted(storage.iterdir())
    except OSError:
        return None
    for entry in entries:
        manifest = entry / "workspace.json"
        if not os.path.lexists(manifest):
            continue  # a workspace without a manifest (or a stray file): nothing to match
        try:
            data, status = read_regular_stat(manifest, limit=MAX_SIDE_FILE_BYTES)
        except TxcriptError as exc:
            warn(f"ignoring workspace {entry.name}: {exc}")
            continue
        document = try_loads(data)
        folder = document.get("folder") if isinstance(document, dict) else None
        changed = status.st_mtime_ns
        path = path_from_file_uri(folder) if isinstance(folder, str) else None
        if path is not None and normalise_folder(path) == wanted:
            matches.append((changed, entry.name))
    return max(matches)[1] if matches else None
