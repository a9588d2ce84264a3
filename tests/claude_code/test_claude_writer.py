"""Common → Claude Code: the shapes resume needs, for any Common value and for the known ones."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from claude_fixtures import SID
from hypothesis import HealthCheck, given, settings

from strategies import transcripts as any_transcripts
from txcript import model as m
from txcript.harnesses.claude_code import reader, writer
from txcript.harnesses.claude_code.native import ClaudeSession
from txcript.harnesses.claude_code.text import from_text, to_text

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
_ID = re.compile(r"[A-Za-z0-9_-]+")


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def records(native: ClaudeSession) -> list[dict[str, Any]]:
    return [line.value for line in native.lines]


# ------------------------------------------------- any Common value: only resumable shapes


def check_resumable(native: ClaudeSession, session_id: str) -> None:
    calls: set[str] = set()
    previous: str | None = None
    uuids: set[str] = set()
    for record in records(native):
        if record["type"] in ("summary", "queue-operation"):
            continue
        for key in ("sessionId", "gitBranch", "isSidechain", "userType", "timestamp", "uuid"):
            assert key in record
        assert record["sessionId"] == session_id
        assert record["isSidechain"] is False and record["userType"] == "external"
        assert record["parentUuid"] == previous
        assert str(uuid.UUID(record["uuid"])) == record["uuid"]
        assert record["uuid"] not in uuids
        uuids.add(record["uuid"])
        previous = record["uuid"]
        content = record["message"]["content"]
        blocks = content if isinstance(content, list) else []
        for block in blocks:
            kind = block["type"]
            if record["type"] == "user":
                assert kind in ("text", "image", "tool_result")
                if kind == "tool_result":
                    assert block["tool_use_id"] in calls
                    out = block["content"]
                    assert isinstance(out, str) or all(
                        b["type"] in writer.RESULT_BLOCK_TYPES for b in out
                    )
            else:
                assert kind in ("text", "thinking", "redacted_thinking", "tool_use")
                if kind == "tool_use":
                    assert _ID.fullmatch(block["id"])
                    calls.add(block["id"])
                if kind == "thinking":
                    assert isinstance(block["signature"], str)
    summaries = [r for r in records(native) if r["type"] == "summary"]
    for summary in summaries:
        assert summary["leafUuid"] == previous


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_transcripts)
def test_any_common_transcript_is_written_in_shapes_claude_code_resumes(
    transcript: m.Transcript,
) -> None:
    native = writer.from_common(transcript)
    check_resumable(native, transcript.meta.id)
    again = reader.to_common(from_text(to_text(native))) if native.lines else None
    if again is not None:
        assert len(again.messages) >= len([x for x in transcript.messages if x.content]) // 2


# ------------------------------------------------------------------------- specific shapes


def sample() -> m.Transcript:
    """The cross-harness hop sample (one block per message)."""
    return m.Transcript(
        meta=m.Meta(id="x1", timestamp=at(1), cwd="/repo", title="Cross", model="claude-opus-4-8"),
        messages=(
            m.Message(role="user", content=(m.Text(text="fix the bug"),), timestamp=at(1)),
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
                timestamp=at(2),
                model="claude-opus-4-8",
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id="call-1", content="patched"),),
                timestamp=at(3),
            ),
            m.Message(
                role="assistant",
                content=(m.Text(text="done"),),
                timestamp=at(4),
                model="claude-opus-4-8",
            ),
        ),
    )


def test_the_cross_harness_sample_survives_with_its_call_ids() -> None:
    transcript = sample()
    assert reader.to_common(writer.from_common(transcript)) == transcript


def test_envelope_fields_resume_needs_are_on_every_line() -> None:
    transcript = m.Transcript(
        meta=m.Meta(id=SID, timestamp=at(1), cwd="/repo", git_branch="dev", cli_version="2.1.37"),
        messages=sample().messages,
    )
    native = writer.from_common(transcript)
    assert native.session_id == SID
    lines = records(native)
    assert [r["type"] for r in lines] == ["user", "assistant", "user", "assistant"]
    for record in lines:
        assert record["cwd"] == "/repo"
        assert record["version"] == "2.1.37"
        assert record["gitBranch"] == "dev"
    assert lines[0]["timestamp"] == "2026-01-02T03:04:06.000Z"
    assistant = lines[1]["message"]
    assert assistant["type"] == "message" and assistant["id"].startswith("msg_")
    assert assistant["usage"] == {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    assert lines[0]["uuid"] == str(uuid.uuid5(uuid.UUID(bytes=b"txcript-claude!!"), f"{SID}:0:0"))
    check_resumable(native, SID)


def test_summary_leaf_uuid_names_the_last_real_line() -> None:
    """Regression: a dangling leafUuid made `claude --resume` report the session missing."""
    native = writer.from_common(sample())
    lines = records(native)
    assert lines[0] == {
        "type": "summary",
        "summary": "Cross",
        "leafUuid": lines[-1]["uuid"],
    }
    assert lines[-1]["type"] in ("user", "assistant")
    assert reader.to_common(native).meta.title == "Cross"


def test_no_title_or_no_messages_writes_no_summary() -> None:
    untitled = m.Transcript(meta=m.Meta(id="a", timestamp=T0), messages=sample().messages)
    assert all(r["type"] != "summary" for r in records(writer.from_common(untitled)))
    empty = m.Transcript(meta=m.Meta(id="a", timestamp=T0, title="t"))
    assert [r["type"] for r in records(writer.from_common(empty))] == ["queue-operation"]


def test_a_start_time_other_than_the_first_message_is_kept() -> None:
    later = at(3600)
    meta = m.Meta(id="c", timestamp=later, title="t", model="claude-opus-4-8")
    copy = m.Transcript(meta=meta, messages=sample().messages)
    native = writer.from_common(copy)
    assert [r["type"] for r in records(native)][:2] == ["summary", "queue-operation"]
    assert records(native)[1] == {
        "type": "queue-operation",
        "operation": "dequeue",
        "timestamp": "2026-01-02T04:04:05.000Z",
        "sessionId": "c",
    }
    assert reader.to_common(native) == copy
    empty = m.Transcript(meta=m.Meta(id="e", timestamp=later))
    assert reader.to_common(writer.from_common(empty)) == empty
    same = m.Transcript(meta=m.Meta(id="s", timestamp=at(1)), messages=sample().messages)
    assert all(r["type"] != "queue-operation" for r in records(writer.from_common(same)))


def test_foreign_tool_result_blocks_and_json_output_flatten_to_text() -> None:
    outputs: list[Any] = [
        [{"type": "knowledge", "text": "k"}],
        {"ok": False, "n": [1, 2]},
        [{"type": "text", "text": "a"}, "loose string"],
        None,
    ]
    use = m.Message(
        role="assistant",
        content=tuple(m.ToolUse(id=f"t{i}", tool=m.Raw(tool_name="X", input={})) for i in range(4)),
        timestamp=T0,
    )
    results = m.Message(
        role="user",
        content=tuple(m.ToolResult(tool_use_id=f"t{i}", content=o) for i, o in enumerate(outputs)),
        timestamp=T0,
    )
    native = writer.from_common(
        m.Transcript(meta=m.Meta(id="a", timestamp=T0), messages=(use, results))
    )
    written = records(native)[1]["message"]["content"]
    assert [b["content"] for b in written] == [
        '[{"text":"k","type":"knowledge"}]',
        '{"n":[1,2],"ok":false}',
        '[{"text":"a","type":"text"},"loose string"]',
        "null",
    ]


def test_foreign_call_ids_are_sanitised_consistently_and_stay_unique() -> None:
    ids = ["call\n1", "call 1", "call_1", "ünï", ""]
    use = m.Message(
        role="assistant",
        content=tuple(m.ToolUse(id=i, tool=m.Bash(command="ls")) for i in ids),
        timestamp=T0,
    )
    results = m.Message(
        role="user",
        content=tuple(m.ToolResult(tool_use_id=i, content="ok") for i in ids),
        timestamp=T0,
    )
    native = writer.from_common(
        m.Transcript(meta=m.Meta(id="a", timestamp=T0), messages=(use, results))
    )
    lines = records(native)
    written_uses = [b["id"] for b in lines[0]["message"]["content"]]
    written_results = [b["tool_use_id"] for b in lines[1]["message"]["content"]]
    assert written_uses == written_results
    assert len(set(written_uses)) == len(ids)
    assert written_uses[2] == "call_1"
    assert all(_ID.fullmatch(i) for i in written_uses)
    check_resumable(native, "a")


def test_results_answering_no_call_are_written_as_command_output() -> None:
    transcript = m.Transcript(
        meta=m.Meta(id="a", timestamp=T0),
        messages=(
            m.Message(role="user", content=(m.Text(text="hi"),), timestamp=T0),
            m.Message(
                role="user",
                content=(
                    m.Text(text="see"),
                    m.ToolResult(tool_use_id="gone", content="orphan output", is_error=True),
                ),
                timestamp=T0,
            ),
        ),
    )
    native = writer.from_common(transcript)
    lines = records(native)
    assert [r["message"]["content"] for r in lines] == [
        "hi",
        "see",
        "<local-command-stderr>orphan output</local-command-stderr>",
    ]
    check_resumable(native, "a")


def test_reasoning_without_an_anthropic_signature_becomes_text() -> None:
    transcript = m.Transcript(
        meta=m.Meta(id="a", timestamp=T0),
        messages=(
            m.Message(
                role="assistant",
                content=(
                    m.Thinking(text="foreign reasoning"),
                    m.Thinking(text="codex summary", encrypted="gAAAA"),
                    m.Thinking(text=""),
                    m.Thinking(text="", encrypted="REDACTED"),
                    m.Thinking(text="mine", signature="SIG"),
                ),
                timestamp=T0,
            ),
        ),
    )
    written = records(writer.from_common(transcript))[0]["message"]["content"]
    assert written == [
        {"type": "text", "text": "foreign reasoning"},
        {"type": "text", "text": "codex summary"},
        {"type": "redacted_thinking", "data": "REDACTED"},
        {"type": "thinking", "thinking": "mine", "signature": "SIG"},
    ]


def test_blocks_a_role_cannot_carry_become_readable_text() -> None:
    artifact = m.Artifact(
        artifact=m.ArtifactRef(id="a1", name="plan.md", source=m.TextSource(text="# Plan"))
    )
    transcript = m.Transcript(
        meta=m.Meta(id="a", timestamp=T0),
        messages=(
            m.Message(
                role="user",
                content=(m.ToolUse(id="x", tool=m.Bash(command="ls")), artifact),
                timestamp=T0,
            ),
            m.Message(
                role="assistant",
                content=(
                    m.Image(source=m.ImageSource(type="base64", media_type="image/png", data="A")),
                ),
                timestamp=T0,
            ),
        ),
    )
    lines = records(writer.from_common(transcript))
    assert lines[0]["message"]["content"] == [
        {"type": "text", "text": '[tool Bash] {"command":"ls"}'},
        {"type": "text", "text": "[artifact: plan.md]\n# Plan"},
    ]
    assert lines[1]["message"]["content"] == [{"type": "text", "text": "[image image/png omitted]"}]


def test_an_empty_session_id_is_kept_not_minted() -> None:
    native = writer.from_common(
        m.Transcript(meta=m.Meta(id="", timestamp=T0), messages=sample().messages)
    )
    assert native.session_id == ""
    assert {r["sessionId"] for r in records(native)} == {""}
