"""The Claude Code text form: the JSONL text of the main session file.

``from_text`` keeps every line as written (blank lines, unknown records and lines that are not
JSON included), so ``to_text(from_text(t)) == t``. It refuses text in which no line is a Claude
Code record (:data:`RECORD_TYPES`), so another harness's JSONL, or any stray JSON object, is not
read as an empty session. Side files (subagents, spilled tool output) are not part of the text
form; they travel only with a stored session.
"""

from __future__ import annotations

from typing import Any

from txcript.errors import Malformed
from txcript.shared.formats.claude_jsonl.meta import CONVERSATION, TITLE_KEYS
from txcript.shared.formats.claude_jsonl.native import ClaudeSession, parse_lines, render_text

#: The record ``type`` values Claude Code writes to a session file. A session may hold others
#: (new releases add some; they are kept as written), but at least one line must be one of these.
RECORD_TYPES = frozenset(
    (
        *CONVERSATION,
        *(kind for kind, _ in TITLE_KEYS),
        "system",
        "attachment",
        "progress",
        "file-history-snapshot",
        "file-history-delta",
        "queue-operation",
        "permission-mode",
        "mode",
        "last-prompt",
        "pr-link",
        "frame-link",
        "worktree-state",
        "relocated",
        "bridge-session",
    )
)


def is_known_record(value: Any) -> bool:
    """Is this JSON value a record of a type Claude Code writes (:data:`RECORD_TYPES`)?"""
    return isinstance(value, dict) and value.get("type") in RECORD_TYPES


def from_text(text: str) -> ClaudeSession:
    lines, final_newline = parse_lines(text)
    if not any(is_known_record(line.value) for line in lines):
        if not text.strip():
            what = "it is empty (expected one JSON record per line)"
        elif not any(isinstance(line.value, dict) for line in lines):
            what = "no line is a JSON object (expected one JSON record per line)"
        else:
            what = (
                "no line is a Claude Code record "
                "(expected JSON lines whose `type` is `user`, `assistant`, `summary`, …)"
            )
        raise Malformed("claude_code", what)
    return ClaudeSession(session_id="", lines=lines, final_newline=final_newline)


def to_text(session: ClaudeSession) -> str:
    return render_text(session)


def is_record(value: Any) -> bool:
    """Is this JSON value a Claude Code conversation record (a ``user``/``assistant`` line)?"""
    return (
        isinstance(value, dict)
        and value.get("type") in CONVERSATION
        and isinstance(value.get("message"), dict)
        and "sessionId" in value
        and "parentUuid" in value
        # Qwen Code's records share these ids, but their messages are Gemini Content ({role,
        # parts}); a Claude Code message always holds `content`.
        and not ("parts" in value["message"] and "content" not in value["message"])
    )


def looks_like_session(text: str) -> bool:
    """Does this text read as Claude Code JSONL (its first record line is a conversation line)?

    For callers that sniff documents line by line; a JSONL file is not one JSON document, so the
    document-level :meth:`~txcript.harnesses.base.Harness.sniff` cannot recognise it.
    """
    lines, _ = parse_lines(text[: 1 << 20])
    return any(is_record(line.value) for line in lines)


def sniff_lines(values: list[Any]) -> bool:
    """Do these parsed first lines of a JSONL document look like a Claude Code session?"""
    return any(is_record(value) for value in values)
