"""Claude Code's session metadata rules (:mod:`txcript.shared.formats.claude_jsonl.meta`)."""

from __future__ import annotations

from txcript.shared.formats.claude_jsonl.meta import (
    CONVERSATION,
    SYNTHETIC_MODEL,
    TITLE_KEYS,
    MetaScan,
    message_model,
    scan_head,
)

__all__ = [
    "CONVERSATION",
    "SYNTHETIC_MODEL",
    "TITLE_KEYS",
    "MetaScan",
    "message_model",
    "scan_head",
]
