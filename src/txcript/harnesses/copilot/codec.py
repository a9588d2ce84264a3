"""Copilot CLI sessions → Common, from the event log or, without one, the store database.

**Meta** (:class:`MetaScan`, fed the same events by a load and by the store's cheap scan): the id
(``session.start.sessionId``, else ``workspace.yaml``'s ``id``, else the directory name); the start
(``session.start.startTime``, else ``created_at`` of the workspace or the store row); cwd and branch
(``session.start.context``, else the workspace, else the store row); the CLI version
(``copilotVersion``); the model (``selectedModel``, else the first reply's); the title — the last
``session.title_changed``, else the workspace ``name``, else the store row's ``summary``, else the
first line of the first prompt.

**Messages from the event log**, in file order (``parentId`` is a linear chain):

* ``user.message`` → a prompt (``content``; ``blob`` image attachments with their data);
* ``assistant.message`` → a reply: its reasoning (``reasoningText``, else the
  ``assistant.reasoning`` events before it; ``reasoningOpaque`` as the signature), its text, and
  a call per ``toolRequests`` entry (``toolCallId``, ``name``, ``arguments``); the ``model``, and
  the usage of the ``assistant.usage`` / ``session.usage_record`` event of that call;
* ``tool.execution_complete`` → the call's result: ``result.content`` (else
  ``detailedContent``), or ``error.message`` marked ``is_error`` (so is ``success: false``);
  consecutive results are one user message.

Sub-agent events (``parentToolCallId`` set) belong to the sub-agent's own conversation and are
left out, as are the runtime's bookkeeping events (turns, model and title changes, compaction,
hooks, permissions, shutdown metrics…), which stay in the file. An event outside the runtime's
namespaces is counted in one warning.

**Messages from the store database** (a session whose event log is gone): one prompt and one
reply per ``turns`` row, in ``turn_index`` order, at the row's time; the reply carries the model
and the summed tokens of that turn's ``assistant_usage_events``. The database keeps no tool calls.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from txcript.model import (
    Block,
    Image,
    ImageSource,
    Message,
    Meta,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Usage,
    prompt_title,
    type_tool,
)
from txcript.shared.jsonlines import Tally
from txcript.shared.jsonutil import INVALID, is_uint
from txcript.shared.timeutil import EPOCH, parse_rfc3339

from .native import HARNESS, CopilotSession, StoreRows, workspace_fields

#: The event namespaces the Copilot runtime writes: anything in them that is not conversation is
#: its bookkeeping.
NAMESPACES = (
    "session.",
    "assistant.",
    "user.",
    "tool.",
    "system.",
    "hook.",
    "subagent.",
    "permission.",
    "skill.",
    "elicitation.",
    "abort",
)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _data(event: dict[str, Any]) -> dict[str, Any]:
    data = event.get("data")
    return data if isinstance(data, dict) else {}


def events(native: CopilotSession) -> list[dict[str, Any]]:
    return [
        line.value
        for line in native.events or ()
        if isinstance(line.value, dict) and isinstance(line.value.get("type"), str)
    ]


def parse_time(value: Any) -> datetime | None:
    if isinstance(value, str) and " " in value and "T" not in value:
        value = value.replace(" ", "T") + "Z"  # SQLite's datetime('now'): UTC, no zone
    return parse_rfc3339(value)


# ------------------------------------------------------------------------------------- meta


class MetaScan:
    """Meta from the events that decide it: the first ``session.start``, the first prompt, the
    first reply, and every ``session.title_changed`` (a scan may feed only those)."""

    __slots__ = ("first_time", "model", "prompt", "start", "title")

    def __init__(self) -> None:
        self.start: dict[str, Any] | None = None
        self.prompt: str | None = None
        self.model: str | None = None
        self.title: str | None = None
        self.first_time: datetime | None = None

    def feed(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        data = _data(event)
        if self.first_time is None:
            self.first_time = parse_rfc3339(event.get("timestamp"))
        if kind == "session.start" and self.start is None:
            self.start = data
        elif kind == "user.message" and self.prompt is None:
            content = data.get("content")
            self.prompt = prompt_title([Text(content)]) if isinstance(content, str) else None
        elif kind == "assistant.message" and self.model is None:
            if not data.get("parentToolCallId"):
                self.model = _text(data.get("model"))
        elif kind == "session.title_changed":
            title = data.get("title")
            if isinstance(title, str) and title.strip():
                self.title = title

    def meta(self, native: CopilotSession) -> Meta:
        start = self.start or {}
        held = start.get("context")
        context: dict[str, Any] = held if isinstance(held, dict) else {}
        workspace = workspace_fields(native.workspace)
        row = native.rows.session if native.rows is not None else {}
        return Meta(
            id=_text(start.get("sessionId"))
            or workspace.get("id")
            or _text(row.get("id"))
            or native.session_id,
            timestamp=parse_rfc3339(start.get("startTime"))
            or parse_time(workspace.get("created_at"))
            or parse_time(row.get("created_at"))
            or self.first_time
            or EPOCH,
            cwd=_text(context.get("cwd")) or workspace.get("cwd") or _text(row.get("cwd")),
            git_branch=_text(context.get("branch"))
            or workspace.get("branch")
            or _text(row.get("branch")),
            title=self.title
            or workspace.get("name")
            or _text(row.get("summary"))
            or self.prompt
            or _rows_prompt(native.rows),
            cli_version=_text(start.get("copilotVersion")),
            model=_text(start.get("selectedModel")) or self.model or _rows_model(native.rows),
        )


def _turns(rows: StoreRows | None) -> list[dict[str, Any]]:
    if rows is None:
        return []

    def order(turn: dict[str, Any]) -> int:
        index = turn.get("turn_index")
        return index if isinstance(index, int) and is_uint(index) else 0

    return sorted(rows.turns, key=order)


def _rows_prompt(rows: StoreRows | None) -> str | None:
    for turn in _turns(rows):
        text = turn.get("user_message")
        if isinstance(text, str):
            return prompt_title([Text(text)])
    return None


def _rows_model(rows: StoreRows | None) -> str | None:
    for usage in rows.usage if rows is not None else ():
        model = _text(usage.get("model"))
        if model:
            return model
    return None


def meta_of(native: CopilotSession) -> Meta:
    scan = MetaScan()
    for event in events(native):
        scan.feed(event)
    return scan.meta(native)


# ----------------------------------------------------------------------------------- reading


def _usage(data: dict[str, Any]) -> Usage | None:
    inner = data.get("usage")
    held: dict[str, Any] = inner if isinstance(inner, dict) else data
    given, made = held.get("inputTokens"), held.get("outputTokens")
    if not is_uint(given) and not is_uint(made):
        return None
    read, wrote = held.get("cacheReadTokens"), held.get("cacheWriteTokens")
    return Usage(
        input_tokens=given if isinstance(given, int) and is_uint(given) else 0,
        output_tokens=made if isinstance(made, int) and is_uint(made) else 0,
        cache_read_input_tokens=read if isinstance(read, int) and is_uint(read) else None,
        cache_creation_input_tokens=wrote if isinstance(wrote, int) and is_uint(wrote) else None,
    )


def _attachments(data: dict[str, Any], tally: Tally) -> list[Block]:
    blocks: list[Block] = []
    for item in data.get("attachments") or []:
        if isinstance(item, dict) and item.get("type") == "blob":
            media, payload = item.get("mimeType"), item.get("data")
            if isinstance(payload, str) and isinstance(media, str):
                blocks.append(
                    Image(source=ImageSource(type="base64", media_type=media, data=payload))
                )
            else:
                tally.add("image attachment kept only as an asset reference")
    return blocks


def _result(data: dict[str, Any]) -> ToolResult:
    ident = _text(data.get("toolCallId")) or ""
    error = data.get("error")
    failed = data.get("success") is False or isinstance(error, dict)
    result = data.get("result")
    content: Any = None
    if isinstance(result, dict):
        content = result.get("content")
        if content is None:
            content = result.get("detailedContent")
    if content is None and isinstance(error, dict):
        content = error.get("message")
    return ToolResult(
        tool_use_id=ident, content="" if content is None else content, is_error=failed
    )


def _from_events(native: CopilotSession, tally: Tally, start: datetime) -> list[Message]:
    messages: list[Message] = []
    reasoning: list[Thinking] = []
    pending_usage: Usage | None = None
    when = start
    for line in native.events or ():
        event = line.value
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            if line.text.strip():
                tally.add("not JSON" if event is INVALID else "not an event")
            continue
        kind = event["type"]
        data = _data(event)
        when = parse_rfc3339(event.get("timestamp")) or when
        if data.get("parentToolCallId") and kind in (
            "assistant.message",
            "assistant.reasoning",
            "tool.execution_complete",
            "user.message",
        ):
            tally.add("sub-agent event")
            continue
        if kind == "user.message":
            content = data.get("content")
            blocks: list[Block] = [Text(text=content)] if isinstance(content, str) else []
            blocks.extend(_attachments(data, tally))
            messages.append(Message(role="user", content=tuple(blocks), timestamp=when))
        elif kind == "assistant.reasoning":
            content = data.get("content")
            if isinstance(content, str):
                reasoning.append(Thinking(text=content))
        elif kind == "assistant.message":
            blocks = []
            text = data.get("reasoningText")
            if isinstance(text, str) and text:
                blocks.append(Thinking(text=text, signature=_text(data.get("reasoningOpaque"))))
            else:
                blocks.extend(reasoning)
            reasoning = []
            content = data.get("content")
            if isinstance(content, str) and content:
                blocks.append(Text(text=content))
            for request in data.get("toolRequests") or []:
                if not isinstance(request, dict) or not isinstance(request.get("name"), str):
                    tally.add("tool request without a name")
                    continue
                ident = _text(request.get("toolCallId")) or ""
                tool = type_tool(request["name"], request.get("arguments", {}))
                blocks.append(ToolUse(id=ident, tool=tool))
            messages.append(
                Message(
                    role="assistant",
                    content=tuple(blocks),
                    timestamp=when,
                    model=_text(data.get("model")),
                    usage=pending_usage,
                )
            )
            pending_usage = None
        elif kind in ("assistant.usage", "session.usage_record"):
            if pending_usage is not None:
                _attach(messages, pending_usage)
            pending_usage = _usage(data)
        elif kind == "tool.execution_complete":
            result = _result(data)
            last = messages[-1] if messages else None
            if (
                last is not None
                and last.role == "user"
                and last.content
                and all(isinstance(b, ToolResult) for b in last.content)
            ):
                messages[-1] = Message(
                    role="user", content=(*last.content, result), timestamp=last.timestamp
                )
            else:
                messages.append(Message(role="user", content=(result,), timestamp=when))
        elif not kind.startswith(NAMESPACES):
            tally.add(f"event `{kind}`")
    if pending_usage is not None:
        _attach(messages, pending_usage)
    return messages


def _attach(messages: list[Message], usage: Usage) -> None:
    """Give a usage record that no reply followed to the last reply that has none."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "assistant":
            if message.usage is None:
                messages[index] = Message(
                    role="assistant",
                    content=message.content,
                    timestamp=message.timestamp,
                    model=message.model,
                    usage=usage,
                )
            return


