"""Goose sessions ↔ Common, for both generations.

**Meta.** Database: the row's ``id``, ``created_at`` (SQLite's UTC text), ``working_dir`` as cwd,
``name`` (``description`` in older schemas) as title, and the model of ``model_config_json``
(``model_name``). JSONL: the file name as id, the first message's time, the metadata line's
``working_dir`` and ``description``. Goose records no branch and no CLI version.

**Messages**, in ``messages.id`` order (file order for JSONL): ``content_json`` is a list of
contents tagged by ``type``: ``text``; ``image`` (base64 ``data`` and ``mimeType``); ``thinking``
(with its signature) and ``redactedThinking``; ``toolRequest`` (and ``frontendToolRequest``) on
the assistant's message, whose ``toolCall`` is ``{status: "success", value: {name, arguments}}``
or ``{status: "error", error}`` (a call Goose could not parse: Raw ``invalid_tool_call``);
``toolResponse`` on the next user message, whose ``toolResult`` is ``{status: "success", value:
{content, isError}}`` (or, older, the content list itself) or ``{status: "error", error}``, an
error result. A result of one plain text content is that text; any other stays the content list.
Times are ``created_timestamp`` (Unix seconds). A message with ``metadata_json.agentVisible``
false was compacted out of the agent's context (Goose only shows it), so Common, which is what
a resume replays, leaves it out; hidden context (``userVisible`` false) stays. The confirmation
and notification contents (``toolConfirmationRequest``, ``actionRequired``,
``systemNotification``) and the old ``conversationCompacted`` marker are the app's, not the
conversation's; contents of any other type are counted in one warning. Usage is per session
only, and not carried.

**Writing** (:func:`from_common`, pure): one ``sessions`` row (``session_type`` ``user``, times
as SQLite text) and one ``messages`` row per message, fully visible. The model is not written:
Goose resumes a copy on the provider and model it is configured with.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
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
    Raw,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    artifact_fallback_text,
)
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonutil import dumps_compact, try_loads
from txcript.shared.text import shown
from txcript.shared.timeutil import EPOCH, from_epoch_ms, to_epoch_ms

from .native import GooseMessage, GooseSession
from .tools import from_tool, to_tool

NAMESPACE = namespace_from_ascii(b"txcript-goose!!!")
INVALID_CALL = "invalid_tool_call"
#: Contents that are the app's (confirmations, notifications, an old compaction marker).
APP_CONTENTS = frozenset(
    ("toolConfirmationRequest", "actionRequired", "systemNotification", "conversationCompacted")
)
VISIBLE = '{"userVisible":true,"agentVisible":true}'


def sqlite_time(value: Any) -> datetime | None:
    """SQLite's ``CURRENT_TIMESTAMP`` text (UTC, ``YYYY-MM-DD HH:MM:SS``), or an RFC 3339 one."""
    if not isinstance(value, str):
        return None
    from txcript.shared.timeutil import parse_rfc3339

    text = value.strip()
    parsed = parse_rfc3339(text.replace(" ", "T", 1) if "T" not in text else text)
    if parsed is not None:
        return parsed
    try:
        return datetime.fromisoformat(text).replace(tzinfo=UTC)
    except ValueError:
        return None


def format_sqlite_time(value: datetime) -> str:
    value = value.astimezone(UTC)
    return f"{value:%Y-%m-%d %H:%M:%S}"


