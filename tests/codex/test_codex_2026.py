"""Codex shapes seen in 2026: unified-exec envelopes, exec/MCP end events, chat-shaped legacy
documents, pre-release builds and sub-agent threads; and ``is_error`` through Codex for every tool.
"""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime
from typing import Any

import pytest
from codex_fixtures import SID_2026 as SID
from codex_fixtures import chat_document, env, rollout_2026

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.codex import tools

H = harnesses.get("codex")


def at(second: int, millis: int = 0) -> str:
    return f"2026-03-02T08:15:{second:02d}.{millis:03d}Z"


def when(second: int, millis: int = 0) -> datetime:
    return datetime(2026, 3, 2, 8, 15, second, millis * 1000, tzinfo=UTC)


def read(records: list[Any]) -> m.Transcript:
    text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        return H.to_common(H.from_text(text))


# ------------------------------------------------------------------------ unified exec


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            "Command: /bin/bash -lc 'ls -a'\nChunk ID: 1a2b3c\nWall time: 0.0123 seconds\n"
            "Process exited with code 0\nOriginal token count: 42\nOutput:\n.\n..\n",
            (".\n..\n", False),
        ),
        (
            "Chunk ID: 9f\nWall time: 0.5 seconds\nProcess exited with code 127\n"
            "Original token count: 7\nOutput:\nbash: nope: command not found\n",
            ("bash: nope: command not found\n", True),
        ),
        (  # header rows in another order
            "Command: make\nWall time: 2 seconds\nOriginal token count: 3\nChunk ID: x\n"
            "Process exited with code 2\nOutput:\nmake: *** [all] Error 1",
            ("make: *** [all] Error 1", True),
        ),
        (  # a command spanning lines
            "Command: /bin/bash -lc 'cat <<EOF\nOutput:\nEOF'\nChunk ID: 2\nWall time: 0 seconds\n"
            "Process exited with code 0\nOutput:\nOutput:\n",
            ("Output:\n", False),
        ),
        (
            "Chunk ID: 3\nWall time: 10.0 seconds\nProcess running with session ID 4\n"
            "Original token count: 0\nOutput:",
            ("", False),
        ),
        ("Command: x\nnot a header\nOutput:\ny", None),
        ("Output:\nno header at all", None),
    ],
)
def test_unified_exec_envelopes(output: str, expected: tuple[str, bool] | None) -> None:
    assert tools.exec_output(output) == (expected or (output, False))


def exec_turn(call_id: str, output: str | None, end: dict[str, Any] | None) -> list[Any]:
    records: list[Any] = [
        env(
            at(2),
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "ls"}),
                "call_id": call_id,
            },
        )
    ]
    if end is not None:
        records.append(env(at(3), "event_msg", {"type": "exec_command_end", **end}))
    if output is not None:
        item = {"type": "function_call_output", "call_id": call_id, "output": output}
        records.append(env(at(4), "response_item", item))
    return records


META = env(at(0), "session_meta", {"id": SID, "timestamp": at(0), "cwd": "/w", "cli_version": "1"})
PROMPT = env(at(1), "response_item", {"type": "message", "role": "user", "content": "ls please"})


@pytest.mark.parametrize(
    ("output", "end", "expected"),
    [
        # The envelope decides; the event agrees.
        (
            "Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 1\nOutput:\nboom",
            {"call_id": "c1", "exit_code": 1, "aggregated_output": "boom"},
            ("boom", True),
        ),
        # An output in no known envelope: the event is the fallback.
        (
            "something newer",
            {"call_id": "c1", "exit_code": 127, "aggregated_output": "not found"},
            ("not found", True),
        ),
        # No output item at all: the event gives the result.
        (None, {"call_id": "c1", "exit_code": 0, "aggregated_output": "a\nb"}, ("a\nb", False)),
    ],
)
def test_exec_command_end_agrees_and_is_the_fallback(
    output: str | None, end: dict[str, Any], expected: tuple[str, bool]
) -> None:
    transcript = read([META, PROMPT, *exec_turn("c1", output, end)])
    assert transcript.messages[-1] == m.Message(
        role="user",
        content=(m.ToolResult(tool_use_id="c1", content=expected[0], is_error=expected[1]),),
        timestamp=when(3) if output is None else when(4),
    )


