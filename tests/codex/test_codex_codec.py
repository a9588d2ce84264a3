"""Codex codec and text form: every generation read faithfully, the fixpoint, determinism."""

from __future__ import annotations

import json
import uuid
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from codex_fixtures import (
    BARE_ID,
    BROKEN_LINE,
    ENCRYPTED,
    IMAGE_DATA,
    LEGACY_ID,
    SESSION_ID,
    bare_text,
    current_text,
    legacy_document,
    legacy_text,
    line,
)

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import Malformed
from txcript.harnesses.codex import codec, native, tools

H = harnesses.get("codex")


def at(text: str) -> datetime:
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return parsed.astimezone(UTC)


def read(text: str) -> m.Transcript:
    return H.to_common(H.from_text(text))


def lines_of(session: native.CodexSession) -> list[dict[str, Any]]:
    return [json.loads(row.text) for row in session.lines]


# ------------------------------------------------------------------------------ reading


def test_current_rollout_gives_exactly_the_expected_messages() -> None:
    with pytest.warns(TranscriptWarning, match=f"line {BROKEN_LINE} of the Codex rollout"):
        transcript = read(current_text())
    t = "2026-08-20T10:00:0{}Z".format
    model, max_model = "gpt-5.1-codex", "gpt-5.1-codex-max"
    expected = m.Transcript(
        meta=m.Meta(
            id=SESSION_ID,
            timestamp=at(t("0.000")),
            cwd="/home/dev/proj",
            git_branch="fix/parser",
            title="Fix the failing parser test",
            cli_version="0.77.0",
            model=model,
        ),
        messages=(
            m.Message(
                role="user",
                content=(m.Text(text="Fix the failing parser test\nplease"),),
                timestamp=at(t("1.100")),
            ),
            m.Message(
                role="assistant",
                content=(
                    m.Thinking(text="**Running tests**", encrypted=ENCRYPTED),
                    m.ToolUse(
                        id="call_exec1", tool=m.Bash(command="cargo test", workdir="/home/dev/proj")
                    ),
                ),
                timestamp=at(t("2.000")),
                model=model,
                usage=m.Usage(input_tokens=1200, output_tokens=80, cache_read_input_tokens=1000),
            ),
            m.Message(
                role="user",
                content=(
                    m.ToolResult(
                        tool_use_id="call_exec1",
                        content="FAILED parser::tests::bounds",
                        is_error=True,
                    ),
                ),
                timestamp=at(t("3.000")),
            ),
            m.Message(
                role="assistant",
                content=(
                    m.ToolUse(
                        id="call_patch1",
                        tool=m.MultiEdit(
                            file_path="src/parser.rs",
                            edits=(
                                m.EditSpec(
                                    old_string="let mut i = 0;\nwhile i <= n {",
                                    new_string="let mut i = 0;\nwhile i < n {",
                                ),
                                m.EditSpec(old_string="    i += 2;", new_string="    i += 1;"),
                            ),
                        ),
                    ),
                ),
                timestamp=at(t("3.500")),
                model=model,
                usage=m.Usage(input_tokens=1400, output_tokens=60, cache_read_input_tokens=1200),
            ),
            m.Message(
                role="user",
                content=(
                    m.ToolResult(
                        tool_use_id="call_patch1",
                        content="Success. Updated the following files:\nM src/parser.rs\n",
                    ),
                ),
                timestamp=at(t("4.000")),
            ),
            m.Message(
                role="assistant",
                content=(
                    m.ToolUse(
                        id="call_plan1",
                        tool=m.Raw(
                            tool_name="update_plan",
                            input={"plan": [{"step": "fix bound", "status": "completed"}]},
                        ),
                    ),
                ),
                timestamp=at(t("4.100")),
                model=model,
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id="call_plan1", content="Plan updated"),),
                timestamp=at(t("4.200")),
            ),
            m.Message(
                role="assistant",
                content=(m.Text(text="Fixed the off-by-one."),),
                timestamp=at(t("5.000")),
                model=model,
                stop_reason="end_turn",
                usage=m.Usage(input_tokens=1500, output_tokens=20, cache_read_input_tokens=1400),
            ),
            m.Message(
                role="user",
                content=(
                    m.Text(text="what is in this screenshot?"),
                    m.Image(
                        source=m.ImageSource(type="base64", media_type="image/png", data=IMAGE_DATA)
                    ),
                ),
                timestamp=at(t("6.100")),
            ),
            m.Message(
                role="assistant",
                content=(
                    m.ToolUse(
                        id="call_ls", tool=m.Bash(command="ls -la 'my dir'", timeout_ms=5000)
                    ),
                ),
                timestamp=at(t("7.000")),
                model=max_model,
                stop_reason="aborted",
            ),
        ),
    )
    assert transcript == expected


