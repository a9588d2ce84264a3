"""Kimi CLI sessions ↔ Common: ``context.jsonl`` is the conversation, ``wire.jsonl`` its times.

**Meta** (:func:`meta_of`): the session id; the time of the first wire event (else the epoch);
the work directory; the title from ``state.json``'s ``custom_title``, else the first line of the
first ``TurnBegin`` prompt (Kimi lists sessions under it), else of the first user message of the
context (the oldest layout has no wire; without this, its copy, which has one, read back titled
while the original did not). Kimi CLI records no model, branch or
CLI version per session, and only a running context size (``_usage``), not per-call usage.

**Messages** (:func:`to_common`), from ``context.jsonl`` in order — what Kimi resumes with:

* ``user`` messages (``content`` a string or parts: ``text``, ``image_url``); Kimi's injected
  ``<system>CHECKPOINT n</system>`` markers are bookkeeping and are left out;
* ``assistant`` messages: ``think`` parts as reasoning (``encrypted``, the provider's signature,
  as its signature), text, then ``tool_calls`` (``function.arguments`` is JSON text; text that
  does not parse stays the Raw input as it is);
* ``tool`` messages answer ``tool_call_id``; a result led by ``<system>ERROR: …</system>`` is
  ``is_error``, the error text without the marker. Consecutive tool messages are one user
  message.

Times come from the wire: the n-th prompt gets the n-th ``TurnBegin``'s, the n-th assistant
message the n-th ``StepBegin``'s; a result carries its call's message time. A wire or context
record of a kind Kimi does not write is counted in one warning.

**Writing** (:func:`from_common`, pure): ``context.jsonl`` messages as Kimi serialises them (one
text part as a plain string), one ``tool`` message per result; ``wire.jsonl`` with the metadata
line and ``TurnBegin``/``StepBegin``/``TurnEnd`` for each turn (what Kimi lists and replays on
start); ``state.json`` with the title.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from txcript.model import (
    Artifact,
    Block,
    Command,
    Image,
    ImageSource,
    Message,
    Meta,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    artifact_fallback_text,
    prompt_title,
)
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonlines import Line, Tally
from txcript.shared.jsonutil import INVALID, dumps_compact, try_loads
from txcript.shared.timeutil import EPOCH

from .native import BOOKKEEPING_ROLES, HARNESS, WIRE_PROTOCOL, KimiCliSession
from .tools import from_tool, to_tool

NAMESPACE = namespace_from_ascii(b"txcript-kimicli!")
ERROR_OPEN = "<system>ERROR: "
SYSTEM_CLOSE = "</system>"
#: Wire event types Kimi CLI 1.52 writes (the rest of its protocol is requests and replies).
WIRE_EVENTS = frozenset(
    (
        "TurnBegin",
        "TurnEnd",
        "SteerInput",
        "StepBegin",
        "StepInterrupted",
        "StepRetry",
        "CompactionBegin",
        "CompactionEnd",
        "StatusUpdate",
        "ContentPart",
        "ToolCall",
        "ToolCallPart",
        "ToolResult",
        "ApprovalRequest",
        "ApprovalResponse",
        "ApprovalRequestResolved",
        "SubagentEvent",
        "QuestionRequest",
        "QuestionResponse",
        "ToolCallRequest",
        "HookTriggered",
        "HookResolved",
        "PlanDisplay",
        "BtwBegin",
        "BtwEnd",
        "MCPLoadingBegin",
        "MCPLoadingEnd",
        "Notification",
        "BackgroundTaskUpdate",
    )
)


def _epoch(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return datetime.fromtimestamp(value, tz=EPOCH.tzinfo)
    except (OverflowError, OSError, ValueError):
        return None


def _wire_events(native: KimiCliSession) -> list[tuple[str, dict[str, Any], datetime | None]]:
    out = []
    for line in native.wire or ():
        value = line.value
        if not isinstance(value, dict):
            continue
        message = value.get("message")
        if isinstance(message, dict) and isinstance(message.get("type"), str):
            payload = message.get("payload")
            out.append(
                (
                    message["type"],
                    payload if isinstance(payload, dict) else {},
                    _epoch(value.get("timestamp")),
                )
            )
    return out


def _prompt_text(user_input: Any) -> str:
    if isinstance(user_input, str):
        return user_input
    if isinstance(user_input, list):
        return "\n".join(
            p["text"] for p in user_input if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""


def meta_of(native: KimiCliSession) -> Meta:
    events = _wire_events(native)
    start = next((when for _, _, when in events if when is not None), None)
    title = native.state_value().get("custom_title")
    if not isinstance(title, str) or not title.strip():
        title = None
        for kind, payload, _ in events:
            if kind == "TurnBegin":
                title = prompt_title([Text(_prompt_text(payload.get("user_input")))])
                break
        else:
            title = _first_prompt_title(native)
    return Meta(
        id=native.session_id,
        timestamp=start or EPOCH,
        cwd=native.work_dir or None,
        title=title,
    )


def _first_prompt_title(native: KimiCliSession) -> str | None:
    """The title of the first user message of the context that is no checkpoint marker."""
    for line in native.context:
        record = line.value
        if not isinstance(record, dict) or record.get("role") != "user":
            continue
        content = record.get("content")
        if _is_checkpoint(content):
            continue
        return prompt_title([Text(_prompt_text(content))])
    return None


# ----------------------------------------------------------------------------------- reading


def _parts(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _blocks(content: Any, tally: Tally) -> list[Block]:
    blocks: list[Block] = []
    for part in _parts(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            blocks.append(Text(text=part["text"]))
        elif kind == "think" and isinstance(part.get("think"), str):
            signature = part.get("encrypted")
            blocks.append(
                Thinking(
                    text=part["think"],
                    signature=signature if isinstance(signature, str) and signature else None,
                )
            )
        elif kind == "image_url" and isinstance(part.get("image_url"), dict):
            url = part["image_url"].get("url")
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


def _result(record: dict[str, Any]) -> ToolResult:
    parts = _parts(record.get("content"))
    texts = [p.get("text") for p in parts if isinstance(p, dict)]
    ident = record.get("tool_call_id")
    ident = ident if isinstance(ident, str) else ""
    if parts and all(isinstance(t, str) for t in texts) and len(texts) == len(parts):
        pieces: list[str] = [t for t in texts if isinstance(t, str)]
        first = pieces[0]
        if first.startswith(ERROR_OPEN) and first.endswith(SYSTEM_CLOSE):
            pieces[0] = first[len(ERROR_OPEN) : -len(SYSTEM_CLOSE)]
            return ToolResult(tool_use_id=ident, content="\n".join(pieces), is_error=True)
        return ToolResult(tool_use_id=ident, content="\n".join(pieces))
    return ToolResult(tool_use_id=ident, content=record.get("content"))


def _is_checkpoint(content: Any) -> bool:
    parts = _parts(content)
    if len(parts) != 1 or not isinstance(parts[0], dict):
        return False
    text = parts[0].get("text")
    return (
        isinstance(text, str)
        and text.startswith("<system>CHECKPOINT ")
        and text.endswith(SYSTEM_CLOSE)
    )


def to_common(native: KimiCliSession) -> Transcript:
    tally = Tally(f"the Kimi CLI session {native.session_id}")
    meta = meta_of(native)
    events = _wire_events(native)
    turns = [when for kind, _, when in events if kind == "TurnBegin"]
    steps = [when for kind, _, when in events if kind == "StepBegin"]
    for kind, _, _ in events:
        if kind not in WIRE_EVENTS:
            tally.add(f"wire event `{kind}`")
    messages: list[Message] = []
    when = meta.timestamp
    prompts = answers = 0
    for line in native.context:
        record = line.value
        if not isinstance(record, dict):
            if line.text.strip():
                tally.add("not JSON" if record is INVALID else "not a context record")
            continue
        role = record.get("role")
        if role in BOOKKEEPING_ROLES:
            continue
        if role == "user":
            if _is_checkpoint(record.get("content")):
                continue
            if prompts < len(turns):
                when = turns[prompts] or when
            prompts += 1
            blocks = _blocks(record.get("content"), tally)
            messages.append(Message(role="user", content=tuple(blocks), timestamp=when))
        elif role == "assistant":
            if answers < len(steps):
                when = steps[answers] or when
            answers += 1
            blocks = _blocks(record.get("content"), tally)
            calls = record.get("tool_calls")
            for index, call in enumerate(calls if isinstance(calls, list) else []):
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    tally.add("tool call without a name")
                    continue
                ident = call.get("id")
                if not isinstance(ident, str) or not ident:
                    ident = uuid5(NAMESPACE, f"{native.session_id}:{len(messages)}:{index}")
                tool = to_tool(function["name"], _arguments(function.get("arguments")))
                blocks.append(ToolUse(id=ident, tool=tool))
            messages.append(Message(role="assistant", content=tuple(blocks), timestamp=when))
        elif role == "tool":
            result = _result(record)
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
        else:
            tally.add(f"context role `{role}`" if isinstance(role, str) else "context record")
    tally.report()
    return Transcript(meta=meta, messages=tuple(messages))


# ----------------------------------------------------------------------------------- writing


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _content(blocks: Sequence[Block]) -> str | list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, Text):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, Thinking):
            part: dict[str, Any] = {"type": "think", "think": block.text}
            if block.signature is not None:
                part["encrypted"] = block.signature
            parts.append(part)
        elif isinstance(block, Image):
            source = block.source
            url = (
                f"data:{source.media_type};base64,{source.data}"
                if source.type == "base64"
                else source.data
            )
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif isinstance(block, Artifact):
            parts.append({"type": "text", "text": artifact_fallback_text(block)})
    if len(parts) == 1 and parts[0]["type"] == "text":
        text: str = parts[0]["text"]
        return text
    return parts


def _result_content(block: ToolResult) -> str:
    text = block.content if isinstance(block.content, str) else dumps_compact(block.content)
    return f"{ERROR_OPEN}{text}{SYSTEM_CLOSE}" if block.is_error else text


def _stamp(when: datetime) -> float:
    return when.timestamp()


def from_common(transcript: Transcript) -> KimiCliSession:
    meta = transcript.meta
    context: list[Line] = []
    wire: list[Line] = [Line(_dumps({"type": "metadata", "protocol_version": WIRE_PROTOCOL}), None)]
    in_turn = False
    step = 0
    commands: set[str] = set()
    last_time = meta.timestamp

    def event(kind: str, payload: dict[str, Any], when: datetime) -> None:
        envelope = {"type": kind, "payload": payload}
        wire.append(Line(_dumps({"timestamp": _stamp(when), "message": envelope}), None))

    def add(record: dict[str, Any]) -> None:
        context.append(Line(_dumps(record), None))

    for message in transcript.messages:
        last_time = message.timestamp
        if message.role == "assistant":
            # (A session that opens with the assistant has no turn to begin: Kimi begins a turn
            # only for a prompt, and the reader pairs prompts with turns one to one.)
            step += 1
            event("StepBegin", {"n": step}, message.timestamp)
            plain = [b for b in message.content if not isinstance(b, ToolUse | ToolResult)]
            record: dict[str, Any] = {"role": "assistant", "content": _content(plain)}
            calls = []
            for block in message.content:
                if isinstance(block, ToolUse):
                    name, args = from_tool(block.tool)
                    calls.append(
                        {
                            "type": "function",
                            "id": block.id,
                            "function": {"name": name, "arguments": dumps_compact(args)},
                        }
                    )
            if calls:
                record["tool_calls"] = calls
            add(record)
            continue
        prompt: list[Block] = []
        for block in message.content:
            if isinstance(block, ToolUse) and isinstance(block.tool, Command):
                # A slash command the user ran is no model call: it is the prompt that ran it,
                # and its output the user's text after it.
                commands.add(block.id)
                command = block.tool
                typed = (
                    command.command if command.args is None else f"{command.command} {command.args}"
                )
                prompt.append(Text(text=typed))
            elif isinstance(block, ToolResult) and block.tool_use_id in commands:
                output = block.content
                prompt.append(Text(output if isinstance(output, str) else dumps_compact(output)))
            elif isinstance(block, ToolResult):
                add(
                    {
                        "role": "tool",
                        "content": _result_content(block),
                        "tool_call_id": block.tool_use_id,
                    }
                )
            elif not isinstance(block, ToolUse):
                prompt.append(block)
        if prompt or not message.content:
            if in_turn:
                event("TurnEnd", {}, message.timestamp)
            content = _content(prompt)
            event("TurnBegin", {"user_input": content}, message.timestamp)
            in_turn, step = True, 0
            add({"role": "user", "content": content})
    if in_turn:
        event("TurnEnd", {}, last_time)
    state: dict[str, Any] = {"version": 1}
    if meta.title:
        state["custom_title"] = meta.title
    # The values were built here, so the lines' parsed values are re-read from their text.
    return KimiCliSession(
        session_id=meta.id,
        work_dir=meta.cwd,
        context=tuple(Line(line.text, json.loads(line.text)) for line in context),
        wire=tuple(Line(line.text, json.loads(line.text)) for line in wire),
        state=json.dumps(state, indent=2, ensure_ascii=False),
    )


__all__ = ["HARNESS", "from_common", "meta_of", "to_common"]