def _from_rows(rows: StoreRows, start: datetime) -> list[Message]:
    messages: list[Message] = []
    for turn in _turns(rows):
        when = parse_time(turn.get("timestamp")) or start
        index = turn.get("turn_index")
        calls = [u for u in rows.usage if u.get("turn_index") == index]
        model = next((m for u in calls if (m := _text(u.get("model")))), None)
        usage = None
        if calls:
            usage = Usage(
                input_tokens=sum(
                    u["input_tokens"] for u in calls if is_uint(u.get("input_tokens"))
                ),
                output_tokens=sum(
                    u["output_tokens"] for u in calls if is_uint(u.get("output_tokens"))
                ),
                cache_read_input_tokens=sum(
                    u["cache_read_tokens"] for u in calls if is_uint(u.get("cache_read_tokens"))
                ),
                cache_creation_input_tokens=sum(
                    u["cache_write_tokens"] for u in calls if is_uint(u.get("cache_write_tokens"))
                ),
            )
        prompt, answer = turn.get("user_message"), turn.get("assistant_response")
        if isinstance(prompt, str) and prompt:
            messages.append(Message(role="user", content=(Text(text=prompt),), timestamp=when))
        if isinstance(answer, str) and answer:
            messages.append(
                Message(
                    role="assistant",
                    content=(Text(text=answer),),
                    timestamp=when,
                    model=model,
                    usage=usage,
                )
            )
    return messages


def to_common(native: CopilotSession) -> Transcript:
    tally = Tally(f"the Copilot CLI session {native.session_id}")
    meta = meta_of(native)
    if native.events is not None:
        messages = _from_events(native, tally, meta.timestamp)
    elif native.rows is not None:
        messages = _from_rows(native.rows, meta.timestamp)
    else:
        messages = []
    tally.report("events")
    return Transcript(meta=meta, messages=tuple(messages))


__all__ = ["HARNESS", "MetaScan", "meta_of", "to_common"]
