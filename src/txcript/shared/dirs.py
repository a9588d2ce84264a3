"""Where txcript keeps its own files: the data dir (backups) and the cache dir (index, metadata).

Both come from platformdirs for ``txcript`` and can be moved with an environment variable, so a
test or a user can point them anywhere:

* data: ``TXCRIPT_DATA_DIR``, else ``~/.local/share/txcript`` (Linux),
  ``~/Library/Application Support/txcript`` (macOS), ``%LOCALAPPDATA%\\txcript`` (Windows);
* cache: ``TXCRIPT_CACHE_DIR``, else ``~/.cache/txcript`` (Linux), ``~/Library/Caches/txcript``
  (macOS), ``%LOCALAPPDATA%\\txcript\\Cache`` (Windows).
"""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    override = os.environ.get("TXCRIPT_DATA_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_data_dir("txcript", appauthor=False))


def cache_dir() -> Path:
    override = os.environ.get("TXCRIPT_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("txcript", appauthor=False))
