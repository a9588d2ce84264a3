"""Gemini CLI chats ↔ Common: reading both file forms, writing the log ``gemini --resume`` opens.

**Meta** (:func:`meta_of`, shared with the store's discovery so both agree exactly): ``sessionId``
(else the file stem), ``startTime`` (else the first message's time), the cwd the store resolved
from ``.project_root``/``projects.json``, the title from ``summary`` else the first line of the
first prompt, and the model of the first ``gemini`` message. Gemini records no branch and no
CLI version.

**Messages.** As Gemini's own resume rebuilds them:

* ``user`` records are prompts; ``content`` is a string or a list of Gemini Parts (text,
  ``thought`` text, ``inlineData`` images, ``fileData`` references, function calls and
  responses). Injected context — a prompt starting with ``<session_context>`` or
  ``<hook_context>``, and ``?`` help requests — is not conversation and is left out. A prompt
  starting with ``/`` is the user's slash command: a Common Command (its id is the record's id).
* a ``gemini`` record is one assistant message: its ``thoughts`` as reasoning (``**subject**``,
  a blank line, then the description), its text, then one tool call per ``toolCalls`` entry,
  with the record's ``model`` and ``tokens`` (``input``, ``output``, ``cached`` → cache reads;
  zero is absent). The calls' results follow as one user message: a ``functionResponse`` whose
  response is ``{output: …}`` or ``{error: …}`` gives that value, any other response the object
  itself, a string result the string. Status ``error`` marks the result ``is_error``;
  ``cancelled`` does too, and the text says the call was cancelled. A call with no result and
  no final status is still in flight and has none.
* ``info``, ``error`` and ``warning`` records are the CLI's notices (``/`` command output, API
  errors, warnings). Gemini's resume does not replay them to the model, and Common has no slot
  for harness notices, so they are left out of Common (the file keeps them).

**Writing** (:func:`from_common`, pure): the log form — a header (``kind: "main"``, ``startTime``
the session start, ``lastUpdated`` the latest time in the session, ``projectHash`` the sha256 of
the cwd), ``user`` records with Part content, and ``gemini`` records whose ``toolCalls`` carry
the results as ``functionResponse`` parts with the call's ``id``/``name`` and a ``status``.
Reasoning becomes ``thoughts`` (its signature has no slot); a call left without a result is
written ``cancelled`` with a result saying so, because the Gemini API refuses a replayed call
without a response. Record ids are UUIDv5 over the session id and the message position.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
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
    Usage,
    artifact_fallback_text,
    prompt_title,
)
from txcript.shared.gcpause import without_gc
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonutil import dumps_compact, is_uint
from txcript.shared.text import shown
from txcript.shared.timeutil import EPOCH, format_millis, format_rfc3339, parse_rfc3339

from .native import Chat, GeminiSession, Line, replay
from .scan import content
from .tools import from_tool, to_tool

NAMESPACE = namespace_from_ascii(b"txcript-gemini!!")
#: Prompts Gemini's resume does not replay: injected context and ``?`` help.
INJECTED = ("<session_context>", "<hook_context>", "?")
CANCELLED = "Tool call was cancelled."


def stamp(value: datetime) -> str:
    """An ISO timestamp the way Gemini writes it: milliseconds (microseconds when present)."""
    return format_millis(value) if value.microsecond % 1000 == 0 else format_rfc3339(value)


def parse_time(value: Any) -> datetime | None:
    """A Gemini timestamp: the canonical ``YYYY-MM-DDTHH:MM:SS.mmmZ`` on a fast path, anything
    else through the strict RFC 3339 parser."""
    if (
        isinstance(value, str)
        and len(value) == 24
        and value[10] == "T"
        and value[19] == "."
        and value[23] == "Z"
        and value[:4].isdigit()
        and value[20:23].isdigit()
    ):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            return None
    return parse_rfc3339(value)


def project_hash(cwd: str) -> str:
    """What Gemini records as ``projectHash``: the sha256 of the project root, in hex."""
    return hashlib.sha256(cwd.encode("utf-8", "surrogateescape")).hexdigest()


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# ------------------------------------------------------------------------------------ parts


def _parts(content: Any, where: object) -> list[Any]:
    if isinstance(content, str):
        return [{"text": content}] if content else []
    if isinstance(content, list):
        return content
    if isinstance(content, dict):  # a single Part
        return [content]
    if content is not None:
        warn(f"{where}: content is neither text nor Parts; skipped")
    return []


def _response_content(response: Any) -> Any:
    if isinstance(response, dict) and len(response) == 1:
        key = next(iter(response))
        if key in ("output", "error"):
            return response[key]
    return "" if response is None else response


def _part_block(part: Any, where: object, call_id: Callable[[], str]) -> Block | None:
    """One Part as a block; ``call_id`` mints the id of a function call that carries none."""
    if not isinstance(part, dict):
        warn(f"{where}: a content part is not an object; skipped")
        return None
    if isinstance(part.get("text"), str):
        text = part["text"]
        return Thinking(text=text) if part.get("thought") is True else Text(text=text)
    inline = part.get("inlineData")
    if isinstance(inline, dict) and isinstance(inline.get("data"), str):
        media = inline.get("mimeType")
        media = media if isinstance(media, str) else "application/octet-stream"
        return Image(source=ImageSource(type="base64", media_type=media, data=inline["data"]))
    reference = part.get("fileData")
    if isinstance(reference, dict) and isinstance(reference.get("fileUri"), str):
        media = reference.get("mimeType")
        media = media if isinstance(media, str) else "application/octet-stream"
        return Image(source=ImageSource(type="url", media_type=media, data=reference["fileUri"]))
    call = part.get("functionCall")
    if isinstance(call, dict) and isinstance(call.get("name"), str):
        ident = _text(call.get("id")) or call_id()
        return ToolUse(id=ident, tool=to_tool(call["name"], call.get("args", {})))
    answer = part.get("functionResponse")
    if isinstance(answer, dict):
        ident = _text(answer.get("id")) or call_id()
        return ToolResult(tool_use_id=ident, content=_response_content(answer.get("response")))
    kinds = shown(", ".join(sorted(part))[:60])
    warn(f"{where}: a content part of an unknown kind ({kinds}); skipped")
    return None


def _prompt_text(parts: list[Any]) -> str:
    return "".join(
        p["text"]
        for p in parts
        if isinstance(p, dict) and isinstance(p.get("text"), str) and p.get("thought") is not True
    )


def _lead(parts: list[Any]) -> str:
    """The text a prompt starts with: its first part's (what Gemini's resume checks)."""
    first = parts[0] if parts else None
    if isinstance(first, dict) and isinstance(first.get("text"), str):
        return str(first["text"])
    return ""


def _command(parts: list[Any]) -> tuple[str, str | None] | None:
    """``(command, args)`` when the prompt is one text part holding a slash command."""
    if len(parts) != 1 or not isinstance(parts[0], dict) or set(parts[0]) != {"text"}:
        return None
    text = _lead(parts)
    if not text.startswith("/"):
        return None
    command, space, args = text.partition(" ")
    return command, (args if space else None)


# ------------------------------------------------------------------------------------- meta


def _is_injected(parts: list[Any]) -> bool:
    return _lead(parts).startswith(INJECTED)


def _first_prompt_title(chat: Chat) -> str | None:
    for record in chat.messages:
        if record.get("type") != "user":
            continue
        parts = _parts(content(record.get("content")), "")
        if _is_injected(parts) or _command(parts) is not None:
            continue
        title = prompt_title([Text(text=_prompt_text(parts))])
        if title is not None:
            return title
    return None


def meta_of(native: GeminiSession, chat: Chat | None = None) -> Meta:
    """The session's Meta, from its body (replayed unless ``chat`` is given)."""
    chat = chat if chat is not None else replay(native)
    return meta_from(chat, native.fallback_id, native.cwd)


