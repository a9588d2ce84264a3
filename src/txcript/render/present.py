"""What a reader sees of a session: the shared content of the Markdown and HTML exports.

:func:`present` turns a transcript (or a range of it) into plain values: per message its number,
role and time, then one item per block. Typed tools become what a person reads (a shell command,
an edit as a diff, a read as a path and range); anything else shows its input as JSON. Long
bodies are cut to their first lines with a count of what was left out, unless ``full``.

Both document formats render these values and nothing else, so they always say the same thing.
"""

from __future__ import annotations

import base64
import binascii
import difflib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeAlias

import msgspec

from txcript.fragment import Span
from txcript.model import (
    Artifact,
    Base64Source,
    Bash,
    Block,
    Command,
    Edit,
    Image,
    Message,
    MultiEdit,
    OtherStop,
    PathSource,
    Raw,
    Read,
    Text,
    Thinking,
    Tool,
    ToolResult,
    ToolUse,
    Transcript,
    Write,
    tool_name,
)

#: A body longer than this many lines is cut to them (``--full`` keeps everything).
MAX_LINES = 40
#: ...and one whose kept lines still exceed this many characters is cut there.
MAX_CHARS = 8_000
#: Edits larger than this (old + new lines) are shown as plain removals and additions: a
#: line diff of huge strings is slow and no easier to read.
_DIFF_LINE_LIMIT = 4_000
#: Image types a browser shows from a ``data:`` URI; anything else is described, not embedded.
IMAGE_TYPES = frozenset(
    ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/avif")
)
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")

Language: TypeAlias = Literal["sh", "diff", "json", "text"]


@dataclass(frozen=True, slots=True)
class Body:
    """A block of literal text (code, output, a diff), possibly cut."""

    language: Language
    text: str
    #: Lines not shown (0 when whole), and whether the last shown line was cut short.
    lines_left_out: int = 0
    chars_cut: bool = False

    @property
    def cut(self) -> bool:
        return self.lines_left_out > 0 or self.chars_cut

    def cut_note(self) -> str:
        parts = []
        if self.chars_cut:
            parts.append("the rest of the last line")
        if self.lines_left_out:
            unit = "line" if self.lines_left_out == 1 else "lines"
            parts.append(f"{self.lines_left_out:,} more {unit}")
        return " and ".join(parts) + " left out (export with --full to keep everything)"


@dataclass(frozen=True, slots=True)
class TextItem:
    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ThinkingItem:
    text: str
    #: True when the reasoning is only held encrypted (nothing readable).
    encrypted_only: bool
    kind: Literal["thinking"] = "thinking"


@dataclass(frozen=True, slots=True)
class ToolCallItem:
    number: int
    name: str
    #: The one thing the call is about (a path, a command line, a slash command's arguments).
    subject: str | None
    #: Short facts in reading order (``lines 10–29``, ``replace all``, a description).
    notes: tuple[str, ...]
    bodies: tuple[Body, ...]
    #: A one-line glimpse of the first body, for when the call is shown collapsed.
    glimpse: str | None = None
    kind: Literal["tool_call"] = "tool_call"

    @property
    def summary(self) -> str:
        """One line for a collapsed call: the name and its subject."""
        return self.name if self.subject is None else f"{self.name} {one_line(self.subject)}"


@dataclass(frozen=True, slots=True)
class ToolResultItem:
    number: int
    #: The name of the call it answers, when that call is in the session.
    tool: str | None
    is_error: bool
    body: Body
    line_count: int
    kind: Literal["tool_result"] = "tool_result"


@dataclass(frozen=True, slots=True)
class ImageItem:
    media_type: str
    #: The ``data:`` URI to show, or None when the bytes cannot be shown (with ``problem``).
    data_uri: str | None
    size: int
    problem: str | None = None
    kind: Literal["image"] = "image"


@dataclass(frozen=True, slots=True)
class ArtifactItem:
    name: str
    media_type: str | None
    body: Body | None = None
    path: str | None = None
    image: ImageItem | None = None
    #: Size of a binary artifact that is not shown.
    binary_size: int | None = None
    kind: Literal["artifact"] = "artifact"


Item: TypeAlias = TextItem | ThinkingItem | ToolCallItem | ToolResultItem | ImageItem | ArtifactItem


@dataclass(frozen=True, slots=True)
class MessageView:
    number: int
    role: str
    timestamp: datetime
    items: tuple[Item, ...]
    #: The message's model when it differs from the session's.
    model: str | None
    #: Why the turn ended, when that is worth telling (cut short, aborted, an error).
    stop_note: str | None
    #: ``2026-01-02T03:04:05Z`` and ``2026-01-02 03:04:05 UTC`` (made once: pages print both).
    iso_time: str = ""
    time_label: str = ""

    @property
    def anchor(self) -> str:
        return f"m{self.number}"

    @property
    def role_label(self) -> str:
        return self.role.capitalize()

    @property
    def preview(self) -> str:
        """The first text of the message on one line (for a table of contents)."""
        for item in self.items:
            if isinstance(item, TextItem) and item.text.strip():
                return cut_line(one_line(item.text), 90)
            if isinstance(item, ToolCallItem):
                return cut_line(item.summary, 90)
        return ""