def epoch_seconds(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return from_epoch_ms(int(value * 1000))
    except (OverflowError, ValueError):
        return None


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def model_of(config: Any) -> str | None:
    value = try_loads(config) if isinstance(config, str) else config
    return _string(value.get("model_name")) if isinstance(value, dict) else None


def meta_from_row(row: dict[str, Any]) -> Meta:
    """The Meta of a database session from its row alone (discovery reads no message)."""
    title = _string(row.get("name")) or _string(row.get("description"))
    return Meta(
        id=row["id"] if isinstance(row.get("id"), str) else "",
        timestamp=sqlite_time(row.get("created_at")) or EPOCH,
        cwd=_string(row.get("working_dir")),
        title=title,
        model=model_of(row.get("model_config_json")),
    )


def legacy_meta(name: str, head: Any, first: Any) -> Meta:
    head = head if isinstance(head, dict) else {}
    first_time = epoch_seconds(first.get("created")) if isinstance(first, dict) else None
    return Meta(
        id=name,
        timestamp=first_time or EPOCH,
        cwd=_string(head.get("working_dir")),
        title=_string(head.get("description")),
    )


def _legacy_records(native: GooseSession) -> tuple[Any, list[Any]]:
    assert native.legacy is not None
    values = [line.value for line in native.legacy.lines if line.text.strip()]
    return (values[0] if values else None), values[1:]


def meta_of(native: GooseSession) -> Meta:
    if native.legacy is not None:
        head, messages = _legacy_records(native)
        return legacy_meta(native.legacy.name, head, messages[0] if messages else None)
    return meta_from_row(native.session)


class _Reader:
    def __init__(self, native: GooseSession) -> None:
        self.label = f"Goose session {shown(native.id or '(text)')}"
        self.skipped: Counter[str] = Counter()

    def content(self, item: Any) -> Block | None:
        if not isinstance(item, dict):
            self.skipped["content that is not an object"] += 1
            return None
        kind = item.get("type")
        if kind == "text" and isinstance(item.get("text"), str):
            return Text(item["text"])
        if kind == "image" and isinstance(item.get("data"), str):
            mime = item["mimeType"] if isinstance(item.get("mimeType"), str) else ""
            return Image(ImageSource(type="base64", media_type=mime, data=item["data"]))
        if kind == "thinking" and isinstance(item.get("thinking"), str):
            signature = item.get("signature")
            return Thinking(
                item["thinking"], signature if isinstance(signature, str) and signature else None
            )
        if kind == "redactedThinking" and isinstance(item.get("data"), str):
            return Thinking("", encrypted=item["data"])
        if kind in ("toolRequest", "frontendToolRequest") and isinstance(item.get("id"), str):
            call = item.get("toolCall")
            if isinstance(call, dict) and call.get("status") == "success":
                value = call.get("value")
                if isinstance(value, dict) and isinstance(value.get("name"), str):
                    arguments = value.get("arguments", {})
                    return ToolUse(id=item["id"], tool=to_tool(value["name"], arguments))
            error = call.get("error") if isinstance(call, dict) else call
            return ToolUse(id=item["id"], tool=Raw(tool_name=INVALID_CALL, input={"error": error}))
        if kind == "toolResponse" and isinstance(item.get("id"), str):
            return _result(item["id"], item.get("toolResult"))
        if kind in APP_CONTENTS:
            return None
        self.skipped[f"{kind} content" if isinstance(kind, str) else "untyped content"] += 1
        return None

    def message(self, role: Any, content: Any, when: datetime) -> Message | None:
        if role not in ("user", "assistant"):
            self.skipped[f"{role} message" if isinstance(role, str) else "message"] += 1
            return None
        if not isinstance(content, list):
            self.skipped["message whose content is not a list"] += 1
            return None
        blocks = [b for b in (self.content(item) for item in content) if b is not None]
        if not blocks:
            return None
        return Message(role=role, content=tuple(blocks), timestamp=when)

    def report(self) -> None:
        if self.skipped:
            kinds = ", ".join(f"{n} {what}" for what, n in sorted(self.skipped.items()))
            warn(f"{self.label}: kept in the store but left out of the conversation: {kinds}")


def _result(call_id: str, result: Any) -> ToolResult:
    if isinstance(result, dict) and result.get("status") == "success":
        value = result.get("value")
        error = False
        if isinstance(value, dict) and "content" in value:
            error = value.get("isError") is True
            value = value.get("content")
        return ToolResult(tool_use_id=call_id, content=_plain(value), is_error=error)
    failure = result.get("error") if isinstance(result, dict) else result
    return ToolResult(
        tool_use_id=call_id,
        content=failure if isinstance(failure, str) else dumps_compact(failure),
        is_error=True,
    )


def _plain(value: Any) -> Any:
    """One plain text content is its text; anything else stays the content list."""
    if (
        isinstance(value, list)
        and len(value) == 1
        and isinstance(value[0], dict)
        and set(value[0]) == {"type", "text"}
        and value[0]["type"] == "text"
        and isinstance(value[0]["text"], str)
    ):
        return value[0]["text"]
    return value


def _agent_visible(message: GooseMessage) -> bool:
    metadata = message.metadata
    return not (isinstance(metadata, dict) and metadata.get("agentVisible") is False)


def to_common(native: GooseSession) -> Transcript:
    reader = _Reader(native)
    meta = meta_of(native)
    out: list[Message] = []
    if native.legacy is not None:
        _, records = _legacy_records(native)
        for record in records:
            if not isinstance(record, dict):
                reader.skipped["line that is not a JSON object"] += 1
                continue
            metadata = record.get("metadata")
            if isinstance(metadata, dict) and metadata.get("agentVisible") is False:
                continue
            when = epoch_seconds(record.get("created")) or meta.timestamp
            built = reader.message(record.get("role"), record.get("content"), when)
            if built is not None:
                out.append(built)
    else:
        for message in native.messages:
            if not _agent_visible(message):
                continue
            when = epoch_seconds(message.row.get("created_timestamp")) or meta.timestamp
            built = reader.message(message.row.get("role"), message.content, when)
            if built is not None:
                out.append(built)
    reader.report()
    return Transcript(meta=meta, messages=tuple(out))


# ------------------------------------------------------------------------------- writing


def _content(block: Block) -> dict[str, Any]:
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, Image):
        return {"type": "image", "data": block.source.data, "mimeType": block.source.media_type}
    if isinstance(block, Thinking):
        if block.encrypted is not None and not block.text:
            return {"type": "redactedThinking", "data": block.encrypted}
        return {"type": "thinking", "thinking": block.text, "signature": block.signature or ""}
    if isinstance(block, ToolUse):
        tool = block.tool
        if (
            isinstance(tool, Raw)
            and tool.tool_name == INVALID_CALL
            and isinstance(tool.input, dict)
        ):
            call: dict[str, Any] = {"status": "error", "error": tool.input.get("error")}
        else:
            name, arguments = from_tool(tool)
            call = {"status": "success", "value": {"name": name, "arguments": arguments}}
        return {"type": "toolRequest", "id": block.id, "toolCall": call}
    if isinstance(block, ToolResult):
        content = block.content
        items = [{"type": "text", "text": content}] if isinstance(content, str) else content
        value: dict[str, Any] = {"content": items}
        if block.is_error:
            value["isError"] = True
        return {
            "type": "toolResponse",
            "id": block.tool_use_id,
            "toolResult": {"status": "success", "value": value},
        }
    assert isinstance(block, Artifact)
    return {"type": "text", "text": artifact_fallback_text(block)}


