"""Qwen Code chats ↔ Common: the branch Qwen resumes, and the file ``qwen --resume`` opens.

**Meta** (:class:`MetaScan`, fed every record by a load and only the records it needs by the
store's discovery, so both agree exactly): the first record's ``sessionId`` (else the file stem),
``timestamp``, ``cwd``, ``gitBranch`` and ``version``; the ``model`` of the first assistant
record; the title from the last ``system/custom_title`` record, else the first line of the first
prompt.

**Messages** come from the records on the path from the leaf to the root (:mod:`.native`), so a
rewound or forked branch stays out:

* ``user`` records are prompts (Gemini ``Content`` parts: text, ``inlineData`` images,
  ``fileData`` references). A trailing ``<qwen:user-prompt-submit-context>`` part is hook context
  Qwen hides from the user, and is left out.
* an ``assistant`` record (role ``model``) is one assistant message: ``thought`` parts as
  reasoning (``thoughtSignature`` as its signature), text, and ``functionCall`` parts as calls,
  with the record's ``model`` and ``usageMetadata`` (Gemini's ``promptTokenCount`` …, or the
  ``{input, output, cached}`` shape some builds write).
* ``tool_result`` records carry ``functionResponse`` parts: ``{output: x}`` gives ``x``,
  ``{error: x}`` gives ``x`` marked ``is_error`` (so does ``toolCallResult.status: "error"``).
  Consecutive tool results are one user message, as they are one turn for the model.
* ``system/chat_compression`` with ``compressedHistory`` replaces everything before it, as it
  does in the model's context on resume; every other ``system`` record is bookkeeping (kept in the
  file). A record of a kind Qwen does not write is counted in one warning.

**Writing** (:func:`from_common`, pure): a linear ``uuid``/``parentUuid`` chain (UUIDv5 over the
session id and position) of ``user``, ``assistant`` and ``tool_result`` records shaped as Qwen
Code 0.24 writes them, each with the session's ``cwd`` and ``version``; one ``tool_result``
record per result, its ``functionResponse`` named after the call it answers; a closing
``system/custom_title`` with the title.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
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
    Usage,
    artifact_fallback_text,
    prompt_title,
)
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonlines import Line, Tally
from txcript.shared.jsonutil import dumps_compact, is_uint
from txcript.shared.timeutil import EPOCH, format_millis, format_rfc3339, parse_rfc3339

from .native import HARNESS, SYSTEM_SUBTYPES, QwenSession, active_path, records
from .tools import from_tool, to_tool

NAMESPACE = namespace_from_ascii(b"txcript-qwen!!!!")
HOOK_CONTEXT = "<qwen:user-prompt-submit-context>"
#: What a copy records as the CLI version when the source names none (Qwen's own fallback).
UNKNOWN_VERSION = "unknown"


def stamp(value: datetime) -> str:
    """A timestamp the way Qwen writes it (``toISOString``: milliseconds), or microseconds when
    the time has them."""
    return format_millis(value) if value.microsecond % 1000 == 0 else format_rfc3339(value)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _parts(record: dict[str, Any]) -> list[Any]:
    message = record.get("message")
    if not isinstance(message, dict):
        return []
    parts = message.get("parts")
    return parts if isinstance(parts, list) else []


# ------------------------------------------------------------------------------------- meta


class MetaScan:
    """The Meta of a chat, fed its records in file order (all of them, or — for a cheap scan —
    those up to :attr:`needs_head` turning false, then every ``custom_title`` record)."""

    __slots__ = ("custom_title", "fallback_id", "first", "model", "prompt")

    def __init__(self, fallback_id: str | None) -> None:
        self.fallback_id = fallback_id
        self.first: dict[str, Any] | None = None
        self.model: str | None = None
        self.prompt: str | None = None
        self.custom_title: str | None = None

    @property
    def needs_head(self) -> bool:
        return self.first is None or self.model is None or self.prompt is None

    def feed(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if self.first is None:
            self.first = record
        if kind == "assistant" and self.model is None:
            self.model = _text(record.get("model"))
        elif kind == "user" and self.prompt is None:
            self.prompt = prompt_title(_prompt_blocks(record)) or None
        elif kind == "system" and record.get("subtype") == "custom_title":
            payload = record.get("systemPayload")
            title = payload.get("customTitle") if isinstance(payload, dict) else None
            if isinstance(title, str) and title.strip():
                self.custom_title = title

    def meta(self) -> Meta:
        first = self.first or {}
        return Meta(
            id=_text(first.get("sessionId")) or self.fallback_id or "",
            timestamp=parse_rfc3339(first.get("timestamp")) or EPOCH,
            cwd=_text(first.get("cwd")),
            git_branch=_text(first.get("gitBranch")),
            title=self.custom_title or self.prompt,
            cli_version=_text(first.get("version")),
            model=self.model,
        )


def meta_of(native: QwenSession) -> Meta:
    scan = MetaScan(native.fallback_id)
    for record in records(native):
        scan.feed(record)
    return scan.meta()


# ----------------------------------------------------------------------------------- reading


def _image(part: dict[str, Any]) -> Image | None:
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
    return None


def _prompt_blocks(record: dict[str, Any], tally: Tally | None = None) -> list[Block]:
    parts = _parts(record)
    if len(parts) > 1:
        last = parts[-1]
        if isinstance(last, dict) and str(last.get("text", "")).strip().startswith(HOOK_CONTEXT):
            parts = parts[:-1]
    blocks: list[Block] = []
    for part in parts:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            blocks.append(Text(text=part["text"]))
            continue
        image = _image(part) if isinstance(part, dict) else None
        if image is not None:
            blocks.append(image)
        elif tally is not None:
            tally.add("prompt part of an unknown kind")
    return blocks


def _assistant_blocks(
    record: dict[str, Any], position: int, tally: Tally
) -> tuple[list[Block], list[str]]:
    """The blocks of an assistant record, and the ids of the calls it makes."""
    blocks: list[Block] = []
    calls: list[str] = []
    for index, part in enumerate(_parts(record)):
        if not isinstance(part, dict):
            tally.add("content part that is not an object")
            continue
        if isinstance(part.get("text"), str):
            if part.get("thought") is True:
                signature = _text(part.get("thoughtSignature"))
                blocks.append(Thinking(text=part["text"], signature=signature))
            else:
                blocks.append(Text(text=part["text"]))
            continue
        call = part.get("functionCall")
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            ident = _text(call.get("id")) or uuid5(NAMESPACE, f"call:{position}:{index}")
            blocks.append(ToolUse(id=ident, tool=to_tool(call["name"], call.get("args", {}))))
            calls.append(ident)
            continue
        image = _image(part)
        if image is not None:
            blocks.append(image)
        else:
            tally.add("model part of an unknown kind")
    return blocks, calls


def _results(
    record: dict[str, Any], pending: list[str], tally: Tally, *, texts: bool = True
) -> list[Block]:
    """The results a record's ``functionResponse`` parts carry (and, with ``texts``, its text
    parts as text, in order)."""
    outcome = record.get("toolCallResult")
    failed = isinstance(outcome, dict) and outcome.get("status") == "error"
    blocks: list[Block] = []
    for part in _parts(record):
        answer = part.get("functionResponse") if isinstance(part, dict) else None
        if not isinstance(answer, dict):
            text = part.get("text") if isinstance(part, dict) else None
            if isinstance(text, str) and texts:
                blocks.append(Text(text=text))
            elif not isinstance(text, str):
                tally.add("tool result part of an unknown kind")
            continue
        ident = _text(answer.get("id"))
        if ident is None:
            callid = outcome.get("callId") if isinstance(outcome, dict) else None
            ident = _text(callid) or (pending[0] if pending else "")
        if ident in pending:
            pending.remove(ident)
        response = answer.get("response")
        is_error = failed
        content: Any = response
        if isinstance(response, dict) and len(response) == 1:
            key = next(iter(response))
            if key in ("output", "error"):
                content = response[key]
                is_error = is_error or key == "error"
        if content is None:
            content = ""
        blocks.append(ToolResult(tool_use_id=ident, content=content, is_error=is_error))
    return blocks


def _answer(part: Any) -> bool:
    return isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)


def _usage(value: Any) -> Usage | None:
    if not isinstance(value, dict):
        return None
    if "promptTokenCount" in value or "candidatesTokenCount" in value:
        keys = ("promptTokenCount", "candidatesTokenCount", "cachedContentTokenCount")
    elif "input" in value or "output" in value:
        keys = ("input", "output", "cached")
    else:
        return None
    given, made, cached = (value.get(key) for key in keys)
    if not is_uint(given) and not is_uint(made):
        return None
    return Usage(
        input_tokens=given if isinstance(given, int) and is_uint(given) else 0,
        output_tokens=made if isinstance(made, int) and is_uint(made) else 0,
        cache_read_input_tokens=cached if isinstance(cached, int) and is_uint(cached) else None,
    )


def _compressed(record: dict[str, Any], when: datetime, tally: Tally) -> list[Message] | None:
    """The model context a ``chat_compression`` record leaves, or None when it names none."""
    payload = record.get("systemPayload")
    history = payload.get("compressedHistory") if isinstance(payload, dict) else None
    if not isinstance(history, list):
        return None
    out: list[Message] = []
    for index, content in enumerate(history):
        if not isinstance(content, dict):
            tally.add("compressed history entry that is not an object")
            continue
        fake = {"message": content}
        if content.get("role") == "model":
            blocks, _ = _assistant_blocks(fake, -1 - index, tally)
            if blocks:
                out.append(Message(role="assistant", content=tuple(blocks), timestamp=when))
        else:
            prompt = {"message": {**content, "parts": [p for p in _parts(fake) if not _answer(p)]}}
            answers = {"message": {**content, "parts": [p for p in _parts(fake) if _answer(p)]}}
            blocks = [*_prompt_blocks(prompt, tally), *_results(answers, [], tally, texts=False)]
            if blocks:
                out.append(Message(role="user", content=tuple(blocks), timestamp=when))
    return out


def to_common(native: QwenSession) -> Transcript:
    tally = Tally(f"the Qwen Code chat {native.fallback_id or ''}".rstrip())
    every = records(native, tally)
    scan = MetaScan(native.fallback_id)
    for record in every:
        scan.feed(record)
    meta = scan.meta()
    for record in every:
        subtype = record.get("subtype")
        if record.get("type") == "system" and subtype not in SYSTEM_SUBTYPES:
            tally.add(f"system record `{subtype}`" if isinstance(subtype, str) else "system")
    branch = active_path(every, tally)
    messages: list[Message] = []
    pending: list[str] = []
    when = meta.timestamp
    for position, record in enumerate(branch.path):
        when = parse_rfc3339(record.get("timestamp")) or when
        kind = record.get("type")
        if kind == "user":
            blocks = _prompt_blocks(record, tally)
            if blocks:
                messages.append(Message(role="user", content=tuple(blocks), timestamp=when))
        elif kind == "assistant":
            blocks, calls = _assistant_blocks(record, position, tally)
            pending.extend(calls)
            if blocks or record.get("usageMetadata"):
                messages.append(
                    Message(
                        role="assistant",
                        content=tuple(blocks),
                        timestamp=when,
                        model=_text(record.get("model")),
                        usage=_usage(record.get("usageMetadata")),
                    )
                )
        elif kind == "tool_result":
            blocks = _results(record, pending, tally)
            if not blocks:
                continue
            last = messages[-1] if messages else None
            if (
                last is not None
                and last.role == "user"
                and last.content
                and all(isinstance(b, ToolResult) for b in last.content)
                and all(isinstance(b, ToolResult) for b in blocks)
            ):
                messages[-1] = Message(
                    role="user", content=(*last.content, *blocks), timestamp=last.timestamp
                )
            else:
                messages.append(Message(role="user", content=tuple(blocks), timestamp=when))
        else:
            subtype = record.get("subtype")
            if subtype == "chat_compression":
                compressed = _compressed(record, when, tally)
                if compressed is not None:
                    messages = compressed
    tally.report()
    return Transcript(meta=meta, messages=tuple(messages))


# ----------------------------------------------------------------------------------- writing


def _content_parts(blocks: Iterable[Block]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, Text):
            parts.append({"text": block.text})
        elif isinstance(block, Thinking):
            part: dict[str, Any] = {"text": block.text, "thought": True}
            if block.signature is not None:
                part["thoughtSignature"] = block.signature
            parts.append(part)
        elif isinstance(block, Image):
            source = block.source
            if source.type == "base64":
                parts.append({"inlineData": {"mimeType": source.media_type, "data": source.data}})
            else:
                parts.append({"fileData": {"mimeType": source.media_type, "fileUri": source.data}})
        elif isinstance(block, Artifact):
            parts.append({"text": artifact_fallback_text(block)})
        elif isinstance(block, ToolUse):
            name, args = from_tool(block.tool)
            parts.append({"functionCall": {"id": block.id, "name": name, "args": args}})
    return parts


def _usage_metadata(usage: Usage) -> dict[str, Any]:
    out: dict[str, Any] = {"promptTokenCount": usage.input_tokens}
    if usage.cache_read_input_tokens is not None:
        out["cachedContentTokenCount"] = usage.cache_read_input_tokens
    out["candidatesTokenCount"] = usage.output_tokens
    out["totalTokenCount"] = usage.input_tokens + usage.output_tokens
    return out


class _Writer:
    def __init__(self, meta: Meta) -> None:
        self.session = meta.id
        self.cwd = meta.cwd or ""
        self.version = meta.cli_version or UNKNOWN_VERSION
        self.branch = meta.git_branch
        self.lines: list[Line] = []
        self.parent: str | None = None
        self.names: dict[str, str] = {}
        self.commands: set[str] = set()

    def add(self, kind: str, when: datetime, body: dict[str, Any]) -> None:
        uuid = uuid5(NAMESPACE, f"{self.session}:{len(self.lines)}")
        provenance = {"user": "real_user", "assistant": "assistant_output"}.get(kind, kind)
        record: dict[str, Any] = {
            "uuid": uuid,
            "parentUuid": self.parent,
            "sessionId": self.session,
            "timestamp": stamp(when),
            "type": kind,
            "provenance": provenance,
            "cwd": self.cwd,
            "version": self.version,
        }
        if self.branch is not None:
            record["gitBranch"] = self.branch
        record.update(body)
        self.lines.append(Line(dumps_compact_ordered(record), record))
        self.parent = uuid

    def message(self, message: Message) -> None:
        if message.role == "assistant":
            parts = _content_parts(message.content)
            for block in message.content:
                if isinstance(block, ToolUse):
                    self.names[block.id] = from_tool(block.tool)[0]
            body: dict[str, Any] = {} if message.model is None else {"model": message.model}
            body["message"] = {"role": "model", "parts": parts}
            if message.usage is not None:
                body["usageMetadata"] = _usage_metadata(message.usage)
            self.add("assistant", message.timestamp, body)
            return
        prompt: list[Block] = []
        for block in message.content:
            if isinstance(block, ToolUse) and isinstance(block.tool, Command):
                # A slash command the user ran is no model call: Qwen keeps it as the prompt
                # that ran it, and its output as the user's text after it.
                self.commands.add(block.id)
                command = block.tool
                typed = (
                    command.command if command.args is None else f"{command.command} {command.args}"
                )
                prompt.append(Text(text=typed))
            elif isinstance(block, ToolResult) and block.tool_use_id in self.commands:
                output = block.content
                prompt.append(Text(output if isinstance(output, str) else dumps_compact(output)))
            elif isinstance(block, ToolResult):
                if prompt:
                    self._prompt(prompt, message.timestamp)
                    prompt = []
                self._result(block, message.timestamp)
            elif not isinstance(block, ToolUse):
                prompt.append(block)
        if prompt:
            self._prompt(prompt, message.timestamp)

    def _prompt(self, blocks: list[Block], when: datetime) -> None:
        parts = _content_parts(blocks)
        self.add("user", when, {"message": {"role": "user", "parts": parts}})

    def _result(self, block: ToolResult, when: datetime) -> None:
        key = "error" if block.is_error else "output"
        name = self.names.get(block.tool_use_id, "")
        response = {"id": block.tool_use_id, "name": name, "response": {key: block.content}}
        shown = block.content if isinstance(block.content, str) else dumps_compact(block.content)
        outcome = {
            "callId": block.tool_use_id,
            "status": "error" if block.is_error else "success",
            "resultDisplay": shown,
        }
        body = {
            "message": {"role": "user", "parts": [{"functionResponse": response}]},
            "toolCallResult": outcome,
        }
        self.add("tool_result", when, body)


def dumps_compact_ordered(record: dict[str, Any]) -> str:
    """A record as one line in the key order Qwen writes (not sorted), raw UTF-8."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def from_common(transcript: Transcript) -> QwenSession:
    meta = transcript.meta
    writer = _Writer(meta)
    for message in transcript.messages:
        writer.message(message)
    if meta.title:
        when = transcript.messages[-1].timestamp if transcript.messages else meta.timestamp
        payload = {"customTitle": meta.title, "titleSource": "manual"}
        writer.add("system", when, {"subtype": "custom_title", "systemPayload": payload})
    if not writer.lines:
        # A chat needs one record to exist at all: the title record holds the session's identity.
        payload = {"customTitle": meta.title or "", "titleSource": "manual"}
        writer.add("system", meta.timestamp, {"subtype": "custom_title", "systemPayload": payload})
    return QwenSession(lines=tuple(writer.lines), trailing_newline=True, fallback_id=meta.id)


__all__ = ["HARNESS", "MetaScan", "from_common", "meta_of", "stamp", "to_common"]
