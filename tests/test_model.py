"""The Common model: wire shape, tool typing, timestamps."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings

from strategies import transcripts
from txcript import model as m
from txcript.errors import Malformed

SPEC_EXAMPLE = """
{
  "meta": {"id": "x1", "timestamp": "2026-01-02T03:04:05Z", "cwd": "/repo",
           "title": "Cross", "model": "claude-opus-4-8"},
  "messages": [
    {"role": "user", "content": [{"type": "text", "text": "fix the bug"}],
     "timestamp": "2026-01-02T03:04:06Z"},
    {"role": "assistant", "timestamp": "2026-01-02T03:04:07Z",
     "model": "claude-opus-4-8", "stop_reason": "tool_use",
     "usage": {"input_tokens": 10, "output_tokens": 20},
     "content": [
       {"type": "thinking", "text": "…", "signature": "sig"},
       {"type": "tool_use", "id": "call-1",
        "tool": {"name": "Edit", "file_path": "/repo/a.rs",
                 "old_string": "i <= n", "new_string": "i < n"}},
       {"type": "tool_use", "id": "call-2",
        "tool": {"name": "Raw", "tool_name": "mcp__x__y", "input": {"k": [1, 2]}}}
     ]},
    {"role": "user", "timestamp": "2026-01-02T03:04:07Z", "content": [
       {"type": "tool_result", "tool_use_id": "call-1", "content": "patched"},
       {"type": "tool_result", "tool_use_id": "call-2", "content": {"ok": false}, "is_error": true}
    ]}
  ]
}
"""


def test_the_spec_example_decodes_to_typed_values_and_encodes_back_to_the_same_json() -> None:
    transcript = m.from_json(SPEC_EXAMPLE)
    assistant = transcript.messages[1]
    assert assistant.content[1] == m.ToolUse(
        id="call-1", tool=m.Edit(file_path="/repo/a.rs", old_string="i <= n", new_string="i < n")
    )
    assert assistant.content[2] == m.ToolUse(
        id="call-2", tool=m.Raw(tool_name="mcp__x__y", input={"k": [1, 2]})
    )
    assert transcript.messages[2].content[1] == m.ToolResult("call-2", {"ok": False}, True)
    assert json.loads(m.to_json(transcript)) == json.loads(SPEC_EXAMPLE)


def test_absent_optionals_are_omitted_never_null_and_tools_are_tagged_by_name() -> None:
    when = datetime(2026, 1, 2, 3, 4, 5, 174000, tzinfo=UTC)
    transcript = m.Transcript(
        meta=m.Meta(id="s", timestamp=when),
        messages=(
            m.Message(
                role="assistant",
                content=(m.ToolUse(id="c", tool=m.Bash(command="ls")),),
                timestamp=when,
                stop_reason=m.OtherStop(other="length"),
            ),
        ),
    )
    assert m.to_json(transcript) == (
        '{"meta":{"id":"s","timestamp":"2026-01-02T03:04:05.174Z"},"messages":[{"role":"assistant",'
        '"content":[{"type":"tool_use","id":"c","tool":{"name":"Bash","command":"ls"}}],'
        '"timestamp":"2026-01-02T03:04:05.174Z","stop_reason":{"other":"length"}}]}'
    )


def test_offsets_are_converted_to_utc_and_naive_timestamps_are_refused() -> None:
    parsed = m.from_json('{"meta":{"id":"","timestamp":"2026-01-02T05:04:05+02:00"}}')
    assert parsed.meta.timestamp == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert parsed.meta.timestamp.tzinfo is UTC
    with pytest.raises(Malformed, match=r"timezone.*\$\.meta\.timestamp"):
        m.from_json('{"meta":{"id":"","timestamp":"2026-01-02T05:04:05"}}')


def test_a_json_null_tool_output_is_kept_as_json() -> None:
    parsed = m.from_json(
        '{"meta":{"id":"","timestamp":"2026-01-02T05:04:05Z"},"messages":[{"role":"user",'
        '"timestamp":"2026-01-02T05:04:05Z","content":[{"type":"tool_result","tool_use_id":"a",'
        '"content":null}]}]}'
    )
    assert parsed.messages[0].content[0] == m.ToolResult("a", None)
    assert '"content":null' in m.to_json(parsed)


@pytest.mark.parametrize(
    ("name", "tool_input", "expected"),
    [
        (
            "Edit",
            {"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": True},
            m.Edit(file_path="a", old_string="x", new_string="y", replace_all=True),
        ),
        (
            "Read",
            {"file_path": "src/lib.rs", "limit": 20},
            m.Read(file_path="src/lib.rs", limit=20),
        ),
        (
            "Bash",
            {"command": "ls", "description": "list", "timeout_ms": 5},
            m.Bash(command="ls", description="list", timeout_ms=5),
        ),
        ("/release", {"args": "patch"}, m.Command(command="/release", args="patch")),
        ("/clear", {}, m.Command(command="/clear")),
    ],
)
def test_typed_tools_round_trip_to_their_canonical_name_and_input(
    name: str, tool_input: dict[str, object], expected: m.Tool
) -> None:
    tool = m.type_tool(name, tool_input)
    assert tool == expected
    assert m.render_tool(tool) == (name, tool_input)


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("Read", {"file_path": "a", "surprise": 1}),
        ("Read", {"file_path": "a", "offset": 1.0}),
        ("Read", {"file_path": "a", "offset": -1}),
        ("Read", {"file_path": "a", "offset": True}),
        ("Bash", None),
        ("Bash", {"command": 5}),
        (
            "MultiEdit",
            {"file_path": "a", "edits": [{"old_string": "x", "new_string": "y", "k": 1}]},
        ),
        ("mcp__search__query", {"q": "x"}),
        ("/deploy", None),
        ("/deploy", {"args": "x", "extra": True}),
    ],
)
def test_inputs_that_do_not_fit_a_schema_exactly_stay_raw_and_untouched(
    name: str, tool_input: object
) -> None:
    tool = m.type_tool(name, tool_input)
    assert tool == m.Raw(tool_name=name, input=tool_input)
    assert m.render_tool(tool) == (name, tool_input)


def test_explicit_defaults_are_normalised_away_on_the_typed_path() -> None:
    tool = m.type_tool("Read", {"file_path": "a", "offset": None})
    assert tool == m.Read(file_path="a")
    assert m.render_tool(tool) == ("Read", {"file_path": "a"})


@settings(max_examples=60, deadline=None)
@given(transcripts)
def test_common_json_round_trips_every_generated_transcript(transcript: m.Transcript) -> None:
    assert m.from_json(m.to_json(transcript)) == transcript
    assert m.from_builtins(json.loads(m.to_json(transcript, indent=2))) == transcript


def test_prompt_title_is_the_first_non_blank_line_of_the_text_blocks() -> None:
    from txcript.model import Image, ImageSource, Text, prompt_title

    image = Image(
        source=ImageSource(type="url", media_type="image/png", data="https://example.test/a.png")
    )
    assert (
        prompt_title([image, Text(text="\n  \n  fix the auth bug  \nmore")]) == "fix the auth bug"
    )
    assert prompt_title([Text(text=" \n\t"), Text(text="second block")]) == "second block"
    assert prompt_title([image]) is None
    # A carriage return is part of the line: only "\n" splits, as Codex and Gemini title it.
    assert prompt_title([Text(text="a\rb")]) == "a\rb"
