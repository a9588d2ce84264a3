"""Codex rollouts ↔ Common: reading every generation, writing what ``codex resume`` replays.

**Meta** (:class:`MetaScan`, shared with the store's cheap discovery so both agree exactly): the
first ``session_meta`` gives id, start time, cwd, ``git.branch`` and ``cli_version``; the first
``turn_context`` gives the model; the title is the thread name (``session_index.jsonl`` or a
``thread_name_updated`` event, carried in the native body), else the first non-empty line of the
first real prompt. The scan stops as soon as it has all of them. Empty strings count as absent.

**Messages.** ``response_item`` records are the conversation (``event_msg`` copies of messages are
display-only). A user ``message`` is one Common user message once injected scaffolding
(``<environment_context>``, ``<user_instructions>``, ``# AGENTS.md instructions``, ``<permissions
instructions>``, ``<turn_aborted>``…) is dropped; developer and system messages are dropped.
Assistant text, ``reasoning`` and calls accumulate into one assistant message until a prompt, a tool
output, or a turn boundary (``token_count``, ``turn_context``, ``task_started``,
``task_complete``, ``turn_aborted``, ``error``) — so one assistant message is one model response.
Consecutive tool outputs form one user message.

**Attribution.** An assistant message takes the model of the ``turn_context`` in force. A
``token_count`` event's ``last_token_usage`` goes to the last assistant message since the
previous ``token_count`` (repeats with nothing new in between are ignored); a zero cached count is
absent. ``task_complete`` marks the turn's last assistant message ``end_turn``, ``turn_aborted``
``aborted``, and an ``error`` event ``error``; Codex records no other stop reasons.

**Writing** (:func:`from_common`, pure): a ``session_meta`` with every field resume needs (a
non-null ``model_provider``, an explicit ``base_instructions: null``, ``source: cli``…), an
``<environment_context>`` prompt naming the cwd, then per prompt a ``task_started`` and a
``turn_context``; every message, reasoning, call and output as a ``response_item`` plus the
``user_message``/``agent_message``/``agent_reasoning`` events the TUI shows; a ``token_count`` after
each assistant message; ``task_complete``/``turn_aborted``/``error`` for the stop reasons above.
Turn ids are UUIDv7-shaped, derived from the session id, turn number and turn time. Timestamps are
RFC 3339 UTC with milliseconds (microseconds when the time has them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
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
    Raw,
    StopReason,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Usage,
    artifact_fallback_text,
    prompt_title,
)
from txcript.pairing import answer_open_calls, describe_unanswered
from txcript.shared.gcpause import without_gc
from txcript.shared.ids import derived_uuid7, namespace_from_ascii, uuid5
from txcript.shared.jsonutil import dumps_compact, is_uint
from txcript.shared.timeutil import EPOCH, format_millis, format_rfc3339, parse_rfc3339

from . import tools
from .native import CodexSession, Line, Record, line_record, records

NAMESPACE = namespace_from_ascii(b"txcript-codex!!!")
SCAFFOLDING = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<INSTRUCTIONS>",
    "<turn_aborted>",
)
_BOUNDARY_STOPS: dict[str, StopReason] = {
    "task_complete": "end_turn",
    "turn_aborted": "aborted",
    "error": "error",
}
_UNSET: Any = object()
_IMAGE_TYPES = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
}


def stamp(value: datetime) -> str:
    """RFC 3339 UTC the way Codex writes it: milliseconds, or microseconds when present."""
    return format_millis(value) if value.microsecond % 1000 == 0 else format_rfc3339(value)


def derived_v7(when: datetime, key: str) -> str:
    """A UUIDv7-shaped id: ``when`` in its time bits, a hash of ``key`` in its random bits."""
    return derived_uuid7(NAMESPACE, when, key)


# ------------------------------------------------------------------------------- content items


def image_block(url: str) -> Image:
    """An ``input_image`` URL as an image: a base64 data URL, or the URL itself."""
    if url.startswith("data:"):
        header, sep, data = url[5:].partition(",")
        if sep and header.endswith(";base64"):
            return Image(source=ImageSource(type="base64", media_type=header[:-7], data=data))
    extension = url.rsplit("?", 1)[0].rsplit(".", 1)[-1].lower()
    media_type = _IMAGE_TYPES.get(extension, "image/*")
    return Image(source=ImageSource(type="url", media_type=media_type, data=url))


def image_url(image: Image) -> str:
    source = image.source
    if source.type == "base64":
        return f"data:{source.media_type};base64,{source.data}"
    return source.data


def _content_items(payload: dict[str, Any]) -> list[dict[str, Any]]:
    content = payload.get("content")
    if isinstance(content, str):
        return [{"type": "input_text", "text": content}]
    return [item for item in content if isinstance(item, dict)] if isinstance(content, list) else []


def prompt_blocks(payload: dict[str, Any]) -> list[Block]:
    """A user ``message`` item's real content: text and images, scaffolding dropped."""
    blocks: list[Block] = []
    for item in _content_items(payload):
        kind, text = item.get("type"), item.get("text")
        if kind in ("input_text", "output_text", "text") and isinstance(text, str):
            if not text.lstrip().startswith(SCAFFOLDING):
                blocks.append(Text(text=text))
        elif kind == "input_image" and isinstance(item.get("image_url"), str):
            blocks.append(image_block(item["image_url"]))
    return blocks


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# ------------------------------------------------------------------------------------- meta


