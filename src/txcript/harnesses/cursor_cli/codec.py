"""Cursor CLI chat ↔ Common: the JSON message blobs, ordered by the turn graph.

**Reading.** The conversation is the JSON blobs the root node lists, in its order (see
:mod:`.graph`); without a usable root, every JSON blob in rowid order. One blob is one message:

* ``system``: the system prompt, bookkeeping, dropped;
* ``user``: text parts with the ``<user_query>`` wrapper removed, and images. Parts holding
  ``<user_info>`` are the editor's injected context (OS, ``Workspace Path:`` …) and are dropped;
  a blob of nothing else gives no message;
* ``assistant``: ``text``, ``reasoning`` (with ``signature``) → thinking, ``redacted-reasoning``
  → thinking with the opaque ``data`` as ``encrypted``, ``tool-call`` → a tool use
  (:mod:`.tools`); ``providerOptions.cursor.modelName`` is the message's model;
* ``tool``: ``tool-result`` parts → tool results on a user message (``isError`` → ``is_error``;
  a string ``result`` is text output, any other JSON stays JSON).

A message's time is its ``createdAt`` (ms), else the previous message's, else the session's.
Anything skipped is reported with a warning.

**Writing** builds the same shapes: one blob per message (tool results first when a user message
also holds a prompt), ids as UUIDv5 of the session id and position, a turn graph whose root is
``latestRootBlobId``, the hex-encoded ``meta`` row, ``meta.json`` and ``prompt_history.json``.
JSON tool output is written as its compact text (the agent stores result strings); images on
assistant messages and artifacts become text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from txcript.diagnostics import warn
from txcript.harnesses.cursor_cli import graph, head, tools
from txcript.harnesses.cursor_cli.native import (
    Blob,
    CursorChat,
    MetaRow,
    blob_id,
    bucket_of,
)
from txcript.model import (
    Artifact,
    Bash,
    Block,
    Command,
    Edit,
    Image,
    ImageSource,
    Message,
    Read,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Write,
    artifact_fallback_text,
)
from txcript.shared.gcpause import without_gc
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonutil import INVALID, dumps_compact, try_loads
from txcript.shared.timeutil import from_epoch_ms, to_epoch_ms

NAMESPACE = namespace_from_ascii(b"txcript-cursorcl")
_QUERY_OPEN, _QUERY_CLOSE = "<user_query>\n", "\n</user_query>"
_CONTEXT_TAG = "<user_info>"
_WORKSPACE_LINE = re.compile(r"^\s*Workspace Path:\s*(.+?)\s*$", re.MULTILINE)
_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)\Z", re.DOTALL)


# ----------------------------------------------------------------------------------- reading


def unwrap_query(text: str) -> str:
    if (
        len(text) >= len(_QUERY_OPEN) + len(_QUERY_CLOSE)
        and text.startswith(_QUERY_OPEN)
        and text.endswith(_QUERY_CLOSE)
    ):
        return text[len(_QUERY_OPEN) : len(text) - len(_QUERY_CLOSE)]
    return text


def wrap_query(text: str) -> str:
    return f"{_QUERY_OPEN}{text}{_QUERY_CLOSE}"


def label_of(chat: CursorChat) -> str:
    return f"Cursor CLI chat {chat.chat_id}"


@dataclass
class _Reading:
    """What a pass over the message blobs found besides the messages."""

    label: str
    context_cwd: str | None = None
    first_prompt: str | None = None
    last_model: str | None = None
    first_at: datetime | None = None
    skipped: int = 0

    def skip(self, what: str) -> None:
        self.skipped += 1
        warn(f"{self.label}: {what}; skipped")


def _parts(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _image(part: dict[str, Any]) -> Image | None:
    data = part.get("image", part.get("data"))
    media = part.get("mimeType", part.get("mediaType"))
    if not isinstance(data, str):
        return None
    match = _DATA_URL.match(data)
    if match is not None:
        media, data = match.group(1), match.group(2)
    if not isinstance(media, str):
        media = "image/png"
    return Image(source=ImageSource(type="base64", media_type=media, data=data))


def context_workspace(text: str) -> str | None:
    match = _WORKSPACE_LINE.search(text)
    return match.group(1) if match else None


def _user_blocks(value: dict[str, Any], reading: _Reading) -> list[Block] | None:
    """The prompt's blocks, or None when the blob held only injected context."""
    parts = _parts(value.get("content"))
    blocks: list[Block] = []
    context = False
    for part in parts:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            text = part["text"]
            if _CONTEXT_TAG in text:
                context = True
                continue
            blocks.append(Text(text=unwrap_query(text)))
        elif kind == "image" and isinstance(part, dict):
            image = _image(part)
            if image is None:
                reading.skip("an image part without image data")
            else:
                blocks.append(image)
        else:
            reading.skip(f"a user part of type {kind!r}")
    if context and not blocks:
        return None
    return blocks