# ------------------------------------------------------------------- 2026 rollout shapes


def test_a_2026_sub_agent_rollout_reads_exactly() -> None:
    transcript = read(rollout_2026())
    assert transcript.meta == m.Meta(
        id=SID,
        timestamp=when(0),
        cwd="/home/dev/app",
        title="list the repo and check the issue tracker",
        cli_version="0.118.0-alpha.2",
        model="qwen3-coder",
    )
    assert transcript.messages == (
        m.Message(
            role="user",
            content=(m.Text(text="list the repo and check the issue tracker"),),
            timestamp=when(1, 5),
        ),
        m.Message(
            role="assistant",
            content=(
                m.ToolUse(id="call_ls", tool=m.Bash(command="ls", workdir="/home/dev/app")),
                m.ToolUse(
                    id="call_mcp", tool=m.Raw(tool_name="tracker__search", input={"query": "crash"})
                ),
            ),
            timestamp=when(2),
            model="qwen3-coder",
        ),
        m.Message(
            role="user",
            content=(
                m.ToolResult(tool_use_id="call_ls", content="README.md\n"),
                m.ToolResult(
                    tool_use_id="call_mcp",
                    content="tool call error: tracker unreachable",
                    is_error=True,
                ),
            ),
            timestamp=when(4),
        ),
        m.Message(
            role="assistant",
            content=(m.Text(text="Only a README; the tracker is down."),),
            timestamp=when(5),
            model="qwen3-coder",
            stop_reason="aborted",
        ),
    )
    # Unknown records are carried: the same-harness round trip is byte-lossless.
    text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rollout_2026())
    assert H.to_text(H.from_text(text)) == text


# ----------------------------------------------------------------- chat-shaped legacy


def test_a_chat_shaped_legacy_document_reads_its_messages_calls_and_results() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        transcript = H.to_common(H.from_text(json.dumps(chat_document(), indent=2)))
    stamp = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
    assert transcript.meta == m.Meta(id=SID, timestamp=stamp, title="what is in here?")
    assert transcript.messages == (
        m.Message(role="user", content=(m.Text(text="what is in here?"),), timestamp=stamp),
        m.Message(
            role="assistant",
            content=(
                m.Thinking(text="Look at the files first."),
                m.ToolUse(id="call_1", tool=m.Bash(command="ls")),
                m.ToolUse(id="call_2", tool=m.Raw(tool_name="read_notes", input={"n": 1})),
            ),
            timestamp=stamp,
        ),
        m.Message(
            role="user",
            content=(
                m.ToolResult(tool_use_id="call_1", content="a.txt\n"),
                m.ToolResult(tool_use_id="call_2", content="no notes"),
            ),
            timestamp=stamp,
        ),
        m.Message(role="assistant", content=(m.Text(text="Just a.txt."),), timestamp=stamp),
    )


# ------------------------------------------------------------- is_error for every tool


@pytest.mark.parametrize("is_error", [True, False])
@pytest.mark.parametrize(
    "content",
    ["permission denied", '{"output":"looks like an envelope","metadata":{"exit_code":1}}'],
)
def test_every_tool_keeps_is_error_through_codex(is_error: bool, content: str) -> None:
    """Codex records failure only as an exit code; a failed result of any tool is written in the
    envelope its shell tools use, and a text that merely looks like one is wrapped too."""
    call = m.ToolUse(id="c1", tool=m.Raw(tool_name="fetch_url", input={"url": "u"}))
    source = m.Transcript(
        meta=m.Meta(id=SID, timestamp=when(0)),
        messages=(
            m.Message(role="user", content=(m.Text(text="get it"),), timestamp=when(1)),
            m.Message(role="assistant", content=(call,), timestamp=when(2)),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id="c1", content=content, is_error=is_error),),
                timestamp=when(3),
            ),
        ),
    )
    native = H.from_common(source)
    outputs = [
        line.value["payload"]
        for line in native.lines
        if line.value["payload"].get("type") == "function_call_output"
    ]
    if is_error:
        assert json.loads(outputs[0]["output"])["metadata"]["exit_code"] == 1
    assert H.to_common(native).messages == source.messages
