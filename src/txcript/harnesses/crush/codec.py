"""Crush sessions ↔ Common.

**Times** are Unix **seconds** in every ``created_at``/``updated_at``/``finished_at`` column and
in a ``finish`` part's ``time``, whatever Crush's schema comments say ("milliseconds"). A value
too large to be seconds (after the year 5138) is read as milliseconds, so a row written by a tool
that believed the comments still lands on its day.

**Meta**: the session row's ``id``, ``created_at``, ``title``, the project directory as cwd, and
the first assistant message's ``model``. Crush records no branch and no CLI version.

**Messages**, ordered by ``created_at`` then rowid (several share a second): ``user`` and
``assistant`` messages map one to one; a ``tool`` message holds the results of the calls before
it and becomes a user message of tool results, each with its ``is_error``. Parts: ``text``,
``reasoning`` (thinking and signature), ``tool_call`` (its ``input`` is JSON text; text that is
not JSON stays Raw as it is), ``tool_result``, ``binary`` and ``image_url`` images, a user's
``shell_command`` (shown as its command and output), and ``finish``, whose reason is the
message's stop reason (``canceled`` → aborted). With ``summary_message_id`` set, Crush's context
starts at that summary (Crush sends it as the user's turn); so does Common, and the compacted
messages before it stay in the database only. ``system`` messages and unknown parts are kept in
the native body and counted in one warning. Usage is kept per session only.

**Writing** (:func:`from_common`, pure): one ``sessions`` row (title, message count, summed
prompt and completion tokens, times in seconds) and one ``messages`` row per message, with a
``finish`` part on every assistant message and the results of each call in a ``tool`` message;
a user message holding both results and text is written as a ``tool`` message then a ``user``
message. Message ids are UUIDv5 over the session id and position.
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
    OtherStop,
    StopReason,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    artifact_fallback_text,
)
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonutil import INVALID, dumps_compact, try_loads
from txcript.shared.text import shown
from txcript.shared.timeutil import EPOCH, from_epoch_ms, to_epoch_ms

from .native import CrushMessage, CrushSession
from .tools import from_tool, to_tool

NAMESPACE = namespace_from_ascii(b"txcript-crush!!!")
#: A time beyond this many seconds (the year 5138) can only be milliseconds.
_MAX_SECONDS = 100_000_000_000
_TO_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "max_tokens": "max_tokens",
    "tool_use": "tool_use",
    "canceled": "aborted",
    "error": "error",
}
_FROM_STOP = {
    "end_turn": "end_turn",
    "max_tokens": "max_tokens",
    "tool_use": "tool_use",
    "aborted": "canceled",
    "error": "error",
}


def moment(value: Any) -> datetime | None:
    """A Crush time column (Unix seconds; milliseconds when too large to be seconds)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        if abs(value) > _MAX_SECONDS:
            return from_epoch_ms(int(value))
        return from_epoch_ms(int(value * 1000))
    except (OverflowError, ValueError):
        return None


def seconds(value: datetime) -> int:
    return to_epoch_ms(value) // 1000


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def first_model(messages: tuple[CrushMessage, ...]) -> str | None:
    for message in messages:
        if message.role == "assistant":
            model = _string(message.row.get("model"))
            if model is not None:
                return model
    return None


def meta_from(row: dict[str, Any], project: str | None, model: str | None) -> Meta:
    return Meta(
        id=row["id"] if isinstance(row.get("id"), str) else "",
        timestamp=moment(row.get("created_at")) or EPOCH,
        cwd=project,
        title=_string(row.get("title")),
        model=model,
    )


def meta_of(native: CrushSession) -> Meta:
    return meta_from(native.session, native.project, first_model(native.messages))


def ordered(messages: tuple[CrushMessage, ...]) -> list[CrushMessage]:
    """Crush's order: ``created_at``, then the order rows were inserted (the given order)."""
    indexed = list(enumerate(messages))
    indexed.sort(key=lambda item: (_sort_time(item[1].row.get("created_at")), item[0]))
    return [message for _, message in indexed]


def _sort_time(value: Any) -> float:
    when = moment(value)
    return when.timestamp() if when is not None else float("-inf")


