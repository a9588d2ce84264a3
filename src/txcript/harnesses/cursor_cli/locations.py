"""Where the Cursor CLI store lives on this machine: a pure function of the environment, kept
apart from the store so asking for it imports neither the store nor the codec."""

from __future__ import annotations

import os
from pathlib import Path

from txcript.harnesses.base import home_dir

ENV_CHATS = "CURSOR_CHATS_DIR"


def default_root() -> Path | None:
    override = os.environ.get(ENV_CHATS)
    if override:
        return Path(override)
    home = home_dir()
    return None if home is None else home / ".cursor"
