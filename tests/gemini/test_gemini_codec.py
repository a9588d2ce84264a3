"""Gemini CLI chats → Common, exactly, and what the chat file itself holds."""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime

import msgspec
import pytest
from gemini_fixtures import (
    LEGACY_ID,
    LOG_ID,
    gemini_shaped,
    legacy_text,
    line,
    log_records,
    log_text,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import Malformed
from txcript.harnesses.gemini.codec import CANCELLED

H = harnesses.get("gemini")


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def read(text: str) -> m.Transcript:
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        return H.to_common(H.from_text(text))


def test_legacy_json_with_string_prompts_gives_exactly_this_common() -> None:
    assert read(legacy_text()) == m.Transcript(
        meta=m.Meta(
            id=LEGACY_ID,
            timestamp=at("2025-09-01T08:00:00Z"),
            title="List the files",
            model="gemini-2.5-pro",
        ),
        messages=(
            m.Message("user", (m.Text("List the files\nin the repo"),), at("2025-09-01T08:00:05Z")),
            m.Message(
                "assistant",
                (
                    m.Thinking("**Listing files**\n\nI will run ls."),
                    m.ToolUse(
                        "run_shell_command-1", m.Bash(command="ls", description="List files")
                    ),
                ),
                at("2025-09-01T08:00:09.5Z"),
                model="gemini-2.5-pro",
                usage=m.Usage(input_tokens=1200, output_tokens=40),
            ),
            m.Message(
                "user",
                (m.ToolResult("run_shell_command-1", "README.md\nsrc"),),
                at("2025-09-01T08:00:10Z"),
            ),
            # The `info` notice between them is the CLI's, not conversation.
            m.Message(
                "assistant",
                (m.Text("The repo holds README.md and src."),),
                at("2025-09-01T08:01:30Z"),
                model="gemini-2.5-pro",
                usage=m.Usage(input_tokens=1300, output_tokens=9, cache_read_input_tokens=1024),
            ),
        ),
    )


def test_log_replays_reappended_records_set_and_rewind_into_exactly_this_common() -> None:
    path = "/home/dev/acme"
    assert read(log_text()) == m.Transcript(
        # summary arrives in the last $set and beats the first prompt as title.
        meta=m.Meta(
            id=LOG_ID,
            timestamp=at("2026-02-10T09:00:00Z"),
            title="Parser fix",
            model="auto-gemini-3",
        ),
        messages=(
            # <session_context> is injected, not a prompt; displayContent is display only.
            m.Message(
                "user",
                (
                    m.Text("Fix the parser"),
                    m.Image(m.ImageSource("base64", "image/png", "iVBORw0KGgo=")),
                ),
                at("2026-02-10T09:00:02Z"),
            ),
            # The re-appended a1 replaces the first one in its place.
            m.Message(
                "assistant",
                (
                    m.Thinking("Reading first."),
                    m.Text("I looked at the parser."),
                    m.ToolUse("read-1", m.Read(file_path=f"{path}/parser.py", offset=10, limit=20)),
                    m.ToolUse(
                        "replace-1",
                        m.Edit(file_path=f"{path}/parser.py", old_string="<=", new_string="<"),
                    ),
                    m.ToolUse("shell-1", m.Bash(command="pytest", workdir=path)),
                    m.ToolUse(
                        "write-1", m.Write(file_path=f"{path}/notes.md", content="# Notes\n")
                    ),
                    m.ToolUse(
                        "mcp-1",
                        m.Raw(tool_name="search_docs", input={"query": "parser", "limit": 3}),
                    ),
                ),
                at("2026-02-10T09:00:10Z"),
                model="auto-gemini-3",
                usage=m.Usage(input_tokens=900, output_tokens=50, cache_read_input_tokens=300),
            ),
            m.Message(
                "user",
                (
                    m.ToolResult("read-1", "def parse(): ..."),
                    m.ToolResult("replace-1", "old_string not found", is_error=True),
                    m.ToolResult(
                        "shell-1",
                        "[Operation Cancelled] Reason: User cancelled the operation.",
                        is_error=True,
                    ),
                    m.ToolResult("write-1", CANCELLED, is_error=True),
                    m.ToolResult("mcp-1", {"hits": [1, 2]}),
                ),
                at("2026-02-10T09:00:12Z"),
            ),
            m.Message(
                "user",
                (m.ToolUse("cmd-1", m.Command(command="/memory", args="show")),),
                at("2026-02-10T09:00:20Z"),
            ),
            # The `error` notice is not conversation; `gone` and its answer were rewound.
            m.Message("user", (m.Text("Thanks"),), at("2026-02-10T09:01:00Z")),
        ),
    )


def test_a_cancelled_call_whose_output_does_not_say_so_is_marked_cancelled() -> None:
    records = log_records()
    call = records[5]["toolCalls"][0]
    call["status"] = "cancelled"
    text = "\n".join(line(r) for r in records)
    results = [b for msg in read(text).messages for b in msg.content if isinstance(b, m.ToolResult)]
    assert results[0] == m.ToolResult("read-1", "[cancelled] def parse(): ...", is_error=True)


def test_a_call_without_a_result_or_final_status_has_no_result_yet() -> None:
    records = log_records()
    call = records[5]["toolCalls"][0]
    del call["result"]
    call["status"] = "executing"
    transcript = read("\n".join(line(r) for r in records))
    ids = [
        b.tool_use_id
        for msg in transcript.messages
        for b in msg.content
        if isinstance(b, m.ToolResult)
    ]
    assert "read-1" not in ids and "replace-1" in ids


def test_a_string_result_and_a_typed_tool_with_an_unknown_arg_stay_as_given() -> None:
    records = log_records()
    records[5]["toolCalls"][0]["result"] = "plain output"
    records[5]["toolCalls"][1]["args"]["expected_replacements"] = 2
    transcript = read("\n".join(line(r) for r in records))
    blocks = [b for msg in transcript.messages for b in msg.content]
    assert m.ToolResult("read-1", "plain output") in blocks
    edit = next(b for b in blocks if isinstance(b, m.ToolUse) and b.id == "replace-1")
    assert isinstance(edit.tool, m.Raw) and edit.tool.tool_name == "replace"


def test_text_form_round_trip_is_exact_for_both_forms() -> None:
    for text in (legacy_text(), log_text(), log_text().rstrip("\n").replace("\n", "\r\n")):
        assert H.to_text(H.from_text(text)) == text


def test_hostile_log_lines_warn_once_each_and_never_raise() -> None:
    records = log_records()
    text = "\n".join(
        [
            line(records[0]),
            line({"$set": {"summary": 5, "lastUpdated": ["x"], "messages": "nope"}}),
            line({"$rewindTo": "no-such-message"}),
            line({"$set": "not an object"}),
            line(records[2]),
            line(records[5])[:-40],  # truncated mid-record, as a crash would leave it
        ]
    )
    with pytest.warns(TranscriptWarning) as caught:
        transcript = H.to_common(H.from_text(text))
    messages = [str(w.message) for w in caught]
    assert any("not valid JSON" in w for w in messages)
    assert any("no earlier message" in w for w in messages)
    assert sum("wrong type" in w for w in messages) == 2
    assert any("`messages` is not a list" in w for w in messages)
    assert any("$set is not an object" in w for w in messages)
    assert transcript.meta.title == "Fix the parser"
    assert [msg.role for msg in transcript.messages] == ["user"]


@pytest.mark.parametrize("text", ["", "[]", '{"not": "gemini"}', "5", "not json\n"])
def test_text_that_is_no_gemini_chat_is_malformed(text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        with pytest.raises(Malformed):
            H.from_text(text)


def test_from_common_is_deterministic_and_writes_what_resume_needs() -> None:
    source = read(log_text())
    first, second = H.to_text(H.from_common(source)), H.to_text(H.from_common(source))
    assert first == second
    values = [json.loads(row) for row in first.splitlines()]
    assert values[0]["kind"] == "main" and values[0]["sessionId"] == LOG_ID
    assert values[0]["lastUpdated"] == "2026-02-10T09:01:00.000Z"
    calls = [c for v in values if v.get("type") == "gemini" for c in v.get("toolCalls", [])]
    for call in calls:
        (part,) = call["result"]
        assert part["functionResponse"]["id"] == call["id"]
        assert part["functionResponse"]["name"] == call["name"]
    assert [c["status"] for c in calls] == ["success", "error", "error", "error", "success"]
    prompts = [v for v in values if v.get("type") == "user"]
    assert all(isinstance(v["content"], list) for v in prompts)


def test_a_call_left_without_result_is_written_cancelled_with_a_response() -> None:
    t0 = at("2026-01-01T00:00:00Z")
    transcript = m.Transcript(
        meta=m.Meta(id="s", timestamp=t0, cwd="/r", title="t"),
        messages=(
            m.Message("user", (m.Text("go"),), t0),
            m.Message("assistant", (m.ToolUse("c1", m.Bash(command="make")),), t0),
        ),
    )
    back = H.to_common(H.from_common(transcript))
    assert back.messages[-1].content == (m.ToolResult("c1", CANCELLED, is_error=True),)


@settings(max_examples=40, deadline=None)
@given(gemini_shaped())
def test_the_text_form_holds_everything_but_the_cwd(transcript: m.Transcript) -> None:
    """A chat file records no working directory: the store resolves it from the project."""
    no_cwd = m.Transcript(
        meta=msgspec.structs.replace(transcript.meta, cwd=None), messages=transcript.messages
    )
    assert read(H.to_text(H.from_common(transcript))) == no_cwd


def test_warnings_never_echo_terminal_escapes_from_the_file() -> None:
    records = log_records()
    text = "\n".join(
        [
            line(records[0]),
            line(records[2]),
            line({"$rewindTo": "\x1b]52;c;cHduZWQ=\x07"}),
            line({"$set": {"\x1b[2Jsummary": 1, "summary": ["\x1b[31m"]}}),
            line({"id": "\x1b[1m", "type": "\x1b[5mboom", "content": ""}),
        ]
    )
    with pytest.warns(TranscriptWarning) as caught:
        H.to_common(H.from_text(text))
    assert len(caught) == 3
    assert all("\x1b" not in str(w.message) and "\x07" not in str(w.message) for w in caught)


def test_only_a_prompt_whose_first_part_says_so_is_a_command_or_injected_context() -> None:
    """Regression: the check once ran on the joined text, so an empty first part followed by
    `/x` became a Command and the prompt's text was lost on the way back."""
    records = log_records()
    records[2]["content"] = [{"text": ""}, {"text": "/x"}]
    records[11]["content"] = [{"text": "/help"}, {"text": " me"}]
    transcript = read("\n".join(line(r) for r in records))
    assert transcript.messages[0].content == (m.Text(""), m.Text("/x"))
    assert transcript.messages[-1].content == (m.Text("/help"), m.Text(" me"))
    assert not any(
        isinstance(b, m.ToolUse) and isinstance(b.tool, m.Command) and b.id != "cmd-1"
        for msg in transcript.messages
        for b in msg.content
    )


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(timezones=st.just(UTC)).map(
        lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)
    )
    | st.datetimes(timezones=st.just(UTC))
)
def test_the_timestamp_fast_path_agrees_with_the_strict_parser(moment: datetime) -> None:
    from txcript.harnesses.gemini.codec import parse_time, stamp
    from txcript.shared.timeutil import parse_rfc3339

    text = stamp(moment)
    assert parse_time(text) == parse_rfc3339(text) == moment


@pytest.mark.parametrize(
    "text",
    ["2026-02-30T10:00:00.000Z", "2026-01-01T10:00:00.000+", "2026-01-01 10:00:00.000Z", "x" * 24],
)
def test_the_timestamp_fast_path_refuses_what_the_strict_parser_refuses(text: str) -> None:
    from txcript.harnesses.gemini.codec import parse_time
    from txcript.shared.timeutil import parse_rfc3339

    assert parse_time(text) == parse_rfc3339(text)
