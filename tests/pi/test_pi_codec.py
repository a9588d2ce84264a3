"""Each pi generation and shape gives exactly its Common conversation: the active branch only,
from the latest compaction on, every parallel result kept, bookkeeping left in the file."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pi_fixtures as f
import pytest

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning

PI = harnesses.get("pi")
START = datetime(2026, 11, 1, 10, tzinfo=UTC)
USAGE = m.Usage(input_tokens=120, output_tokens=30, cache_read_input_tokens=800)


def at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


def U(seconds: float, *blocks: m.Block | str) -> m.Message:
    content = tuple(m.Text(b) if isinstance(b, str) else b for b in blocks)
    return m.Message(role="user", content=content, timestamp=at(seconds))


def A(
    seconds: float,
    *blocks: m.Block | str,
    model: str = "claude-sonnet-4-5",
    stop: m.StopReason | None = "end_turn",
    usage: m.Usage | None = USAGE,
) -> m.Message:
    content = tuple(m.Text(b) if isinstance(b, str) else b for b in blocks)
    return m.Message(
        role="assistant",
        content=content,
        timestamp=at(seconds),
        model=model,
        stop_reason=stop,
        usage=usage,
    )


def R(call: str, content: str, error: bool = False) -> m.ToolResult:
    return m.ToolResult(tool_use_id=call, content=content, is_error=error)


def meta(sid: str, title: str, model: str = "claude-sonnet-4-5") -> m.Meta:
    return m.Meta(id=sid, timestamp=START, cwd=f.CWD, title=title, model=model)


def read(text: str) -> m.Transcript:
    return PI.to_common(PI.from_text(text))


def test_v1_linear_file_without_ids() -> None:
    """v1: no ids (a linear chain), the model in the header, a hookMessage and a ``!command``."""
    assert read(f.v1()) == m.Transcript(
        meta=meta(f.SID_V1, "list the files"),
        messages=(
            U(1, "list the files"),
            A(
                2,
                m.ToolUse(id="toolu_01", tool=m.Raw(tool_name="ls", input={"path": "."})),
                stop="tool_use",
            ),
            U(3, R("toolu_01", "a.py\nb.py")),
            U(4, "remember the tests"),
            U(5, "Ran `git status`\n```\nclean\n```"),
            A(6, "Two files."),
        ),
    )


def test_v2_tree_with_thinking_and_the_old_edit_shape() -> None:
    edit = m.Edit(file_path="a.py", old_string="i <= n", new_string="i < n")
    assert read(f.v2()) == m.Transcript(
        meta=meta(f.SID_V2, "fix the off-by-one", model="gpt-5"),
        messages=(
            U(1, "fix the off-by-one"),
            A(
                2,
                m.Thinking(text="loop bound", signature="sig-1"),
                m.ToolUse(id="call_1|fc_1", tool=edit),
                model="gpt-5",
                stop="tool_use",
            ),
            U(3, R("call_1|fc_1", "patched")),
            U(4, "lint ok"),
            A(5, "Fixed.", model="gpt-5", usage=None),
        ),
    )


def test_v3_parallel_batch_keeps_every_result_of_functions_ids() -> None:
    """Kimi-style ids (``functions.read:0``) answered out of order, one failing: each result is
    kept, with its ``is_error``; a ``!!`` run and extension state are not conversation; the
    session name (trimmed) is the title."""
    writes = (
        m.ToolUse(id="functions.write:0", tool=m.Write(file_path="c.py", content="x = 1\n")),
        m.ToolUse(
            id="functions.edit:1",
            tool=m.MultiEdit(
                file_path="a.py",
                edits=(
                    m.EditSpec(old_string="a", new_string="b"),
                    m.EditSpec(old_string="c", new_string="d"),
                ),
            ),
        ),
    )
    assert read(f.v3()) == m.Transcript(
        meta=meta(f.SID_V3, "Kimi batch", model="kimi-k2"),
        messages=(
            U(1, "read both files and run the tests"),
            A(
                2,
                m.ToolUse(
                    id="functions.read:0", tool=m.Read(file_path="a.py", offset=10, limit=20)
                ),
                m.ToolUse(id="functions.read:1", tool=m.Read(file_path="b.py")),
                m.ToolUse(id="functions.bash:2", tool=m.Bash(command="pytest", timeout_ms=90000)),
                model="kimi-k2",
                stop="tool_use",
            ),
            U(
                3,
                R("functions.bash:2", "1 failed", error=True),
                R("functions.read:0", "A"),
                R("functions.read:1", "B"),
            ),
            A(6, *writes, model="kimi-k2", stop="tool_use"),
            U(7, R("functions.write:0", "ok"), R("functions.edit:1", "ok")),
            A(9, "One test fails.", model="kimi-k2"),
        ),
    )


def test_branched_tree_reads_the_active_branch_only() -> None:
    transcript = read(f.branched())
    assert "ABANDONED" not in json.dumps(m.to_builtins(transcript))
    assert transcript == m.Transcript(
        meta=meta(f.SID_TREE, "pick a name"),
        messages=(
            U(1, "pick a name"),
            U(
                4,
                "The following is a summary of a branch that this conversation came back from:"
                "\n\n<summary>\ntried a long name</summary>",
            ),
            U(5, "something short"),
            A(6, "Use `tx`."),
        ),
    )


SUMMARY = "The conversation history before this point was compacted into the following summary:"


def test_compaction_starts_the_conversation_at_its_summary_and_first_kept_entry() -> None:
    transcript = read(f.compacted())
    assert transcript.messages == (
        U(3, f"{SUMMARY}\n\n<summary>\nWe set up the project.\n</summary>"),
        U(3, "kept prompt"),
        A(4, "kept answer"),
        U(6, "after compaction"),
        A(7, "continuing"),
    )
    # pi's session list names a session after its first prompt, compacted or not.
    assert transcript.meta == meta(f.SID_COMPACT, "COMPACTED early prompt")


def test_compaction_with_a_retained_tail() -> None:
    transcript = read(f.compacted_with_tail())
    assert transcript.messages == (
        U(2.5, f"{SUMMARY}\n\n<summary>\nSummary of the start.\n</summary>"),
        U(2.5, "tail prompt"),
        A(2.6, "tail answer"),
        U(4, "next"),
    )


def test_duplicated_header_is_read_once_and_the_bad_line_warned_once() -> None:
    with pytest.warns(TranscriptWarning, match=r"1 line of the pi session is not valid JSON"):
        native = PI.from_text(f.duplicated_header())
    assert PI.to_common(native) == m.Transcript(
        meta=meta(f.SID_DUP, "hello"), messages=(U(1, "hello"), A(2, "hi"))
    )
    # Every byte is kept: the repeated header, the CRLF, the line that is not JSON.
    assert PI.to_text(native) == f.duplicated_header()


def test_a_second_header_for_another_session_is_said_once() -> None:
    lines = f.v3().splitlines()
    other = f.line(f.header("0199a5b0-0000-7000-8000-0000000000aa"))
    text = "\n".join([*lines[:3], other, other, *lines[3:]]) + "\n"
    with pytest.warns(TranscriptWarning, match=r"2 later header line\(s\) name another session"):
        transcript = read(text)
    assert transcript.meta.id == f.SID_V3
    assert len(transcript.messages) == 6


def test_v1_compaction_names_its_first_kept_entry_by_position() -> None:
    values: list[dict[str, Any]] = [
        f.header(f.SID_V1, None),
        {"type": "message", "timestamp": f.iso(1), "message": f.user("dropped", 1)},
        {"type": "message", "timestamp": f.iso(2), "message": f.user("kept", 2)},
        {
            "type": "compaction",
            "timestamp": f.iso(3),
            "summary": "S",
            "firstKeptEntryIndex": 2,
            "tokensBefore": 5,
        },
    ]
    transcript = read(f.text(values))
    assert [b.text for msg in transcript.messages for b in msg.content] == [
        f"{SUMMARY}\n\n<summary>\nS\n</summary>",
        "kept",
    ]


def test_unknown_shapes_are_counted_in_one_warning() -> None:
    values = [
        f.header(f.SID_V3),
        f.entry("message", "x1", None, 1, message=f.user("hi", 1)),
        f.entry("mystery", "x2", "x1", 2, payload=1),
        f.entry(
            "message",
            "x3",
            "x2",
            3,
            message=f.assistant([{"type": "text", "text": "ok"}, {"type": "audio"}], 3),
        ),
        f.entry("message", "x4", "x3", 4, message={"role": "telepathy", "timestamp": f.ms(4)}),
    ]
    with pytest.warns(TranscriptWarning, match=r"3 entries, message\(s\) or block\(s\)") as said:
        transcript = read(f.text(values))
    assert len([w for w in said if issubclass(w.category, TranscriptWarning)]) == 1
    assert [b.text for msg in transcript.messages for b in msg.content] == ["hi", "ok"]


def test_cycles_end_the_walk() -> None:
    values = [
        f.header(f.SID_V3),
        f.entry("message", "y1", "y2", 1, message=f.user("one", 1)),
        f.entry("message", "y2", "y1", 2, message=f.user("two", 2)),
    ]
    assert [msg.content for msg in read(f.text(values)).messages] == [
        (m.Text("one"),),
        (m.Text("two"),),
    ]


def test_bash_execution_text_says_how_it_ended() -> None:
    from txcript.harnesses.pi.codec import bash_text

    run = {"command": "make", "output": "", "exitCode": 2, "cancelled": False}
    assert bash_text(run) == "Ran `make`\n(no output)\n\nCommand exited with code 2"
    cancelled = {**run, "output": "x", "cancelled": True, "truncated": True, "fullOutputPath": "/t"}
    assert bash_text(cancelled) == (
        "Ran `make`\n```\nx\n```\n\n(command cancelled)\n\n[Output truncated. Full output: /t]"
    )


def test_not_a_pi_session_is_one_error() -> None:
    from txcript.errors import Malformed

    with pytest.raises(Malformed, match="first JSON line is not a"):
        PI.from_text('{"type": "message"}\n')
    with pytest.raises(Malformed, match="is empty"):
        PI.from_text("\n\n")


# --------------------------------------------------------------------------------- writing


def test_writer_writes_v3_that_pi_reads_back() -> None:
    source = read(f.v3())
    native = PI.from_common(source)
    values = [json.loads(line) for line in PI.to_text(native).splitlines()]
    assert values[0] == {
        "type": "session",
        "version": 3,
        "id": f.SID_V3,
        "timestamp": "2026-11-01T10:00:00.000Z",
        "cwd": f.CWD,
    }
    kinds = [v["type"] for v in values[1:]]
    assert kinds[:2] == ["model_change", "session_info"]
    assert set(kinds[2:]) == {"message"}
    # One linear chain of 8-hex ids.
    ids = [v["id"] for v in values[1:]]
    assert all(len(i) == 8 and int(i, 16) >= 0 for i in ids) and len(set(ids)) == len(ids)
    assert [v["parentId"] for v in values[1:]] == [None, *ids[:-1]]
    assistant = values[4]["message"]
    assert {k: assistant[k] for k in ("api", "provider", "model", "stopReason")} == {
        "api": "unknown",
        "provider": "unknown",
        "model": "kimi-k2",
        "stopReason": "toolUse",
    }
    assert assistant["content"][2] == {
        "type": "toolCall",
        "id": "functions.bash:2",
        "name": "bash",
        "arguments": {"command": "pytest", "timeout": 90},
    }
    assert PI.to_common(native) == source


def test_writer_is_deterministic() -> None:
    source = read(f.v2())
    assert PI.to_text(PI.from_common(source)) == PI.to_text(PI.from_common(source))


def test_writer_shapes_what_pi_has_no_slot_for() -> None:
    """Commands become their text; JSON output compact text; Common-only tool fields ride
    along as extra arguments and come back typed."""
    t = START
    messages = (
        m.Message(
            role="user",
            content=(m.ToolUse(id="c1", tool=m.Command(command="/review", args="src")),),
            timestamp=t,
        ),
        m.Message(role="user", content=(R("c1", "reviewed 3 files"),), timestamp=t),
        m.Message(
            role="assistant",
            content=(
                m.ToolUse(
                    id="t1",
                    tool=m.Bash(
                        command="ls", workdir="/w", timeout_ms=1500, run_in_background=True
                    ),
                ),
                m.ToolUse(
                    id="t2",
                    tool=m.Edit(file_path="a", old_string="x", new_string="y", replace_all=True),
                ),
            ),
            timestamp=t,
            model="claude-opus-4-8",
            stop_reason="tool_use",
        ),
        m.Message(
            role="user",
            content=(m.ToolResult(tool_use_id="t1", content={"files": 2}), R("t2", "ok")),
            timestamp=t,
        ),
    )
    transcript = m.Transcript(
        meta=m.Meta(id=f.SID_V3, timestamp=t, title="review", model="claude-opus-4-8"),
        messages=messages,
    )
    back = PI.to_common(PI.from_common(transcript))
    assert back.messages[0].content == (m.Text("/review src"),)
    # The command's output is the user's text, not a result pi would send for no call.
    assert back.messages[1].content == (m.Text("reviewed 3 files"),)
    assert back.messages[2].content == messages[2].content
    assert back.messages[3].content == (R("t1", '{"files":2}'), R("t2", "ok"))
    assistant = json.loads(PI.to_text(PI.from_common(transcript)).splitlines()[5])["message"]
    assert (assistant["api"], assistant["provider"]) == ("anthropic-messages", "anthropic")


def test_reasoning_is_written_in_the_form_pi_replays_safely() -> None:
    """A signature is pi's thinkingSignature; textless encrypted reasoning from an Anthropic
    model is a redacted block; any other payload (an OpenAI reasoning item's encrypted content)
    rides in a key pi ignores: pi parses an OpenAI thinkingSignature as JSON."""

    def written(block: m.Thinking, model: str) -> dict[str, Any]:
        message = m.Message(
            role="assistant", content=(block,), timestamp=START, model=model, stop_reason="end_turn"
        )
        transcript = m.Transcript(
            meta=m.Meta(id=f.SID_V3, timestamp=START, title="t", model=model), messages=(message,)
        )
        native = PI.from_common(transcript)
        assert PI.to_common(native) == transcript
        return json.loads(PI.to_text(native).splitlines()[-1])["message"]["content"][0]

    assert written(m.Thinking(text="t", signature="s"), "claude-opus-4-8") == {
        "type": "thinking",
        "thinking": "t",
        "thinkingSignature": "s",
    }
    assert written(m.Thinking(text="", encrypted="E"), "claude-opus-4-8") == {
        "type": "thinking",
        "thinking": "",
        "thinkingSignature": "E",
        "redacted": True,
    }
    assert written(m.Thinking(text="plan", encrypted="gAAA"), "gpt-5") == {
        "type": "thinking",
        "thinking": "plan",
        "txcriptEncrypted": "gAAA",
    }


def test_a_one_line_session_is_recognised_as_a_document() -> None:
    """A file holding only its header parses as one JSON document: pi's sniff claims it, so
    ``export FILE`` and ``continue FILE`` name what is wrong (no messages) rather than calling
    it a malformed Simple document."""
    assert PI.sniff(json.loads(f.line(f.header(f.SID_V3))))
    assert not PI.sniff({"type": "session"}) and not PI.sniff({"messages": []})
