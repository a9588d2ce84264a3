"""The Goose native body, in either generation Goose has stored sessions in.

* **Database** (Goose ≥ ~1.20, ``sessions/sessions.db``): one ``sessions`` row and its
  ``messages`` rows, every column as stored (``content_json`` and ``metadata_json`` as their
  exact text).
* **JSONL** (older Goose, ``sessions/<name>.jsonl``): a metadata line (``working_dir``,
  ``description``, …) then one message per line, each line kept as its text.

Goose imports the JSONL files into its database once, when it creates the database; a session
found in both is the database's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from txcript.shared.jsonl import Line
from txcript.shared.jsonutil import INVALID, try_loads

HARNESS = "goose"


@dataclass(frozen=True, slots=True)
class GooseMessage:
    """One ``messages`` row: column → stored value."""

    row: dict[str, Any]
    content: Any = field(default=INVALID, compare=False, repr=False)
    metadata: Any = field(default=INVALID, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.content is INVALID:
            object.__setattr__(self, "content", try_loads(self.row.get("content_json")))
        if self.metadata is INVALID:
            object.__setattr__(self, "metadata", try_loads(self.row.get("metadata_json")))


@dataclass(frozen=True, slots=True)
class LegacyFile:
    """A session file of the JSONL generation: its name (the session id) and its lines.

    The name is where the file lives, not part of its content (the text form has none), so two
    bodies with the same lines are equal whatever their names."""

    name: str = field(compare=False)
    lines: tuple[Line, ...]
    final_newline: bool = True


@dataclass(frozen=True, slots=True)
class GooseSession:
    """One session: a database session (``session`` and ``messages``), or a JSONL file
    (``legacy``)."""

    session: dict[str, Any] = field(default_factory=dict)
    messages: tuple[GooseMessage, ...] = ()
    legacy: LegacyFile | None = None

    @property
    def id(self) -> str:
        if self.legacy is not None:
            return self.legacy.name
        value = self.session.get("id")
        return value if isinstance(value, str) else ""
