"""Factory droid sessions ↔ Common.

**Meta** (:func:`meta_of`, which the store's discovery uses too): the header's ``id`` (else the
file stem), the first message's time (droid's injected context aside), the header's ``cwd``,
the title (``sessionTitle`` when set, else ``title``), and the model of the settings file, else
of the first assistant message. The header's ``version`` is the file format's, not the CLI's,
and droid records no branch.

**Messages.** Each ``message`` record is one Common message, Anthropic-shaped: text, ``thinking``
(with its signature) and ``redacted_thinking`` (encrypted) blocks, ``tool_use`` calls, and
``tool_result`` answers with their ``is_error`` (a lone text block read as its text), images;
an assistant message's ``modelId`` is its model. The context droid injects before each prompt
(``<system-reminder>`` blocks in a message marked ``visibility: "llm_only"``, id
``context-…``) is the app's, regenerated on every turn, so it is left out. Usage is kept per
session only (the settings' ``tokenUsage``), so messages carry none. Records of a kind this
module does not know, and blocks it cannot read, are carried in the native body and counted in
one warning.

**Writing** (:func:`from_common`, pure): a ``session_start`` header with the ``title`` and
``owner`` droid requires, one ``message`` record per Common message chained by ``parentId``
(a result that is neither text nor a list of content blocks written as its compact JSON text:
droid drops a whole session whose result holds any other value)
(ids UUIDv5 over the session id and position), and a settings file with the model and the
session's summed token usage.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from txcript.diagnostics import warn
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
)
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonl import Line, record_line
from txcript.shared.jsonutil import dumps_compact, dumps_pretty, is_uint
from txcript.shared.text import shown
from txcript.shared.timeutil import EPOCH, format_rfc3339, parse_rfc3339

from .native import RECORD_TYPES, DroidSession
from .tools import from_tool, to_tool

NAMESPACE = namespace_from_ascii(b"txcript-droid!!!")
#: The owner droid writes for a session of a user who is not signed in.
OWNER = "unknown"
#: The header's format version droid writes today.
FORMAT_VERSION = 2


def is_context(record: dict[str, Any]) -> bool:
    """The context droid injects before a prompt (its ``<system-reminder>`` blocks)."""
    message = record.get("message")
    if isinstance(message, dict) and message.get("visibility") == "llm_only":
        return True
    ident = record.get("id")
    return isinstance(ident, str) and ident.startswith("context-")


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _first_model(records: list[dict[str, Any]]) -> str | None:
    for record in records:
        message = record.get("message")
        if (
            record.get("type") == "message"
            and isinstance(message, dict)
            and message.get("role") == "assistant"
        ):
            model = _string(message.get("modelId"))
            if model is not None:
                return model
    return None


def _first_time(records: list[dict[str, Any]]) -> datetime | None:
    for record in records:
        if record.get("type") == "message" and not is_context(record):
            moment = parse_rfc3339(record.get("timestamp"))
            if moment is not None:
                return moment
    return None


def meta_from(
    header: dict[str, Any] | None,
    fallback_id: str,
    first_time: datetime | None,
    settings_model: str | None,
    first_model: str | None,
) -> Meta:
    """The Meta of a session from its head: what :func:`meta_of` and discovery both give."""
    header = header or {}
    title = _string(header.get("sessionTitle")) or _string(header.get("title"))
    return Meta(
        id=_string(header.get("id")) or fallback_id,
        timestamp=first_time or EPOCH,
        cwd=_string(header.get("cwd")),
        title=title,
        model=settings_model or first_model,
    )


def meta_of(native: DroidSession) -> Meta:
    records = native.records()
    return meta_from(
        native.header(),
        native.session_id,
        _first_time(records),
        _string(native.settings_value().get("model")),
        _first_model(records),
    )


class _Reader:
    def __init__(self, native: DroidSession) -> None:
        self.native = native
        self.label = f"droid session {shown(native.session_id or '(text)')}"
        self.unknown_records: Counter[str] = Counter()
        self.unknown_blocks: Counter[str] = Counter()
        self.not_json = 0

    def block(self, value: Any, role: str) -> Block | None:
        if isinstance(value, str):
            return Text(value)
        if not isinstance(value, dict):
            self.unknown_blocks["(not an object)"] += 1
            return None
        kind = value.get("type")
        if kind == "text" and isinstance(value.get("text"), str):
            return Text(value["text"])
        if kind == "thinking" and isinstance(value.get("thinking"), str):
            signature = value.get("signature")
            return Thinking(value["thinking"], signature if isinstance(signature, str) else None)
        if kind == "redacted_thinking" and isinstance(value.get("data"), str):
            return Thinking("", encrypted=value["data"])
        if kind == "tool_use" and isinstance(value.get("id"), str):
            name = value.get("name")
            if isinstance(name, str):
                return ToolUse(id=value["id"], tool=to_tool(name, value.get("input", {})))
        if kind == "tool_result" and isinstance(value.get("tool_use_id"), str):
            return ToolResult(
                tool_use_id=value["tool_use_id"],
                content=_lone_text(value.get("content", "")),
                is_error=value.get("is_error") is True,
            )
        if kind == "image":
            source = value.get("source")
            if isinstance(source, dict) and all(
                isinstance(source.get(k), str) for k in ("type", "media_type", "data")
            ):
                return Image(
                    source=ImageSource(
                        type=source["type"], media_type=source["media_type"], data=source["data"]
                    )
                )
        self.unknown_blocks[str(kind) if isinstance(kind, str) else "(untyped)"] += 1
        return None

    def message(self, record: dict[str, Any], when: datetime) -> Message | None:
        body = record.get("message")
        if not isinstance(body, dict) or body.get("role") not in ("user", "assistant"):
            self.unknown_blocks["(message without a role)"] += 1
            return None
        role = body["role"]
        content = body.get("content")
        values = [content] if isinstance(content, str) else content
        if not isinstance(values, list):
            self.unknown_blocks["(content not a list)"] += 1
            return None
        blocks = [b for b in (self.block(v, role) for v in values) if b is not None]
        if not blocks:
            return None
        model = _string(body.get("modelId")) if role == "assistant" else None
        return Message(role=role, content=tuple(blocks), timestamp=when, model=model)

    def read(self) -> Transcript:
        meta = meta_of(self.native)
        messages: list[Message] = []
        when = meta.timestamp
        for line in self.native.lines:
            record = line.value
            if not isinstance(record, dict):
                if line.text.strip():
                    self.not_json += 1
                continue
            kind = record.get("type")
            if kind != "message":
                if kind not in RECORD_TYPES:
                    self.unknown_records[str(kind)] += 1
                continue
            if is_context(record):
                continue
            when = parse_rfc3339(record.get("timestamp")) or when
            message = self.message(record, when)
            if message is not None:
                messages.append(message)
        self.report()
        return Transcript(meta=meta, messages=tuple(messages))

    def report(self) -> None:
        parts = []
        if self.unknown_records:
            kinds = ", ".join(sorted(self.unknown_records))
            parts.append(f"{sum(self.unknown_records.values())} records of unknown kinds ({kinds})")
        if self.unknown_blocks:
            kinds = ", ".join(sorted(self.unknown_blocks))
            parts.append(f"{sum(self.unknown_blocks.values())} unreadable blocks ({kinds})")
        if self.not_json:
            parts.append(f"{self.not_json} lines that are not JSON")
        if parts:
            warn(
                f"{self.label}: {'; '.join(parts)} kept in the file but left out of the "
                "conversation"
            )


def _lone_text(content: Any) -> Any:
    """A result's output: text as is, a lone text block as its text, other JSON untouched (as
    Claude Code's reader, whose blocks these are, reads it)."""
    if isinstance(content, list) and len(content) == 1:
        only = content[0]
        if (
            isinstance(only, dict)
            and set(only) == {"type", "text"}
            and only["type"] == "text"
            and isinstance(only["text"], str)
        ):
            return only["text"]
    return content