class _Reader:
    def __init__(self, native: CrushSession) -> None:
        self.native = native
        self.label = f"Crush session {shown(native.id or '(text)')}"
        self.skipped: Counter[str] = Counter()

    def part(self, part: Any, role: str, blocks: list[Block]) -> StopReason | None:
        if not isinstance(part, dict):
            self.skipped["part that is not an object"] += 1
            return None
        kind, data = part.get("type"), part.get("data")
        if not isinstance(data, dict):
            data = {}
        if kind == "text" and isinstance(data.get("text"), str):
            blocks.append(Text(data["text"]))
        elif kind == "reasoning" and isinstance(data.get("thinking"), str):
            signature = data.get("signature")
            signed = signature if isinstance(signature, str) and signature else None
            blocks.append(Thinking(data["thinking"], signed))
        elif kind == "tool_call" and isinstance(data.get("id"), str):
            raw = data.get("input")
            parsed = try_loads(raw) if isinstance(raw, str) else raw
            tool_input = raw if parsed is INVALID else parsed
            name = data["name"] if isinstance(data.get("name"), str) else ""
            blocks.append(ToolUse(id=data["id"], tool=to_tool(name, tool_input)))
        elif kind == "tool_result" and isinstance(data.get("tool_call_id"), str):
            content = data.get("content")
            blocks.append(
                ToolResult(
                    tool_use_id=data["tool_call_id"],
                    content=content if isinstance(content, str) else "",
                    is_error=data.get("is_error") is True,
                )
            )
        elif kind == "finish":
            reason = data.get("reason")
            if isinstance(reason, str) and reason:
                return _TO_STOP.get(reason) or OtherStop(other=reason)
        elif kind == "binary" and isinstance(data.get("Data"), str):
            mime = data["MIMEType"] if isinstance(data.get("MIMEType"), str) else ""
            blocks.append(Image(ImageSource(type="base64", media_type=mime, data=data["Data"])))
        elif kind == "image_url" and isinstance(data.get("url"), str):
            image = _data_url(data["url"])
            blocks.append(image if image is not None else Text(data["url"]))
        elif kind == "shell_command" and isinstance(data.get("command"), str):
            output = data.get("output") if isinstance(data.get("output"), str) else ""
            blocks.append(Text(f"$ {data['command']}\n{output}".rstrip("\n")))
        else:
            self.skipped[f"{kind} part" if isinstance(kind, str) else "untyped part"] += 1
        return None

    def message(self, message: CrushMessage, role: str) -> Message | None:
        parts = message.parts
        if not isinstance(parts, list):
            self.skipped["message whose parts are not a JSON list"] += 1
            return None
        blocks: list[Block] = []
        stop: StopReason | None = None
        for part in parts:
            stop = self.part(part, role, blocks) or stop
        if not blocks:
            return None
        when = moment(message.row.get("created_at")) or EPOCH
        if role == "assistant":
            model = _string(message.row.get("model"))
            return Message(
                role="assistant",
                content=tuple(blocks),
                timestamp=when,
                model=model,
                stop_reason=stop,
            )
        return Message(role="user", content=tuple(blocks), timestamp=when)

    def read(self) -> Transcript:
        native = self.native
        messages = ordered(native.messages)
        summary = native.session.get("summary_message_id")
        start = next((i for i, m in enumerate(messages) if summary and m.id == summary), 0)
        out: list[Message] = []
        for index, message in enumerate(messages[start:]):
            role = message.role
            if index == 0 and start and message.id == summary:
                role = "user"  # Crush sends the summary as the user's turn
            elif role == "tool":
                role = "user"
            elif role not in ("user", "assistant"):
                self.skipped[f"{role or 'untyped'} message"] += 1
                continue
            built = self.message(message, role)
            if built is not None:
                out.append(built)
        if self.skipped:
            kinds = ", ".join(f"{n} {what}" for what, n in sorted(self.skipped.items()))
            warn(f"{self.label}: kept in the database but left out of the conversation: {kinds}")
        return Transcript(meta=meta_of(native), messages=tuple(out))


def _data_url(url: str) -> Image | None:
    if not url.startswith("data:") or ";base64," not in url:
        return None
    head, _, data = url[5:].partition(";base64,")
    return Image(ImageSource(type="base64", media_type=head, data=data))


def to_common(native: CrushSession) -> Transcript:
    return _Reader(native).read()


# ------------------------------------------------------------------------------- writing


def _part(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "data": data}


