"""The Simple interchange document: the spec's rules and its worked example (the fixpoint is the
conformance suite's contract)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import Malformed
from txcript.harnesses import simple

T0 = datetime(2026, 8, 21, 9, 30, tzinfo=UTC)

# simple-format.md §8: the exported document, with every key on its own line and keys sorted.
EXPORTED = """{
  "cwd": "/home/dev/repo",
  "id": "sess-1",
  "messages": [
    {
      "content": "run the tests",
      "role": "user",
      "timestamp": "2026-08-21T09:30:00Z"
    },
    {
      "content": [
        {
          "signature": "sig",
          "text": "cargo test covers it",
          "type": "thinking"
        },
        {
          "id": "tu-1",
          "input": {
            "command": "cargo test"
          },
          "name": "Bash",
          "type": "tool_use"
        }
      ],
      "model": "m",
      "role": "assistant",
      "stop_reason": "tool_use",
      "timestamp": "2026-08-21T09:30:00Z",
      "usage": {
        "cache_read_input_tokens": 5,
        "input_tokens": 10,
        "output_tokens": 20
      }
    },
    {
      "content": [
        {
          "content": "42 passed",
          "tool_use_id": "tu-1",
          "type": "tool_result"
        }
      ],
      "role": "user",
      "timestamp": "2026-08-21T09:30:00Z"
    },
    {
      "content": "All green.",
      "role": "assistant",
      "stop_reason": "end_turn",
      "timestamp": "2026-08-21T09:30:00Z"
    }
  ],
  "model": "m",
  "timestamp": "2026-08-21T09:30:00.000Z",
  "title": "Demo"
}
"""


def example_transcript() -> m.Transcript:
    return m.Transcript(
        meta=m.Meta(id="sess-1", timestamp=T0, cwd="/home/dev/repo", title="Demo", model="m"),
        messages=(
            m.Message(role="user", content=(m.Text("run the tests"),), timestamp=T0),
            m.Message(
                role="assistant",
                content=(
                    m.Thinking(text="cargo test covers it", signature="sig"),
                    m.ToolUse(id="tu-1", tool=m.Bash(command="cargo test")),
                ),
                timestamp=T0,
                model="m",
                stop_reason="tool_use",
                usage=m.Usage(input_tokens=10, output_tokens=20, cache_read_input_tokens=5),
            ),
            m.Message(role="user", content=(m.ToolResult("tu-1", "42 passed"),), timestamp=T0),
            m.Message(
                role="assistant",
                content=(m.Text("All green."),),
                timestamp=T0,
                stop_reason="end_turn",
            ),
        ),
    )


def test_the_spec_example_renders_byte_for_byte() -> None:
    assert simple.to_text(simple.from_common(example_transcript())) == EXPORTED


def test_the_spec_example_reads_back_to_the_same_transcript() -> None:
    assert simple.to_common(simple.from_text(EXPORTED)) == example_transcript()


def test_synthetic_tool_ids_match_the_published_vectors() -> None:
    doc = {
        "id": "s",
        "messages": [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "name": "A"}, {"type": "tool_use", "name": "B"}],
            },
        ],
    }
    uses = simple.to_common(doc).messages[0].content
    assert [u.id for u in uses if isinstance(u, m.ToolUse)] == [
        "77b74bba-67e1-5f3a-ac39-1e2560bce8cc",
        "895a3bb7-9944-5cc6-a859-a68bc4fd004b",
    ]
    orphan = simple.to_common(
        {
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "y"}, {"type": "tool_result"}],
                },
            ]
        }
    )
    assert orphan.messages[1].content[1] == m.ToolResult("a6a4dae6-2387-5eab-963b-0842287edecd", "")


def test_id_less_parallel_calls_pair_with_id_less_results_first_in_first_out() -> None:
    doc = {
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "name": "A", "input": {}},
                    {"type": "tool_use", "name": "B", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "content": "rA"},
                    {"type": "tool_result", "content": "rB"},
                ],
            },
        ]
    }
    transcript = simple.to_common(doc)
    call_a, call_b = transcript.messages[0].content
    result_a, result_b = transcript.messages[1].content
    assert isinstance(call_a, m.ToolUse) and isinstance(call_b, m.ToolUse)
    assert (result_a, result_b) == (m.ToolResult(call_a.id, "rA"), m.ToolResult(call_b.id, "rB"))


def test_explicit_result_ids_remove_their_call_from_the_queue() -> None:
    doc = {
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "name": "A", "id": "a"},
                    {"type": "tool_use", "name": "B", "id": "b"},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "1"},
                    {"type": "tool_result", "content": "2"},
                ],
            },
        ]
    }
    results = simple.to_common(doc).messages[1].content
    assert [r.tool_use_id for r in results if isinstance(r, m.ToolResult)] == ["a", "b"]


def test_roles_are_trimmed_and_case_insensitive_and_content_shorthand_is_one_text_block() -> None:
    transcript = simple.to_common({"messages": [{"role": " Assistant ", "content": ""}]})
    assert transcript.messages[0].role == "assistant"
    assert transcript.messages[0].content == (m.Text(""),)


def test_timestamps_inherit_from_the_previous_message_then_the_session() -> None:
    doc = {
        "timestamp": "2026-08-18T10:00:00+02:00",
        "messages": [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b", "timestamp": "2026-08-18T10:00:12.5-01:00"},
            {"role": "user", "content": "c", "timestamp": None},
        ],
    }
    stamps = [msg.timestamp for msg in simple.to_common(doc).messages]
    assert stamps == [
        datetime(2026, 8, 18, 8, 0, tzinfo=UTC),
        datetime(2026, 8, 18, 11, 0, 12, 500000, tzinfo=UTC),
        datetime(2026, 8, 18, 11, 0, 12, 500000, tzinfo=UTC),
    ]


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("not a message", r"messages\[1\] skipped: not an object"),
        ({"role": "user", "content": None}, r"messages\[1\] skipped: content is None"),
        (
            {"role": "user", "content": "x", "timestamp": "2026-08-18T10:00:00"},
            r"messages\[1\] skipped: timestamp .* is not RFC 3339",
        ),
        (
            {"role": "assistant", "content": "x", "stop_reason": "stop"},
            r"messages\[1\] skipped: stop_reason 'stop'",
        ),
        (
            {
                "role": "assistant",
                "content": "x",
                "usage": {"input_tokens": 900.0, "output_tokens": 1},
            },
            r"messages\[1\] skipped: usage.input_tokens",
        ),
        ({"role": "assistant", "content": "x", "model": 5}, r"messages\[1\] skipped: model"),
        ({"role": "system", "content": "x"}, r"messages\[1\] skipped: role 'system'"),
        ({"content": "x"}, r"messages\[1\] skipped: no role"),
    ],
)
def test_a_malformed_message_is_skipped_with_a_warning_naming_its_index(
    message: object, reason: str
) -> None:
    doc = {
        "messages": [{"role": "user", "content": "kept"}, message, {"role": "user", "content": "z"}]
    }
    with pytest.warns(TranscriptWarning, match=reason):
        transcript = simple.to_common(doc)
    assert [msg.content for msg in transcript.messages] == [(m.Text("kept"),), (m.Text("z"),)]


def test_a_skipped_message_still_counts_for_synthetic_ids_but_not_for_timestamps() -> None:
    doc = {
        "id": "s",
        "timestamp": "2026-01-01T00:00:00Z",
        "messages": [
            {"role": "user", "content": "x", "timestamp": "bad"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "name": "A"}, {"type": "tool_use", "name": "B"}],
            },
        ],
    }
    with pytest.warns(TranscriptWarning):
        transcript = simple.to_common(doc)
    (message,) = transcript.messages
    assert message.timestamp == datetime(2026, 1, 1, tzinfo=UTC)
    assert [b.id for b in message.content if isinstance(b, m.ToolUse)] == [
        simple.uuid5(simple.NAMESPACE, "s:1:0"),
        simple.uuid5(simple.NAMESPACE, "s:1:1"),
    ]


def test_anthropic_shaped_thinking_and_unknown_blocks_are_dropped_with_a_warning() -> None:
    doc = {
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "raw anthropic"},
                    "bare string",
                    {"type": "vibes"},
                    {"type": "text", "text": "kept"},
                ],
            }
        ]
    }
    with pytest.warns(TranscriptWarning) as caught:
        transcript = simple.to_common(doc)
    assert transcript.messages[0].content == (m.Text("kept"),)
    assert [str(w.message) for w in caught] == [
        "messages[0].content[0] skipped: unknown or incomplete block type 'thinking'",
        "messages[0].content[1] skipped: not an object",
        "messages[0].content[2] skipped: unknown or incomplete block type 'vibes'",
    ]


def test_non_string_metadata_is_absent_but_kept_in_the_document() -> None:
    doc = {"id": 42, "cwd": "/r", "messages": []}
    transcript = simple.to_common(doc)
    assert transcript.meta.id == "" and transcript.meta.cwd == "/r"
    assert json.loads(simple.to_text(doc))["id"] == 42


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "malformed simple transcript: top level is not a JSON object"),
        ('{"not":"simple"}', "malformed simple transcript: no `messages` array"),
        ('{"messages":5}', "malformed simple transcript: `messages` is not an array"),
        ("not json", "malformed simple transcript: not valid JSON"),
        ('{"messages":[], "x": NaN}', "malformed simple transcript: not valid JSON"),
    ],
)
def test_only_the_document_shape_is_a_hard_error(text: str, message: str) -> None:
    with pytest.raises(Malformed) as caught:
        simple.from_text(text)
    assert str(caught.value).startswith(message)


def test_unknown_keys_roles_and_blocks_survive_a_simple_to_simple_round_trip() -> None:
    doc = {
        "generator": {"name": "x"},
        "messages": [
            {"role": "user", "content": "hi", "mood": "ok"},
            {"role": "tool", "content": "ignored but kept"},
            {"role": "assistant", "content": [{"type": "document", "x": 1}]},
            "not even a message",
        ],
    }
    assert simple.from_text(simple.to_text(doc)) == doc


def test_a_bare_document_inherits_the_parse_time_for_every_message() -> None:
    transcript = simple.to_common(
        {"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}
    )
    assert (
        transcript.messages[0].timestamp
        == transcript.messages[1].timestamp
        == transcript.meta.timestamp
    )
