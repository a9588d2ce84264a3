"""What is searchable in a session: its lines, each with an origin and the message it came from.

Text is split into lines; trailing whitespace is trimmed and blank lines are skipped. Origins:

* ``meta``: the title, cwd and git branch, in that order (a hit that points at no message);
* ``user`` / ``assistant``: text blocks by the message's role (artifacts always count as
  ``assistant``: they are what the assistant produced);
* ``thinking``: reasoning text;
* ``tool_use``: what a person would search a call by — a command's ``/name`` and args, a read's
  path, a write's path and content, an edit's path and strings, a shell command and its
  description, a raw tool's name and compact input JSON;
* ``tool_result``: text output, or the compact JSON of structured output (left out of searches
  unless asked for).

Images carry nothing searchable.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import msgspec

from txcript.model import (
    Artifact,
    Base64Source,
    Bash,
    Command,
    Edit,
    MultiEdit,
    PathSource,
    Raw,
    Read,
    Text,
    TextSource,
    Thinking,
    Tool,
    ToolResult,
    ToolUse,
    Transcript,
    Write,
)

ORIGINS = ("user", "assistant", "thinking", "tool_use", "tool_result", "meta")
#: Origins searched when none are asked for: tool output is noise for most searches.
DEFAULT_ORIGINS = frozenset({"user", "assistant", "thinking", "tool_use", "meta"})

_compact = msgspec.json.Encoder(order="sorted")


class Line(NamedTuple):
    """One searchable line. ``message`` is the 0-based message index (None for ``meta``).

    A named tuple: a build makes one per line of every session, and a frozen dataclass costs
    several times as much to create."""

    origin: str
    text: str
    message: int | None
    block: int


def _split(text: str) -> Iterator[str]:
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.strip():
            yield line


def compact_json(value: Any) -> str:
    try:
        return _compact.encode(value).decode("utf-8")
    except (TypeError, msgspec.EncodeError, UnicodeDecodeError):
        return str(value)


def tool_texts(tool: Tool) -> list[str]:
    """The texts a call is searched by, in the order listed in the module notes."""
    if isinstance(tool, Command):
        return [f"/{tool.command}", *([tool.args] if tool.args else [])]
    if isinstance(tool, Read):
        return [tool.file_path]
    if isinstance(tool, Write):
        return [tool.file_path, tool.content]
    if isinstance(tool, Edit):
        return [tool.file_path, tool.old_string, tool.new_string]
    if isinstance(tool, MultiEdit):
        texts = [tool.file_path]
        for edit in tool.edits:
            texts += [edit.old_string, edit.new_string]
        return texts
    if isinstance(tool, Bash):
        return [tool.command, *([tool.description] if tool.description else [])]
    if isinstance(tool, Raw):
        return [tool.tool_name, *([] if tool.input is None else [compact_json(tool.input)])]
    return []


def result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    return compact_json(content)


def extract(transcript: Transcript) -> list[Line]:
    """Every searchable line of ``transcript``, in transcript order (meta lines first)."""
    lines: list[Line] = []
    meta = transcript.meta
    for value in (meta.title, meta.cwd, meta.git_branch):
        if value:
            lines.extend(Line("meta", line, None, 0) for line in _split(value))
    for index, message in enumerate(transcript.messages):
        for block_index, block in enumerate(message.content):
            if isinstance(block, Text):
                origin = "user" if message.role == "user" else "assistant"
                texts = [block.text]
            elif isinstance(block, Thinking):
                origin, texts = "thinking", [block.text]
            elif isinstance(block, ToolUse):
                origin, texts = "tool_use", tool_texts(block.tool)
            elif isinstance(block, ToolResult):
                origin, texts = "tool_result", [result_text(block.content)]
            elif isinstance(block, Artifact):
                origin = "assistant"
                source = block.artifact.source
                texts = [block.artifact.name]
                if isinstance(source, TextSource):
                    texts.append(source.text)
                elif isinstance(source, PathSource):
                    texts.append(source.path)
                elif isinstance(source, Base64Source):
                    pass
            else:
                continue
            for text in texts:
                lines.extend(Line(origin, line, index, block_index) for line in _split(text))
    return lines