def _dumps(value: Any) -> str:
    """JSON the way Go's encoder writes it: compact, fields in the order given."""
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class _Writer:
    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.session_id = transcript.meta.id
        self.rows: list[dict[str, Any]] = []
        self.names: dict[str, str] = {}
        #: The user's slash commands (written as the user's text, with their output).
        self.commands: set[str] = set()

    def row(self, role: str, parts: list[dict[str, Any]], when: datetime, **extra: Any) -> None:
        stamp = seconds(when)
        ident = uuid5(NAMESPACE, f"{self.session_id}:message:{len(self.rows)}")
        self.rows.append(
            {
                "id": ident,
                "session_id": self.session_id,
                "role": role,
                "parts": _dumps(parts),
                "model": extra.get("model"),
                "created_at": stamp,
                "updated_at": stamp,
                "finished_at": stamp if role == "assistant" else None,
            }
        )

    def assistant(self, message: Message) -> None:
        parts: list[dict[str, Any]] = []
        calls = False
        for block in message.content:
            if isinstance(block, Text):
                parts.append(_part("text", {"text": block.text}))
            elif isinstance(block, Thinking):
                data: dict[str, Any] = {"thinking": block.text}
                if block.signature:
                    data["signature"] = block.signature
                parts.append(_part("reasoning", data))
            elif isinstance(block, ToolUse):
                calls = True
                name, tool_input = from_tool(block.tool)
                self.names[block.id] = name
                text = tool_input if isinstance(tool_input, str) else dumps_compact(tool_input)
                parts.append(
                    _part(
                        "tool_call",
                        {
                            "id": block.id,
                            "name": name,
                            "input": text,
                            "provider_executed": False,
                            "finished": True,
                        },
                    )
                )
            elif isinstance(block, Image):
                parts.append(_image(block))
            elif isinstance(block, Artifact):
                parts.append(_part("text", {"text": artifact_fallback_text(block)}))
            elif isinstance(block, ToolResult):
                parts.append(_part("text", {"text": _result_text(block)}))
        stop = message.stop_reason
        if isinstance(stop, OtherStop):
            reason = stop.other
        elif stop is not None:
            reason = _FROM_STOP.get(stop, "unknown")
        else:
            reason = "tool_use" if calls else "end_turn"
        parts.append(_part("finish", {"reason": reason, "time": seconds(message.timestamp)}))
        self.row("assistant", parts, message.timestamp, model=message.model)

    def user(self, message: Message) -> None:
        for block in message.content:
            if isinstance(block, ToolUse) and isinstance(block.tool, Command):
                self.commands.add(block.id)
        results = [
            b
            for b in message.content
            if isinstance(b, ToolResult) and b.tool_use_id not in self.commands
        ]
        others = [b for b in message.content if b not in results]
        if results:
            parts = [
                _part(
                    "tool_result",
                    {
                        "tool_call_id": block.tool_use_id,
                        "name": self.names.get(block.tool_use_id, ""),
                        "content": _result_text(block),
                        "metadata": "",
                        "is_error": block.is_error,
                    },
                )
                for block in results
            ]
            self.row("tool", parts, message.timestamp)
        if others:
            parts = []
            for block in others:
                if isinstance(block, Text):
                    parts.append(_part("text", {"text": block.text}))
                elif isinstance(block, Image):
                    parts.append(_image(block))
                elif isinstance(block, Artifact):
                    parts.append(_part("text", {"text": artifact_fallback_text(block)}))
                elif isinstance(block, Thinking):
                    parts.append(_part("text", {"text": block.text}))
                elif isinstance(block, ToolResult):  # a slash command's output
                    parts.append(_part("text", {"text": _result_text(block)}))
                elif isinstance(block, ToolUse) and isinstance(block.tool, Command):
                    args = f" {block.tool.args}" if block.tool.args else ""
                    parts.append(_part("text", {"text": block.tool.command + args}))
                elif isinstance(block, ToolUse):
                    name, tool_input = from_tool(block.tool)
                    shown_input = (
                        tool_input if isinstance(tool_input, str) else dumps_compact(tool_input)
                    )
                    parts.append(_part("text", {"text": f"{name} {shown_input}".strip()}))
            self.row("user", parts, message.timestamp)

    def write(self) -> CrushSession:
        meta = self.transcript.meta
        for message in self.transcript.messages:
            if message.role == "assistant":
                self.assistant(message)
            else:
                self.user(message)
        prompt = sum(m.usage.input_tokens for m in self.transcript.messages if m.usage)
        completion = sum(m.usage.output_tokens for m in self.transcript.messages if m.usage)
        created = seconds(meta.timestamp)
        updated = max([created, *(row["created_at"] for row in self.rows)])
        session = {
            "id": self.session_id,
            "parent_session_id": None,
            "title": meta.title or "",
            "message_count": len(self.rows),
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "cost": 0.0,
            "updated_at": updated,
            "created_at": created,
        }
        return CrushSession(
            session=session,
            messages=tuple(CrushMessage(row) for row in self.rows),
            project=meta.cwd,
        )


def _result_text(block: ToolResult) -> str:
    return block.content if isinstance(block.content, str) else dumps_compact(block.content)


def _image(block: Image) -> dict[str, Any]:
    source = block.source
    return _part("binary", {"Path": "", "MIMEType": source.media_type, "Data": source.data})


def from_common(transcript: Transcript) -> CrushSession:
    return _Writer(transcript).write()