def _assistant_blocks(value: dict[str, Any], reading: _Reading) -> list[Block]:
    blocks: list[Block] = []
    for part in _parts(value.get("content")):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            blocks.append(Text(text=part["text"]))
        elif kind == "reasoning" and isinstance(part.get("text"), str):
            signature = part.get("signature")
            blocks.append(
                Thinking(
                    text=part["text"], signature=signature if isinstance(signature, str) else None
                )
            )
        elif kind == "redacted-reasoning" and isinstance(part.get("data"), str):
            blocks.append(Thinking(text="", encrypted=part["data"]))
        elif (
            kind == "tool-call"
            and isinstance(part.get("toolCallId"), str)
            and isinstance(part.get("toolName"), str)
        ):
            tool = tools.to_tool(part["toolName"], part.get("args"))
            blocks.append(ToolUse(id=part["toolCallId"], tool=tool))
        else:
            reading.skip(f"an assistant part of type {kind!r}")
    return blocks


def _tool_blocks(value: dict[str, Any], reading: _Reading) -> list[Block]:
    blocks: list[Block] = []
    for part in _parts(value.get("content")):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "tool-result" and isinstance(part.get("toolCallId"), str):
            result = part.get("result")
            blocks.append(
                ToolResult(
                    tool_use_id=part["toolCallId"],
                    content="" if result is None else result,
                    is_error=part.get("isError") is True,
                )
            )
        else:
            reading.skip(f"a tool part of type {kind!r}")
    return blocks


def _model_of(value: dict[str, Any]) -> str | None:
    options = value.get("providerOptions")
    cursor = options.get("cursor") if isinstance(options, dict) else None
    name = cursor.get("modelName") if isinstance(cursor, dict) else None
    return name if isinstance(name, str) and name else None


def _conversation(chat: CursorChat, root_id: str | None, label: str) -> list[Blob]:
    by_id: dict[str, Blob] = {}
    mismatched = 0
    for blob in chat.blobs:
        by_id.setdefault(blob.id, blob)
        if blob_id(blob.data) != blob.id:
            mismatched += 1
    if mismatched:
        warn(
            f"{label}: {mismatched} blob(s) have an id that is not the SHA-256 of their data; "
            "read as stored"
        )
    order = graph.message_order(by_id, root_id, label)
    if order is None:
        return [blob for blob in chat.blobs if graph.is_json_blob(blob)]
    listed = set(order)
    unlisted = sum(
        1
        for blob in chat.blobs
        if graph.is_json_blob(blob) and blob.id not in listed and _is_message(blob)
    )
    if unlisted:
        warn(
            f"{label}: {unlisted} message blob(s) are not part of the conversation the latest "
            "root names (an earlier state); not shown"
        )
    return [by_id[i] for i in order]


def _is_message(blob: Blob) -> bool:
    value = try_loads(blob.data)
    return isinstance(value, dict) and value.get("role") in ("user", "assistant", "tool")


def context_cwd(chat: CursorChat) -> str | None:
    """The ``Workspace Path:`` of the first blob in row order that injects ``<user_info>``."""
    marker = _CONTEXT_TAG.encode()
    for blob in chat.blobs:
        if marker in blob.data and graph.is_json_blob(blob):
            value = try_loads(blob.data)
            if not isinstance(value, dict) or value.get("role") != "user":
                continue
            for part in _parts(value.get("content")):
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str) and _CONTEXT_TAG in text:
                    found = context_workspace(text)
                    if found:
                        return found
    return None


