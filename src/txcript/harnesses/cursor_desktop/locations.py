"""Where a Cursor desktop store keeps its database, and how long a read waits for the app's lock.

The root itself is declared in the registry (``txcript.harnesses``).

Pure functions of the environment: nothing here opens a file or imports the codec, so asking a
harness for its default root stays cheap.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

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


def database_path(root: Path) -> Path:
    """The app's state database under its ``User`` directory ``root``."""
    return root / "globalStorage" / "state.vscdb"


def change_token(root: Path) -> str:
    """A token that moves whenever the store's database may have been written (see
    :func:`txcript.shared.sqlite.change_token`), taken without opening the store."""
    from txcript.shared.sqlite import change_token as database_token

    return database_token(database_path(root))
