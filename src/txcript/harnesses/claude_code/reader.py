"""Claude Code → Common: the shared Claude JSONL reader
(:mod:`txcript.shared.formats.claude_jsonl.reader`) is the Claude Code codec's ``to_common``."""

from __future__ import annotations

from txcript.shared.formats.claude_jsonl.reader import (
    NAMESPACE,
    active_path,
    scan,
    subagents,
    to_common,
)

__all__ = ["NAMESPACE", "active_path", "scan", "subagents", "to_common"]
