"""Where the OpenCode store lives on this machine: a pure function of the environment, kept
apart from the store so asking for it imports neither the store nor the codec."""

from __future__ import annotations

import os
from pathlib import Path

from txcript.harnesses.base import home_dir

ENV_DB = "OPENCODE_DB"


def default_root() -> Path | None:
    """``$OPENCODE_DB``, else ``$XDG_DATA_HOME/opencode``, else ``~/.local/share/opencode``."""
    override = os.environ.get(ENV_DB)
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg:
        return Path(xdg) / "opencode"
    home = home_dir()
    return None if home is None else home / ".local" / "share" / "opencode"