def meta_from(chat: Chat, fallback_id: str | None, cwd: str | None) -> Meta:
    """The Meta of a replayed chat (the store's discovery and a full load both use this)."""
    header = chat.header
    started = parse_time(header.get("startTime"))
    if started is None:
        for record in chat.messages:
            started = parse_time(record.get("timestamp"))
            if started is not None:
                break
    model = None
    for record in chat.messages:
        if record.get("type") == "gemini" and _text(record.get("model")):
            model = record["model"]
            break
    return Meta(
        id=_text(header.get("sessionId")) or fallback_id or "",
        timestamp=started or EPOCH,
        cwd=cwd,
        title=_text(header.get("summary")) or _first_prompt_title(chat),
        model=model,
    )


# ---------------------------------------------------------------------------------- reading


def _usage(tokens: Any) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    given, produced = tokens.get("input"), tokens.get("output")
    if not (isinstance(given, int) and isinstance(produced, int)):
        return None
    if not (is_uint(given) and is_uint(produced)):
        return None
    cached = tokens.get("cached")
    return Usage(
        input_tokens=given,
        output_tokens=produced,
        cache_read_input_tokens=cached if is_uint(cached) and cached else None,
    )


def _thought(value: Any) -> Thinking | None:
    if not isinstance(value, dict):
        return None
    subject, description = value.get("subject"), value.get("description")
    subject = subject if isinstance(subject, str) else ""
    description = description if isinstance(description, str) else ""
    if subject and description:
        return Thinking(text=f"**{subject}**\n\n{description}")
    return Thinking(text=subject or description)


