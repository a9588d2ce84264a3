"""``export --format markdown``: a session as one readable Markdown document.

The document is CommonMark with GitHub's conventions (``<details>`` for thinking). Literal text
(commands, diffs, output) goes in fences longer than any backtick run it holds, so no content can
close its fence; message text is written as the author wrote it.
"""

from __future__ import annotations

import re

from txcript.render.present import (
    ArtifactItem,
    Body,
    ImageItem,
    Item,
    MessageView,
    SessionView,
    TextItem,
    ThinkingItem,
    ToolCallItem,
    ToolResultItem,
    one_line,
)

_BACKTICKS = re.compile(r"`+")
_DETAILS_TAG = re.compile(r"<(/?)(details|summary)", re.IGNORECASE)


def fence(body: Body) -> str:
    """A fenced block whose fence no run of backticks inside ``body`` can match."""
    longest = max((len(run) for run in _BACKTICKS.findall(body.text)), default=0)
    ticks = "`" * max(3, longest + 1)
    block = f"{ticks}{body.language}\n{body.text}\n{ticks}\n"
    if body.cut:
        block += f"\n*[{body.cut_note()}]*\n"
    return block


def code_span(text: str) -> str:
    """``text`` on one line as inline code, delimited so its own backticks stay inside."""
    text = one_line(text)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`") or not text:
        text = f" {text} "
    return f"{ticks}{text}{ticks}"


def _escape_inline(text: str) -> str:
    """A short plain phrase (a note, a name) that Markdown must not read as markup."""
    return re.sub(r"([\\`*_\[\]<>#|~])", r"\\\1", one_line(text))


def _thinking(item: ThinkingItem) -> str:
    if item.encrypted_only:
        return "*[thinking: encrypted, not readable]*\n"
    # The text keeps its own Markdown, but may not close (or open) the block it sits in.
    text = _DETAILS_TAG.sub(r"&lt;\1\2", item.text.strip("\n"))
    return f"<details>\n<summary>Thinking</summary>\n\n{text}\n\n</details>\n"


def _tool_call(item: ToolCallItem) -> str:
    head = f"**Tool call {item.number} · {_escape_inline(item.name)}**"
    if item.subject is not None:
        head += f" {code_span(item.subject)}"
    if item.notes:
        head += " — " + "; ".join(_escape_inline(note) for note in item.notes)
    parts = [head + "\n"]
    parts.extend(fence(body) for body in item.bodies)
    return "\n".join(parts)


def _tool_result(item: ToolResultItem) -> str:
    of = f" · {_escape_inline(item.tool)}" if item.tool else ""
    label = "Error from" if item.is_error else "Result of"
    head = f"**{label} call {item.number}{of}**"
    if item.is_error:
        head = "⚠️ " + head
    return head + "\n\n" + fence(item.body)


def _image(item: ImageItem) -> str:
    if item.data_uri is None:
        return f"*[image: {_escape_inline(item.problem or item.media_type)}]*\n"
    return f"![image ({item.media_type}, {item.size:,} bytes)]({item.data_uri})\n"


def _artifact(item: ArtifactItem) -> str:
    head = f"**Artifact** {code_span(item.name)}"
    if item.path is not None:
        return f"{head} at {code_span(item.path)}\n"
    if item.image is not None:
        return f"{head}\n\n{_image(item.image)}"
    if item.body is not None:
        return f"{head}\n\n{fence(item.body)}"
    return f"{head} — binary, {item.binary_size or 0:,} bytes, not shown\n"


def _block(item: Item) -> str:
    if isinstance(item, TextItem):
        return item.text.strip("\n") + "\n"
    if isinstance(item, ThinkingItem):
        return _thinking(item)
    if isinstance(item, ToolCallItem):
        return _tool_call(item)
    if isinstance(item, ToolResultItem):
        return _tool_result(item)
    if isinstance(item, ImageItem):
        return _image(item)
    return _artifact(item)


def _message(message: MessageView) -> str:
    head = f"## #{message.number} · {message.role_label} · {message.time_label}"
    parts = [head + "\n"]
    if message.model:
        parts.append(f"*model: {_escape_inline(message.model)}*\n")
    parts.extend(_block(item) for item in message.items if not _empty(item))
    if message.stop_note:
        parts.append(f"*[{message.stop_note}]*\n")
    return "\n".join(parts)


def _empty(item: Item) -> bool:
    return isinstance(item, TextItem) and not item.text.strip()


def render(session: SessionView) -> str:
    """The whole Markdown document."""
    facts = [
        ("Harness", session.harness),
        ("Started", session.started_label),
        ("Working directory", None if session.cwd is None else code_span(session.cwd)),
        ("Branch", None if session.git_branch is None else code_span(session.git_branch)),
        ("Model", None if session.model is None else _escape_inline(session.model)),
        ("Session id", code_span(session.session_id) if session.session_id else None),
        ("Messages", session.count_label),
    ]
    header = f"# {_escape_inline(session.title)}\n\n" + "".join(
        f"- **{name}:** {value}\n" for name, value in facts if value is not None
    )
    chunks = [header]
    chunks.extend("\n---\n\n" + _message(message) for message in session.messages)
    return "".join(chunks)