@dataclass
class MetaScan:
    """The session-level facts, gathered from the head of a rollout (see the module doc)."""

    session: dict[str, Any] | None = None
    enveloped: bool = True
    first_timestamp: datetime | None = None
    model: Any = _UNSET
    prompt: Any = _UNSET

    def feed(self, record: Record) -> bool:
        """Take one record; True once nothing later can change the result."""
        if self.first_timestamp is None:
            self.first_timestamp = record.timestamp
        payload = record.payload
        if record.kind == "session_meta" and self.session is None:
            self.session, self.enveloped = payload, record.enveloped
        elif record.kind == "turn_context" and self.model is _UNSET:
            self.model = _text(payload.get("model"))
        elif (
            record.kind == "response_item"
            and self.prompt is _UNSET
            and payload.get("type") == "message"
            and payload.get("role") == "user"
        ):
            blocks = prompt_blocks(payload)
            if blocks:
                self.prompt = prompt_title(blocks)
        return (
            self.session is not None
            and self.prompt is not _UNSET
            and (self.model is not _UNSET or not self.enveloped)
        )

    def meta(self, title: str | None, fallback_id: str | None) -> Meta:
        session = self.session or {}
        git = session.get("git")
        branch = git.get("branch") if isinstance(git, dict) else None
        timestamp = parse_rfc3339(session.get("timestamp")) or self.first_timestamp or EPOCH
        return Meta(
            id=_text(session.get("id")) or fallback_id or "",
            timestamp=timestamp,
            cwd=_text(session.get("cwd")),
            git_branch=branch if isinstance(branch, str) else None,
            title=title if title is not None else (None if self.prompt is _UNSET else self.prompt),
            cli_version=_text(session.get("cli_version")),
            model=None if self.model is _UNSET else self.model,
        )


def scan_meta(items: Iterable[Record]) -> MetaScan:
    scan = MetaScan()
    for record in items:
        if scan.feed(record):
            break
    return scan


def meta_of(native: CodexSession) -> Meta:
    return scan_meta(records(native)).meta(native.title, native.fallback_id)


def last_thread_name(native: CodexSession) -> str | None:
    """The name of the rollout's last ``thread_name_updated`` event, if any."""
    name = None
    for record in records(native):
        payload = record.payload
        if record.kind == "event_msg" and payload.get("type") == "thread_name_updated":
            value = payload.get("thread_name", payload.get("name"))
            if isinstance(value, str):
                name = value
    return name


# ---------------------------------------------------------------------------------- reading


@dataclass
class _Draft:
    role: str
    timestamp: datetime
    blocks: list[Block] = field(default_factory=list)
    model: str | None = None
    stop_reason: StopReason | None = None
    usage: Usage | None = None

    def message(self) -> Message:
        return Message(
            role="user" if self.role == "user" else "assistant",
            content=tuple(self.blocks),
            timestamp=self.timestamp,
            model=self.model,
            stop_reason=self.stop_reason,
            usage=self.usage,
        )


