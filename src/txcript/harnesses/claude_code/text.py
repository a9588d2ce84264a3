"""The Claude Code text form: the JSONL text of the main session file
(:mod:`txcript.shared.formats.claude_jsonl.text`)."""

from __future__ import annotations

from txcript.shared.formats.claude_jsonl.text import (
    RECORD_TYPES,
    from_text,
    is_known_record,
    is_record,
    looks_like_session,
    sniff_lines,
    to_text,
)

__all__ = [
    "RECORD_TYPES",
    "from_text",
    "is_known_record",
    "is_record",
    "looks_like_session",
    "sniff_lines",
    "to_text",
]
