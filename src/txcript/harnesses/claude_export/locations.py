"""Where a Claude export is, and the token that says it has not changed: what a listing kept
under that token needs, without the store's code (which reads ZIPs and streams JSON)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from txcript.errors import BadInput
from txcript.shared.files import file_key

CONVERSATIONS = "conversations.json"
#: A file written this recently (ns) may be written again without its mtime moving.
_SETTLED_NS = 2_000_000_000


def change_token(root: Path) -> str:
    """The export file's identity and ``"<mtime ns>:<size>"``: a listing kept under it stands
    while the export is the same file, untouched. ``""`` (no token) for a file written in the
    last two seconds, which could change again without its mtime moving."""
    try:
        target = export_file(root)
        status = os.stat(target)
    except (OSError, BadInput):
        return ""
    if status.st_mtime_ns >= time.time_ns() - _SETTLED_NS:
        return ""
    return f"{status.st_dev}:{status.st_ino}:{file_key(status)}"


#: The names the export's ZIP is downloaded under (newer, then older exports).
ZIP_PATTERNS = ("data-*.zip", "claude-ai-data-*.zip")


def export_file(root: Path) -> Path:
    """The file that holds the export: ``root`` itself; in a folder, its ``conversations.json``
    (an unzipped export), else the one export ZIP it holds (a folder the ZIP was saved in)."""
    if not root.is_dir():
        return root
    inner = root / CONVERSATIONS
    if inner.is_file():
        return inner
    found = sorted({p for pattern in ZIP_PATTERNS for p in root.glob(pattern) if p.is_file()})
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(p.name for p in found[:5])
        raise BadInput(f"{root} holds {len(found)} Claude exports ({names}); name one of them")
    raise BadInput(f"{root} is not a Claude export (it holds no {CONVERSATIONS} and no export ZIP)")
