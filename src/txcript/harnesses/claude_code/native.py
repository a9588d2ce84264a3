"""The Claude Code native body: the shared Claude JSONL lines
(:mod:`txcript.shared.formats.claude_jsonl.native`)."""

from __future__ import annotations

from txcript.shared.formats.claude_jsonl.native import (
    SIDE_DIRS,
    ClaudeSession,
    Line,
    SideFile,
    parse_lines,
    record_line,
    render_text,
    session_from_records,
)

__all__ = [
    "SIDE_DIRS",
    "ClaudeSession",
    "Line",
    "SideFile",
    "parse_lines",
    "record_line",
    "render_text",
    "session_from_records",
]
