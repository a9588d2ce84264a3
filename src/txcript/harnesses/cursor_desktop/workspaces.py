"""Map a working directory to the app's workspace hash via ``workspaceStorage/*/workspace.json``.

Cursor names each opened folder by a 32-hex-digit hash and records the folder's ``file:`` URI in
``workspaceStorage/<hash>/workspace.json``. The URI is percent-decoded and Windows drive letters
and separators are normalised on both sides before comparing, so ``file:///c%3A/Users/me/My%20Proj``
matches ``C:\\Users\\me\\My Proj``. When several hashes name the same folder, the one whose
``workspace.json`` changed last (the one in use) wins.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from txcript.shared.fileuri import path_from_file_uri

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
    if not cwd or not storage.is_dir():
        return None
    wanted = normalise_folder(cwd)
    matches: list[tuple[int, str]] = []
    for entry in sorted(storage.iterdir()):
        manifest = entry / "workspace.json"
        try:
            folder = json.loads(manifest.read_text(encoding="utf-8")).get("folder")
            changed = manifest.stat().st_mtime_ns
        except (OSError, ValueError, AttributeError):
            continue
        path = path_from_file_uri(folder) if isinstance(folder, str) else None
        if path is not None and normalise_folder(path) == wanted:
            matches.append((changed, entry.name))
    return max(matches)[1] if matches else None