def test_bare_rollout_normalises_legacy_shell_argv_to_bash() -> None:
    transcript = read(bare_text())
    start = at("2025-06-01T08:30:00Z")
    assert transcript.meta == m.Meta(
        id=BARE_ID, timestamp=start, git_branch="main", title="list the files"
    )
    assert all(message.timestamp == start for message in transcript.messages)
    roles = [message.role for message in transcript.messages]
    assert roles == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    user, first, result1, second, result2, third, result3, last = transcript.messages
    assert user.content == (m.Text(text="list the files"),)
    assert first.content == (
        m.Thinking(text="", encrypted=ENCRYPTED),
        m.ToolUse(id="call_1", tool=m.Bash(command="ls -la", workdir="/srv/app", timeout_ms=10000)),
    )
    assert result1.content == (m.ToolResult(tool_use_id="call_1", content="total 0\n"),)
    assert second.content == (
        m.ToolUse(id="call_2", tool=m.Bash(command="cat README.md", workdir="/srv/app")),
    )
    assert result2.content == (
        m.ToolResult(tool_use_id="call_2", content="cat: README.md: No such file", is_error=True),
    )
    # An argument no Bash field holds keeps the call Raw, under its name, input untouched.
    assert third.content == (
        m.ToolUse(
            id="call_3",
            tool=m.Raw(
                tool_name="shell",
                input={
                    "command": ["bash", "-lc", "rm -rf build"],
                    "with_escalated_permissions": True,
                    "justification": "clean",
                },
            ),
        ),
    )
    assert result3.content == (m.ToolResult(tool_use_id="call_3", content="denied"),)
    # Arguments that are not JSON stay a raw string; text in the same response joins the message.
    assert last.content == (
        m.ToolUse(id="call_4", tool=m.Raw(tool_name="broken", input="{not json")),
        m.Text(text="There are no files."),
    )


def test_legacy_document_reads_with_shell_apply_patch_as_write() -> None:
    transcript = read(legacy_text())
    start = at("2025-04-16T17:20:05.123Z")
    assert transcript.meta == m.Meta(id=LEGACY_ID, timestamp=start, title="hello codex")
    assert [msg.content for msg in transcript.messages] == [
        (m.Text(text="hello codex"),),
        (m.ToolUse(id="call_a", tool=m.Write(file_path="hello.txt", content="hi\n")),),
        (m.ToolResult(tool_use_id="call_a", content="Done!"),),
        (m.Text(text="Created hello.txt"),),
    ]


