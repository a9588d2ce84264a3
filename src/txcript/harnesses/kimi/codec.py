"""Kimi Code sessions → Common: the main agent's context, replayed from its wire log.

**Meta** (:func:`meta_of`): the id (``state.json``'s ``id``, else the directory name); the
start (``createdAt``, else the wire's ``metadata.created_at``, else its first event's ``time``);
the cwd (``state.json``'s ``cwd``, else the work directory the session index names); the title
(``state.json``'s ``title``, else the first line of the first prompt). Kimi Code records no git
branch and no CLI version per session.

**Messages** (:func:`to_common`) replay the context the way the agent rebuilds it:

* ``context.append_message {agentId, message}`` of the main agent appends one message
  (``{role, content: [parts], toolCalls?, toolCallId?, isError?}``): parts ``text``,
  ``think`` (reasoning; ``encrypted`` is the provider's signature), ``image_url``; tool calls
  (``arguments`` is JSON text, kept raw when it does not parse); ``tool`` messages answer
  ``toolCallId`` (consecutive ones are one user message) with ``isError`` as ``is_error``.
  ``system`` messages are the agent's prompt, not conversation, and are left out.
* ``context.undo {count}`` takes back the last ``count`` turns — each turn from its prompt to
  the message before the next — as ``/undo`` does; ``context.clear`` empties the context;
  ``context.apply_compaction`` with ``messages`` replaces it.
* ``llm.request {model}`` names the model of the reply that follows; ``usage.record {model,
  usage: {inputOther, output, inputCacheRead, inputCacheCreation}}`` gives the last reply its
  usage (input = ``inputOther`` + cache reads + cache writes, as Anthropic counts it).
* The loop events (``context.append_loop_event``: steps, streamed parts, tool calls and results
  as they ran), turns (``turn.prompt``, ``turn.ended``) and the rest of the 55 durable kinds
  are the live view of what ``append_message`` records durably; they are carried in the file and
  left out of Common. A kind outside that vocabulary is counted in one warning.
"""

from __future__ import annotations

from datetime import datetime, timedelta
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
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonlines import Tally
from txcript.shared.jsonutil import INVALID, is_uint, try_loads
from txcript.shared.timeutil import EPOCH, from_epoch_ms, parse_rfc3339

from .native import HARNESS, KimiCodeSession

