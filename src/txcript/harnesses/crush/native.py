"""The Crush native body: one ``sessions`` row and its ``messages`` rows, as stored.

Crush keeps a project's sessions in ``<project>/.crush/crush.db``. A session is one ``sessions``
row and its ``messages`` rows; a message's ``parts`` column is JSON text, ``[{"type", "data"}]``.
The body keeps every column the row has, each as its stored value, with ``parts`` as the exact
text it was stored as, so a load followed by a save writes the same rows. ``project`` is the
project directory (the session's cwd), which names the database a save goes to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from txcript.shared.jsonutil import INVALID, try_loads

HARNESS = "crush"


@dataclass(frozen=True, slots=True)
class CrushMessage:
    """One ``messages`` row: column → stored value (``parts`` as its text)."""

    row: dict[str, Any]
    parts: Any = field(default=INVALID, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.parts is INVALID:
            object.__setattr__(self, "parts", try_loads(self.row.get("parts")))

    @property
    def id(self) -> str:
        value = self.row.get("id")
        return value if isinstance(value, str) else ""

    @property
    def role(self) -> str:
        value = self.row.get("role")
        return value if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class CrushSession:
    """One session: its ``sessions`` row, its messages in Crush's order, and its project."""

    session: dict[str, Any]
    messages: tuple[CrushMessage, ...] = ()
    project: str | None = None

    @property
    def id(self) -> str:
        value = self.session.get("id")
        return value if isinstance(value, str) else ""
