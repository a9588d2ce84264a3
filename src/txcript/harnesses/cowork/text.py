"""The Cowork text form: one task (record and transcript) as a JSON bundle.

A JSON object whose fields, in this order, are::

    task_id         string   the record's file stem (local_…)                          required
    org             string   the organisation directory the task was in; omitted when none
    account         string   the account directory; omitted when none
    agent           boolean  the task was under the account's agent/ directory      default false
    project         string   the transcript's .claude/projects/ directory; omitted when none
    record          string   the record's bytes as text, or {"hex": …} when not UTF-8  required
    cli_session_id  string   the transcript's file stem; omitted with no transcript
    transcript      string   the transcript's JSONL text, exactly; omitted with none

Output is pretty-printed with a two-space indent. Wrong types, missing fields and non-JSON input
raise :class:`~txcript.errors.Malformed` naming the field.
"""

from __future__ import annotations

from typing import Any

from txcript.errors import Malformed
from txcript.harnesses.cowork.native import HARNESS, CoworkTask, record_value
from txcript.shared.formats.claude_jsonl.native import ClaudeSession, parse_lines, render_text
from txcript.shared.jsonutil import dumps_pretty, loads_strict
from txcript.shared.sqlcells import CellError, bytes_from_json, bytes_to_json


def to_text(task: CoworkTask) -> str:
    document: dict[str, Any] = {"task_id": task.task_id}
    for name in ("org", "account"):
        value = getattr(task, name)
        if value is not None:
            document[name] = value
    document["agent"] = task.agent
    if task.project is not None:
        document["project"] = task.project
    document["record"] = bytes_to_json(task.record)
    if task.transcript is not None:
        document["cli_session_id"] = task.transcript.session_id
        document["transcript"] = render_text(task.transcript)
    return dumps_pretty(document)


def _malformed(detail: str) -> Malformed:
    return Malformed(HARNESS, detail)


def _optional_string(document: dict[str, Any], name: str) -> str | None:
    value = document.get(name)
    if value is not None and not isinstance(value, str):
        raise _malformed(f"`{name}` must be a string")
    return value


def from_text(text: str) -> CoworkTask:
    try:
        document = loads_strict(text)
    except ValueError as exc:
        raise _malformed(f"not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise _malformed("the document must be a JSON object")
    task_id = _optional_string(document, "task_id")
    if task_id is None:
        raise _malformed("`task_id` must be a string")
    agent = document.get("agent", False)
    if not isinstance(agent, bool):
        raise _malformed("`agent` must be a boolean")
    if "record" not in document:
        raise _malformed("`record` is missing")
    try:
        record = bytes_from_json(document["record"], "record")
    except CellError as exc:
        raise _malformed(str(exc)) from None
    transcript_text = _optional_string(document, "transcript")
    cli_id = _optional_string(document, "cli_session_id")
    transcript = None
    if transcript_text is not None:
        lines, final_newline = parse_lines(transcript_text)
        transcript = ClaudeSession(cli_id or "", lines, final_newline)
    return CoworkTask(
        task_id=task_id,
        record=record,
        value=record_value(record),
        transcript=transcript,
        org=_optional_string(document, "org"),
        account=_optional_string(document, "account"),
        agent=agent,
        project=_optional_string(document, "project"),
    )


def sniff(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and isinstance(document.get("task_id"), str)
        and "record" in document
        and isinstance(document.get("agent", False), bool)
    )
