"""The Codex text form: the rollout itself (a legacy ``{session, items}`` document for the
oldest CLI), parsed and rendered byte for byte by :mod:`.native`."""

from __future__ import annotations

from typing import Any

from .codec import with_rollout_title
from .native import CodexSession, parse, render, sniff


def from_text(text: str) -> CodexSession:
    """The session a rollout's text holds, titled by its last ``thread_name_updated`` event."""
    return with_rollout_title(parse(text))


def to_text(native: CodexSession) -> str:
    return render(native)


def sniff_lines(values: list[Any]) -> bool:
    """Does a JSONL document whose first lines parse to ``values`` look like a rollout: a
    ``session_meta`` envelope first, or the bare header of a mid-2025 rollout?"""
    return bool(values) and (sniff(values[0]) or _bare_header(values[0]))


def _bare_header(value: Any) -> bool:
    """``{"id", "timestamp", "instructions", "git"}``, untyped: a mid-2025 rollout's first line."""
    return (
        isinstance(value, dict)
        and "type" not in value
        and isinstance(value.get("id"), str)
        and isinstance(value.get("timestamp"), str)
        and "instructions" in value
    )


__all__ = ["from_text", "sniff", "sniff_lines", "to_text"]
