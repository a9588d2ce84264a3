"""The text projection ``view`` prints: a compact, one-way reading of a session.

It keeps messages, thinking text, tool calls and results, artifact names; it drops timestamps,
usage, stop reasons, signatures and image bytes. Tool ids become session-local numbers 1, 2, 3…
in order of first appearance.
"""

from __future__ import annotations

from collections.abc import Iterator

from txcript.fragment import Span
from txcript.model import (
    Artifact,
    Base64Source,
    Block,
    Image,
    Message,
    PathSource,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    render_tool,
)
from txcript.shared.jsonutil import dumps_compact
from txcript.shared.timeutil import format_offset


def _one_line(value: str) -> str:
    return " ".join(value.split())


class _ToolNumbers:
    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}

    def __call__(self, tool_id: str) -> int:
        return self.numbers.setdefault(tool_id, len(self.numbers) + 1)


def _section(block: Block, message: Message, number: _ToolNumbers) -> tuple[str, str]:
    if isinstance(block, Text):
        return message.role, block.text
    if isinstance(block, Thinking):
        return "thinking", block.text
    if isinstance(block, ToolUse):
        name, tool_input = render_tool(block.tool)
        body = "" if tool_input is None or tool_input == {} else dumps_compact(tool_input)
        return f"tool {number(block.id)} {_one_line(name)}", body
    if isinstance(block, ToolResult):
        label = f"result {number(block.tool_use_id)}" + (" error" if block.is_error else "")
        body = block.content if isinstance(block.content, str) else dumps_compact(block.content)
        return label, body
    if isinstance(block, Image):
        return f"image {block.source.media_type} omitted", ""
    assert isinstance(block, Artifact)
    source = block.artifact.source
    if isinstance(source, PathSource):
        body = source.path
    elif isinstance(source, Base64Source):
        body = "binary data omitted"
    else:
        body = source.text
    return f"artifact {block.artifact.name}", body


def render(transcript: Transcript, span: Span | None = None) -> str:
    """Render ``transcript`` (or the messages in ``span``) with ``── #N ──`` rules."""
    return "".join(iter_render(transcript, span))


#: How many characters :func:`iter_render` gathers before it hands them on.
_PIECE_CHARS = 1 << 18


def iter_render(transcript: Transcript, span: Span | None = None) -> Iterator[str]:
    """:func:`render`'s text in pieces of about :data:`_PIECE_CHARS` characters, so a long
    session's text never exists whole."""
    meta = transcript.meta
    total = len(transcript.messages)
    span = span or Span(0, total)
    parts = [
        "[session]\n",
        f"id={_one_line(meta.id)}\n",
        f"started={format_offset(meta.timestamp)}\n",
    ]
    for key, value in (
        ("title", meta.title),
        ("cwd", meta.cwd),
        ("branch", meta.git_branch),
        ("model", meta.model),
    ):
        if value is not None and _one_line(value):
            parts.append(f"{key}={_one_line(value)}\n")
    if (span.start, span.end) != (0, total):
        parts.append(f"fragment={span.label()}\nof={total}\n")
    chunks = ["".join(parts)]
    size = 0
    number = _ToolNumbers()
    for index in range(span.start, min(span.end, total)):
        message = transcript.messages[index]
        chunks.append(f"\n── #{index + 1} ──")
        ends_blank = False
        for block in message.content:
            label, text = _section(block, message, number)
            piece = ("" if ends_blank else "\n") + f"[{label}]\n" + text
            if not text.endswith("\n"):
                piece += "\n"
            chunks.append(piece)
            size += len(piece)
            ends_blank = piece.endswith("\n\n")
        if size >= _PIECE_CHARS:
            yield "".join(chunks)
            chunks, size = [], 0
    if chunks:
        yield "".join(chunks)
