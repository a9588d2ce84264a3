"""Claude Code → Common: the chain, turns, blocks, metadata and side files."""

from __future__ import annotations

import warnings

import pytest
from claude_fixtures import (
    CWD,
    MODEL,
    PNG,
    SID,
    VERSION,
    assistant,
    common,
    realistic_records,
    session,
    system,
    text,
    tool_result,
    tool_use,
    user,
    when,
)

from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.claude_code import reader
from txcript.harnesses.claude_code.native import SideFile
from txcript.shared.timeutil import EPOCH


def quiet(records: list[object], **kwargs: object) -> m.Transcript:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        return common(records, **kwargs)  # type: ignore[arg-type]


def texts(transcript: m.Transcript) -> list[str]:
    return [b.text for msg in transcript.messages for b in msg.content if isinstance(b, m.Text)]


# ------------------------------------------------------------------------------- realistic


def test_realistic_session_maps_to_exactly_the_expected_messages() -> None:
    with pytest.warns(TranscriptWarning, match=r"line 13: not valid JSON"):
        transcript = common(realistic_records(), session_id=SID)
    assert transcript.meta == m.Meta(
        id=SID,
        timestamp=when("09:30:00.900"),
        cwd=CWD,
        git_branch="main",
        title="off-by-one",
        cli_version=VERSION,
        model=MODEL,
    )
    assert transcript.messages == (
        m.Message(
            role="user",
            content=(m.Text(text="fix the off-by-one in src/lib.rs"),),
            timestamp=when("09:30:01"),
        ),
        m.Message(
            role="assistant",
            content=(
                m.Thinking(text="Look at the loop bound.", signature="EqQB"),
                m.ToolUse(id="toolu_01", tool=m.Read(file_path="/Users/dev/src/app/src/lib.rs")),
            ),
            timestamp=when("09:30:03.100"),
            model=MODEL,
            stop_reason="tool_use",
            usage=m.Usage(input_tokens=10, output_tokens=42, cache_creation_input_tokens=1200),
        ),
        m.Message(
            role="user",
            content=(
                m.ToolResult(
                    tool_use_id="toolu_01", content="1\tfn f(n: usize) {\n2\t  for i in 0..=n {}"
                ),
            ),
            timestamp=when("09:30:03.600"),
        ),
        m.Message(
            role="assistant",
            content=(m.Text(text="The loop runs one step too far; use `0..n`."),),
            timestamp=when("09:30:05"),
            model=MODEL,
            stop_reason="end_turn",
            usage=m.Usage(input_tokens=7, output_tokens=15, cache_read_input_tokens=1210),
        ),
    )


def test_meta_id_comes_from_the_records_when_no_file_stem_is_known() -> None:
    transcript = quiet(realistic_records())
    assert transcript.meta.id == SID


def test_a_session_with_no_timestamps_starts_at_the_epoch_not_now() -> None:
    record = user("u1", None, "09:00:00", "hi")
    del record["timestamp"]
    transcript = common([record])
    assert transcript.meta.timestamp == EPOCH
    assert transcript.messages[0].timestamp == EPOCH


def test_title_precedence_custom_then_ai_then_agent_name_then_summary() -> None:
    base = [user("u1", None, "09:00:00", "hi")]
    summary = {"type": "summary", "summary": "S", "leafUuid": "u1"}
    agent = {"type": "agent-name", "agentName": "A"}
    ai = {"type": "ai-title", "aiTitle": "AI"}
    custom = {"type": "custom-title", "customTitle": "C1"}
    custom2 = {"type": "custom-title", "customTitle": "C2"}
    assert common([summary, *base]).meta.title == "S"
    assert common([*base, agent, summary]).meta.title == "A"
    assert common([ai, *base, agent, summary]).meta.title == "AI"
    assert common([custom, *base, ai, custom2, summary]).meta.title == "C2"
    assert common([*base, {"type": "custom-title", "customTitle": ""}]).meta.title is None


