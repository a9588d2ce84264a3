"""Crush's conformance declaration: both schema generations, and what its codec holds."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import strategies as st

from txcript import model as m

sys.path.append(str(Path(__file__).parents[2] / "crush"))

import crush_fixtures

from conformance.declare import Conformance, Family

_START = datetime(2026, 1, 2, 3, tzinfo=UTC)
_MODEL = "claude-sonnet-4-5"
_texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_names = st.text(alphabet="abcdefghij", min_size=1, max_size=6).map(lambda s: f"Custom_{s}")
_tools = st.one_of(
    st.builds(
        m.Bash,
        command=_texts,
        workdir=st.none() | _texts,
        description=st.none() | _texts,
        run_in_background=st.booleans(),
    ),
    st.builds(
        m.Read,
        file_path=_texts,
        offset=st.none() | st.integers(0, 10**6),
        limit=st.none() | st.integers(0, 10**6),
    ),
    st.builds(m.Write, file_path=_texts, content=_texts),
    st.builds(
        m.Edit, file_path=_texts, old_string=_texts, new_string=_texts, replace_all=st.booleans()
    ),
    st.builds(m.Raw, tool_name=_names, input=st.dictionaries(_texts, _texts, max_size=2)),
)
_stops = st.sampled_from(["end_turn", "tool_use", "max_tokens", "aborted", "error"])


@st.composite
def representable(draw: st.DrawFn) -> m.Transcript:
    """Messages as Crush stores them: times in whole seconds, a user message of text or of tool
    results (a ``tool`` message), every assistant message finished with a reason, on the first
    assistant's model."""
    count = draw(st.integers(1, 5))
    messages = []
    for index in range(count):
        when = _START + timedelta(seconds=index * 10 + draw(st.integers(0, 9)))
        if index % 2:
            blocks = st.one_of(
                st.builds(m.Text, _texts),
                st.builds(m.Thinking, _texts, signature=st.none() | _texts.filter(str.strip)),
                st.builds(m.ToolUse, id=_names, tool=_tools),
            )
            content = tuple(draw(st.lists(blocks, min_size=1, max_size=3)))
            messages.append(
                m.Message(
                    role="assistant",
                    content=content,
                    timestamp=when,
                    model=_MODEL,
                    stop_reason=draw(_stops),
                )
            )
        elif draw(st.booleans()):
            texts = draw(st.lists(st.builds(m.Text, _texts), min_size=1, max_size=2))
            messages.append(m.Message(role="user", content=tuple(texts), timestamp=when))
        else:
            results = draw(
                st.lists(
                    st.builds(
                        m.ToolResult, tool_use_id=_names, content=_texts, is_error=st.booleans()
                    ),
                    min_size=1,
                    max_size=3,
                )
            )
            messages.append(m.Message(role="user", content=tuple(results), timestamp=when))
    meta = m.Meta(
        id="3c5e7a9b-1d2f-4a6b-8c0d-2e4f6a8b0c1d",
        timestamp=_START - timedelta(seconds=draw(st.integers(0, 100))),
        cwd="/home/dev/shop",
        title=draw(st.none() | st.just("Checkout failure")),
        model=_MODEL if count > 1 else None,
    )
    return m.Transcript(meta=meta, messages=tuple(messages))


CONFORMANCE = Conformance(
    harness="crush",
    families=(
        Family("current schema", crush_fixtures.build_current, sessions=3),
        Family("first schema", crush_fixtures.build_initial, sessions=1),
    ),
    representable=representable(),
)
