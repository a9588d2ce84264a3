"""Factory droid's conformance declaration: both store layouts, and what its codec holds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from declare import Conformance, Family, HopLimit, commands_as_prompts, composed, use_fixtures
from hypothesis import strategies as st

from txcript import model as m
from txcript.shared.jsonutil import try_loads

use_fixtures("droid")
import droid_fixtures  # noqa: E402

_START = datetime(2026, 1, 2, 3, tzinfo=UTC)
_MODEL = "claude-opus-4-8"
_texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_names = st.text(alphabet="abcdefghij", min_size=1, max_size=6).map(lambda s: f"Custom_{s}")
_tools = st.one_of(
    st.builds(
        m.Bash,
        command=_texts,
        timeout_ms=st.none() | st.integers(0, 10**7),
        description=st.none() | _texts,
    ),
    st.builds(m.Read, file_path=_texts, offset=st.none() | st.integers(0, 10**6)),
    st.builds(m.Write, file_path=_texts, content=_texts),
    st.builds(m.Edit, file_path=_texts, old_string=_texts, new_string=_texts),
    st.builds(m.Raw, tool_name=_names, input=st.dictionaries(_texts, _texts, max_size=2)),
)
_user_blocks = st.one_of(
    st.builds(m.Text, _texts),
    st.builds(m.ToolResult, tool_use_id=_names, content=_texts, is_error=st.booleans()),
)
_assistant_blocks = st.one_of(
    st.builds(m.Text, _texts),
    st.builds(m.Thinking, _texts, signature=st.none() | _texts),
    st.builds(m.ToolUse, id=_names, tool=_tools),
)


def lone_text_results(items: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """A result that is one plain text block reads back as that text."""
    out = []
    for item in items:
        if item[0] == "result":
            value = try_loads(item[2])
            if (
                isinstance(value, list)
                and len(value) == 1
                and isinstance(value[0], dict)
                and set(value[0]) == {"type", "text"}
                and value[0]["type"] == "text"
                and isinstance(value[0]["text"], str)
            ):
                item = ("result", item[1], value[0]["text"], item[3])
        out.append(item)
    return out


@st.composite
def representable(draw: st.DrawFn) -> m.Transcript:
    """Messages as droid stores them: Anthropic blocks, every assistant message on the session's
    model, the session starting with its first message (droid records no other start)."""
    count = draw(st.integers(1, 5))
    messages = []
    for index in range(count):
        role = "user" if index % 2 == 0 else "assistant"
        blocks = _user_blocks if role == "user" else _assistant_blocks
        content = tuple(draw(st.lists(blocks, min_size=1, max_size=3)))
        when = _START + timedelta(milliseconds=draw(st.integers(0, 10**6)) + index * 10**6)
        model = _MODEL if role == "assistant" else None
        messages.append(m.Message(role=role, content=content, timestamp=when, model=model))
    meta = m.Meta(
        id="5f0c2a9e-7b1d-4c3e-9a8f-1e2d3c4b5a69",
        timestamp=messages[0].timestamp,
        cwd=draw(st.none() | st.just("/Users/dev/acme")),
        title=draw(st.none() | st.just("A session")),
        model=_MODEL,
    )
    return m.Transcript(meta=meta, messages=tuple(messages))


CONFORMANCE = Conformance(
    harness="droid",
    families=(
        Family("per-project", droid_fixtures.build_project, sessions=2),
        Family("flat", droid_fixtures.build_flat, sessions=1),
    ),
    representable=representable(),
    hop_limit=HopLimit(
        "droid keeps a slash command as the prompt that ran it, and its output as text; a "
        "result that is one plain text block reads back as that text",
        composed(commands_as_prompts, lone_text_results),
    ),
)
