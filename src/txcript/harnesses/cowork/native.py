"""The Cowork native body: one task's app record and its Claude Code transcript, as stored.

A task is ``<org>/<account>/local_<id>.json`` (the record Claude desktop lists at startup) and the
transcript of the Claude Code run behind it, ``local_<id>/.claude/projects/<slug>/<cli id>.jsonl``
(or the same one level down, under ``agent/``). The body keeps the record's exact bytes next to
its parsed value and the transcript as
:class:`~txcript.shared.formats.claude_jsonl.native.ClaudeSession` lines, so a load followed
by a save writes the same bytes. Where the task lived (org, account, ``agent/``, the project
slug) is kept too; a body built by ``from_common`` has none of it, and the store chooses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from txcript.shared.jsonutil import try_loads

if TYPE_CHECKING:  # (the transcript's lines are imported only to read or write one)
    from txcript.shared.formats.claude_jsonl.native import ClaudeSession

HARNESS = "cowork"
#: The record fields Claude desktop's validator requires (a record without one is not shown).
REQUIRED = ("sessionId", "processName", "cwd", "createdAt", "lastActivityAt")
#: The directories a task's folder holds beside its transcript.
TASK_DIRS = ("outputs", "uploads")


@dataclass(frozen=True, slots=True)
class CoworkTask:
    """One Cowork task.

    ``task_id`` is the record's file stem (``local_…``); ``record`` its bytes and ``value`` their
    parsed JSON (None when they are not a JSON object). ``transcript`` is the Claude Code run
    (its ``session_id`` the ``cliSessionId``), None when the task has none on disk yet.
    """

    task_id: str
    record: bytes
    value: dict[str, Any] | None
    transcript: ClaudeSession | None
    org: str | None = None
    account: str | None = None
    agent: bool = False
    #: The ``.claude/projects/`` directory the transcript is in (never rebuilt from the cwd).
    project: str | None = None


def record_value(data: bytes) -> dict[str, Any] | None:
    """A record's bytes parsed: the JSON object, or None when they are not one."""
    value = try_loads(data)
    return value if isinstance(value, dict) else None


def record_problem(value: Any) -> str | None:
    """Why a record would not be shown by Claude desktop, or None when it would."""
    if not isinstance(value, dict):
        return "it is not a JSON object"
    missing = [name for name in REQUIRED if name not in value]
    if missing:
        return f"it has no {', '.join(missing)}"
    if not isinstance(value["sessionId"], str) or not value["sessionId"].startswith("local_"):
        return "its sessionId is not a local_ id"
    for name in ("processName", "cwd"):
        if not isinstance(value[name], str):
            return f"its {name} is not a string"
    for name in ("createdAt", "lastActivityAt"):
        if type(value[name]) not in (int, float):
            return f"its {name} is not a number"
    return None