@pytest.mark.parametrize("text", [current_text(), bare_text(), legacy_text()])
def test_text_form_round_trips_exactly(text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        session = H.from_text(text)
        assert H.to_text(session) == text
        assert H.from_text(H.to_text(session)) == session


def test_crlf_and_missing_final_newline_are_kept() -> None:
    rows = [line(r) for r in json.loads("[" + ",".join(bare_text().splitlines()) + "]")]
    text = "\r\n".join(rows)
    session = H.from_text(text)
    assert H.to_text(session) == text
    assert read(text).meta.id == BARE_ID


def test_sniff_recognises_legacy_documents_and_one_line_rollouts() -> None:
    assert H.sniff(legacy_document())
    assert H.sniff(json.loads(current_text().splitlines()[0]))
    assert not H.sniff({"messages": []})
    assert not H.sniff({"type": "session_meta", "payload": 3})


def test_a_bare_rollout_is_recognised_as_a_document_without_from(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """Regression (found by the conformance suite's text round trip): ``sniff_lines`` knew only
    the ``session_meta`` envelope, so ``txcript export rollout.jsonl`` of a mid-2025 rollout,
    whose first line is the bare ``{"id", "timestamp", "instructions", "git"}`` header, failed
    with "not valid JSON" although the store lists and reads such files."""
    values = [json.loads(row) for row in bare_text().splitlines() if row.strip()]
    assert H.sniff_lines(values)
    assert not H.sniff_lines([{"id": "x", "timestamp": "2025-06-01T08:30:00Z"}])
    assert not H.sniff_lines([{"id": "x", "timestamp": "t", "instructions": None, "type": "a"}])
    path = tmp_path / "rollout-bare.jsonl"
    path.write_text(bare_text())
    result = run_cli("export", str(path), "--format", "common")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["meta"]["id"] == BARE_ID


@pytest.mark.parametrize("text", ["", "  \n", "not json\n", "[1,2]\n"])
def test_text_without_rollout_records_is_malformed(text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        with pytest.raises(Malformed, match="malformed codex transcript"):
            H.from_text(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"x":1}\n',
        '{"type":"mystery","payload":{}}\n{"id":3}\n',
        '{"type":"user","message":{"role":"user","content":"hi"},"sessionId":"s"}\n',
        '{"session":{"id":"a"}}\n',
    ],
)
def test_json_objects_that_are_not_rollout_records_are_malformed(text: str) -> None:
    """Regression: any JSON object was accepted as a rollout, so ``echo '{"x":1}' | txcript
    convert --from codex …`` exited 0 with a synthesised 1970 session while ``[]`` was refused.
    Now at least one line must be a record the codec reads (an envelope of a known kind, a bare
    header, or a bare Responses item); a Claude Code line is not one."""
    with pytest.raises(Malformed, match="no line of the input is a Codex rollout record"):
        H.from_text(text)


def test_unknown_records_beside_a_known_one_still_round_trip() -> None:
    rows = current_text().splitlines()
    rows.insert(1, '{"timestamp":"2026-08-20T10:00:00Z","type":"brand_new_kind","payload":{}}')
    rows.insert(2, '{"x":1}')
    text = "\n".join(rows) + "\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        session = H.from_text(text)
    assert H.to_text(session) == text


def test_cli_refuses_a_stray_json_object_as_a_codex_session(
    run_cli: RunCli, tmp_path: Path, isolated_home: Path
) -> None:
    """The same regression end to end: ``convert`` exits 2 with one line and prints nothing;
    ``continue`` exits 2 and writes no Claude Code session."""
    converted = run_cli("convert", "--from", "codex", "--to", "claude_code", stdin=b'{"x":1}\n')
    assert converted.code == 2 and converted.stdout == ""
    assert converted.stderr.splitlines() == [
        "txcript: error: malformed codex transcript: no line of the input is a Codex rollout "
        'record (expected JSON lines such as {"type": "session_meta", "payload": {…}})'
    ]
    document = tmp_path / "x.json"
    document.write_text('{"x":1}')
    continued = run_cli(
        "continue", str(document), "--from", "codex", "--with", "claude_code", "--no-resume"
    )
    assert continued.code == 2, continued.stdout
    assert len(continued.stderr.splitlines()) == 1
    assert "malformed codex transcript" in continued.stderr
    assert not (isolated_home / ".claude").exists()


def test_title_prefers_the_thread_name_event_in_the_text_form() -> None:
    event = {"type": "thread_name_updated", "thread_id": SESSION_ID, "thread_name": "Parser fix"}
    rows = current_text().splitlines()
    rows.insert(
        3, line({"timestamp": "2026-08-20T10:00:00.500Z", "type": "event_msg", "payload": event})
    )
    with pytest.warns(TranscriptWarning):
        assert read("\n".join(rows)).meta.title == "Parser fix"


def test_duplicate_token_counts_and_zero_cache_do_not_add_usage() -> None:
    meta = {"id": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/r", "cli_version": "1"}
    usage = {"input_tokens": 5, "cached_input_tokens": 0, "output_tokens": 7, "total_tokens": 12}
    count = {"type": "token_count", "info": {"last_token_usage": usage, "total_token_usage": usage}}
    ts = "2026-01-01T00:00:01Z"
    rows = [
        {"timestamp": ts, "type": "session_meta", "payload": meta},
        {"timestamp": ts, "type": "event_msg", "payload": count},
        {"timestamp": ts, "type": "response_item", "payload": {
            "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "a"}]}},
        {"timestamp": ts, "type": "response_item", "payload": {
            "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "b"}]}},
        {"timestamp": ts, "type": "event_msg", "payload": count},
        {"timestamp": ts, "type": "event_msg", "payload": count},
    ]  # fmt: skip
    transcript = read("\n".join(line(r) for r in rows))
    (message,) = transcript.messages
    assert message.content == (m.Text(text="a"), m.Text(text="b"))
    assert message.usage == m.Usage(input_tokens=5, output_tokens=7)


# ------------------------------------------------------------------------------ tools


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ('{"output":"ok","metadata":{"exit_code":0,"duration_seconds":1.5}}', ("ok", False)),
        ('{"output":"no","metadata":{"exit_code":2,"duration_seconds":0}}', ("no", True)),
        ("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom\n", ("boom\n", True)),
        (
            "Exit code: 0\nWall time: 1 seconds\nTotal output lines: 2\nOutput:\na\nb",
            ("a\nb", False),
        ),
        (
            "Chunk ID: 1\nWall time: 0.1 seconds\nProcess running with session ID 7\nOutput:\n",
            ("", False),
        ),
        ('{"output":"x","metadata":{"exit_code":0},"extra":1}', None),
        ("plain text", ("plain text", False)),
    ],
)
def test_exec_output_envelopes(output: str, expected: tuple[str, bool] | None) -> None:
    assert tools.exec_output(output) == (expected or (output, False))


def test_shell_argv_forms() -> None:
    assert tools.call_tool("shell", '{"command":["zsh","-c","echo hi"]}') == m.Bash(
        command="echo hi"
    )
    assert tools.call_tool("shell", '{"command":"make test","timeout":30}') == m.Bash(
        command="make test", timeout_ms=30
    )
    assert tools.call_tool("shell_command", '{"command":"ls","login":true}') == m.Bash(command="ls")
    assert tools.call_tool("shell", '{"command":[]}') == m.Raw(
        tool_name="shell", input={"command": []}
    )
    assert tools.call_tool("exec_command", '{"cmd":"top","tty":true}') == m.Raw(
        tool_name="exec_command", input={"cmd": "top", "tty": True}
    )


def test_patches_that_are_not_one_simple_file_stay_raw() -> None:
    two_files = "*** Begin Patch\n*** Delete File: a\n*** Add File: b\n+x\n*** End Patch"
    assert tools.custom_tool("apply_patch", two_files) == m.Raw(
        tool_name="apply_patch", input=two_files
    )
    moved = "*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End Patch"
    assert isinstance(tools.custom_tool("apply_patch", moved), m.Raw)
    insertion_only = "*** Begin Patch\n*** Update File: a\n@@\n+y\n*** End Patch"
    assert isinstance(tools.custom_tool("apply_patch", insertion_only), m.Raw)
    assert tools.call_tool("apply_patch", '{"input":"junk"}') == m.Raw(
        tool_name="apply_patch", input={"input": "junk"}
    )


@pytest.mark.parametrize(
    ("tool", "native_type"),
    [
        (m.Edit(file_path="/r/a.py", old_string="x", new_string="y"), "custom_tool_call"),
        (
            m.Edit(file_path="/r/a.py", old_string="x", new_string="y", replace_all=True),
            "function_call",
        ),
        (m.Write(file_path="/r/a.txt", content="no newline"), "function_call"),
        (m.Write(file_path="/r/a.txt", content="one\ntwo\n"), "custom_tool_call"),
        (
            m.MultiEdit(file_path="/r/a", edits=(m.EditSpec(old_string="a", new_string="b"),)),
            "function_call",
        ),
        (m.Read(file_path="/r/a", offset=3), "function_call"),
        (m.Raw(tool_name="mcp__x__y", input={"k": [1, 2]}), "function_call"),
        (m.Raw(tool_name="freeform", input="raw text"), "custom_tool_call"),
    ],
)
def test_tools_are_written_in_a_shape_that_reads_back(tool: m.Tool, native_type: str) -> None:
    _name, item = tools.native_call(tool, "c1")
    assert item["type"] == native_type
    if native_type == "function_call":
        back = tools.call_tool(item["name"], item["arguments"])
    else:
        back = tools.custom_tool(item["name"], item["input"])
    assert back == tool


# ------------------------------------------------------------------------------ writing

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def kitchen_sink() -> m.Transcript:
    s = lambda n: T0 + timedelta(seconds=n, microseconds=250)  # noqa: E731
    return m.Transcript(
        meta=m.Meta(
            id="019b0000-0000-7000-8000-000000000001",
            timestamp=T0,
            cwd="/repo",
            git_branch="main",
            title="Kitchen sink",
            cli_version="0.146.0",
            model="gpt-5.1-codex",
        ),
        messages=(
            m.Message(
                role="user",
                content=(
                    m.Text(text="fix the bug"),
                    m.Image(
                        source=m.ImageSource(type="base64", media_type="image/png", data="AA==")
                    ),
                ),
                timestamp=s(1),
            ),
            m.Message(
                role="assistant",
                content=(
                    m.Thinking(text="look first", encrypted=ENCRYPTED),
                    m.Text(text="Running the tests."),
                    m.ToolUse(id="call-1", tool=m.Bash(command="cargo test", timeout_ms=600000)),
                    m.ToolUse(id="call-2", tool=m.Raw(tool_name="mcp__db__query", input={"q": 1})),
                ),
                timestamp=s(2),
                model="gpt-5.1-codex",
                usage=m.Usage(input_tokens=100, output_tokens=20, cache_read_input_tokens=64),
            ),
            m.Message(
                role="user",
                content=(
                    m.ToolResult(tool_use_id="call-1", content="1 failed", is_error=True),
                    m.ToolResult(tool_use_id="call-2", content="[]"),
                ),
                timestamp=s(3),
            ),
            m.Message(
                role="assistant",
                content=(
                    m.ToolUse(
                        id="call-3",
                        tool=m.Edit(
                            file_path="/repo/a.rs", old_string="i <= n", new_string="i < n"
                        ),
                    ),
                ),
                timestamp=s(4),
                model="gpt-5.2",
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id="call-3", content="patched"),),
                timestamp=s(5),
            ),
            m.Message(
                role="assistant",
                content=(m.Text(text="done"),),
                timestamp=s(6),
                model="gpt-5.2",
                stop_reason="end_turn",
            ),
            m.Message(role="user", content=(m.Text(text="and again?"),), timestamp=s(7)),
            m.Message(
                role="assistant",
                content=(m.Text(text="stopping"),),
                timestamp=s(8),
                stop_reason="aborted",
            ),
            m.Message(role="user", content=(m.Text(text="retry"),), timestamp=s(9)),
            m.Message(
                role="assistant",
                content=(m.Thinking(text=""),),
                timestamp=s(10),
                model="gpt-5.2",
                stop_reason="error",
            ),
        ),
    )


def test_kitchen_sink_fixpoint() -> None:
    transcript = kitchen_sink()
    assert H.to_common(H.from_common(transcript)) == transcript
    assert H.to_common(H.from_text(H.to_text(H.from_common(transcript)))) == transcript


def test_cross_harness_sample_keeps_ids_and_shapes() -> None:
    t = T0
    sample = m.Transcript(
        meta=m.Meta(id="x1", timestamp=t, cwd="/repo", title="Cross", model="claude-opus-4-8"),
        messages=(
            m.Message(role="user", content=(m.Text(text="fix the bug"),), timestamp=t),
            m.Message(
                role="assistant",
                content=(
                    m.ToolUse(
                        id="call-1",
                        tool=m.Edit(
                            file_path="/repo/a.rs", old_string="i <= n", new_string="i < n"
                        ),
                    ),
                ),
                timestamp=t,
                model="claude-opus-4-8",
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id="call-1", content="patched"),),
                timestamp=t,
            ),
            m.Message(
                role="assistant",
                content=(m.Text(text="done"),),
                timestamp=t,
                model="claude-opus-4-8",
            ),
        ),
    )
    assert H.to_common(H.from_common(sample)) == sample


