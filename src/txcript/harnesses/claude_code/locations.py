"""Where the Claude Code store lives on this machine: a pure function of the environment, kept
apart from the store so asking for it imports neither the store nor the codec."""

from __future__ import annotations

import os
from pathlib import Path

from txcript.harnesses.base import home_dir


def default_root() -> Path | None:
    """``CLAUDE_CONFIG_DIR`` when set and non-empty, else ``~/.claude`` (None without a home)."""
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    if override:
        return Path(override)
    home = home_dir()
    return None if home is None else home / ".claude"