@dataclass(frozen=True, slots=True)
class SessionView:
    title: str
    harness: str
    session_id: str
    started: datetime
    cwd: str | None
    git_branch: str | None
    model: str | None
    #: Messages in the whole session, and the range shown when only part of it is.
    total_messages: int
    fragment: str | None
    messages: tuple[MessageView, ...]

    @property
    def started_label(self) -> str:
        return format_time(self.started)

    @property
    def count_label(self) -> str:
        if self.fragment is None:
            return f"{self.total_messages:,}"
        return f"{len(self.messages):,} of {self.total_messages:,} ({self.fragment})"


# -------------------------------------------------------------------------------- helpers


def format_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def one_line(text: str) -> str:
    return " ".join(text.split())


def cut_line(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def excerpt(text: str, language: Language, full: bool) -> Body:
    """``text`` as a body: whole with ``full``, else its first lines and a count of the rest."""
    if text.endswith("\n"):
        text = text[:-1]
    if full:
        return Body(language, text)
    newlines = text.count("\n")
    left_out = 0
    if newlines >= MAX_LINES:
        position = -1
        for _ in range(MAX_LINES):
            position = text.index("\n", position + 1)
        kept = text[:position]
        left_out = newlines + 1 - MAX_LINES
        text = kept
    if len(text) > MAX_CHARS:
        cut_at = text.rfind("\n", 0, MAX_CHARS)
        if cut_at <= 0:
            return Body(language, text[:MAX_CHARS], left_out + text.count("\n"), chars_cut=True)
        left_out += text.count("\n", cut_at + 1) + 1
        text = text[:cut_at]
    return Body(language, text, left_out)


_json = msgspec.json.Encoder()


def pretty_json(value: Any) -> str:
    """Two-space indented JSON, keys in their order, raw UTF-8."""
    try:
        return msgspec.json.format(_json.encode(value), indent=2).decode("utf-8")
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
        # What msgspec cannot encode (an integer beyond 64 bits, a lone surrogate).
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def compact_json(value: Any) -> str:
    try:
        return _json.encode(value).decode("utf-8")
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _line_count(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _diff(old: str, new: str) -> str:
    old_lines, new_lines = old.splitlines(), new.splitlines()
    if len(old_lines) + len(new_lines) > _DIFF_LINE_LIMIT or not old_lines or not new_lines:
        return "\n".join([f"-{line}" for line in old_lines] + [f"+{line}" for line in new_lines])
    lines = list(difflib.unified_diff(old_lines, new_lines, n=3, lineterm=""))
    return "\n".join(lines[2:])  # the ---/+++ file header names no file here


def _read_range(offset: int | None, limit: int | None) -> str | None:
    if offset is not None and limit is not None:
        return f"lines {offset}–{offset + limit - 1}" if limit else f"from line {offset}"
    if offset is not None:
        return f"from line {offset}"
    if limit is not None:
        return f"first {limit} lines"
    return None


def _tool_call(number: int, tool: Tool, full: bool) -> ToolCallItem:
    name = tool_name(tool)
    if isinstance(tool, Bash):
        facts = [tool.description] if tool.description else []
        if tool.workdir:
            facts.append(f"in {tool.workdir}")
        if tool.timeout_ms is not None:
            facts.append(f"timeout {tool.timeout_ms:,} ms")
        if tool.run_in_background:
            facts.append("in the background")
        body = excerpt(tool.command, "sh", full)
        return ToolCallItem(number, name, None, tuple(facts), (body,), _glimpse(tool.command))
    if isinstance(tool, Read):
        where = _read_range(tool.offset, tool.limit)
        return ToolCallItem(number, name, tool.file_path, (where,) if where else (), ())
    if isinstance(tool, Edit):
        notes = ("replace all",) if tool.replace_all else ()
        body = excerpt(_diff(tool.old_string, tool.new_string), "diff", full)
        return ToolCallItem(number, name, tool.file_path, notes, (body,))
    if isinstance(tool, MultiEdit):
        bodies = tuple(excerpt(_diff(e.old_string, e.new_string), "diff", full) for e in tool.edits)
        count = len(tool.edits)
        counted = f"{count} edit" + ("" if count == 1 else "s")
        every = ("replace all",) if any(e.replace_all for e in tool.edits) else ()
        return ToolCallItem(number, name, tool.file_path, (counted, *every), bodies)
    if isinstance(tool, Write):
        lines = _line_count(tool.content)
        note = f"{lines:,} line" + ("" if lines == 1 else "s")
        body = excerpt(tool.content, "text", full)
        return ToolCallItem(number, name, tool.file_path, (note,), (body,))
    if isinstance(tool, Command):
        return ToolCallItem(number, name, tool.args or None, (), ())
    assert isinstance(tool, Raw)
    if tool.input is None or tool.input == {}:
        return ToolCallItem(number, name, None, (), ())
    if isinstance(tool.input, str):
        # A free-form input (a patch, a query) reads best as the text it is.
        return ToolCallItem(
            number, name, None, (), (excerpt(tool.input, "text", full),), _glimpse(tool.input)
        )
    body = excerpt(pretty_json(tool.input), "json", full)
    return ToolCallItem(number, name, None, (), (body,), _glimpse(compact_json(tool.input)))


def _glimpse(text: str) -> str:
    return cut_line(one_line(text), 100)


def decoded_size(data: str) -> int | None:
    """The byte size of base64 ``data``, or None when it is not valid base64."""
    compact = "".join(data.split())
    if len(compact) % 4 or not _BASE64.fullmatch(compact):
        return None
    try:
        return len(base64.b64decode(compact, validate=True))
    except (binascii.Error, ValueError):
        return None


def _image(media_type: str, data: str) -> ImageItem:
    size = decoded_size(data)
    if size is None:
        return ImageItem(media_type, None, 0, "its data is not valid base64")
    if media_type.lower() not in IMAGE_TYPES:
        return ImageItem(media_type, None, size, f"{media_type or 'unknown type'} is not shown")
    compact = "".join(data.split())
    return ImageItem(media_type, f"data:{media_type.lower()};base64,{compact}", size)


def _artifact(block: Artifact, full: bool) -> ArtifactItem:
    ref = block.artifact
    source = ref.source
    if isinstance(source, PathSource):
        return ArtifactItem(ref.name, source.media_type, path=source.path)
    if isinstance(source, Base64Source):
        media = source.media_type or ""
        if media.lower() in IMAGE_TYPES:
            return ArtifactItem(ref.name, source.media_type, image=_image(media, source.data))
        size = decoded_size(source.data)
        return ArtifactItem(ref.name, source.media_type, binary_size=size or 0)
    return ArtifactItem(ref.name, source.media_type, body=excerpt(source.text, "text", full))


class _Numbers:
    """Tool ids become 1, 2, 3… in order of first appearance (as ``view`` numbers them)."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self.names: dict[str, str] = {}

    def __call__(self, tool_id: str) -> int:
        return self.numbers.setdefault(tool_id, len(self.numbers) + 1)


def _item(block: Block, numbers: _Numbers, full: bool) -> Item:
    if isinstance(block, Text):
        return TextItem(block.text)
    if isinstance(block, Thinking):
        return ThinkingItem(block.text, encrypted_only=not block.text and bool(block.encrypted))
    if isinstance(block, ToolUse):
        numbers.names.setdefault(block.id, tool_name(block.tool))
        return _tool_call(numbers(block.id), block.tool, full)
    if isinstance(block, ToolResult):
        content = block.content
        text = content if isinstance(content, str) else pretty_json(content)
        language: Language = "text" if isinstance(content, str) else "json"
        return ToolResultItem(
            numbers(block.tool_use_id),
            numbers.names.get(block.tool_use_id),
            block.is_error,
            excerpt(text, language, full),
            _line_count(text),
        )
    if isinstance(block, Image):
        return _image(block.source.media_type, block.source.data)
    assert isinstance(block, Artifact)
    return _artifact(block, full)


def _stop_note(message: Message) -> str | None:
    reason = message.stop_reason
    if reason is None or reason in ("end_turn", "tool_use", "stop_sequence"):
        return None
    if isinstance(reason, OtherStop):
        return f"turn ended: {reason.other}"
    return {
        "max_tokens": "turn cut short: the output token limit was reached",
        "aborted": "turn aborted",
        "error": "turn ended with an error",
    }[reason]


def present(
    transcript: Transcript, *, harness: str, span: Span | None = None, full: bool = False
) -> SessionView:
    """The reader's view of ``transcript``, or of the messages in ``span`` (numbered as in the
    whole session)."""
    meta = transcript.meta
    total = len(transcript.messages)
    span = span or Span(0, total)
    numbers = _Numbers()
    views = []
    for index in range(span.start, min(span.end, total)):
        message = transcript.messages[index]
        items = tuple(_item(block, numbers, full) for block in message.content)
        model = message.model if message.model and message.model != meta.model else None
        stop = _stop_note(message)
        iso = message.timestamp.strftime("%Y-%m-%dT%H:%M:%SZ")
        label = f"{iso[:10]} {iso[11:19]} UTC"
        views.append(
            MessageView(index + 1, message.role, message.timestamp, items, model, stop, iso, label)
        )
    whole = (span.start, span.end) == (0, total)
    title = one_line(meta.title or "") or (f"Session {one_line(meta.id)}" if meta.id else "Session")
    return SessionView(
        title=title,
        harness=harness,
        session_id=meta.id,
        started=meta.timestamp,
        cwd=meta.cwd,
        git_branch=meta.git_branch,
        model=meta.model,
        total_messages=total,
        fragment=None if whole else span.label(),
        messages=tuple(views),
    )
