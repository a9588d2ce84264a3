"""Goose's conformance declaration: its database (two schemas) and the older JSONL files."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from declare import (
    Conformance,
    Family,
    HopLimit,
    StoreFacts,
    commands_as_prompts,
    composed,
    replaced,
    use_fixtures,
)
from hypothesis import strategies as st

from txcript import model as m
from txcript.shared.jsonutil import try_loads

use_fixtures("goose")
import goose_fixtures  # noqa: E402

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


def _empty_early(root: Path) -> None:
    goose_fixtures.build_empty(root, goose_fixtures.EARLY_DDL)


#: Goose reads its older JSONL files once, into its database; txcript reads them and writes
#: copies into the database only.
JSONL_IS_READ_ONLY = {
    "store-round-trip": "a generation Goose only imports from: txcript reads it, never writes it"
}
#: ... and a store of those files alone has no database to write a copy into.
NO_DATABASE = {
    **JSONL_IS_READ_ONLY,
    **dict.fromkeys(
        ("write-preflight", "write-refused-halfway"),
        "a store of only the older JSONL files has no database: Goose creates one on its first "
        "run, txcript never does",
    ),
}


def _without_file_name(native: object) -> object:
    legacy = getattr(native, "legacy", None)
    return native if legacy is None else replaced(native, legacy=replaced(legacy, name=""))


CONFORMANCE = Conformance(
    harness="goose",
    families=(
        Family("database-schema-13", goose_fixtures.build_current, sessions=2),
        Family(
            "database-early-schema",
            goose_fixtures.build_early,
            sessions=1,
            fresh_root=_empty_early,
        ),
        Family("jsonl-beside-the-database", _with_jsonl, sessions=3, skips=JSONL_IS_READ_ONLY),
        Family("jsonl-alone", goose_fixtures.build_legacy, sessions=2, skips=NO_DATABASE),
    ),
    representable=representable(),
    hop_limit=HopLimit(
        "Goose keeps a slash command as the prompt that ran it, and its output as text; a "
        "result that is one plain text block reads back as that text",
        composed(commands_as_prompts, lone_text_results),
    ),
    # GOOSE_PATH_ROOT names the directory whose `data/` is the store; the suite's root is the
    # XDG one.
    env=lambda root: {"XDG_DATA_HOME": str(root.parent)},
    fresh_root=goose_fixtures.build_empty,
    text_facts=StoreFacts(
        "an older JSONL session's id is its file's name, which its text (the file's lines) "
        "does not hold",
        _without_file_name,
    ),
)
