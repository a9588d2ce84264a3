"""Where a Hermes store keeps its sessions, its change token and its fresh ids.

``$HERMES_HOME`` (default ``~/.hermes``) holds ``state.db`` and ``sessions/``; each profile
(``hermes --profile <name>``) is a home of its own under ``profiles/<name>/``. Nothing here opens
a database or imports the codec, so a listing kept under the change token is used without
importing the store.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import time
from datetime import datetime
from pathlib import Path

DB_NAME = "state.db"
LOGS = "sessions"
PROFILES = "profiles"
#: A file written this recently may change again without its stat moving (see shared.sqlite).
_SETTLED_NS = 2_000_000_000


def homes(root: Path) -> list[Path]:
    """The home at ``root`` and each profile's home under it (links not followed)."""
    found = [root]
    try:
        with os.scandir(root / PROFILES) as listing:
            found += sorted(Path(e.path) for e in listing if e.is_dir(follow_symlinks=False))
    except OSError:
        pass
    return found


def database(home: Path) -> Path:
    return home / DB_NAME


def change_token(root: Path) -> str:
    """A token that moves whenever any session under ``root`` may have changed: each home's
    database (:func:`txcript.shared.sqlite.change_token`) and the stat of each log file and of
    the directories holding them; ``""`` while anything was written in the last two seconds."""
    from txcript.shared.sqlite import change_token as database_token

    settled = time.time_ns() - _SETTLED_NS
    parts: list[str] = []
    for home in homes(root):
        token = database_token(database(home))
        if not token:
            return ""
        parts.append(token)
        for directory in (home, home / LOGS, home / PROFILES):
            try:
                status = os.stat(directory)
            except FileNotFoundError:
                parts.append("-")
                continue
            except OSError:
                return ""
            if status.st_mtime_ns >= settled:
                return ""
            parts.append(f"{directory.name}:{status.st_ino}:{status.st_mtime_ns}")
        try:
            with os.scandir(home / LOGS) as listing:
                for entry in sorted(listing, key=lambda e: e.name):
                    status = entry.stat(follow_symlinks=False)
                    if status.st_mtime_ns >= settled:
                        return ""
                    parts.append(f"{entry.name}:{status.st_size}:{status.st_mtime_ns}")
        except FileNotFoundError:
            pass
        except OSError:
            return ""
    return hashlib.blake2b("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def fresh_session_id() -> str:
    """A new id in Hermes's own shape: the local time and six hex digits."""
    return f"{datetime.now():%Y%m%d_%H%M%S}_{secrets.token_hex(3)}"
