"""Where the Gemini CLI store lives on this machine: a pure function of the environment, kept
apart from the store so asking for it imports neither the store nor the codec."""

from __future__ import annotations

import os
from pathlib import Path

from txcript.harnesses.base import home_dir

ENV_OVERRIDE = "GEMINI_CLI_HOME"


def default_root() -> Path | None:
    """``$GEMINI_CLI_HOME/.gemini`` when set and non-empty, else ``~/.gemini``, else None."""
    override = os.environ.get(ENV_OVERRIDE)
    if override:
        return Path(override) / ".gemini"
    home = home_dir()
    return None if home is None else home / ".gemini"
