"""pi sessions ↔ Common.

**Reading** (:func:`to_common`) takes the conversation pi's model sees on resume
(:func:`.tree.resolve`: the active branch from the leaf, from its latest compaction on) and maps
each message:

* ``user`` → a user message (text and images);
* ``assistant`` → an assistant message: ``text``, ``thinking`` (its ``thinkingSignature`` as the
  signature; for a ``redacted`` block it is the encrypted payload, and encrypted reasoning
  another harness gave rides in ``txcriptEncrypted``) and ``toolCall`` blocks (typed
  by :mod:`.tools`); ``model``, ``usage`` (absent when every count is 0) and ``stopReason``
  (``stop`` → end_turn, ``length`` → max_tokens, ``toolUse`` → tool_use, ``error``, ``aborted``,
  anything else kept word for word);
* ``toolResult`` → a tool result (``isError`` kept; text blocks joined by newlines, images
  after it); the results of consecutive ``toolResult`` messages share one user message, so a
  parallel batch keeps every result whatever its call ids look like;
* ``bashExecution`` (the user's ``!command``) → a user message with the text pi gives the model
  for it; one run with ``!!`` is kept out of the model's context, and so out of the conversation;
* ``custom`` (``hookMessage`` before v3) messages and ``custom_message`` entries → user messages
  with their content, as pi sends them;
* branch and compaction summaries → user text with the framing pi gives the model.

Model and thinking-level changes, labels, session names and extension state are bookkeeping:
they stay in the native body (the model appears on each assistant message, the name as the
title). What cannot be read (a message role, block or entry type the format does not define) is
counted in one warning per session.

**Writing** (:func:`from_common`) produces a version-3 file: the header, a ``model_change`` for
the session's model, a ``session_info`` when the title is not the first prompt's, then one
linear chain of ``message`` entries with deterministic 8-hex ids (UUIDv5 of the session id and
position). Assistant messages get what pi checks on resume: ``api`` and ``provider`` guessed from
the model name, a ``usage`` block (zeros when unknown) and a ``stopReason``. A user's slash
command becomes its text, and its output (or any result whose call is not a model call of the
session) user text too: pi's providers send ``toolResult`` messages as results of the model's
calls, which an API refuses for any other.
"""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

from txcript.diagnostics import warn
from txcript.model import (
    STOP_REASONS,
    Artifact,
    Block,
    Command,
    Image,
    ImageSource,
    Message,
    Meta,
    OtherStop,
    StopReason,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Usage,
    artifact_fallback_text,
    tool_input,
    tool_name,
)
from txcript.pairing import answer_open_calls, describe_unanswered
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonutil import dumps_compact, is_uint, try_loads
from txcript.shared.timeutil import format_millis, from_epoch_ms, parse_rfc3339, to_epoch_ms

from . import tools
from .meta import MetaScan, prompt_of, with_index
from .native import CURRENT_VERSION, Line, PiSession, dumps
from .tree import Item, resolve

HARNESS = "pi"
#: The UUIDv5 namespace of the entry ids the writer mints, as 16 ASCII bytes.
NAMESPACE_TAG = b"txcript-pi-entry"

#: The key of a thinking block that carries encrypted reasoning pi has no slot for (see
#: :func:`_thinking`).
ENCRYPTED = "txcriptEncrypted"
COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n"
    "<summary>\n"
)
COMPACTION_SUFFIX = "\n</summary>"
BRANCH_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUFFIX = "</summary>"

_STOP_IN = {
    "stop": "end_turn",
    "length": "max_tokens",
    "toolUse": "tool_use",
    "error": "error",
    "aborted": "aborted",
}
_STOP_OUT = {
    "end_turn": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
    "error": "error",
    "aborted": "aborted",
    "stop_sequence": "stop",
}


# ------------------------------------------------------------------------------------ reading


def meta_of(native: PiSession) -> Meta:
    """The session's metadata (see :mod:`.meta`); reads no message beyond the first prompt."""
    scan = MetaScan(native.fallback_id)
    needs_head = True
    for line in native.lines:
        value = line.value
        if not isinstance(value, dict):
            continue
        if needs_head:
            scan.feed(value)
            needs_head = scan.needs_head
        elif value.get("type") == "session_info":
            scan.feed(value)
    return with_index(scan.meta(), native.index_entry)