@pytest.mark.parametrize(
    "cwd",
    ["C:\\Users\\dev\\repo", "/Users/dev/Library/Mobile Documents/x", "\\\\srv\\share\\repo"],
)
def test_windows_and_macos_project_paths_are_kept_verbatim(cwd: str) -> None:
    transcript = common([user("u1", None, "09:00:00", "hi", cwd=cwd, gitBranch="")])
    assert transcript.meta.cwd == cwd
    assert transcript.meta.git_branch is None


def test_synthetic_messages_do_not_decide_the_session_model() -> None:
    records = [
        user("u1", None, "09:00:00", "hi"),
        assistant(
            "a1",
            "u1",
            "09:00:01",
            [text("API Error: overloaded")],
            model="<synthetic>",
            message_id="m1",
        ),
        user("u2", "a1", "09:00:02", "again"),
        assistant("a2", "u2", "09:00:03", [text("ok")], model="claude-sonnet-4-6", message_id="m2"),
    ]
    transcript = common(records)
    assert transcript.meta.model == "claude-sonnet-4-6"
    # "<synthetic>" is Claude Code's "no model": Common says that with None, and the writer
    # turns None back into "<synthetic>" (the real client needs a model on every line).
    assert transcript.messages[1].model is None


# ------------------------------------------------------------------------------------ chain


def test_the_active_branch_ending_at_the_last_leaf_is_followed() -> None:
    records = [
        user("u1", None, "09:00:00", "first"),
        assistant("a1", "u1", "09:00:01", [text("answer one")], message_id="m1"),
        user("u2", "a1", "09:00:02", "original follow-up"),
        assistant("a2", "u2", "09:00:03", [text("old branch reply")], message_id="m2"),
        # The user rewound to a1 and asked something else: a second child of a1.
        user("u3", "a1", "09:01:00", "edited follow-up"),
        assistant("a3", "u3", "09:01:01", [text("new branch reply")], message_id="m3"),
    ]
    assert texts(common(records)) == [
        "first",
        "answer one",
        "edited follow-up",
        "new branch reply",
    ]


def test_sidechain_records_in_the_main_file_are_not_the_conversation() -> None:
    records = [
        user("u1", None, "09:00:00", "research this"),
        assistant(
            "a1",
            "u1",
            "09:00:01",
            [tool_use("toolu_T", "Task", {"prompt": "go"})],
            message_id="m1",
            stop_reason="tool_use",
        ),
        user("s1", None, "09:00:02", "go", isSidechain=True),
        assistant("s2", "s1", "09:00:03", [text("sub answer")], isSidechain=True, message_id="m2"),
        user("u2", "a1", "09:00:04", [tool_result("toolu_T", [text("sub answer")])]),
        assistant("a2", "u2", "09:00:05", [text("done")], message_id="m3"),
        user("s3", "s2", "09:00:06", "late sidechain line", isSidechain=True),
    ]
    transcript = common(records)
    assert [msg.role for msg in transcript.messages] == ["user", "assistant", "user", "assistant"]
    assert transcript.messages[2].content == (
        m.ToolResult(tool_use_id="toolu_T", content="sub answer"),
    )


def test_a_file_holding_only_a_sidechain_still_reads() -> None:
    records = [
        user("s1", None, "09:00:00", "go", isSidechain=True),
        assistant("s2", "s1", "09:00:01", [text("sub answer")], isSidechain=True),
    ]
    assert texts(common(records)) == ["go", "sub answer"]


def test_compaction_continues_into_the_history_before_the_boundary() -> None:
    records = [
        user("u1", None, "09:00:00", "before compaction"),
        assistant("a1", "u1", "09:00:01", [text("old reply")], message_id="m1"),
        system(
            "c1",
            None,
            "09:10:00",
            "compact_boundary",
            logicalParentUuid="a1",
            compactMetadata={"trigger": "auto", "preTokens": 150000},
        ),
        user(
            "u2",
            "c1",
            "09:10:01",
            "This session is being continued from a previous one.",
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        ),
        user("u3", "u2", "09:10:05", "after compaction"),
    ]
    assert texts(common(records)) == [
        "before compaction",
        "old reply",
        "This session is being continued from a previous one.",
        "after compaction",
    ]


