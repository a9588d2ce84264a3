"""Common → Claude Code: the shared Claude JSONL writer
(:mod:`txcript.shared.formats.claude_jsonl.writer`) is the Claude Code codec's ``from_common``."""

from __future__ import annotations

from txcript.shared.formats.claude_jsonl.writer import (
    RESULT_BLOCK_TYPES,
    from_common,
    result_content,
)

__all__ = ["RESULT_BLOCK_TYPES", "from_common", "result_content"]
