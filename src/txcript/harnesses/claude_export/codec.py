"""A Claude export conversation → Common: its current branch, message by message.

**Branch.** A conversation whose messages name their parent (``parent_message_uuid``) is a tree:
the branch shown is the one ending at the leaf the conversation marks current
(``current_leaf_message_uuid``), else at the leaf created last (later in the array on a tie),
walked up to the root (no parent, or the all-zero root id). Messages without parent links are
one branch, in array order.

**Messages.** ``human`` → user, ``assistant`` → assistant. ``content`` blocks are read when there
are any, else the message's ``text``:

* ``text`` → text, ``thinking`` → thinking (the export keeps no signature);
* ``tool_use`` → a tool call, typed where its name and input fit a Common tool; a call without an
  id gets a UUIDv5 one;
* ``tool_result`` → its result (``is_error`` kept; a lone text block is its text, other content
  stays JSON); a result without an id answers the nearest call before it that has none. An
  assistant message holding calls, results and text is split where the results are: assistant →
  user (results) → assistant, the order the API needs;
* ``token_budget`` is bookkeeping; a block of any other type is left out with one warning that
  counts them (it stays in the native body).

Attachments carry the text the export extracted from a file (never its bytes): each becomes an
artifact holding that text, after the message's blocks. ``files`` entries hold only a name: each
becomes an artifact naming the file.

**Metadata.** id ``uuid``; start ``created_at``; title ``name``, else the first human message's
first line (in array order, so a listing reads no more than that message); the model when the
conversation names one. An export has no cwd, git branch or usage.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from txcript.diagnostics import warn
from txcript.harnesses.claude_export.native import HARNESS, ExportConversation
from txcript.model import (
    Artifact,
    ArtifactRef,
    Block,
    Message,
    Meta,
    PathSource,
    Role,
    Text,
    TextSource,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    prompt_title,
    type_tool,
)
from txcript.pairing import describe_unanswered
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.timeutil import EPOCH, parse_rfc3339

#: The UUIDv5 namespace of every id this codec mints (16 ASCII bytes).
NAMESPACE = namespace_from_ascii(b"txcript-claudex!")
#: The parent id the live API gives a conversation's first message.
ROOT_PARENT = "00000000-0000-4000-8000-000000000000"
#: Blocks that are the app's bookkeeping, not conversation.
BOOKKEEPING = frozenset(("token_budget",))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _messages(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    found = conversation.get("chat_messages")
    return [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []


# ---------------------------------------------------------------------------------- metadata


def human_text(message: dict[str, Any]) -> str | None:
    """The first line of a human message's text (what a conversation with no name shows)."""
    content = message.get("content")
    blocks: list[Block] = []
    if isinstance(content, str):
        blocks.append(Text(text=content))
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    blocks.append(Text(text=text))
    if not blocks and isinstance(message.get("text"), str):
        blocks.append(Text(text=message["text"]))
    return prompt_title(blocks)


def conversation_meta(
    uuid: Any, name: Any, created_at: Any, model: Any, first_human: dict[str, Any] | None
) -> Meta:
    """A conversation's Meta from the few fields a listing reads (and a load, the same way)."""
    title = _text(name)
    if title is None and first_human is not None:
        title = human_text(first_human)
    return Meta(
        id=_text(uuid) or "",
        timestamp=parse_rfc3339(created_at) or EPOCH,
        title=title,
        model=_text(model),
    )


def meta_of(native: ExportConversation) -> Meta:
    value = native.value if isinstance(native.value, dict) else {}
    first = next((m for m in _messages(value) if m.get("sender") == "human"), None)
    return conversation_meta(
        value.get("uuid"), value.get("name"), value.get("created_at"), value.get("model"), first
    )


# ------------------------------------------------------------------------------------ branch