def _dumps(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def from_common(transcript: Transcript) -> GooseSession:
    meta = transcript.meta
    session_id = meta.id
    times = [meta.timestamp, *(m.timestamp for m in transcript.messages)]
    session: dict[str, Any] = {
        "id": session_id,
        "name": meta.title or "",
        "session_type": "user",
        "working_dir": meta.cwd or "",
        "created_at": format_sqlite_time(meta.timestamp),
        "updated_at": format_sqlite_time(max(times)),
        "extension_data": "{}",
    }
    messages = []
    commands: set[str] = set()
    for index, message in enumerate(transcript.messages):
        contents = []
        for block in message.content:
            if isinstance(block, ToolUse) and isinstance(block.tool, Command):
                # the user's slash command, and below its output: the user's text in Goose
                commands.add(block.id)
                args = f" {block.tool.args}" if block.tool.args else ""
                contents.append({"type": "text", "text": block.tool.command + args})
            elif isinstance(block, ToolResult) and block.tool_use_id in commands:
                shown_content = block.content
                if not isinstance(shown_content, str):
                    shown_content = dumps_compact(shown_content)
                contents.append({"type": "text", "text": shown_content})
            else:
                contents.append(_content(block))
        messages.append(
            GooseMessage(
                {
                    "message_id": uuid5(NAMESPACE, f"{session_id}:message:{index}"),
                    "session_id": session_id,
                    "role": message.role,
                    "content_json": _dumps(contents),
                    "created_timestamp": to_epoch_ms(message.timestamp) // 1000,
                    "metadata_json": VISIBLE,
                }
            )
        )
    return GooseSession(session=session, messages=tuple(messages))
