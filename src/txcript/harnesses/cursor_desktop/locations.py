"""Where a Cursor desktop store lives, and how long a read waits for the app's lock.

Pure functions of the environment: nothing here opens a file or imports the codec, so asking a
harness for its default root stays cheap.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

from txcript.harnesses.base import home_dir

ENV_OVERRIDE = "CURSOR_DESKTOP_USER_DIR"
DEFAULT_BUSY_TIMEOUT = 5.0
#: Seconds to wait for the app's lock before giving up (default :data:`DEFAULT_BUSY_TIMEOUT`).
BUSY_TIMEOUT_ENV = "TXCRIPT_BUSY_TIMEOUT"


def busy_timeout_setting() -> float:
    """``TXCRIPT_BUSY_TIMEOUT`` in seconds when it is a non-negative number, else the default."""
    try:
        value = float(os.environ.get(BUSY_TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_BUSY_TIMEOUT
    return value if math.isfinite(value) and value >= 0 else DEFAULT_BUSY_TIMEOUT


def root_for(system: str, home: Path) -> Path:
    """The app's ``User`` directory under ``home`` on ``system`` (a ``sys.platform`` value)."""
    if system == "darwin":
        return home / "Library" / "Application Support" / "Cursor" / "User"
    if system in ("win32", "cygwin"):
        return home / "AppData" / "Roaming" / "Cursor" / "User"
    return home / ".config" / "Cursor" / "User"


def default_root() -> Path | None:
    """``$CURSOR_DESKTOP_USER_DIR`` when set and non-empty, else the per-OS default, else None."""
    override = os.environ.get(ENV_OVERRIDE)
    if override:
        return Path(override)
    home = home_dir()
    return None if home is None else root_for(sys.platform, home)


def database_path(root: Path) -> Path:
    """The app's state database under its ``User`` directory ``root``."""
    return root / "globalStorage" / "state.vscdb"


def change_token(root: Path) -> str:
    """A token that moves whenever the store's database may have been written (see
    :func:`txcript.shared.sqlite.change_token`), taken without opening the store."""
    from txcript.shared.sqlite import change_token as database_token

    return database_token(database_path(root))
