"""The first elements of a task's JSON arrays, read from the head of the file.

Discovery needs a task's first chat-view message (its start time) and its first user and
assistant messages (title, working directory, model), not the megabytes after them. The head is
read in growing pieces until those elements are whole, so a listing reads a few kilobytes of each
task, and what it derives equals what a full load derives from the same elements.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from txcript.shared.files import MAX_SESSION_FILE_BYTES, open_regular

from .native import leading_elements

_FIRST_READ = 64 * 1024


def head_elements(path: Path, enough: Callable[[list[Any]], bool]) -> list[Any]:
    """The first elements of the JSON array in ``path`` — until ``enough`` of them, or all —
    read from a growing head; ``[]`` when the file is missing, empty or not an array."""
    if os.path.islink(path):
        return []  # a load does not follow it either: the listing must say what a load says
    try:
        handle = open_regular(path)
    except Exception:
        return []
    with handle:
        try:
            size = os.fstat(handle.fileno()).st_size
        except OSError:
            return []
        if size > MAX_SESSION_FILE_BYTES:
            return []
        want = _FIRST_READ
        data = b""
        while True:
            try:
                data += handle.read(want - len(data))
            except OSError:
                return []
            text = data.decode("utf-8", errors="ignore")
            found, ended = leading_elements(text, enough)
            if ended or len(data) >= size:
                return found
            want *= 4