def to_common(native: DroidSession) -> Transcript:
    return _Reader(native).read()


# ------------------------------------------------------------------------------- writing


def _block(block: Block, commands: set[str]) -> dict[str, Any]:
    """One content block; a slash command the user typed (and its output) is the user's text,
    as droid itself records a command."""
    if isinstance(block, ToolUse) and isinstance(block.tool, Command):
        commands.add(block.id)
        args = f" {block.tool.args}" if block.tool.args else ""
        return {"type": "text", "text": block.tool.command + args}
    if isinstance(block, ToolResult) and block.tool_use_id in commands:
        return {"type": "text", "text": _result_text(block.content)}
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, Thinking):
        if block.encrypted is not None and not block.text:
            return {"type": "redacted_thinking", "data": block.encrypted}
        out: dict[str, Any] = {"type": "thinking", "thinking": block.text}
        if block.signature is not None:
            out["signature"] = block.signature
        return out
    if isinstance(block, ToolUse):
        name, args = from_tool(block.tool)
        return {"type": "tool_use", "id": block.id, "name": name, "input": args}
    if isinstance(block, ToolResult):
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": block.tool_use_id,
            "content": _result_content(block.content),
        }
        if block.is_error:
            result["is_error"] = True
        return result
    if isinstance(block, Image):
        source = block.source
        return {
            "type": "image",
            "source": {"type": source.type, "media_type": source.media_type, "data": source.data},
        }
    assert isinstance(block, Artifact)
    return {"type": "text", "text": artifact_fallback_text(block)}