def _result(call: dict[str, Any], ident: str) -> ToolResult | None:
    status = call.get("status")
    result = call.get("result")
    if isinstance(result, list) and len(result) == 1 and isinstance(result[0], dict):
        answer = result[0].get("functionResponse")
        content: Any = (
            _response_content(answer.get("response")) if isinstance(answer, dict) else result
        )
    elif isinstance(result, str):
        content = result
    elif result is None or result == []:
        content = None
    else:
        content = result
    if status == "cancelled":
        text = "" if content is None else content if isinstance(content, str) else None
        if text is None:
            return ToolResult(tool_use_id=ident, content=content, is_error=True)
        if "cancel" not in text.lower():
            text = f"[cancelled] {text}" if text else CANCELLED
        return ToolResult(tool_use_id=ident, content=text, is_error=True)
    if content is None:
        if status != "error":
            return None  # still in flight
        content = ""
    return ToolResult(tool_use_id=ident, content=content, is_error=status == "error")


@dataclass(frozen=True, slots=True)
class _Where:
    """Where a record sits, spelled out only when a warning names it."""

    label: str
    ident: str

    def __str__(self) -> str:
        return f"{self.label}: message {shown(self.ident[:40])}"


@dataclass
class _Reader:
    session_id: str
    last: datetime
    messages: list[Message] = field(default_factory=list)

    def minted(self, key: str) -> str:
        return uuid5(NAMESPACE, f"{self.session_id}:{key}")

    def minter(self, key: str) -> Callable[[], str]:
        """The id for an id-less call, minted only if one is needed."""
        return lambda: self.minted(key)

    def read(self, chat: Chat, label: str) -> list[Message]:
        for index, record in enumerate(chat.messages):
            kind = record.get("type")
            when = parse_time(record.get("timestamp")) or self.last
            self.last = when
            ident = _text(record.get("id")) or self.minted(f"record:{index}")
            where = _Where(label, ident)
            if kind == "user":
                self.user(record, when, ident, where)
            elif kind == "gemini":
                self.gemini(record, when, ident, where)
            elif kind not in ("info", "error", "warning"):
                warn(f"{where}: unknown record type `{shown(str(kind)[:40])}`; skipped")
        return self.messages

    def user(self, record: dict[str, Any], when: datetime, ident: str, where: _Where) -> None:
        parts = _parts(record.get("content"), where)
        if _is_injected(parts):
            return
        command = _command(parts)
        if command is not None:
            tool = Command(command=command[0], args=command[1])
            self.messages.append(Message("user", (ToolUse(id=ident, tool=tool),), when))
            return
        blocks = [
            b
            for j, part in enumerate(parts)
            if (b := _part_block(part, where, self.minter(f"{ident}:{j}"))) is not None
        ]
        self.messages.append(Message("user", tuple(blocks), when))

    def gemini(self, record: dict[str, Any], when: datetime, ident: str, where: _Where) -> None:
        parts = _parts(record.get("content"), where)
        blocks: list[Block] = []
        has_thoughts = any(isinstance(p, dict) and p.get("thought") is True for p in parts)
        thoughts = record.get("thoughts")
        if isinstance(thoughts, list) and not has_thoughts:
            blocks.extend(t for t in map(_thought, thoughts) if t is not None)
        for j, part in enumerate(parts):
            block = _part_block(part, where, self.minter(f"{ident}:{j}"))
            if block is not None:
                blocks.append(block)
        called = {b.id for b in blocks if isinstance(b, ToolUse)}
        results: list[ToolResult] = []
        result_time: datetime | None = None
        calls = record.get("toolCalls")
        for j, call in enumerate(calls if isinstance(calls, list) else []):
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                warn(f"{where}: toolCalls[{j}] has no tool name; skipped")
                continue
            call_id = _text(call.get("id")) or self.minted(f"{ident}:call:{j}")
            if call_id not in called:
                blocks.append(ToolUse(id=call_id, tool=to_tool(call["name"], call.get("args", {}))))
            result = _result(call, call_id)
            if result is not None:
                results.append(result)
                result_time = result_time or parse_time(call.get("timestamp"))
        self.messages.append(
            Message(
                "assistant",
                tuple(blocks),
                when,
                model=_text(record.get("model")),
                usage=_usage(record.get("tokens")),
            )
        )
        if results:
            self.messages.append(Message("user", tuple(results), result_time or when))