@without_gc
def to_common(chat: CursorChat) -> Transcript:
    label = label_of(chat)
    facts = head.read_head(chat.meta, chat.meta_json, label)
    reading = _Reading(label)
    built: list[tuple[str, list[Block], int | None, str | None]] = []
    parsed: dict[str, Any] = {}
    for blob in _conversation(chat, facts.root_id, label):
        value = parsed.get(blob.id, INVALID)
        if value is INVALID:
            value = try_loads(blob.data)
            parsed[blob.id] = value
        if not isinstance(value, dict):
            reading.skip(f"blob {blob.id[:16]}… is not a JSON object")
            continue
        role = value.get("role")
        at = head.millis(value.get("createdAt"))
        model = None
        if role == "system":
            continue
        if role == "user":
            user = _user_blocks(value, reading)
            if user is None:
                continue
            if reading.first_prompt is None:
                texts = [b.text for b in user if isinstance(b, Text)]
                if texts:
                    reading.first_prompt = "\n".join(texts)
            built.append(("user", user, at, None))
        elif role == "assistant":
            model = _model_of(value)
            if model is not None:
                reading.last_model = model
            built.append(("assistant", _assistant_blocks(value, reading), at, model))
        elif role == "tool":
            built.append(("user", _tool_blocks(value, reading), at, None))
        else:
            reading.skip(f"a message blob with role {role!r}")
    first_at = next((from_epoch_ms(at) for _, _, at, _ in built if at is not None), None)
    meta = head.full_meta(
        facts,
        chat,
        first_prompt=reading.first_prompt,
        context_cwd=context_cwd(chat),
        first_message_at=first_at,
        last_message_model=reading.last_model,
    )
    messages: list[Message] = []
    previous = meta.timestamp
    for role, blocks, at, model in built:
        when = from_epoch_ms(at) if at is not None else previous
        previous = when
        messages.append(
            Message(
                role="user" if role == "user" else "assistant",
                content=tuple(blocks),
                timestamp=when,
                model=model,
            )
        )
    return Transcript(meta=meta, messages=tuple(messages))


# ----------------------------------------------------------------------------------- writing


def _encode(value: Any) -> bytes:
    """Compact JSON in the key order given, raw UTF-8 (escaped where a string cannot encode)."""
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":")).encode("ascii")


def _result_text(content: Any) -> str:
    return content if isinstance(content, str) else dumps_compact(content)


def _flat_text(block: Block) -> str:
    if isinstance(block, Text | Thinking):
        return block.text
    if isinstance(block, Artifact):
        return artifact_fallback_text(block)
    if isinstance(block, Image):
        return f"[image: {block.source.media_type}]"
    if isinstance(block, ToolUse):
        if isinstance(block.tool, Command):
            return block.tool.command + (f" {block.tool.args}" if block.tool.args else "")
        name, args = tools.from_tool(block.tool)
        return f"[tool call {name}] {dumps_compact(args)}"
    return _result_text(block.content)


def _user_part(block: Block) -> dict[str, Any]:
    if isinstance(block, Image):
        return {"type": "image", "image": block.source.data, "mimeType": block.source.media_type}
    return {"type": "text", "text": wrap_query(_flat_text(block))}


def _assistant_part(block: Block) -> dict[str, Any]:
    if isinstance(block, Thinking):
        if block.encrypted is not None and not block.text:
            return {"type": "redacted-reasoning", "data": block.encrypted}
        part: dict[str, Any] = {"type": "reasoning", "text": block.text}
        if block.signature is not None:
            part["signature"] = block.signature
        return part
    if isinstance(block, ToolUse):
        name, args = tools.from_tool(block.tool)
        return {"type": "tool-call", "toolCallId": block.id, "toolName": name, "args": args}
    return {"type": "text", "text": _flat_text(block)}


def _step(block: Block) -> bytes:
    if isinstance(block, Thinking):
        return graph.thinking_step(block.text)
    if isinstance(block, ToolUse):
        tool = block.tool
        if isinstance(tool, Bash):
            return graph.tool_step(graph.TOOL_SHELL, tool.command, block.id)
        if isinstance(tool, Read):
            return graph.tool_step(graph.TOOL_READ, tool.file_path, block.id)
        if isinstance(tool, Edit | Write):
            return graph.tool_step(graph.TOOL_EDIT, tool.file_path, block.id)
    return graph.text_step(_flat_text(block))


