"""The Claude export native body: one conversation, the exact bytes of its element of
``conversations.json`` and their parsed value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

HARNESS = "claude_export"


@dataclass(frozen=True, slots=True)
class ExportConversation:
    """One conversation: ``data`` is its JSON text as the export holds it, ``value`` the parsed
    object (a conversation is a JSON object; anything else reads as an empty session)."""

    data: bytes
    value: Any