def test_lines_hanging_from_progress_and_system_records_stay_on_the_chain() -> None:
    records = [
        user("u1", None, "09:00:00", "run it"),
        assistant(
            "a1",
            "u1",
            "09:00:01",
            [tool_use("toolu_1", "Bash", {"command": "make"})],
            message_id="m1",
        ),
        {
            "parentUuid": "a1",
            "isSidechain": False,
            "type": "progress",
            "uuid": "p1",
            "timestamp": "2026-08-21T09:00:02Z",
            "data": {"type": "bash_progress"},
        },
        user("u2", "p1", "09:00:03", [tool_result("toolu_1", "ok")]),
        system("s1", "u2", "09:00:04", "stop_hook_summary"),
        assistant("a2", "s1", "09:00:05", [text("built")], message_id="m2"),
    ]
    assert [msg.role for msg in common(records).messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_records_without_parent_links_follow_file_order() -> None:
    records = [
        {
            "type": "user",
            "message": {"role": "user", "content": "a"},
            "timestamp": "2026-08-21T09:00:00Z",
        },
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [text("b")]},
            "timestamp": "2026-08-21T09:00:01Z",
        },
        {"type": "user", "message": {"role": "user", "content": "c"}},
    ]
    transcript = common(records)
    assert texts(transcript) == ["a", "b", "c"]
    assert transcript.messages[2].timestamp == when("09:00:01")


def test_a_parent_cycle_does_not_hang() -> None:
    records = [
        user("u1", "u2", "09:00:00", "a"),
        user("u2", "u1", "09:00:01", "b"),
    ]
    assert texts(common(records)) == ["a", "b"]


def test_split_lines_of_one_response_merge_even_across_a_result() -> None:
    """Lines sharing ``message.id`` are one API response, whatever was written between them.

    (Before parallel calls were understood, a line of the response written after a result
    started a new message, which left a call and a result of one response in two messages.)
    """
    records = [
        user("u1", None, "09:00:00", "two tools"),
        assistant(
            "a1",
            "u1",
            "09:00:01",
            [text("calling")],
            message_id="m1",
            usage={"input_tokens": 3, "output_tokens": 1},
        ),
        assistant(
            "a2",
            "a1",
            "09:00:02",
            [tool_use("t1", "Glob", {"pattern": "*"})],
            message_id="m1",
            stop_reason="tool_use",
            usage={"input_tokens": 3, "output_tokens": 9},
        ),
        user("u2", "a2", "09:00:03", [tool_result("t1", "x")]),
        assistant(
            "a3",
            "u2",
            "09:00:04",
            [tool_use("t2", "Glob", {"pattern": "y"})],
            message_id="m1",
            usage={"input_tokens": 3, "output_tokens": 12},
        ),
    ]
    with pytest.warns(TranscriptWarning, match="tool call t2 has no result"):
        transcript = common(records)
    assert len(transcript.messages) == 3
    merged = transcript.messages[1]
    assert merged.content == (
        m.Text(text="calling"),
        m.ToolUse(id="t1", tool=m.Raw(tool_name="Glob", input={"pattern": "*"})),
        m.ToolUse(id="t2", tool=m.Raw(tool_name="Glob", input={"pattern": "y"})),
    )
    assert merged.timestamp == when("09:00:01")
    assert merged.stop_reason == "tool_use"
    assert merged.usage == m.Usage(input_tokens=3, output_tokens=12)
    assert transcript.messages[2] == m.Message(
        role="user",
        content=(m.ToolResult(tool_use_id="t1", content="x"),),
        timestamp=when("09:00:03"),
    )


# ----------------------------------------------------------------------------------- blocks


def test_thinking_keeps_signatures_and_redacted_thinking_is_encrypted() -> None:
    records = [
        user("u1", None, "09:00:00", "think"),
        assistant(
            "a1",
            "u1",
            "09:00:01",
            [
                {"type": "thinking", "thinking": "step", "signature": "SIG"},
                {"type": "redacted_thinking", "data": "BLOB"},
                text("answer"),
            ],
        ),
    ]
    assert common(records).messages[1].content == (
        m.Thinking(text="step", signature="SIG"),
        m.Thinking(text="", encrypted="BLOB"),
        m.Text(text="answer"),
    )


