"""The Qwen Code native body: a chat file's exact lines, and the branch Qwen resumes.

A chat is JSON Lines of ``ChatRecord``s: ``{uuid, parentUuid, sessionId, timestamp, type: user |
assistant | tool_result | system, subtype?, cwd, version, gitBranch?, message?, model?,
usageMetadata?, toolCallResult?, systemPayload?}``. The records form a tree by
``parentUuid``: ``/rewind`` and forks append a new child of an earlier record and leave the old
branch in the file. The conversation is the path from the **leaf** — the last record in file
order that is conversation (not a managed-session or artifact record) — back to the root.

A ``uuid`` may appear on more than one line: Qwen writes a long record in fragments, and joins
them (parts appended in order, the latest timestamp, the last usage, the first model and tool
result). :func:`active_path` does the same.

The body keeps every line as written (:mod:`txcript.shared.jsonlines`), so a load followed by a
save is byte-lossless, dead branches and unknown records included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonlines import Line, Tally, parse_lines, render_lines

HARNESS = "qwen"
RECORD_TYPES = frozenset(("user", "assistant", "tool_result", "system"))
#: System records that never enter the conversation, so never become the leaf.
NON_CONVERSATION = frozenset(
    (
        "session_sources_snapshot",
        "managed_session_header_v1",
        "managed_session_event_v1",
        "managed_session_commit_v1",
        "session_artifact_event",
        "session_artifact_snapshot",
    )
)
#: The ``system`` subtypes Qwen Code 0.24 writes (bookkeeping: kept in the file, not in Common,
#: except ``chat_compression`` and ``custom_title``, which the codec reads).
SYSTEM_SUBTYPES = frozenset(
    (
        "chat_compression",
        "slash_command",
        "ui_telemetry",
        "at_command",
        "attribution_snapshot",
        "notification",
        "background_task_completed",
        "cron",
        "mid_turn_user_message",
        "realtime_message",
        "custom_title",
        "parent_session",
        "rewind",
        "agent_bootstrap",
        "agent_launch_prompt",
        "agent_retry",
        "agent_session_ready",
        "file_history_snapshot",
        "session_source",
        "session_model",
        "omni_recall",
        "branch_checkpoint",
        "goal_state",
        "goal_runtime",
        "goal_turn_end",
        "turn_result",
        "session_execution_engine",
        *NON_CONVERSATION,
    )
)


@dataclass(frozen=True, slots=True)
class QwenSession:
    """One Qwen Code chat: ``lines`` (and the final newline) are the file's exact text;
    ``fallback_id`` is the file stem, used when no record names the session."""

    lines: tuple[Line, ...]
    trailing_newline: bool = True
    #: Where the file sits, not what it holds: no part of equality.
    fallback_id: str | None = field(default=None, compare=False)


def is_record(value: Any) -> bool:
    """A value with a ChatRecord's identity: ``uuid``, ``parentUuid`` (or null) and
    ``sessionId`` as Qwen validates them, and one of its record types."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("uuid"), str)
        and bool(value["uuid"])
        and (value.get("parentUuid") is None or isinstance(value.get("parentUuid"), str))
        and "parentUuid" in value
        and isinstance(value.get("sessionId"), str)
        and bool(value["sessionId"])
        and value.get("type") in RECORD_TYPES
    )


def is_conversation(record: dict[str, Any]) -> bool:
    return not (record.get("type") == "system" and record.get("subtype") in NON_CONVERSATION)


def parse(text: str, label: str | None = None) -> QwenSession:
    """A chat file's text as its native body; :class:`Malformed` when no line is a record."""
    what = label or "the input"
    lines, trailing = parse_lines(text)
    if not any(is_record(line.value) for line in lines):
        raise Malformed(HARNESS, f"{what} holds no Qwen Code chat records")
    return QwenSession(lines=lines, trailing_newline=trailing)


def render(native: QwenSession) -> str:
    return render_lines(native.lines, native.trailing_newline)


def sniff_lines(values: list[Any]) -> bool:
    """First JSON lines of a Qwen chat: ChatRecords whose message (if any) is Gemini Content
    (``{role, parts}``) — what tells them from Claude Code's records, which share the ids."""
    if not values or not all(is_record(v) for v in values):
        return False
    first = values[0]
    return "cwd" in first and all(
        not isinstance(v.get("message"), dict) or "parts" in v["message"] for v in values
    )


def records(native: QwenSession, tally: Tally | None = None) -> list[dict[str, Any]]:
    """The file's ChatRecords in order; what is not one is counted in ``tally``."""
    out = []
    for line in native.lines:
        value = line.value
        if is_record(value):
            out.append(value)
        elif tally is not None and line.text.strip():
            tally.add("not a Qwen record" if isinstance(value, dict) else "not JSON")
    return out


def _joined(fragments: list[dict[str, Any]]) -> dict[str, Any]:
    """The record a uuid's fragments make, joined as Qwen joins them."""
    base = dict(fragments[0])
    message = base.get("message")
    parts: list[Any] | None = None
    if isinstance(message, dict):
        held = message.get("parts")
        parts = list(held) if isinstance(held, list) else []
    for fragment in fragments[1:]:
        more = fragment.get("message")
        if isinstance(more, dict):
            given = more.get("parts")
            extra: list[Any] = given if isinstance(given, list) else []
            if parts is None:
                message, parts = more, list(extra)
            else:
                parts.extend(extra)
        if fragment.get("usageMetadata"):
            base["usageMetadata"] = fragment["usageMetadata"]
        if fragment.get("toolCallResult") and not base.get("toolCallResult"):
            base["toolCallResult"] = fragment["toolCallResult"]
        if fragment.get("model") and not base.get("model"):
            base["model"] = fragment["model"]
        stamp = fragment.get("timestamp")
        if isinstance(stamp, str) and stamp > str(base.get("timestamp") or ""):
            base["timestamp"] = stamp
    if isinstance(message, dict) and parts is not None:
        base["message"] = {**message, "parts": parts}
    return base


@dataclass(frozen=True, slots=True)
class Branch:
    """The records on the path from the root to the leaf (fragments joined), and how many
    records of the file are off it (rewound or forked branches)."""

    path: list[dict[str, Any]]
    off_path: int


def active_path(all_records: list[dict[str, Any]], tally: Tally | None = None) -> Branch:
    """The conversation Qwen resumes: from the last conversation record back to the root.

    A parent that is missing (a history gap) ends the walk there, as in Qwen, and a cycle is
    cut where it closes; both are counted in ``tally``."""
    fragments: dict[str, list[dict[str, Any]]] = {}
    leaf: str | None = None
    for record in all_records:
        fragments.setdefault(record["uuid"], []).append(record)
        if is_conversation(record):
            leaf = record["uuid"]
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    current = leaf
    while current is not None:
        if current in seen:
            if tally is not None:
                tally.add("parent cycle")
            break
        seen.add(current)
        found = fragments.get(current)
        if found is None:
            if tally is not None:
                tally.add("missing parent (history gap)")
            break
        record = _joined(found) if len(found) > 1 else found[0]
        path.append(record)
        current = record.get("parentUuid")
    path.reverse()
    return Branch(path=path, off_path=len(fragments) - len(seen & set(fragments)))
