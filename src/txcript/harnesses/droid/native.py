"""The Factory droid native body: one session's JSONL lines as written, and its settings file.

A session is ``<uuid>.jsonl`` (line 1 a ``session_start`` header, then ``message`` records and
bookkeeping such as ``agent_turn_outcome``, ``todo_state`` and ``compaction_state``) beside
``<uuid>.settings.json`` (model, autonomy, the session's token usage). Every line keeps its text,
and the settings file its exact text, so a load followed by a save writes the same bytes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from txcript.shared.jsonl import Line
from txcript.shared.jsonutil import INVALID, try_loads

HARNESS = "droid"
#: The record kinds droid writes to a session file; any other is carried and counted.
RECORD_TYPES = frozenset(
    ("session_start", "message", "agent_turn_outcome", "todo_state", "compaction_state")
)


class DroidSession(msgspec.Struct, frozen=True, gc=False):
    """One session: its lines in file order, whether the file ends with a newline, and the text
    of its ``.settings.json`` (None when it has none).

    ``session_id`` is the file stem when loaded from a store, the written id for a body built by
    ``from_common``, and the header's id (else empty) for parsed text.
    """

    session_id: str
    lines: tuple[Line, ...]
    final_newline: bool = True
    settings: str | None = None

    def records(self) -> list[dict[str, Any]]:
        """Every line that holds a JSON object, in order."""
        return [line.value for line in self.lines if isinstance(line.value, dict)]

    def header(self) -> dict[str, Any] | None:
        """The ``session_start`` record (the first line, in every file droid writes)."""
        for line in self.lines:
            value = line.value
            if isinstance(value, dict) and value.get("type") == "session_start":
                return value
            if isinstance(value, dict):
                return None
        return None

    def settings_value(self) -> dict[str, Any]:
        """The settings file as a JSON object (empty when absent or not an object)."""
        if self.settings is None:
            return {}
        value = try_loads(self.settings)
        return value if value is not INVALID and isinstance(value, dict) else {}