@without_gc
def to_common(native: GeminiSession) -> Transcript:
    chat = replay(native)
    meta = meta_of(native, chat)
    messages = _Reader(meta.id, meta.timestamp).read(chat, "the Gemini chat")
    return Transcript(meta=meta, messages=tuple(messages))


# ---------------------------------------------------------------------------------- writing


def _response(block: ToolResult) -> dict[str, Any]:
    return {"error" if block.is_error else "output": block.content}


def _display(content: Any) -> str:
    return content if isinstance(content, str) else dumps_compact(content)


class _Writer:
    def __init__(self, transcript: Transcript) -> None:
        self.meta = transcript.meta
        self.transcript = transcript
        self.records: list[dict[str, Any]] = []
        self.used: set[str] = set()
        #: Calls still waiting for their result: tool-use id → the toolCalls entry.
        self.pending: dict[str, dict[str, Any]] = {}

    def record_id(self, key: str, preferred: str | None = None) -> str:
        candidate = preferred if preferred else uuid5(NAMESPACE, f"{self.meta.id}:{key}")
        salt = 0
        while candidate in self.used:
            salt += 1
            candidate = uuid5(NAMESPACE, f"{self.meta.id}:{key}:{salt}")
        self.used.add(candidate)
        return candidate

    def part(self, block: Block) -> dict[str, Any]:
        if isinstance(block, Text):
            return {"text": block.text}
        if isinstance(block, Thinking):
            return {"text": block.text, "thought": True}
        if isinstance(block, Image):
            source = block.source
            if source.type == "base64":
                return {"inlineData": {"mimeType": source.media_type, "data": source.data}}
            return {"fileData": {"mimeType": source.media_type, "fileUri": source.data}}
        if isinstance(block, ToolUse):
            name, args = from_tool(block.tool)
            return {"functionCall": {"id": block.id, "name": name, "args": args}}
        if isinstance(block, ToolResult):
            response = {"id": block.tool_use_id, "name": "", "response": _response(block)}
            return {"functionResponse": response}
        assert isinstance(block, Artifact)
        return {"text": artifact_fallback_text(block)}

    def user(self, i: int, message: Message) -> None:
        parts: list[dict[str, Any]] = []
        when = stamp(message.timestamp)

        def flush(key: str) -> None:
            if parts:
                self.records.append(
                    {"id": self.record_id(key), "timestamp": when, "type": "user", "content": parts}
                )

        empty = True
        for j, block in enumerate(message.content):
            if isinstance(block, ToolResult) and block.tool_use_id in self.pending:
                self.answer(self.pending.pop(block.tool_use_id), block, message.timestamp)
                continue
            empty = False
            if isinstance(block, ToolResult):
                # An answer to no call written before (a slash command's output): Gemini keeps
                # such output as a notice, and the API refuses a response without its call.
                flush(f"{i}:{j}:before")
                parts = []
                self.records.append(
                    {
                        "id": self.record_id(f"{i}:{j}"),
                        "timestamp": when,
                        "type": "info",
                        "content": _display(block.content),
                    }
                )
                continue
            if isinstance(block, ToolUse) and isinstance(block.tool, Command):
                flush(f"{i}:{j}:before")
                parts = []
                tool = block.tool
                text = tool.command if tool.args is None else f"{tool.command} {tool.args}"
                self.records.append(
                    {
                        "id": self.record_id(f"{i}:{j}", block.id),
                        "timestamp": when,
                        "type": "user",
                        "content": [{"text": text}],
                    }
                )
                continue
            parts.append(self.part(block))
        if parts or (empty and not message.content):
            self.records.append(
                {"id": self.record_id(str(i)), "timestamp": when, "type": "user", "content": parts}
            )

    def answer(self, call: dict[str, Any], block: ToolResult, when: datetime) -> None:
        call["result"] = [
            {
                "functionResponse": {
                    "id": call["id"],
                    "name": call["name"],
                    "response": _response(block),
                }
            }
        ]
        call["status"] = "error" if block.is_error else "success"
        call["timestamp"] = stamp(when)
        call["resultDisplay"] = _display(block.content)

    def assistant(self, i: int, message: Message) -> None:
        thoughts: list[dict[str, Any]] = []
        content: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        when = stamp(message.timestamp)
        for block in message.content:
            if isinstance(block, Thinking):
                thoughts.append({"subject": "", "description": block.text, "timestamp": when})
            elif isinstance(block, ToolUse):
                name, args = from_tool(block.tool)
                call = {
                    "id": block.id,
                    "name": name,
                    "args": args,
                    "status": "cancelled",
                    "timestamp": when,
                    "displayName": name,
                    "renderOutputAsMarkdown": False,
                }
                calls.append(call)
                self.pending[block.id] = call
            else:
                content.append(self.part(block))
        record: dict[str, Any] = {
            "id": self.record_id(str(i)),
            "timestamp": when,
            "type": "gemini",
            "content": _gemini_content(content),
        }
        if thoughts:
            record["thoughts"] = thoughts
        if calls:
            record["toolCalls"] = calls
        if message.model is not None:
            record["model"] = message.model
        if message.usage is not None:
            usage = message.usage
            cached = usage.cache_read_input_tokens or 0
            record["tokens"] = {
                "input": usage.input_tokens,
                "output": usage.output_tokens,
                "cached": cached,
                "thoughts": 0,
                "tool": 0,
                "total": usage.input_tokens + usage.output_tokens,
            }
        self.records.append(record)

    def header(self) -> dict[str, Any]:
        meta = self.meta
        latest = max([meta.timestamp, *(m.timestamp for m in self.transcript.messages)])
        header: dict[str, Any] = {
            "sessionId": meta.id,
            "projectHash": project_hash(meta.cwd or ""),
            "startTime": stamp(meta.timestamp),
            "lastUpdated": stamp(latest),
            "kind": "main",
        }
        if meta.title:
            header["summary"] = meta.title
        return header

    def write(self) -> GeminiSession:
        for i, message in enumerate(self.transcript.messages):
            if message.role == "assistant":
                self.assistant(i, message)
            else:
                self.user(i, message)
        for call in self.pending.values():  # never answered: Gemini needs a response to replay
            call["result"] = [
                {
                    "functionResponse": {
                        "id": call["id"],
                        "name": call["name"],
                        "response": {"error": CANCELLED},
                    }
                }
            ]
            call["resultDisplay"] = CANCELLED
        lines = [self.header(), *self.records]
        return GeminiSession(
            lines=tuple(Line(dumps_compact(value), value) for value in lines),
            cwd=self.meta.cwd,
        )


def _gemini_content(parts: list[dict[str, Any]]) -> Any:
    """A single non-empty text as a string (what Gemini writes), anything else as Parts."""
    if not parts:
        return ""
    if len(parts) == 1 and set(parts[0]) == {"text"} and parts[0]["text"]:
        return parts[0]["text"]
    return parts


def from_common(transcript: Transcript) -> GeminiSession:
    return _Writer(transcript).write()
