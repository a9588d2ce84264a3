"""Goose's conformance declaration: its database (two schemas) and the older JSONL files."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import strategies as st

from txcript import model as m

sys.path.append(str(Path(__file__).parents[2] / "goose"))

import goose_fixtures

from conformance.declare import Conformance, Family

_START = datetime(2026, 1, 2, 3, tzinfo=UTC)
_texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_names = st.text(alphabet="abcdefghij", min_size=1, max_size=6).map(lambda s: f"Custom_{s}")
_tools = st.one_of(
    st.builds(m.Bash, command=_texts, workdir=st.none() | _texts),
    st.builds(m.Read, file_path=_texts, offset=st.none() | st.integers(0, 10**6)),
    st.builds(m.Write, file_path=_texts, content=_texts),
    st.builds(m.Edit, file_path=_texts, old_string=_texts, new_string=_texts),
    st.builds(m.Raw, tool_name=_names, input=st.dictionaries(_texts, _texts, max_size=2)),
)
_blocks = st.one_of(
    st.builds(m.Text, _texts),
    st.builds(m.Thinking, _texts, signature=st.none() | _texts.filter(bool)),
    st.builds(m.ToolUse, id=_names, tool=_tools),
    st.builds(m.ToolResult, tool_use_id=_names, content=_texts, is_error=st.booleans()),
)


@st.composite
def representable(draw: st.DrawFn) -> m.Transcript:
    """Messages as Goose stores them: contents tagged by type, times in whole seconds, no
    per-message model or stop reason (Goose keeps the model per session)."""
    count = draw(st.integers(1, 5))
    messages = tuple(
        m.Message(
            role="user" if index % 2 == 0 else "assistant",
            content=tuple(draw(st.lists(_blocks, min_size=1, max_size=3))),
            timestamp=_START + timedelta(seconds=index * 10 + draw(st.integers(0, 9))),
        )
        for index in range(count)
    )
    meta = m.Meta(
        id="20260102_7",
        timestamp=_START,
        cwd=draw(st.none() | st.just("/home/dev/api")),
        title=draw(st.none() | st.just("Health endpoint")),
    )
    return m.Transcript(meta=meta, messages=messages)


def _with_jsonl(root: Path) -> None:
    goose_fixtures.build_current(root)
    goose_fixtures.build_legacy(root)


CONFORMANCE = Conformance(
    harness="goose",
    families=(
        Family("database (schema 13)", goose_fixtures.build_current, sessions=2),
        Family("database (early schema)", goose_fixtures.build_early, sessions=1),
        Family("older JSONL beside the database", _with_jsonl, sessions=3),
        Family("older JSONL alone", goose_fixtures.build_legacy, sessions=2),
    ),
    representable=representable(),
    # GOOSE_PATH_ROOT names the directory whose `data/` Goose keeps its sessions in.
    env=lambda root: {"GOOSE_PATH_ROOT": str(root.parent)},
)
