"""The directory a session is filed under, in a store that files sessions by working directory."""

from __future__ import annotations

import os

from txcript.errors import StoreError


def filing_directory(cwd: str | None) -> str:
    """``cwd``, or the current directory when the session has none.

    Claude Code's projects, the Cursor CLI's md5 buckets and Gemini's project slugs are named
    after a working directory. A copy written under ``--out`` keeps the cwd it has, absent
    included (nothing invents one in its records), yet it must land somewhere the app finds it:
    under the directory txcript runs in, as a live copy is re-homed (``continue`` says so).
    A :class:`StoreError` when the current directory is gone.
    """
    if cwd:
        return cwd
    try:
        return os.getcwd()
    except OSError as exc:
        raise StoreError(f"the current directory is gone: {exc.strerror or exc}") from None