def _usage(info: Any) -> Usage | None:
    last = info.get("last_token_usage") if isinstance(info, dict) else None
    if not isinstance(last, dict):
        return None
    input_tokens: Any = last.get("input_tokens")
    output_tokens: Any = last.get("output_tokens")
    if not is_uint(input_tokens) or not is_uint(output_tokens):
        return None
    cached: Any = last.get("cached_input_tokens")
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_input_tokens=cached if is_uint(cached) and cached > 0 else None,
    )


def _thinking(payload: dict[str, Any]) -> Thinking:
    def texts(key: str) -> list[str]:
        parts = payload.get(key)
        if not isinstance(parts, list):
            return []
        return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]

    summary = texts("summary")
    encrypted = payload.get("encrypted_content")
    return Thinking(
        text="\n\n".join(summary or texts("content")),
        encrypted=encrypted if isinstance(encrypted, str) else None,
    )


@dataclass
class _SideEvents:
    """What display events say about calls, gathered before reading (they may come either side
    of the call's output): ``exec_command_end`` output and exit code, failed MCP calls."""

    exec_end: dict[str, tuple[str, bool]] = field(default_factory=dict)
    mcp_failed: set[str] = field(default_factory=set)
    outputs: set[str] = field(default_factory=set)

    @classmethod
    def scan(cls, items: list[Record]) -> _SideEvents:
        found = cls()
        for record in items:
            payload = record.payload
            kind = payload.get("type")
            call_id = payload.get("call_id")
            if not isinstance(call_id, str):
                continue
            if record.kind == "response_item" and kind in (
                "function_call_output",
                "custom_tool_call_output",
            ):
                found.outputs.add(call_id)
            elif record.kind != "event_msg":
                continue
            elif kind == "exec_command_end":
                text, code = payload.get("aggregated_output"), payload.get("exit_code")
                if isinstance(text, str) and type(code) is int:
                    found.exec_end[call_id] = (text, code != 0)
            elif kind == "mcp_tool_call_end":
                result = payload.get("result")
                ok = result.get("Ok") if isinstance(result, dict) else None
                if (isinstance(result, dict) and "Err" in result) or (
                    isinstance(ok, dict) and ok.get("isError") is True
                ):
                    found.mcp_failed.add(call_id)
        return found


