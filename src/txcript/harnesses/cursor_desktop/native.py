"""The Cursor desktop native body: one session's cells exactly as the app stored them.

Every string here is the raw cell text (never re-serialised), so a load followed by a save is
byte-lossless. The codec parses these strings; the store only moves them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

#: Where the session's head came from: a ``composerHeaders`` row (3.16+), an entry of the
#: ``ItemTable`` key ``composer.composerHeaders`` (3.x before the table), or synthesised from the
#: ``composerData`` document when neither exists (legacy databases, ≈0.45–1.7).
HeaderOrigin = Literal["table", "item_table", "synthesized"]


@dataclass(frozen=True, slots=True)
class KVRow:
    """One ``cursorDiskKV`` row: its key and its value as text."""

    key: str
    value: str


@dataclass(frozen=True, slots=True)
class CursorSession:
    """One composer (session): its header columns and every ``cursorDiskKV`` row naming it.

    ``bubbles`` are the ``bubbleId:<cid>:…`` rows in database (rowid) order; ``aux`` are the other
    rows that belong to the session (checkpoints, renderer caches, future kinds), also in rowid
    order. Shared caches (``agentKv:*``) are never part of a session.
    """

    header: str
    bubbles: tuple[KVRow, ...]
    workspace_id: str | None = None
    created_at: int = 0
    last_updated_at: int = 0
    is_archived: bool = False
    is_subagent: bool = False
    recency: int = 0
    checkpoint_at: int | None = None
    composer_data: str | None = None
    aux: tuple[KVRow, ...] = ()
    #: Header-table columns this version of txcript does not model (e.g. ``subagentTypeName``),
    #: carried so a save does not reset them. Values are SQLite scalars.
    extra_columns: tuple[tuple[str, str | int | float | bytes | None], ...] = field(default=())
    header_origin: HeaderOrigin = "table"
    #: The store reference (composer id) this body was loaded from, when it came from a store.
    reference: str | None = None