def branch(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages of the conversation's current branch, root first (see the module notes)."""
    messages = _messages(conversation)
    linked = any(isinstance(m.get("parent_message_uuid"), str) for m in messages)
    if not linked:
        return messages
    by_id: dict[str, int] = {}
    for index, message in enumerate(messages):
        uuid = message.get("uuid")
        if isinstance(uuid, str):
            by_id.setdefault(uuid, index)
    parents = {
        message.get("parent_message_uuid")
        for message in messages
        if isinstance(message.get("parent_message_uuid"), str)
    }
    leaf: int | None = None
    current = conversation.get("current_leaf_message_uuid")
    if isinstance(current, str) and current in by_id:
        leaf = by_id[current]
    else:
        leaves = [i for i, m in enumerate(messages) if m.get("uuid") not in parents]
        if leaves:
            leaf = max(leaves, key=lambda i: (_created(messages[i]), i))
    if leaf is None:
        return messages
    path: list[int] = []
    seen: set[int] = set()
    step: int | None = leaf
    while step is not None and step not in seen:
        seen.add(step)
        path.append(step)
        parent = messages[step].get("parent_message_uuid")
        step = by_id.get(parent) if isinstance(parent, str) and parent != ROOT_PARENT else None
    return [messages[i] for i in reversed(path)]


def _created(message: dict[str, Any]) -> datetime:
    return parse_rfc3339(message.get("created_at")) or EPOCH


# ---------------------------------------------------------------------------------- messages


def _result_content(value: Any) -> Any:
    if isinstance(value, list) and len(value) == 1:
        only = value[0]
        if (
            isinstance(only, dict)
            and only.get("type") == "text"
            and isinstance(only.get("text"), str)
            and set(only) <= {"type", "text", "citations", "uuid"}
        ):
            return only["text"]
    if value is None:
        return ""
    return value


class _Builder:
    def __init__(self, conversation_id: str) -> None:
        self.conversation_id = conversation_id
        self.messages: list[Message] = []
        #: Calls with no result yet, oldest first (a result without an id answers the last).
        self.open_calls: list[str] = []
        self.skipped: dict[str, int] = {}
        self.last = EPOCH

    def skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1

    def message(self, position: int, message: dict[str, Any]) -> None:
        sender = message.get("sender")
        if sender not in ("human", "assistant"):
            self.skip(f"message from {sender!r}")
            return
        at = parse_rfc3339(message.get("created_at")) or self.last
        self.last = at
        key = _text(message.get("uuid")) or str(position)
        content = message.get("content")
        raw_blocks = content if isinstance(content, list) and content else None
        role: Role = "user" if sender == "human" else "assistant"
        segments: list[tuple[Role, list[Block]]] = [(role, [])]
        if isinstance(content, str) and content:  # (a third-party dump's plain string)
            segments[-1][1].append(Text(text=content))
        elif raw_blocks is None:
            text = message.get("text")
            if isinstance(text, str) and text:
                segments[-1][1].append(Text(text=text))
        else:
            for index, raw in enumerate(raw_blocks):
                block = self.block(key, index, raw)
                if block is None:
                    continue
                wanted: Role = "user" if isinstance(block, ToolResult) else role
                if role == "assistant" and wanted != segments[-1][0]:
                    segments.append((wanted, []))
                segments[-1][1].append(block)
        segments[-1][1].extend(self.attachments(key, message))
        for segment_role, blocks in segments:
            if blocks:
                self.messages.append(
                    Message(role=segment_role, content=tuple(blocks), timestamp=at)
                )

    def block(self, key: str, index: int, raw: Any) -> Block | None:
        if not isinstance(raw, dict):
            self.skip("malformed")
            return None
        kind = raw.get("type")
        if kind == "text":
            text = raw.get("text")
            if not isinstance(text, str):
                self.skip("malformed text")
                return None
            return Text(text=text)
        if kind == "thinking":
            thinking = raw.get("thinking")
            return Thinking(text=thinking if isinstance(thinking, str) else "")
        if kind == "tool_use":
            call_id = _text(raw.get("id")) or uuid5(
                NAMESPACE, f"{self.conversation_id}:{key}:{index}"
            )
            name = raw.get("name")
            tool_input = raw.get("input", {})
            self.open_calls.append(call_id)
            return ToolUse(
                id=call_id, tool=type_tool(name if isinstance(name, str) else "", tool_input)
            )
        if kind == "tool_result":
            stated = _text(raw.get("tool_use_id"))
            if stated is None:
                stated = (
                    self.open_calls[-1]
                    if self.open_calls
                    else uuid5(NAMESPACE, f"{self.conversation_id}:{key}:{index}:result")
                )
            if stated in self.open_calls:
                self.open_calls.remove(stated)
            return ToolResult(
                tool_use_id=stated,
                content=_result_content(raw.get("content")),
                is_error=raw.get("is_error") is True,
            )
        if kind in BOOKKEEPING:
            return None
        self.skip(str(kind) if isinstance(kind, str) else "malformed")
        return None

    def attachments(self, key: str, message: dict[str, Any]) -> list[Block]:
        out: list[Block] = []
        for field in ("attachments", "files"):
            entries = message.get(field)
            if not isinstance(entries, list):
                continue
            for index, entry in enumerate(entries):
                if not isinstance(entry, dict):
                    continue
                name = _text(entry.get("file_name")) or f"{field[:-1]} {index + 1}"
                artifact_id = uuid5(NAMESPACE, f"{self.conversation_id}:{key}:{field}:{index}")
                extracted = entry.get("extracted_content")
                media_type = _text(entry.get("file_type"))
                source: TextSource | PathSource
                if isinstance(extracted, str):
                    source = TextSource(text=extracted, media_type=media_type)
                else:
                    source = PathSource(path=name, media_type=media_type)
                out.append(Artifact(artifact=ArtifactRef(id=artifact_id, name=name, source=source)))
        return out


def _label(meta: Meta) -> str:
    return f"claude_export conversation {meta.id or '(unnamed)'}"


def to_common(native: ExportConversation) -> Transcript:
    value = native.value if isinstance(native.value, dict) else {}
    meta = meta_of(native)
    builder = _Builder(meta.id)
    builder.last = meta.timestamp
    found = value.get("chat_messages")
    if isinstance(found, list):
        for _ in range(sum(1 for item in found if not isinstance(item, dict))):
            builder.skip("malformed message")
    for position, message in enumerate(branch(value)):
        builder.message(position, message)
    if builder.skipped:
        counted = ", ".join(f"{n} {kind}" for kind, n in sorted(builder.skipped.items()))
        warn(f"{_label(meta)}: content not read was left out ({counted})")
    messages: Sequence[Message] = builder.messages
    unanswered = describe_unanswered(HARNESS, meta.id, messages)
    if unanswered is not None:
        warn(unanswered)
    return Transcript(meta=meta, messages=tuple(messages))