class _Reader:
    def __init__(self, meta: Meta, side: _SideEvents | None = None) -> None:
        self.side = side if side is not None else _SideEvents()
        self.answered: set[str] = set()
        self.session_id = meta.id
        self.last_timestamp = meta.timestamp
        self.drafts: list[_Draft] = []
        self.assistant: _Draft | None = None
        self.results: _Draft | None = None
        self.usage_target: _Draft | None = None
        self.turn_last: _Draft | None = None
        self.model: str | None = None
        self.calls: dict[str, str] = {}

    def read(self, items: Iterable[Record]) -> list[Message]:
        for record in items:
            if record.timestamp is not None:
                self.last_timestamp = record.timestamp
            if record.kind == "response_item":
                self.item(record)
            elif record.kind == "event_msg":
                self.event(record.payload)
            elif record.kind == "turn_context":
                self.assistant = None
                self.model = _text(record.payload.get("model"))
        return [draft.message() for draft in self.drafts]

    def event(self, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "token_count":
            self.assistant = None
            usage = _usage(payload.get("info"))
            target = self.usage_target
            if usage is not None and target is not None and target.usage is None:
                target.usage = usage
            self.usage_target = None
        elif kind == "task_started":
            self.assistant, self.turn_last = None, None
        elif kind == "exec_command_end":
            # The fallback when the rollout holds no output item for the call.
            call_id = payload.get("call_id")
            ended = self.side.exec_end.get(call_id) if isinstance(call_id, str) else None
            if (
                ended is not None
                and isinstance(call_id, str)
                and call_id in self.calls
                and call_id not in self.side.outputs
                and call_id not in self.answered
            ):
                self.add_result(
                    ToolResult(tool_use_id=call_id, content=ended[0], is_error=ended[1])
                )
        elif isinstance(kind, str) and kind in _BOUNDARY_STOPS:
            self.assistant = None
            if self.turn_last is not None and self.turn_last.stop_reason is None:
                self.turn_last.stop_reason = _BOUNDARY_STOPS[kind]
            self.turn_last = None

    def call_id(self, payload: dict[str, Any], record: Record) -> str:
        for key in ("call_id", "id"):
            value = payload.get(key)
            if isinstance(value, str) and value:
                return value
        return uuid5(NAMESPACE, f"{self.session_id}:{record.index}")

    def item(self, record: Record) -> None:
        payload = record.payload
        kind = payload.get("type")
        name = payload.get("name")
        if kind == "message":
            role = payload.get("role")
            if role == "user":
                blocks = prompt_blocks(payload)
                if blocks:
                    self.assistant = self.results = self.turn_last = None
                    self.drafts.append(_Draft("user", self.last_timestamp, blocks))
            elif role == "assistant":
                for item in _content_items(payload):
                    text = item.get("text", item.get("refusal"))
                    if isinstance(text, str):
                        self.add_assistant(Text(text=text))
        elif kind == "reasoning":
            self.add_assistant(_thinking(payload))
        elif kind in ("function_call", "custom_tool_call") and isinstance(name, str):
            call_id = self.call_id(payload, record)
            if kind == "function_call":
                tool = tools.call_tool(name, payload.get("arguments"))
            else:
                tool = tools.custom_tool(name, payload.get("input"))
            self.calls[call_id] = name
            self.add_assistant(ToolUse(id=call_id, tool=tool))
        elif kind == "local_shell_call":
            call_id = self.call_id(payload, record)
            self.calls[call_id] = "local_shell"
            tool = tools.local_shell_tool(payload.get("action"))
            self.add_assistant(ToolUse(id=call_id, tool=tool))
        elif kind == "web_search_call":
            action = payload.get("action")
            tool = Raw(tool_name="web_search", input=action if action is not None else {})
            self.add_assistant(ToolUse(id=self.call_id(payload, record), tool=tool))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            answered = payload.get("call_id")
            if isinstance(answered, str):
                self.add_result(self.result(answered, payload.get("output")))

    def result(self, call_id: str, output: Any) -> ToolResult:
        exec_family = self.calls.get(call_id) in tools.EXEC_FAMILY
        is_error = False
        if (
            isinstance(output, dict)
            and isinstance(output.get("content"), str)
            and set(output) <= {"content", "success"}
        ):
            is_error = output.get("success") is False
            output = output["content"]
        if isinstance(output, str) and exec_family:
            unwrapped = tools.exec_unwrap(output)
            if unwrapped is None:
                unwrapped = self.side.exec_end.get(call_id, (output, False))
            output, failed = unwrapped
            is_error = is_error or failed
        elif isinstance(output, str):
            # Any other tool's failure, written in the shell envelope (Codex has no other slot).
            enveloped = tools.json_envelope(output)
            if enveloped is not None:
                output, is_error = enveloped[0], is_error or enveloped[1]
        is_error = is_error or call_id in self.side.mcp_failed
        return ToolResult(tool_use_id=call_id, content=output, is_error=is_error)

    def add_assistant(self, block: Block) -> None:
        self.results = None
        if self.assistant is None:
            self.assistant = _Draft("assistant", self.last_timestamp, model=self.model)
            self.drafts.append(self.assistant)
            self.usage_target = self.turn_last = self.assistant
        self.assistant.blocks.append(block)

    def add_result(self, block: ToolResult) -> None:
        self.answered.add(block.tool_use_id)
        self.assistant = None
        if self.results is None:
            self.results = _Draft("user", self.last_timestamp)
            self.drafts.append(self.results)
        self.results.blocks.append(block)


@without_gc
def to_common(native: CodexSession) -> Transcript:
    meta = meta_of(native)
    items = list(records(native))
    messages = _Reader(meta, _SideEvents.scan(items)).read(items)
    unanswered = describe_unanswered("codex", meta.id, messages)
    if unanswered is not None:
        warn(unanswered)
    return Transcript(meta=meta, messages=tuple(messages))


# ---------------------------------------------------------------------------------- writing


class _Writer:
    def __init__(self, transcript: Transcript) -> None:
        self.meta = transcript.meta
        self.lines: list[dict[str, Any]] = []
        self.model: str | None = None
        self.context_written = False
        self.turns = 0
        self.turn_id: str | None = None
        self.calls: dict[str, tuple[str, str]] = {}
        self.commands: set[str] = set()
        self.totals = {"input": 0, "cached": 0, "output": 0}

    def emit(self, when: datetime, kind: str, payload: dict[str, Any]) -> None:
        self.lines.append({"timestamp": stamp(when), "type": kind, "payload": payload})

    def session_meta(self) -> None:
        meta = self.meta
        payload: dict[str, Any] = {
            "id": meta.id,
            "timestamp": stamp(meta.timestamp),
            "cwd": meta.cwd or "",
            "originator": "codex_cli_rs",
            "cli_version": meta.cli_version or "",
            "source": "cli",
            "model_provider": "openai",
            "base_instructions": None,
        }
        if meta.git_branch is not None:
            payload["git"] = {"branch": meta.git_branch}
        self.emit(meta.timestamp, "session_meta", payload)
        if meta.cwd:
            context = (
                "<environment_context>\n"
                f"  <cwd>{meta.cwd}</cwd>\n"
                "  <approval_policy>on-request</approval_policy>\n"
                "  <sandbox_mode>read-only</sandbox_mode>\n"
                "</environment_context>"
            )
            content = [{"type": "input_text", "text": context}]
            item = {"type": "message", "role": "user", "content": content}
            self.emit(meta.timestamp, "response_item", item)

    def turn_context(self, when: datetime, model: str | None) -> None:
        self.emit(
            when,
            "turn_context",
            {
                "turn_id": self.turn_id,
                "cwd": self.meta.cwd or "",
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "read-only"},
                "model": model or "",
                "summary": "auto",
            },
        )
        self.model, self.context_written = model or None, True

    def start_turn(self, when: datetime) -> None:
        self.turns += 1
        self.turn_id = derived_v7(when, f"{self.meta.id}:turn:{self.turns}")
        self.emit(
            when,
            "event_msg",
            {"type": "task_started", "turn_id": self.turn_id, "model_context_window": None},
        )
        self.turn_context(when, self.model if self.context_written else self.meta.model)

    def prompt(self, when: datetime, content: list[dict[str, Any]]) -> None:
        if not content:
            return
        self.start_turn(when)
        self.emit(when, "response_item", {"type": "message", "role": "user", "content": content})
        text = "\n".join(i["text"] for i in content if i["type"] == "input_text")
        images = [i["image_url"] for i in content if i["type"] == "input_image"]
        event = {
            "type": "user_message",
            "message": text,
            "images": images,
            "local_images": [],
            "text_elements": [],
        }
        self.emit(when, "event_msg", event)

    def call(self, when: datetime, block: ToolUse) -> None:
        name, item = tools.native_call(block.tool, block.id)
        self.calls[block.id] = (name, item["type"])
        self.emit(when, "response_item", item)

    def output(self, when: datetime, block: ToolResult) -> None:
        name, kind = self.calls.get(block.tool_use_id, ("", "function_call"))
        content = block.content
        text = content if isinstance(content, str) else dumps_compact(content)
        if (
            name in tools.EXEC_FAMILY
            or block.is_error
            or tools.json_envelope(text) is not None  # would read back unwrapped otherwise
        ):
            text = tools.exec_envelope(text, block.is_error)
        item = {"type": f"{kind}_output", "call_id": block.tool_use_id, "output": text}
        self.emit(when, "response_item", item)

    def reasoning(self, when: datetime, block: Thinking) -> None:
        summary = [{"type": "summary_text", "text": block.text}] if block.text else []
        item = {
            "type": "reasoning",
            "summary": summary,
            "content": None,
            "encrypted_content": block.encrypted,
        }
        self.emit(when, "response_item", item)
        if block.text:
            self.emit(when, "event_msg", {"type": "agent_reasoning", "text": block.text})

    def user(self, message: Message) -> None:
        when = message.timestamp
        content: list[dict[str, Any]] = []
        for block in message.content:
            if isinstance(block, Text):
                content.append({"type": "input_text", "text": block.text})
            elif isinstance(block, Image):
                content.append({"type": "input_image", "image_url": image_url(block)})
            elif isinstance(block, Artifact):
                content.append({"type": "input_text", "text": artifact_fallback_text(block)})
            elif isinstance(block, ToolUse) and isinstance(block.tool, Command):
                self.commands.add(block.id)
                args = f" {block.tool.args}" if block.tool.args else ""
                content.append({"type": "input_text", "text": block.tool.command + args})
            elif isinstance(block, ToolResult) and block.tool_use_id in self.commands:
                shown = block.content if block.is_text else dumps_compact(block.content)
                content.append({"type": "input_text", "text": shown})
            else:
                self.prompt(when, content)
                content = []
                self.other(when, block)
        self.prompt(when, content)

    def other(self, when: datetime, block: Block) -> None:
        if isinstance(block, ToolUse):
            self.call(when, block)
        elif isinstance(block, ToolResult):
            self.output(when, block)
        elif isinstance(block, Thinking):
            self.reasoning(when, block)

    def assistant(self, message: Message) -> None:
        if not message.content:
            return
        when = message.timestamp
        if self.turn_id is None:
            self.start_turn(when)
        if (message.model or None) != self.model or not self.context_written:
            self.turn_context(when, message.model)
        texts: list[dict[str, Any]] = []
        last_text: str | None = None

        def flush() -> None:
            if texts:
                item = {"type": "message", "role": "assistant", "content": list(texts)}
                self.emit(when, "response_item", item)
                for part in texts:
                    self.emit(when, "event_msg", {"type": "agent_message", "message": part["text"]})
                texts.clear()

        for block in message.content:
            if isinstance(block, Text | Image | Artifact):
                if isinstance(block, Text):
                    text = block.text
                elif isinstance(block, Image):
                    text = f"[image {block.source.media_type} omitted]"
                else:
                    text = artifact_fallback_text(block)
                texts.append({"type": "output_text", "text": text})
                last_text = text
            else:
                flush()
                self.other(when, block)
        flush()
        self.token_count(when, message.usage)
        self.stop(when, message.stop_reason, last_text)

    def token_count(self, when: datetime, usage: Usage | None) -> None:
        info: dict[str, Any] | None = None
        if usage is not None:
            cached = usage.cache_read_input_tokens or 0
            self.totals["input"] += usage.input_tokens
            self.totals["cached"] += cached
            self.totals["output"] += usage.output_tokens
            totals = self.totals
            info = {
                "total_token_usage": _token_usage(
                    totals["input"], totals["cached"], totals["output"]
                ),
                "last_token_usage": _token_usage(usage.input_tokens, cached, usage.output_tokens),
                "model_context_window": None,
            }
        self.emit(when, "event_msg", {"type": "token_count", "info": info, "rate_limits": None})

    def stop(self, when: datetime, reason: StopReason | None, last_text: str | None) -> None:
        if reason == "end_turn":
            payload = {
                "type": "task_complete",
                "turn_id": self.turn_id,
                "last_agent_message": last_text,
            }
        elif reason == "aborted":
            payload = {"type": "turn_aborted", "turn_id": self.turn_id, "reason": "interrupted"}
        elif reason == "error":
            payload = {"type": "error", "message": "the turn ended with an error"}
        else:
            return
        self.emit(when, "event_msg", payload)
        self.turn_id = None

    def write(self, messages: Iterable[Message]) -> list[dict[str, Any]]:
        self.session_meta()
        for message in messages:
            if message.role == "user":
                self.user(message)
            else:
                self.assistant(message)
        if not self.context_written and self.meta.model is not None:
            self.turn_context(self.meta.timestamp, self.meta.model)
        return self.lines


def _token_usage(input_tokens: int, cached: int, output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "cached_input_tokens": cached,
        "output_tokens": output_tokens,
        "reasoning_output_tokens": 0,
        "total_tokens": input_tokens + output_tokens,
    }


def from_common(transcript: Transcript) -> CodexSession:
    """The rollout Codex resumes for this transcript (pure and deterministic)."""
    transcript = answer_open_calls(transcript)
    meta = transcript.meta
    lines = _Writer(transcript).write(transcript.messages)
    heads = (line_record(i, value) for i, value in enumerate(lines))
    derived = scan_meta(r for r in heads if r is not None).prompt
    title = None
    if meta.title is not None and meta.title != (None if derived is _UNSET else derived):
        title = meta.title
        event = {"type": "thread_name_updated", "thread_id": meta.id, "thread_name": title}
        lines.insert(1, {"timestamp": stamp(meta.timestamp), "type": "event_msg", "payload": event})
    native = tuple(Line(tools.dumps(value), value) for value in lines)
    return CodexSession(lines=native, title=title)


def with_rollout_title(native: CodexSession) -> CodexSession:
    """The body with its title taken from the rollout's own ``thread_name_updated`` events."""
    return replace(native, title=last_thread_name(native))