def test_from_common_writes_what_resume_needs() -> None:
    rows = lines_of(H.from_common(kitchen_sink()))
    first = rows[0]
    assert first["type"] == "session_meta"
    payload = first["payload"]
    assert payload["model_provider"] == "openai"
    assert "base_instructions" in payload and payload["base_instructions"] is None
    assert payload["source"] == "cli" and payload["originator"] == "codex_cli_rs"
    assert payload["cwd"] == "/repo" and payload["git"] == {"branch": "main"}
    kinds = {(r["type"], r["payload"].get("type")) for r in rows}
    for needed in [
        ("turn_context", None),
        ("response_item", "message"),
        ("response_item", "reasoning"),
        ("response_item", "function_call"),
        ("response_item", "function_call_output"),
        ("response_item", "custom_tool_call"),
        ("response_item", "custom_tool_call_output"),
        ("event_msg", "user_message"),
        ("event_msg", "agent_message"),
        ("event_msg", "token_count"),
        ("event_msg", "task_complete"),
        ("event_msg", "turn_aborted"),
    ]:
        assert needed in kinds
    for row in rows:
        assert row["timestamp"].endswith("Z") and at(row["timestamp"]) >= T0
    contexts = [r["payload"] for r in rows if r["type"] == "turn_context"]
    assert all(c["cwd"] == "/repo" for c in contexts)
    # The model in force for each assistant message; "" stands for "not recorded".
    assert [c["model"] for c in contexts] == [
        "gpt-5.1-codex",
        "gpt-5.2",
        "gpt-5.2",
        "",
        "",
        "gpt-5.2",
    ]
    calls = [r["payload"] for r in rows if r["payload"].get("type") == "function_call"]
    assert all(isinstance(json.loads(c["arguments"]), dict) for c in calls)
    shell = next(c for c in calls if c["name"] == "shell")
    assert json.loads(shell["arguments"]) == {
        "command": ["bash", "-lc", "cargo test"],
        "timeout_ms": 600000,
    }
    # Every turn id is UUIDv7-shaped.
    for c in contexts:
        assert uuid.UUID(c["turn_id"]).version == 7


