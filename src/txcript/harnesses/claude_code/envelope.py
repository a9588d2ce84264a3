"""Claude Code's slash-command markup (:mod:`txcript.shared.formats.claude_jsonl.envelope`)."""

from __future__ import annotations

from txcript.shared.formats.claude_jsonl.envelope import (
    ARGS,
    CAVEAT,
    MESSAGE,
    NAME,
    STDERR,
    STDOUT,
    TAGS,
    Envelope,
    escape,
    parse,
    render_command,
    render_output,
    sections,
    unescape,
)

__all__ = [
    "ARGS",
    "CAVEAT",
    "MESSAGE",
    "NAME",
    "STDERR",
    "STDOUT",
    "TAGS",
    "Envelope",
    "escape",
    "parse",
    "render_command",
    "render_output",
    "sections",
    "unescape",
]
