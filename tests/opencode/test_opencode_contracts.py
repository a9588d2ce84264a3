"""The harness contracts for OpenCode: codec fixpoint, text form, and a hop across harnesses."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import opencode_fixtures as f
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_opencode_database import MAIN

from txcript import harnesses
from txcript import model as m

sys.path.insert(0, str(Path(__file__).parents[1] / "claude_code"))
import claude_fixtures as cf

OPENCODE = harnesses.get("opencode")
START = datetime(2026, 3, 1, tzinfo=UTC)

# ----------------------------------------------------------------- fixpoint (hypothesis)

_texts = st.text(min_size=0, max_size=30)
_paths = st.text(min_size=1, max_size=20)
_tools = st.one_of(
    st.builds(
        m.Bash,
        command=_texts,
        description=st.none() | _texts,
        timeout_ms=st.none() | st.integers(0, 10**9),
    ),
    st.builds(
        m.Read,
        file_path=_paths,
        offset=st.none() | st.integers(0, 10**6),
        limit=st.none() | st.integers(0, 10**6),
    ),
    st.builds(
        m.Edit, file_path=_paths, old_string=_texts, new_string=_texts, replace_all=st.booleans()
    ),
    st.builds(m.Write, file_path=_paths, content=_texts),
    st.builds(
        m.Raw,
        tool_name=st.text(min_size=1, max_size=10).filter(
            lambda n: n not in {"bash", "read", "edit", "write"}
        ),
        input=st.dictionaries(st.text(max_size=5), st.integers() | _texts, max_size=3),
    ),
)
_stops = st.none() | st.sampled_from(sorted(m.STOP_REASONS))
_usages = st.none() | st.builds(
    m.Usage,
    input_tokens=st.integers(1, 10**9),
    output_tokens=st.integers(0, 10**9),
    cache_read_input_tokens=st.none() | st.integers(1, 10**6),
    cache_creation_input_tokens=st.none() | st.integers(1, 10**6),
)
_content = st.one_of(
    st.builds(m.Text, text=_texts),
    st.builds(m.Thinking, text=_texts, signature=st.none() | _texts, encrypted=st.none() | _texts),
)


@st.composite
def conversations(draw: st.DrawFn) -> m.Transcript:
    """Shapes OpenCode groups as it writes them: a user turn, then assistant turns each followed
    by the results of its calls (stamped later), every turn non-empty and in time order."""
    clock = 0
    calls = 0
    messages: list[m.Message] = []
    model = draw(st.sampled_from(["claude-sonnet-4-5", "gpt-5"]))
    for _ in range(draw(st.integers(1, 3))):
        clock += draw(st.integers(1, 5000))
        user = draw(st.lists(st.builds(m.Text, text=_texts), min_size=1, max_size=2))
        messages.append(
            m.Message(
                role="user", content=tuple(user), timestamp=START + timedelta(milliseconds=clock)
            )
        )
        for _ in range(draw(st.integers(1, 3))):
            clock += draw(st.integers(1, 5000))
            blocks: list[m.Block] = [draw(_content)]
            results: list[m.Block] = []
            for _ in range(draw(st.integers(0, 2))):
                calls += 1
                call_id = f"call_{calls}"
                blocks.append(m.ToolUse(id=call_id, tool=draw(_tools)))
                if draw(st.booleans()):
                    results.append(
                        m.ToolResult(
                            tool_use_id=call_id, content=draw(_texts), is_error=draw(st.booleans())
                        )
                    )
            when = START + timedelta(milliseconds=clock)
            messages.append(
                m.Message(
                    role="assistant",
                    content=tuple(blocks),
                    timestamp=when,
                    model=model,
                    stop_reason=draw(_stops),
                    usage=draw(_usages),
                )
            )
            if results:
                clock += draw(st.integers(1, 5000))
                messages.append(
                    m.Message(
                        role="user",
                        content=tuple(results),
                        timestamp=START + timedelta(milliseconds=clock),
                    )
                )
    meta = m.Meta(
        id=f.MAIN_ID,
        timestamp=START,
        cwd=draw(st.none() | st.just("/work/repo")),
        title=draw(
            st.none()
            | st.text(min_size=1, max_size=20).filter(lambda t: not t.startswith("New session - "))
        ),
        cli_version=draw(st.none() | st.just("1.14.2")),
        model=draw(st.none() | st.just(model)),
    )
    return m.Transcript(meta=meta, messages=tuple(messages))


@settings(max_examples=60, deadline=None)
@given(conversations())
def test_codec_fixpoint_through_common_loses_nothing(transcript: m.Transcript) -> None:
    native = OPENCODE.from_common(transcript)
    back = OPENCODE.to_common(native)
    if transcript.meta.model is None:
        # with no session model the first reply's model is the session's (as older schemas)
        assert back.meta.model is None
    assert back == transcript
    assert OPENCODE.from_common(transcript) == native  # deterministic


def test_the_fixture_session_is_a_fixpoint_and_the_text_form_round_trips() -> None:
    native = OPENCODE.from_common(MAIN)
    assert OPENCODE.to_common(native) == MAIN
    text = OPENCODE.to_text(native)
    again = OPENCODE.from_text(text)
    assert OPENCODE.to_common(again) == MAIN
    assert OPENCODE.to_text(again) == text
    assert OPENCODE.sniff(__import__("json").loads(text))


def test_foreign_ids_become_opencode_session_ids_deterministically() -> None:
    foreign = m.Transcript(meta=m.Meta(id="3f1c2a4e-8b7d-4e21-9a6b-0c5d2e7f9a11", timestamp=START))
    first, second = OPENCODE.from_common(foreign), OPENCODE.from_common(foreign)
    assert first.id == second.id and first.id.startswith("ses_") and len(first.id) == 30


# --------------------------------------------------------------------------- cross hop


def _parallel_claude_records() -> list[object]:
    """One response with three parallel calls written as one line each; the results arrive in
    completion order (R3, R2), one of them failed, and the next reply follows the last result."""
    calls = [
        ("toolu_A", "Bash", {"command": "ls"}),
        ("toolu_B", "Read", {"file_path": "/Users/dev/src/app/a.py"}),
        ("toolu_C", "Grep", {"pattern": "TODO"}),
    ]
    records: list[object] = [cf.user("u1", None, "10:00:00.000", "look around")]
    parent = "u1"
    for index, (call_id, name, tool_input) in enumerate(calls):
        uuid = f"a{index + 1}"
        records.append(
            cf.assistant(
                uuid,
                parent,
                f"10:00:01.{index}00",
                [cf.tool_use(call_id, name, tool_input)],
                message_id="msg_P",
                stop_reason="tool_use" if index == 2 else None,
            )
        )
        parent = uuid
    records += [
        cf.user("r3", "a3", "10:00:02.000", [cf.tool_result("toolu_C", "no matches", True)]),
        cf.user("r1", "a1", "10:00:02.100", [cf.tool_result("toolu_A", "a.py\nb.py")]),
        cf.user("r2", "a2", "10:00:02.200", [cf.tool_result("toolu_B", "print(1)")]),
        cf.assistant(
            "a4",
            "r2",
            "10:00:03.000",
            [cf.text("All looked at.")],
            message_id="msg_Q",
            stop_reason="end_turn",
        ),
    ]
    return records


def _calls(
    transcript: m.Transcript,
) -> tuple[list[tuple[str, m.Tool]], dict[str, tuple[str, bool]]]:
    uses = [
        (b.id, b.tool)
        for msg in transcript.messages
        for b in msg.content
        if isinstance(b, m.ToolUse)
    ]
    results = {
        b.tool_use_id: (b.content, b.is_error)
        for msg in transcript.messages
        for b in msg.content
        if isinstance(b, m.ToolResult)
    }
    return uses, results


PARALLEL = m.Transcript(
    meta=m.Meta(id=cf.SID, timestamp=START, cwd="/Users/dev/src/app", model=cf.MODEL),
    messages=(
        m.Message(role="user", content=(m.Text(text="look around"),), timestamp=START),
        m.Message(
            role="assistant",
            content=(
                m.ToolUse(id="toolu_A", tool=m.Bash(command="ls")),
                m.ToolUse(id="toolu_B", tool=m.Read(file_path="/Users/dev/src/app/a.py")),
                m.ToolUse(id="toolu_C", tool=m.Raw(tool_name="Grep", input={"pattern": "TODO"})),
            ),
            timestamp=START + timedelta(seconds=1),
            model=cf.MODEL,
            stop_reason="tool_use",
        ),
        m.Message(
            role="user",
            content=(
                m.ToolResult(tool_use_id="toolu_C", content="no matches", is_error=True),
                m.ToolResult(tool_use_id="toolu_A", content="a.py\nb.py"),
                m.ToolResult(tool_use_id="toolu_B", content="print(1)"),
            ),
            timestamp=START + timedelta(seconds=2),
        ),
        m.Message(
            role="assistant",
            content=(m.Text(text="All looked at."),),
            timestamp=START + timedelta(seconds=3),
            model=cf.MODEL,
            stop_reason="end_turn",
        ),
    ),
)


def _from_claude_store(tmp_path: Path) -> m.Transcript:
    """The parallel batch written into a Claude Code store by txcript and read back from it."""
    claude = harnesses.get("claude_code")
    store = claude.store(tmp_path / "claude")
    assert store is not None
    saved = store.save(claude.from_common(PARALLEL))
    return claude.to_common(store.load(saved.reference))


def _from_observed_lines(tmp_path: Path) -> m.Transcript:
    """The batch as Claude Code itself writes it: a line per call, results in completion order."""
    return cf.common(_parallel_claude_records(), session_id=cf.SID)


@pytest.mark.parametrize("source", [_from_claude_store, _from_observed_lines])
def test_claude_code_parallel_calls_survive_opencode_then_cursor_desktop(
    source: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    start = source(tmp_path)  # type: ignore[operator]
    uses, results = _calls(start)
    assert [u[0] for u in uses] == ["toolu_A", "toolu_B", "toolu_C"]
    assert results["toolu_C"] == ("no matches", True)
    assert results["toolu_A"] == ("a.py\nb.py", False)

    f.build_db(tmp_path / "opencode" / "opencode.db", f.CURRENT_DDL, [])
    store = OPENCODE.store(tmp_path / "opencode")
    assert store is not None
    saved = store.save(OPENCODE.from_common(start))
    in_opencode = OPENCODE.to_common(store.load(saved.reference))
    assert _calls(in_opencode) == (uses, results)

    cursor = harnesses.get("cursor_desktop")
    cursor_store = cursor.store(tmp_path / "cursor")
    assert cursor_store is not None
    # as `continue` does: the copy takes an id of Cursor's grammar (ses_… has a `_`)
    meta = msgspec.structs.replace(in_opencode.meta, id=cursor.adopt_id(in_opencode.meta.id))
    copy = msgspec.structs.replace(in_opencode, meta=meta)
    written = cursor_store.save(cursor.from_common(copy), force=True)
    in_cursor = cursor.to_common(cursor_store.load(written.reference))
    assert _calls(in_cursor) == (uses, results)
    texts = [b.text for msg in in_cursor.messages for b in msg.content if isinstance(b, m.Text)]
    assert texts == ["look around", "All looked at."]