def test_scaffolding_is_regenerated_on_write_and_dropped_on_read() -> None:
    rows = lines_of(H.from_common(kitchen_sink()))
    prompts = [
        r["payload"]["content"][0]["text"]
        for r in rows
        if r["payload"].get("type") == "message" and r["payload"].get("role") == "user"
    ]
    assert prompts[0].startswith("<environment_context>") and "<cwd>/repo</cwd>" in prompts[0]
    assert H.to_common(H.from_common(kitchen_sink())).messages[0].content[0] == m.Text(
        text="fix the bug"
    )


def test_empty_id_is_kept_not_minted() -> None:
    transcript = m.Transcript(meta=m.Meta(id="", timestamp=T0))
    session = H.from_common(transcript)
    assert lines_of(session)[0]["payload"]["id"] == ""
    assert H.to_common(session) == transcript


def test_new_session_ids_are_fresh_uuid7() -> None:
    a, b = H.new_session_id(), H.new_session_id()
    assert a != b and uuid.UUID(a).version == 7 and uuid.UUID(a).variant == uuid.RFC_4122
    assert H.resume_command(a) == ["codex", "resume", a]


def test_derived_turn_ids_follow_the_turn_time() -> None:
    value = codec.derived_v7(T0, "k")
    assert uuid.UUID(value).version == 7
    assert int(uuid.UUID(value).hex[:12], 16) == int(T0.timestamp() * 1000)
    assert codec.derived_v7(T0, "k") == value != codec.derived_v7(T0, "l")


@pytest.mark.parametrize(
    "line",
    [
        {"type": ["event_msg"], "payload": {}},
        {"type": {"kind": "response_item"}, "payload": {}},
        {"type": ["message"], "role": "user"},
    ],
)
def test_a_record_whose_type_is_not_a_string_is_no_known_record(line: dict[str, Any]) -> None:
    """The fuzz pass found a rollout line whose ``type`` was a list: the kind was looked up in
    a set and the unhashable value escaped as a TypeError instead of the line being skipped."""
    assert native.is_known_record(line) is False
    with pytest.warns(TranscriptWarning, match="not valid JSON"):  # (the fixture's own line)
        session = native.parse(current_text() + json.dumps(line) + "\n")  # skipped, and kept
    assert json.dumps(line) in native.render(session)
    with pytest.raises(Malformed):  # alone: a one-line error, not a TypeError
        native.parse(json.dumps(line) + "\n")