def _time(value: Any) -> datetime | None:
    """A pi message timestamp (Unix milliseconds, any JSON number) or ISO text as UTC."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return from_epoch_ms(value if isinstance(value, int) else int(value))
        except (OverflowError, ValueError):
            return None
    return parse_rfc3339(value)


def _count(value: Any) -> int:
    return value if is_uint(value) else 0


def _usage(value: Any) -> Usage | None:
    if not isinstance(value, dict):
        return None
    counts = [_count(value.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite")]
    if not any(counts):
        return None
    return Usage(
        input_tokens=counts[0],
        output_tokens=counts[1],
        cache_read_input_tokens=counts[2] or None,
        cache_creation_input_tokens=counts[3] or None,
    )


def _stop(value: Any) -> StopReason | None:
    if not isinstance(value, str) or not value:
        return None
    mapped = _STOP_IN.get(value)
    return mapped if mapped is not None else OtherStop(other=value)  # type: ignore[return-value]


class _Reader:
    def __init__(self, meta: Meta) -> None:
        self.meta = meta
        self.messages: list[Message] = []
        self.last_time = meta.timestamp
        #: Whether the last message is a user message built from ``toolResult`` messages only.
        self.results_open = False
        self.skipped = 0

    def stamp(self, item: Item) -> datetime:
        moment = _time(item.message.get("timestamp")) or _time(item.timestamp) or self.last_time
        self.last_time = moment
        return moment

    def media(self, content: Any) -> list[Block]:
        """User-side content (a string, or text and image blocks) as Common blocks."""
        if isinstance(content, str):
            return [Text(content)]
        out: list[Block] = []
        if not isinstance(content, list):
            if content is not None:  # content of a shape the format does not have
                self.skipped += 1
            return out
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(block.get("text"), str):
                out.append(Text(block["text"]))
            elif (
                kind == "image"
                and isinstance(block.get("data"), str)
                and isinstance(block.get("mimeType"), str)
            ):
                source = ImageSource(
                    type="base64", media_type=block["mimeType"], data=block["data"]
                )
                out.append(Image(source=source))
            else:
                self.skipped += 1
        return out

    def add(self, message: Message, *, results: bool = False) -> None:
        if results and self.results_open:
            last = self.messages[-1]
            merged = Message(
                role="user", content=last.content + message.content, timestamp=last.timestamp
            )
            self.messages[-1] = merged
        else:
            self.messages.append(message)
        self.results_open = results

    def read(self, item: Item) -> None:
        message = item.message
        role = message.get("role")
        if role == "user":
            blocks = self.media(message.get("content"))
            self.add(Message(role="user", content=tuple(blocks), timestamp=self.stamp(item)))
        elif role == "assistant":
            self.assistant(item)
        elif role == "toolResult":
            self.tool_result(item)
        elif role == "bashExecution":
            if message.get("excludeFromContext") is True:
                return  # a `!!` run: the user kept it from the model, and so from the conversation
            text = bash_text(message)
            self.add(Message(role="user", content=(Text(text),), timestamp=self.stamp(item)))
        elif role in ("custom", "hookMessage"):
            blocks = self.media(message.get("content"))
            self.add(Message(role="user", content=tuple(blocks), timestamp=self.stamp(item)))
        elif role == "branchSummary":
            text = BRANCH_PREFIX + str(message.get("summary") or "") + BRANCH_SUFFIX
            self.add(Message(role="user", content=(Text(text),), timestamp=self.stamp(item)))
        elif role == "compactionSummary":
            text = COMPACTION_PREFIX + str(message.get("summary") or "") + COMPACTION_SUFFIX
            self.add(Message(role="user", content=(Text(text),), timestamp=self.stamp(item)))
        else:
            self.skipped += 1

    def assistant(self, item: Item) -> None:
        message = item.message
        content = message.get("content")
        blocks: list[Block] = []
        for block in content if isinstance(content, list) else []:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text" and isinstance(block.get("text"), str):
                blocks.append(Text(block["text"]))
            elif kind == "thinking" and isinstance(block.get("thinking"), str):
                signature = block.get("thinkingSignature")
                signature = signature if isinstance(signature, str) else None
                carried = block.get(ENCRYPTED)
                carried = carried if isinstance(carried, str) else None
                if block.get("redacted") is True:
                    blocks.append(Thinking(text=block["thinking"], encrypted=signature))
                else:
                    blocks.append(
                        Thinking(text=block["thinking"], signature=signature, encrypted=carried)
                    )
            elif (
                kind == "toolCall"
                and isinstance(block.get("id"), str)
                and isinstance(block.get("name"), str)
            ):
                tool = tools.to_tool(block["name"], block.get("arguments"))
                blocks.append(ToolUse(id=block["id"], tool=tool))
            else:
                self.skipped += 1
        if not isinstance(content, list) and content is not None:
            self.skipped += 1
        model = message.get("model")
        self.add(
            Message(
                role="assistant",
                content=tuple(blocks),
                timestamp=self.stamp(item),
                model=model if isinstance(model, str) and model else None,
                stop_reason=_stop(message.get("stopReason")),
                usage=_usage(message.get("usage")),
            )
        )

    def tool_result(self, item: Item) -> None:
        message = item.message
        call_id = message.get("toolCallId")
        if not isinstance(call_id, str):
            self.skipped += 1
            return
        content = message.get("content")
        texts: list[str] = []
        images: list[Block] = []
        if isinstance(content, str):
            texts.append(content)
        else:
            for block in self.media(content):
                if isinstance(block, Text):
                    texts.append(block.text)
                else:
                    images.append(block)
        result = ToolResult(
            tool_use_id=call_id, content="\n".join(texts), is_error=message.get("isError") is True
        )
        blocks = (result, *images)
        self.add(Message(role="user", content=blocks, timestamp=self.stamp(item)), results=True)


def bash_text(message: dict[str, Any]) -> str:
    """What pi gives the model for a user's ``!command``: the command, its output, and how it
    ended."""
    command = message.get("command")
    output = message.get("output")
    text = f"Ran `{command if isinstance(command, str) else ''}`\n"
    text += f"```\n{output}\n```" if isinstance(output, str) and output else "(no output)"
    code = message.get("exitCode")
    if message.get("cancelled") is True:
        text += "\n\n(command cancelled)"
    elif isinstance(code, int) and not isinstance(code, bool) and code != 0:
        text += f"\n\nCommand exited with code {code}"
    full = message.get("fullOutputPath")
    if message.get("truncated") is True and isinstance(full, str) and full:
        text += f"\n\n[Output truncated. Full output: {full}]"
    return text


def to_common(native: PiSession) -> Transcript:
    tree = resolve(native)
    meta = meta_of(native)
    reader = _Reader(meta)
    for item in tree.context:
        reader.read(item)
    where = f"pi session {meta.id}" if meta.id else "the pi session"
    if tree.foreign_headers:
        warn(
            f"{where}: {len(tree.foreign_headers)} later header line(s) name another session "
            f"({tree.foreign_headers[0]}); their entries are read as part of this one"
        )
    unread = reader.skipped + tree.unknown
    if unread:
        warn(
            f"{where}: {unread} entr{'y' if unread == 1 else 'ies'}, message(s) or block(s) of "
            "unknown shape left out of the conversation (they stay in the file)"
        )
    unanswered = describe_unanswered(HARNESS, meta.id, reader.messages)
    if unanswered is not None:
        warn(unanswered)
    return Transcript(meta=meta, messages=tuple(reader.messages))


# ------------------------------------------------------------------------------------ writing


def provider_of(model: str | None) -> tuple[str, str]:
    """The ``(api, provider)`` pi would record for ``model``, guessed from its name (pi resumes
    on its configured provider whatever these say; they decide whether signed reasoning is
    replayed as such)."""
    name = (model or "").lower()
    if name.startswith("claude") or "anthropic" in name:
        return "anthropic-messages", "anthropic"
    if name.startswith(("gpt", "o1", "o3", "o4", "codex", "chatgpt")):
        return "openai-responses", "openai"
    if name.startswith("gemini"):
        return "google-generative-ai", "google"
    if name.startswith("grok"):
        return "openai-completions", "xai"
    return "unknown", "unknown"


def _usage_out(usage: Usage | None) -> dict[str, Any]:
    counts = (usage.input_tokens, usage.output_tokens) if usage is not None else (0, 0)
    read = (usage.cache_read_input_tokens or 0) if usage is not None else 0
    write = (usage.cache_creation_input_tokens or 0) if usage is not None else 0
    zero = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {
        "input": counts[0],
        "output": counts[1],
        "cacheRead": read,
        "cacheWrite": write,
        "totalTokens": counts[0] + counts[1] + read + write,
        "cost": zero,
    }


def _stop_out(message: Message) -> str:
    reason = message.stop_reason
    if isinstance(reason, OtherStop):
        return reason.other
    if reason is not None and reason in STOP_REASONS:
        return _STOP_OUT[reason]
    has_calls = any(isinstance(b, ToolUse) for b in message.content)
    return "toolUse" if has_calls else "stop"


def _result_text(block: ToolResult) -> str:
    return block.content if isinstance(block.content, str) else dumps_compact(block.content)


def _image(block: Image) -> dict[str, Any]:
    return {"type": "image", "data": block.source.data, "mimeType": block.source.media_type}


def _thinking(block: Thinking, provider: str) -> dict[str, Any]:
    """A reasoning block as pi keeps it. A signature is pi's ``thinkingSignature`` (what it
    replays to the model that made it). Encrypted reasoning with no text is Anthropic's redacted
    thinking, which pi keeps as a ``redacted`` block, for an Anthropic model only: for OpenAI
    pi's ``thinkingSignature`` is the whole reasoning item as JSON, which an opaque payload is
    not. Any other encrypted payload rides along under :data:`ENCRYPTED`, a key pi ignores (so
    it sends the text, and never the payload, to any model)."""
    thinking: dict[str, Any] = {"type": "thinking", "thinking": block.text}
    if block.signature is not None:
        thinking["thinkingSignature"] = block.signature
    elif block.encrypted is not None and not block.text and provider == "anthropic":
        thinking["thinkingSignature"] = block.encrypted
        thinking["redacted"] = True
        return thinking
    if block.encrypted is not None:
        thinking[ENCRYPTED] = block.encrypted
    return thinking


def _call_text(block: ToolUse) -> str:
    if isinstance(block.tool, Command):
        return block.tool.command + (f" {block.tool.args}" if block.tool.args else "")
    return f"[tool call {tool_name(block.tool)}] {dumps_compact(tool_input(block.tool))}"


class _Writer:
    def __init__(self, transcript: Transcript) -> None:
        self.meta = transcript.meta
        self.namespace = namespace_from_ascii(NAMESPACE_TAG)
        self.used: set[str] = set()
        self.parent: str | None = None
        self.lines: list[str] = []
        self.names: dict[str, str] = {}
        #: The message entries to write, in order: their time and ``message`` body.
        self.queue: list[tuple[datetime, dict[str, Any]]] = []

    def entry_id(self, position: int) -> str:
        for attempt in itertools.count():
            key = f"{self.meta.id}:{position}" + (f":{attempt}" if attempt else "")
            candidate = uuid5(self.namespace, key)[:8]
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate
        raise AssertionError("unreachable")

    def append(self, kind: str, moment: datetime, body: dict[str, Any]) -> None:
        entry_id = self.entry_id(len(self.lines))
        record = {
            "type": kind,
            "id": entry_id,
            "parentId": self.parent,
            "timestamp": format_millis(moment),
            **body,
        }
        self.lines.append(dumps(record))
        self.parent = entry_id

    def message(self, moment: datetime, message: dict[str, Any]) -> None:
        self.queue.append((moment, {**message, "timestamp": to_epoch_ms(moment)}))

    def user(self, moment: datetime, blocks: list[dict[str, Any]]) -> None:
        if blocks:
            self.message(moment, {"role": "user", "content": blocks})

    def write_user(self, message: Message) -> None:
        pending: list[dict[str, Any]] = []
        results: list[tuple[ToolResult, list[dict[str, Any]]]] = []

        def flush_results() -> None:
            for block, images in results:
                text = [{"type": "text", "text": _result_text(block)}]
                self.message(
                    message.timestamp,
                    {
                        "role": "toolResult",
                        "toolCallId": block.tool_use_id,
                        "toolName": self.names.get(block.tool_use_id, "unknown"),
                        "content": text + images,
                        "isError": block.is_error,
                    },
                )
            results.clear()

        for block in message.content:
            if isinstance(block, ToolResult) and block.tool_use_id not in self.names:
                # The output of a user's command, or a result whose call is not in the session:
                # pi keeps results only for the model's calls (an API refuses any other), so it
                # is the user's text.
                flush_results()
                pending.append({"type": "text", "text": _result_text(block)})
                continue
            if isinstance(block, ToolResult):
                self.user(message.timestamp, pending)
                pending = []
                results.append((block, []))
                continue
            if isinstance(block, Image) and results:
                results[-1][1].append(_image(block))
                continue
            flush_results()
            if isinstance(block, Text):
                pending.append({"type": "text", "text": block.text})
            elif isinstance(block, Image):
                pending.append(_image(block))
            elif isinstance(block, Thinking):
                pending.append({"type": "text", "text": block.text})
            elif isinstance(block, ToolUse):
                pending.append({"type": "text", "text": _call_text(block)})
            elif isinstance(block, Artifact):
                pending.append({"type": "text", "text": artifact_fallback_text(block)})
        flush_results()
        self.user(message.timestamp, pending)

    def write_assistant(self, message: Message) -> None:
        content: list[dict[str, Any]] = []
        api, provider = provider_of(message.model or self.meta.model)
        for block in message.content:
            if isinstance(block, Text):
                content.append({"type": "text", "text": block.text})
            elif isinstance(block, Thinking):
                content.append(_thinking(block, provider))
            elif isinstance(block, ToolUse):
                name, arguments = tools.from_tool(block.tool)
                self.names[block.id] = name
                content.append(
                    {"type": "toolCall", "id": block.id, "name": name, "arguments": arguments}
                )
            elif isinstance(block, ToolResult):
                content.append({"type": "text", "text": _result_text(block)})
            elif isinstance(block, Image):
                content.append({"type": "text", "text": f"[image: {block.source.media_type}]"})
            elif isinstance(block, Artifact):
                content.append({"type": "text", "text": artifact_fallback_text(block)})
        self.message(
            message.timestamp,
            {
                "role": "assistant",
                "content": content,
                "api": api,
                "provider": provider,
                "model": message.model or "",
                "usage": _usage_out(message.usage),
                "stopReason": _stop_out(message),
            },
        )

    def write(self, messages: tuple[Message, ...]) -> list[str]:
        meta = self.meta
        header: dict[str, Any] = {
            "type": "session",
            "version": CURRENT_VERSION,
            "id": meta.id,
            "timestamp": format_millis(meta.timestamp),
        }
        if meta.cwd is not None:
            header["cwd"] = meta.cwd
        self.lines.append(dumps(header))
        if meta.model is not None:
            _, provider = provider_of(meta.model)
            self.append(
                "model_change", meta.timestamp, {"provider": provider, "modelId": meta.model}
            )
        for message in messages:
            if message.role == "assistant":
                self.write_assistant(message)
            else:
                self.write_user(message)
        first_prompt = next(
            (
                title
                for _, body in self.queue
                if body["role"] == "user" and (title := prompt_of(body["content"])) is not None
            ),
            None,
        )
        if meta.title is not None and meta.title != first_prompt:
            self.append("session_info", meta.timestamp, {"name": meta.title})
        for moment, body in self.queue:
            self.append("message", moment, {"message": body})
        return self.lines


def from_common(transcript: Transcript) -> PiSession:
    """A version-3 pi file holding ``transcript`` (deterministic: no clock, no randomness)."""
    transcript = answer_open_calls(transcript)
    lines = _Writer(transcript).write(transcript.messages)
    return PiSession(lines=tuple(Line(text, try_loads(text)) for text in lines))


__all__ = ["from_common", "meta_of", "to_common"]