def test_images_in_prompts_and_in_tool_results() -> None:
    image_block = {"type": "image", "source": PNG}
    records = [
        user("u1", None, "09:00:00", [text("what is this"), image_block]),
        assistant("a1", "u1", "09:00:01", [tool_use("t1", "Read", {"file_path": "/a.png"})]),
        user("u2", "a1", "09:00:02", [tool_result("t1", [image_block])]),
    ]
    transcript = common(records)
    assert transcript.messages[0].content[1] == m.Image(
        source=m.ImageSource(type="base64", media_type="image/png", data="iVBORw0KGgo=")
    )
    assert transcript.messages[2].content == (
        m.ToolResult(tool_use_id="t1", content=[image_block]),
    )


def test_result_outputs_errors_and_text_block_arrays() -> None:
    records = [
        user("u1", None, "09:00:00", "go"),
        assistant(
            "a1",
            "u1",
            "09:00:01",
            [
                tool_use("t1", "Bash", {"command": "false"}),
                tool_use("t2", "mcp__x__y", {"q": 1}),
                tool_use("t3", "Task", {"prompt": "p"}),
            ],
        ),
        user(
            "u2",
            "a1",
            "09:00:02",
            [
                tool_result("t1", "exit 1", is_error=True),
                tool_result("t2", [text("a"), text("b")], is_error=False),
                tool_result("t3", [text("report")]),
            ],
        ),
    ]
    assert common(records).messages[2].content == (
        m.ToolResult(tool_use_id="t1", content="exit 1", is_error=True),
        m.ToolResult(tool_use_id="t2", content=[text("a"), text("b")]),
        m.ToolResult(tool_use_id="t3", content="report"),
    )


def test_tool_inputs_type_only_on_an_exact_fit() -> None:
    records = [
        user("u1", None, "09:00:00", "go"),
        assistant(
            "a1",
            "u1",
            "09:00:01",
            [
                tool_use("t1", "Bash", {"command": "ls", "timeout": 5000}),
                tool_use("t2", "Edit", {"file_path": "/a", "old_string": "x", "new_string": "y"}),
            ],
        ),
    ]
    content = common(records).messages[1].content
    assert content == (
        m.ToolUse(id="t1", tool=m.Raw(tool_name="Bash", input={"command": "ls", "timeout": 5000})),
        m.ToolUse(id="t2", tool=m.Edit(file_path="/a", old_string="x", new_string="y")),
    )


