"""Crush: a project database of the current schema (a compacted session, an agent's sub-session
and a title session beside the main one) and one of the first schema; times in seconds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from declare import (
    Conformance,
    Family,
    HopLimit,
    StoreFacts,
    commands_as_prompts,
    replaced,
    use_fixtures,
)
from hypothesis import strategies as st

from txcript import model as m

use_fixtures("crush")
import crush_fixtures  # noqa: E402

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
                st.builds(m.Thinking, _texts, signature=st.none() | _texts.filter(bool)),
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
            result = st.builds(
                m.ToolResult, tool_use_id=_names, content=_texts, is_error=st.booleans()
            )
            results = draw(st.lists(result, min_size=1, max_size=3))
            messages.append(m.Message(role="user", content=tuple(results), timestamp=when))
    meta = m.Meta(
        id="3c5e7a9b-1d2f-4a6b-8c0d-2e4f6a8b0c1d",
        timestamp=_START - timedelta(seconds=draw(st.integers(0, 100))),
        cwd="/home/dev/shop",
        title=draw(st.none() | st.just("Checkout failure")),
        model=_MODEL if count > 1 else None,
    )
    return m.Transcript(meta=meta, messages=tuple(messages))


def a_project_at_the_root(root: Path) -> None:
    """What Crush leaves after its first run in a project: a migrated, empty database listed in
    ``projects.json``. The project is ``/``, the nearest project above any directory, so a copy
    of a session from anywhere has one to go to."""
    crush_fixtures.build_empty(root, Path("/"), root / "projects" / "root" / ".crush")


def _current(root: Path) -> None:
    crush_fixtures.build_current(root)


def _first(root: Path) -> None:
    crush_fixtures.build_initial(root)


def _first_schema_project(root: Path) -> None:
    database = root / "projects" / "root" / ".crush" / "crush.db"
    crush_fixtures.build_db(database, crush_fixtures.INITIAL_DDL, [])
    crush_fixtures.write_projects(root, [{"path": "/", "data_dir": str(database.parent)}])


CONFORMANCE = Conformance(
    harness="crush",
    families=(
        Family("current-schema", _current, sessions=3),
        Family("first-schema", _first, sessions=1, fresh_root=_first_schema_project),
    ),
    representable=representable(),
    hop_limit=HopLimit(
        "Crush keeps a slash command as the prompt that ran it, and its output as text",
        commands_as_prompts,
    ),
    fresh_root=a_project_at_the_root,
    store_facts=StoreFacts(
        "the project directory is where the database was found (projects.json), not a column "
        "of the session's rows: a copy in another store belongs to that store's project",
        lambda native: replaced(native, project=None),
    ),
)
