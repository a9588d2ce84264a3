"""The Simple interchange document: one forgiving JSON object any agent can emit.

The native body is the parsed document itself (a ``dict``), so a Simple→Simple round trip keeps
every unknown key, role and block verbatim. :func:`to_common` reads the conversation out of it
with the tolerance rules of the Simple spec: shorthands, case-insensitive roles, timestamp
inheritance, deterministic ids for id-less tool calls, and FIFO pairing of id-less results.

Where a message or block cannot be read, it is skipped (it stays in the document) and a
:class:`~txcript.diagnostics.TranscriptWarning` names its index and the reason.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import Malformed
from txcript.model import (
    STOP_REASONS,
    Artifact,
    ArtifactRef,
    ArtifactSource,
    Base64Source,
    Block,
    Image,
    ImageSource,
    Message,
    Meta,
    OtherStop,
    PathSource,
    StopReason,
    Text,
    TextSource,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Usage,
    render_tool,
    type_tool,
)
from txcript.shared.gcpause import without_gc
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonutil import dumps_pretty, is_uint, iter_pretty, loads_strict
from txcript.shared.timeutil import format_millis, format_rfc3339, now, parse_rfc3339

NAMESPACE = namespace_from_ascii(b"txcript-simple!!")
_META_KEYS = ("id", "cwd", "git_branch", "title", "cli_version", "model")

SimpleDocument = dict[str, Any]


class _Skip(Exception):
    """A message that fails typed parsing; it stays in the document, out of the conversation."""


# ------------------------------------------------------------------------------- text form


def check_document(document: Any) -> SimpleDocument:
    """Validate the only hard requirements: an object with a ``messages`` array."""
    if not isinstance(document, dict):
        raise Malformed("simple", "top level is not a JSON object")
    if "messages" not in document:
        raise Malformed("simple", "no `messages` array")
    if not isinstance(document["messages"], list):
        raise Malformed("simple", "`messages` is not an array")
    return document


def from_text(text: str) -> SimpleDocument:
    try:
        document = loads_strict(text)
    except ValueError as exc:
        raise Malformed("simple", f"not valid JSON: {exc}") from None
    return check_document(document)


def to_text(document: SimpleDocument) -> str:
    """Pretty-printed (2 spaces), keys sorted at every level, one trailing newline."""
    return dumps_pretty(document, sort_keys=True) + "\n"


def sniff(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and isinstance(document.get("messages"), list)
        and not isinstance(document.get("meta"), dict)
    )


# ----------------------------------------------------------------------------- to Common


def _meta(document: SimpleDocument) -> Meta:
    fields = {k: document[k] for k in _META_KEYS if isinstance(document.get(k), str)}
    raw_timestamp = document.get("timestamp")
    timestamp = parse_rfc3339(raw_timestamp)
    if timestamp is None:
        if raw_timestamp is not None:
            warn(f"session timestamp {raw_timestamp!r} is not RFC 3339 with an offset; using now")
        timestamp = now()
    return Meta(
        id=fields.get("id", ""),
        timestamp=timestamp,
        cwd=fields.get("cwd"),
        git_branch=fields.get("git_branch"),
        title=fields.get("title"),
        cli_version=fields.get("cli_version"),
        model=fields.get("model"),
    )


def _stop_reason(value: Any) -> StopReason | None:
    if value is None:
        return None
    if isinstance(value, str) and value in STOP_REASONS:
        return value  # type: ignore[return-value]
    if isinstance(value, dict) and set(value) == {"other"} and isinstance(value["other"], str):
        return OtherStop(other=value["other"])
    raise _Skip(f"stop_reason {_short(value)} is not one of {', '.join(sorted(STOP_REASONS))}")


def _usage(value: Any) -> Usage | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _Skip("usage is not an object")
    counts: dict[str, int | None] = {}
    for key in ("input_tokens", "output_tokens"):
        if not is_uint(value.get(key)):
            raise _Skip(f"usage.{key} is not a non-negative integer")
        counts[key] = value[key]
    for key in ("cache_read_input_tokens", "cache_creation_input_tokens"):
        cached = value.get(key)
        if cached is not None and not is_uint(cached):
            raise _Skip(f"usage.{key} is not a non-negative integer")
        counts[key] = cached
    return Usage(
        input_tokens=value["input_tokens"],
        output_tokens=value["output_tokens"],
        cache_read_input_tokens=counts["cache_read_input_tokens"],
        cache_creation_input_tokens=counts["cache_creation_input_tokens"],
    )


def _artifact_source(value: Any) -> ArtifactSource | None:
    if not isinstance(value, dict):
        return None
    media_type = value.get("media_type")
    media = media_type if isinstance(media_type, str) else None
    kind = value.get("type")
    if kind == "text" and isinstance(value.get("text"), str):
        return TextSource(text=value["text"], media_type=media)
    if kind == "base64" and isinstance(value.get("data"), str):
        return Base64Source(data=value["data"], media_type=media)
    if kind == "path" and isinstance(value.get("path"), str):
        return PathSource(path=value["path"], media_type=media)
    return None


def _short(value: Any, limit: int = 40) -> str:
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


class _Reader:
    """One pass over ``messages``, carrying the timestamp chain and the pending-call queue."""

    def __init__(self, document: SimpleDocument, meta: Meta) -> None:
        self.document = document
        self.session_id = document["id"] if isinstance(document.get("id"), str) else ""
        self.last_timestamp: datetime = meta.timestamp
        self.pending: deque[str] = deque()

    def synthetic_id(self, i: int, j: int) -> str:
        return uuid5(NAMESPACE, f"{self.session_id}:{i}:{j}")

    def messages(self) -> list[Message]:
        out: list[Message] = []
        for i, element in enumerate(self.document["messages"]):
            try:
                message = self.message(i, element)
            except _Skip as skip:
                warn(f"messages[{i}] skipped: {skip}")
                continue
            if message is not None:
                out.append(message)
        return out

    def message(self, i: int, element: Any) -> Message | None:
        if not isinstance(element, dict):
            raise _Skip(f"not an object ({type(element).__name__})")
        role_value = element.get("role", "")
        if not isinstance(role_value, str):
            raise _Skip("role is not a string")
        content = element.get("content", [])
        if not isinstance(content, str | list):
            raise _Skip(f"content is {_short(content)}, not a string or an array")
        raw_timestamp = element.get("timestamp")
        if raw_timestamp is None:
            timestamp = self.last_timestamp
        else:
            parsed = parse_rfc3339(raw_timestamp)
            if parsed is None:
                raise _Skip(f"timestamp {_short(raw_timestamp)} is not RFC 3339 with an offset")
            timestamp = parsed
        model = element.get("model")
        if model is not None and not isinstance(model, str):
            raise _Skip("model is not a string")
        stop_reason = _stop_reason(element.get("stop_reason"))
        usage = _usage(element.get("usage"))
        role = role_value.strip().lower()
        if role not in ("user", "assistant"):
            shown = f"role {role_value!r}" if role_value else "no role"
            warn(f"messages[{i}] skipped: {shown} is not user or assistant")
            return None
        self.last_timestamp = timestamp
        if isinstance(content, str):
            blocks: list[Block] = [Text(text=content)]
        else:
            blocks = [b for j, raw in enumerate(content) if (b := self.block(i, j, raw))]
        return Message(
            role=role,  # type: ignore[arg-type]
            content=tuple(blocks),
            timestamp=timestamp,
            model=model,
            stop_reason=stop_reason,
            usage=usage,
        )

    def block(self, i: int, j: int, raw: Any) -> Block | None:
        block = self._block(i, j, raw)
        if block is None:
            kind = raw.get("type") if isinstance(raw, dict) else None
            reason = (
                "not an object"
                if not isinstance(raw, dict)
                else f"unknown or incomplete block type {_short(kind)}"
            )
            warn(f"messages[{i}].content[{j}] skipped: {reason}")
        return block

    def _block(self, i: int, j: int, raw: Any) -> Block | None:
        if not isinstance(raw, dict):
            return None
        kind = raw.get("type")
        if kind == "text" and isinstance(raw.get("text"), str):
            return Text(text=raw["text"])
        if kind == "thinking" and isinstance(raw.get("text"), str):
            signature, encrypted = raw.get("signature"), raw.get("encrypted")
            return Thinking(
                text=raw["text"],
                signature=signature if isinstance(signature, str) else None,
                encrypted=encrypted if isinstance(encrypted, str) else None,
            )
        if kind == "tool_use" and isinstance(raw.get("name"), str):
            call_id = raw["id"] if isinstance(raw.get("id"), str) else self.synthetic_id(i, j)
            self.pending.append(call_id)
            return ToolUse(id=call_id, tool=type_tool(raw["name"], raw.get("input")))
        if kind == "tool_result":
            return self._tool_result(i, j, raw)
        if kind == "image":
            source = raw.get("source")
            if isinstance(source, dict) and all(
                isinstance(source.get(k), str) for k in ("type", "media_type", "data")
            ):
                return Image(
                    source=ImageSource(
                        type=source["type"], media_type=source["media_type"], data=source["data"]
                    )
                )
            return None
        if kind == "artifact":
            artifact = raw.get("artifact")
            if not isinstance(artifact, dict):
                return None
            artifact_source = _artifact_source(artifact.get("source"))
            if (
                artifact_source is None
                or not isinstance(artifact.get("id"), str)
                or not isinstance(artifact.get("name"), str)
            ):
                return None
            return Artifact(
                artifact=ArtifactRef(
                    id=artifact["id"], name=artifact["name"], source=artifact_source
                )
            )
        return None

    def _tool_result(self, i: int, j: int, raw: dict[str, Any]) -> ToolResult:
        explicit = raw.get("tool_use_id")
        if isinstance(explicit, str):
            call_id = explicit
            if explicit in self.pending:
                self.pending.remove(explicit)
        elif self.pending:
            call_id = self.pending.popleft()
        else:
            call_id = self.synthetic_id(i, j)
        return ToolResult(
            tool_use_id=call_id,
            content=raw.get("content", ""),
            is_error=raw.get("is_error") is True,
        )


def to_common(document: SimpleDocument) -> Transcript:
    check_document(document)
    meta = _meta(document)
    return Transcript(meta=meta, messages=tuple(_Reader(document, meta).messages()))


# --------------------------------------------------------------------------- from Common


def _render_block(block: Block) -> dict[str, Any]:
    if isinstance(block, Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, Thinking):
        out: dict[str, Any] = {"type": "thinking", "text": block.text}
        if block.signature is not None:
            out["signature"] = block.signature
        if block.encrypted is not None:
            out["encrypted"] = block.encrypted
        return out
    if isinstance(block, ToolUse):
        name, tool_input = render_tool(block.tool)
        return {"type": "tool_use", "id": block.id, "name": name, "input": tool_input}
    if isinstance(block, ToolResult):
        out = {"type": "tool_result", "tool_use_id": block.tool_use_id, "content": block.content}
        if block.is_error:
            out["is_error"] = True
        return out
    if isinstance(block, Image):
        source = block.source
        return {
            "type": "image",
            "source": {"type": source.type, "media_type": source.media_type, "data": source.data},
        }
    artifact = block.artifact
    src = artifact.source
    rendered: dict[str, Any]
    if isinstance(src, TextSource):
        rendered = {"type": "text", "text": src.text}
    elif isinstance(src, Base64Source):
        rendered = {"type": "base64", "data": src.data}
    else:
        rendered = {"type": "path", "path": src.path}
    if src.media_type is not None:
        rendered["media_type"] = src.media_type
    return {
        "type": "artifact",
        "artifact": {"id": artifact.id, "name": artifact.name, "source": rendered},
    }


def _render_message(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "timestamp": format_rfc3339(message.timestamp)}
    if len(message.content) == 1 and isinstance(message.content[0], Text):
        out["content"] = message.content[0].text
    elif message.content:
        out["content"] = [_render_block(b) for b in message.content]
    if message.model is not None:
        out["model"] = message.model
    if message.stop_reason is not None:
        reason = message.stop_reason
        out["stop_reason"] = {"other": reason.other} if isinstance(reason, OtherStop) else reason
    if message.usage is not None:
        usage = message.usage
        rendered: dict[str, int] = {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
        }
        if usage.cache_read_input_tokens is not None:
            rendered["cache_read_input_tokens"] = usage.cache_read_input_tokens
        if usage.cache_creation_input_tokens is not None:
            rendered["cache_creation_input_tokens"] = usage.cache_creation_input_tokens
        out["usage"] = rendered
    return out


@without_gc
def from_common(transcript: Transcript) -> SimpleDocument:
    meta = transcript.meta
    document: SimpleDocument = {"timestamp": format_millis(meta.timestamp)}
    if meta.id:
        document["id"] = meta.id
    for key in ("cwd", "git_branch", "title", "cli_version", "model"):
        value = getattr(meta, key)
        if value is not None:
            document[key] = value
    document["messages"] = [_render_message(m) for m in transcript.messages]
    return document


def to_text_chunks(native: SimpleDocument) -> Iterable[bytes]:
    """:func:`to_text` streamed: the same bytes, never the whole document in one string."""
    return itertools.chain(iter_pretty(native, sort_keys=True), (b"\n",))