def test_usage_zero_cache_counts_and_all_zero_usage_are_absent() -> None:
    zero = {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    records = [
        user("u1", None, "09:00:00", "go"),
        assistant("a1", "u1", "09:00:01", [text("x")], usage=zero, message_id="m1"),
        assistant(
            "a2",
            "a1",
            "09:00:02",
            [text("y")],
            message_id="m2",
            usage={
                "input_tokens": 5,
                "output_tokens": 1,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 7,
            },
        ),
    ]
    messages = common(records).messages
    assert messages[1].usage is None
    assert messages[2].usage == m.Usage(
        input_tokens=5, output_tokens=1, cache_creation_input_tokens=7
    )


@pytest.mark.parametrize(
    ("native", "expected"),
    [
        ("end_turn", "end_turn"),
        ("max_tokens", "max_tokens"),
        ("stop_sequence", "stop_sequence"),
        ("pause_turn", m.OtherStop(other="pause_turn")),
        ("refusal", m.OtherStop(other="refusal")),
        (None, None),
    ],
)
def test_stop_reasons(native: str | None, expected: object) -> None:
    records = [
        user("u1", None, "09:00:00", "go"),
        assistant("a1", "u1", "09:00:01", [text("x")], stop_reason=native),
    ]
    assert common(records).messages[1].stop_reason == expected


def test_malformed_lines_are_skipped_with_a_warning_naming_the_line() -> None:
    records = [
        user("u1", None, "09:00:00", "hi"),
        "{not json",
        "[1, 2]",
        "",
        {"type": "assistant", "uuid": "a0", "parentUuid": "u1", "message": "oops"},
        assistant("a1", "a0", "09:00:01", [text("ok"), {"type": "document", "source": {}}]),
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        transcript = common(records)
    shown = [str(w.message) for w in caught]
    assert "claude_code line 2: not valid JSON; skipped" in shown
    assert "claude_code line 3: not a JSON object; skipped" in shown
    assert any(s.startswith("claude_code line 5: assistant record has no message") for s in shown)
    assert any("line 6" in s and "document" in s for s in shown)
    assert not any("line 4" in s for s in shown)
    assert texts(transcript) == ["hi", "ok"]


# ------------------------------------------------------------------------------- side files


def test_spilled_tool_results_are_inlined_from_the_body() -> None:
    full = "line\n" * 5000
    preview = (
        "<persisted-output>\nOutput too large (25KB). Full output saved to: "
        f"/home/dev/.claude/projects/-repo/{SID}/tool-results/toolu_02.txt\n\n"
        "Preview (first 2KB):\nline\nline\n</persisted-output>"
    )
    records = [
        user("u1", None, "09:00:00", "go"),
        assistant(
            "a1",
            "u1",
            "09:00:01",
            [tool_use("toolu_01", "Bash", {"command": "big"})],
            message_id="m1",
        ),
        user(
            "u2",
            "a1",
            "09:00:02",
            [tool_result("toolu_01", "Output too large; preview…")],
            toolUseResult={
                "stdout": "…",
                "persistedOutputPath": f"/home/dev/.claude/projects/-repo/{SID}"
                "/tool-results/toolu_01.txt",
            },
        ),
        assistant(
            "a2",
            "u2",
            "09:00:03",
            [tool_use("toolu_02", "Bash", {"command": "big2"})],
            message_id="m2",
        ),
        user("u3", "a2", "09:00:04", [tool_result("toolu_02", preview)]),
    ]
    side = (
        SideFile("tool-results/toolu_01.txt", full.encode()),
        SideFile("tool-results/toolu_02.txt", b"second full output"),
    )
    with_files = reader.to_common(session(records, side_files=side))
    assert with_files.messages[2].content == (m.ToolResult(tool_use_id="toolu_01", content=full),)
    assert with_files.messages[4].content == (
        m.ToolResult(tool_use_id="toolu_02", content="second full output"),
    )
    without = common(records)
    assert without.messages[2].content[0] == m.ToolResult(
        tool_use_id="toolu_01", content="Output too large; preview…"
    )


def test_subagent_files_read_as_their_own_transcripts_and_stay_out_of_the_main_one() -> None:
    agent_lines = "".join(
        __import__("json").dumps(r) + "\n"
        for r in [
            user("s1", None, "09:00:02", "find the bug", isSidechain=True, agentId="ab12"),
            assistant(
                "s2",
                "s1",
                "09:00:03",
                [text("it is in lib.rs")],
                isSidechain=True,
                agentId="ab12",
                model="claude-haiku-4-5",
            ),
        ]
    )
    records = [
        user("u1", None, "09:00:00", "investigate"),
        assistant("a1", "u1", "09:00:01", [tool_use("t1", "Task", {"prompt": "find the bug"})]),
        user("u2", "a1", "09:00:04", [tool_result("t1", [text("it is in lib.rs")])]),
    ]
    body = session(
        records,
        side_files=(
            SideFile("subagents/agent-ab12.jsonl", agent_lines.encode()),
            SideFile("subagents/agent-ab12.meta.json", b'{"agentType":"general-purpose"}'),
        ),
    )
    assert len(reader.to_common(body).messages) == 3
    subs = reader.subagents(body)
    assert list(subs) == ["agent-ab12"]
    assert texts(subs["agent-ab12"]) == ["find the bug", "it is in lib.rs"]
    assert subs["agent-ab12"].meta.model == "claude-haiku-4-5"