NAMESPACE = namespace_from_ascii(b"txcript-kimicod!")
MAIN_AGENT = "main"
#: The durable wire event kinds this reader knows besides the context ones it replays (Kimi Code
#: protocol 1.0–1.5): carried, not conversation.
KNOWN_EVENTS = frozenset(
    (
        "metadata",
        "context.append_message",
        "context.append_loop_event",
        "context.apply_compaction",
        "context.undo",
        "context.clear",
        "turn.prompt",
        "turn.ended",
        "turn.started",
        "usage.record",
        "llm.request",
        "llm.response",
        "profile.bind",
        "approval.request",
        "approval.response",
        "question.request",
        "question.response",
        "plan.update",
        "todo.update",
        "task.update",
        "cron.update",
        "hook.triggered",
        "hook.resolved",
        "subagent.spawned",
        "subagent.finished",
        "notification",
        "session.title",
        "session.forked",
        "mcp.status",
    )
)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_time(value: Any) -> datetime | None:
    """A Kimi Code time: epoch milliseconds, or ISO text in the earlier state shape."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return (
                from_epoch_ms(int(value))
                if isinstance(value, int)
                else EPOCH + timedelta(milliseconds=value)
            )
        except (OverflowError, ValueError):
            return None
    return parse_rfc3339(value)


def events(native: KimiCodeSession) -> list[dict[str, Any]]:
    return [line.value for line in native.wire if isinstance(line.value, dict)]


def _parts_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p["text"]
            for p in content
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        )
    return ""


def _main_message(event: dict[str, Any]) -> dict[str, Any] | None:
    if event.get("type") != "context.append_message":
        return None
    agent = event.get("agentId")
    message = event.get("message")
    if agent not in (None, MAIN_AGENT) or not isinstance(message, dict):
        return None
    return message


def first_prompt(values: list[dict[str, Any]]) -> str | None:
    for event in values:
        message = _main_message(event)
        if message is not None and message.get("role") == "user":
            return prompt_title([Text(_parts_text(message.get("content")))])
    return None


def meta_of(native: KimiCodeSession) -> Meta:
    state = native.state_value()
    values = events(native)
    start = parse_time(state.get("createdAt"))
    if start is None:
        for event in values:
            start = parse_time(event.get("created_at") if event.get("type") == "metadata" else None)
            start = start or parse_time(event.get("time"))
            if start is not None:
                break
    title = state.get("title")
    return Meta(
        id=_text(state.get("id")) or native.session_id,
        timestamp=start or EPOCH,
        cwd=_text(state.get("cwd")) or _text(state.get("workDir")) or native.work_dir,
        title=title.strip() if isinstance(title, str) and title.strip() else first_prompt(values),
    )


# ----------------------------------------------------------------------------------- reading


def _blocks(content: Any, tally: Tally) -> list[Block]:
    if isinstance(content, str):
        return [Text(text=content)]
    blocks: list[Block] = []
    for part in content if isinstance(content, list) else []:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            blocks.append(Text(text=part["text"]))
        elif kind == "think" and isinstance(part.get("think"), str):
            blocks.append(Thinking(text=part["think"], signature=_text(part.get("encrypted"))))
        elif kind == "image_url":
            holder = part.get("imageUrl") or part.get("image_url")
            url = holder.get("url") if isinstance(holder, dict) else None
            if isinstance(url, str):
                blocks.append(_image(url))
            else:
                tally.add("image part without a url")
        else:
            tally.add(f"content part `{kind}`" if isinstance(kind, str) else "content part")
    return blocks


def _image(url: str) -> Image:
    if url.startswith("data:") and ";base64," in url:
        head, _, data = url.partition(";base64,")
        media = head[len("data:") :] or "application/octet-stream"
        return Image(source=ImageSource(type="base64", media_type=media, data=data))
    return Image(source=ImageSource(type="url", media_type="application/octet-stream", data=url))


def _arguments(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    value = try_loads(text)
    return text if value is INVALID else value


def _usage(value: Any) -> Usage | None:
    if not isinstance(value, dict):
        return None
    counts = {
        key: value.get(key) if is_uint(value.get(key)) else 0
        for key in ("inputOther", "output", "inputCacheRead", "inputCacheCreation")
    }
    read, created = value.get("inputCacheRead"), value.get("inputCacheCreation")
    return Usage(
        input_tokens=int(counts["inputOther"] or 0)
        + int(counts["inputCacheRead"] or 0)
        + int(counts["inputCacheCreation"] or 0),
        output_tokens=int(counts["output"] or 0),
        cache_read_input_tokens=read if isinstance(read, int) and is_uint(read) else None,
        cache_creation_input_tokens=created
        if isinstance(created, int) and is_uint(created)
        else None,
    )


class _Context:
    """The context as the wire builds it: raw messages with their times, and the indexes where
    each turn (a prompt) starts, for ``context.undo``."""

    def __init__(self) -> None:
        self.entries: list[tuple[dict[str, Any], datetime, str | None, Usage | None]] = []

    def turn_starts(self) -> list[int]:
        return [i for i, (m, *_) in enumerate(self.entries) if m.get("role") == "user"]

    def undo(self, count: int) -> None:
        starts = self.turn_starts()
        if count <= 0 or not starts:
            return
        cut = starts[-count] if count <= len(starts) else starts[0]
        del self.entries[cut:]


def _replay(native: KimiCodeSession, start: datetime, tally: Tally) -> _Context:
    context = _Context()
    when = start
    model: str | None = None
    for line in native.wire:
        event = line.value
        if not isinstance(event, dict):
            if line.text.strip():
                tally.add("not JSON" if event is INVALID else "not an event")
            continue
        kind = event.get("type")
        when = parse_time(event.get("time")) or when
        message = _main_message(event)
        if message is not None:
            context.entries.append((message, when, model, None))
        elif kind == "context.undo":
            count = event.get("count")
            context.undo(count if isinstance(count, int) and is_uint(count) else 1)
        elif kind == "context.clear":
            context.entries.clear()
        elif kind == "context.apply_compaction":
            replaced = event.get("messages")
            if isinstance(replaced, list):
                context.entries = [(m, when, model, None) for m in replaced if isinstance(m, dict)]
            else:
                tally.add("compaction without messages")
        elif kind == "llm.request":
            model = _text(event.get("model")) or model
        elif kind == "usage.record":
            model = _text(event.get("model")) or model
            for index in range(len(context.entries) - 1, -1, -1):
                held, at, named, usage = context.entries[index]
                if held.get("role") == "assistant":
                    if usage is None:
                        context.entries[index] = (
                            held,
                            at,
                            named or model,
                            _usage(event.get("usage")),
                        )
                    break
        elif kind not in KNOWN_EVENTS:
            tally.add(f"wire event `{kind}`" if isinstance(kind, str) else "wire event")
    return context


def to_common(native: KimiCodeSession) -> Transcript:
    tally = Tally(f"the Kimi Code session {native.session_id}")
    meta = meta_of(native)
    context = _replay(native, meta.timestamp, tally)
    messages: list[Message] = []
    for position, (record, when, model, usage) in enumerate(context.entries):
        role = record.get("role")
        if role == "user":
            blocks = _blocks(record.get("content"), tally)
            messages.append(Message(role="user", content=tuple(blocks), timestamp=when))
        elif role == "assistant":
            blocks = _blocks(record.get("content"), tally)
            calls = record.get("toolCalls")
            for index, call in enumerate(calls if isinstance(calls, list) else []):
                name = call.get("name") if isinstance(call, dict) else None
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(name, str) and isinstance(function, dict):
                    name = function.get("name")
                    call = {**call, "arguments": function.get("arguments")}
                if not isinstance(name, str) or not isinstance(call, dict):
                    tally.add("tool call without a name")
                    continue
                ident = _text(call.get("id")) or uuid5(NAMESPACE, f"{position}:{index}")
                tool = type_tool(name, _arguments(call.get("arguments")))
                blocks.append(ToolUse(id=ident, tool=tool))
            messages.append(
                Message(
                    role="assistant",
                    content=tuple(blocks),
                    timestamp=when,
                    model=model,
                    usage=usage,
                )
            )
        elif role == "tool":
            content: Any = record.get("content")
            if isinstance(content, list) and all(
                isinstance(p, dict) and p.get("type") == "text" for p in content
            ):
                content = _parts_text(content)
            result = ToolResult(
                tool_use_id=_text(record.get("toolCallId")) or "",
                content="" if content is None else content,
                is_error=record.get("isError") is True,
            )
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
        elif role != "system":
            tally.add(f"message role `{role}`" if isinstance(role, str) else "message")
    tally.report()
    return Transcript(meta=meta, messages=tuple(messages))


__all__ = ["HARNESS", "meta_of", "to_common"]