def _result_text(content: Any) -> str:
    return content if isinstance(content, str) else dumps_compact(content)


def _result_content(content: Any) -> Any:
    """A result as droid's Anthropic-shaped slot holds it: text, or a list of content blocks;
    any other JSON value becomes its compact text (droid drops a session holding one)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(item, dict) and isinstance(item.get("type"), str) for item in content
    ):
        return content
    return dumps_compact(content)


def _usage(transcript: Transcript) -> dict[str, int] | None:
    totals = Counter[str]()
    seen = False
    for message in transcript.messages:
        usage = message.usage
        if usage is None:
            continue
        seen = True
        totals["inputTokens"] += usage.input_tokens
        totals["outputTokens"] += usage.output_tokens
        totals["cacheCreationTokens"] += usage.cache_creation_input_tokens or 0
        totals["cacheReadTokens"] += usage.cache_read_input_tokens or 0
    if not seen:
        return None
    keys = ("inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens")
    return {key: totals[key] for key in keys if is_uint(totals[key])} | {"thinkingTokens": 0}


def from_common(transcript: Transcript) -> DroidSession:
    meta = transcript.meta
    session_id = meta.id
    header: dict[str, Any] = {
        "type": "session_start",
        "id": session_id,
        "title": meta.title or "",
        "owner": OWNER,
        "version": FORMAT_VERSION,
        "isSessionTitleManuallySet": False,
    }
    if meta.cwd:
        header["cwd"] = meta.cwd
    lines: list[Line] = [record_line(header)]
    parent: str | None = None
    model = meta.model
    commands: set[str] = set()
    for index, message in enumerate(transcript.messages):
        ident = uuid5(NAMESPACE, f"{session_id}:message:{index}")
        body: dict[str, Any] = {
            "role": message.role,
            "content": [_block(block, commands) for block in message.content],
        }
        if message.role == "assistant" and message.model:
            body["modelId"] = message.model
            model = model or message.model
        record: dict[str, Any] = {
            "type": "message",
            "id": ident,
            "timestamp": format_rfc3339(message.timestamp),
            "message": body,
        }
        if parent is not None:
            record["parentId"] = parent
        lines.append(record_line(record))
        parent = ident
    settings: dict[str, Any] = {}
    if model:
        settings["model"] = model
    usage = _usage(transcript)
    if usage is not None:
        settings["tokenUsage"] = usage
    return DroidSession(
        session_id=session_id,
        lines=tuple(lines),
        final_newline=True,
        settings=dumps_pretty(settings) if settings else None,
    )