class _Writer:
    def __init__(self, transcript: Transcript) -> None:
        self.meta = transcript.meta
        self.blobs: dict[str, bytes] = {}
        self.order: list[str] = []
        self.turns: list[graph.TurnNodes] = []
        self.prompts: list[str] = []
        self.call_names: dict[str, str] = {}
        self.index = 0

    def add(self, value: dict[str, Any]) -> None:
        data = _encode(value)
        digest = blob_id(data)
        self.blobs.setdefault(digest, data)
        self.order.append(digest)

    def message_id(self, suffix: str = "") -> str:
        self.index += 1
        return uuid5(NAMESPACE, f"{self.meta.id}:{self.index}{suffix}")

    def turn(self) -> graph.TurnNodes:
        if not self.turns:
            self.turns.append(graph.TurnNodes())
        return self.turns[-1]

    def user(self, message: Message) -> None:
        at = to_epoch_ms(message.timestamp)
        results = [b for b in message.content if isinstance(b, ToolResult)]
        prompt = [b for b in message.content if not isinstance(b, ToolResult)]
        if results:
            parts = []
            for result in results:
                part: dict[str, Any] = {
                    "type": "tool-result",
                    "toolCallId": result.tool_use_id,
                    "toolName": self.call_names.get(result.tool_use_id, ""),
                    "result": _result_text(result.content),
                }
                if result.is_error:
                    part["isError"] = True
                parts.append(part)
            self.add({"id": self.message_id(), "role": "tool", "content": parts, "createdAt": at})
        if prompt or not results:
            self.add({"role": "user", "content": [_user_part(b) for b in prompt], "createdAt": at})
            self.index += 1
            text = "\n".join(_flat_text(b) for b in prompt if not isinstance(b, Image))
            if prompt:
                self.prompts.append(text)
            uid = uuid5(NAMESPACE, f"{self.meta.id}:{self.index}:user")
            self.turns.append(graph.TurnNodes(user=graph.user_node(text, uid)))

    def assistant(self, message: Message) -> None:
        at = to_epoch_ms(message.timestamp)
        value: dict[str, Any] = {
            "id": self.message_id(),
            "role": "assistant",
            "content": [_assistant_part(b) for b in message.content],
        }
        if message.model is not None:
            value["providerOptions"] = {"cursor": {"modelName": message.model}}
        value["createdAt"] = at
        self.add(value)
        turn = self.turn()
        for block in message.content:
            if isinstance(block, ToolUse):
                self.call_names[block.id] = tools.from_tool(block.tool)[0]
            turn.steps.append(_step(block))


def _title(transcript: Transcript) -> str:
    if transcript.meta.title:
        return transcript.meta.title
    for message in transcript.messages:
        if message.role == "user":
            texts = [b.text for b in message.content if isinstance(b, Text)]
            if texts:
                return head.derived_title("\n".join(texts)) or ""
    return ""


def from_common(transcript: Transcript) -> CursorChat:
    meta = transcript.meta
    writer = _Writer(transcript)
    for message in transcript.messages:
        if message.role == "user":
            writer.user(message)
        else:
            writer.assistant(message)
    started = to_epoch_ms(meta.timestamp)
    nodes, root = graph.build(writer.order, writer.turns, started)
    blobs = [Blob(id=i, data=d) for i, d in writer.blobs.items()]
    seen = set(writer.blobs)
    for node in [*nodes, root]:
        digest = blob_id(node)
        if digest not in seen:
            seen.add(digest)
            blobs.append(Blob(id=digest, data=node))
    title = _title(transcript)
    row: dict[str, Any] = {
        "agentId": meta.id,
        "latestRootBlobId": blob_id(root),
        "name": title,
        "createdAt": started,
    }
    if meta.model is not None:
        row["lastUsedModel"] = meta.model
    if meta.cwd is not None:
        row["workspacePath"] = meta.cwd
    updated = max([started, *(to_epoch_ms(m.timestamp) for m in transcript.messages)])
    document = {
        "schemaVersion": 1,
        "title": title,
        "createdAtMs": started,
        "updatedAtMs": updated,
        "hasConversation": bool(transcript.messages),
    }
    return CursorChat(
        chat_id=meta.id,
        blobs=tuple(blobs),
        meta=(MetaRow(head.META_KEY, _encode(row).hex()),),
        bucket=bucket_of(meta.cwd) if meta.cwd else None,
        meta_json=_encode(document),
        prompt_history=_encode(writer.prompts),
    )
