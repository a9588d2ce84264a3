"""Calls left without a result mid-session: found, described once, and closed by every writer."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime

import pytest

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.pairing import NO_RESULT, answer_open_calls, describe_unanswered, unanswered_calls

T0 = datetime(2026, 8, 21, 9, 0, tzinfo=UTC)
T1 = datetime(2026, 8, 21, 9, 1, tzinfo=UTC)
T2 = datetime(2026, 8, 21, 9, 2, tzinfo=UTC)


def use(call_id: str) -> m.ToolUse:
    return m.ToolUse(id=call_id, tool=m.Bash(command=f"echo {call_id}"))


def result(call_id: str, content: str = "ok", is_error: bool = False) -> m.ToolResult:
    return m.ToolResult(tool_use_id=call_id, content=content, is_error=is_error)


def missing(call_id: str) -> m.ToolResult:
    return m.ToolResult(tool_use_id=call_id, content=NO_RESULT, is_error=True)


def transcript(*messages: m.Message) -> m.Transcript:
    return m.Transcript(meta=m.Meta(id="s-1", timestamp=T0), messages=messages)


PROMPT = m.Message(role="user", content=(m.Text(text="go"),), timestamp=T0)
CALLS = m.Message(role="assistant", content=(use("c1"), use("c2"), use("c3")), timestamp=T1)
PARTIAL = m.Message(role="user", content=(result("c1"), result("c3")), timestamp=T1)
AFTER = m.Message(role="assistant", content=(m.Text(text="done"),), timestamp=T2)


def test_a_partly_answered_batch_gets_the_missing_result_after_the_others() -> None:
    source = transcript(PROMPT, CALLS, PARTIAL, AFTER)
    assert unanswered_calls(source.messages) == ["c2"]
    closed = answer_open_calls(source)
    assert closed.messages[2] == m.Message(
        role="user", content=(result("c1"), result("c3"), missing("c2")), timestamp=T1
    )
    assert closed.messages[3] == AFTER
    assert answer_open_calls(closed) is closed


def test_an_unanswered_batch_followed_by_a_prompt_gets_a_result_message_of_its_own() -> None:
    later = m.Message(role="user", content=(m.Text(text="never mind"),), timestamp=T2)
    closed = answer_open_calls(transcript(PROMPT, CALLS, later))
    assert closed.messages == (
        PROMPT,
        CALLS,
        m.Message(role="user", content=(missing("c1"), missing("c2"), missing("c3")), timestamp=T1),
        later,
    )


def test_calls_in_the_last_message_are_in_flight_and_stay_open() -> None:
    source = transcript(PROMPT, CALLS)
    assert unanswered_calls(source.messages) == []
    assert answer_open_calls(source) is source
    assert describe_unanswered("x", "s", source.messages) is None


def test_blockwise_targets_close_a_call_followed_by_more_blocks_of_its_message() -> None:
    tail = m.Message(role="assistant", content=(use("c1"), m.Text(text="meanwhile")), timestamp=T1)
    source = transcript(PROMPT, tail)
    assert answer_open_calls(source) is source
    closed = answer_open_calls(source, blockwise=True)
    assert closed.messages[2] == m.Message(role="user", content=(missing("c1"),), timestamp=T1)


def test_user_commands_and_results_on_assistant_messages_do_not_count() -> None:
    command = m.ToolUse(id="cmd", tool=m.Command(command="/clear"))
    stray = m.Message(role="assistant", content=(result("c1"),), timestamp=T2)
    messages = (
        m.Message(role="user", content=(command,), timestamp=T0),
        m.Message(role="assistant", content=(use("c1"),), timestamp=T1),
        stray,
    )
    assert unanswered_calls(messages) == ["c1"]


def test_the_warning_names_the_first_call_and_counts_the_rest() -> None:
    later = m.Message(role="user", content=(m.Text(text="x"),), timestamp=T2)
    line = describe_unanswered("codex", "s-1", (PROMPT, CALLS, later))
    assert line is not None
    assert line.startswith("codex session s-1: tool call c1 (and 2 more) has no result")


@pytest.mark.parametrize("harness_id", ["claude_code", "codex", "cursor_desktop"])
def test_every_writer_closes_an_open_call_with_an_error_result(harness_id: str) -> None:
    """A copy with a call and no result before a later message is refused by the APIs on the
    next turn; each writer adds the result through the same shared repair."""
    harness = harnesses.get(harness_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        back = harness.to_common(harness.from_common(transcript(PROMPT, CALLS, PARTIAL, AFTER)))
    results = {
        b.tool_use_id: b
        for msg in back.messages
        if msg.role == "user"
        for b in msg.content
        if isinstance(b, m.ToolResult)
    }
    assert set(results) == {"c1", "c2", "c3"}
    assert results["c2"].content == NO_RESULT and results["c2"].is_error
    assert not results["c1"].is_error and not results["c3"].is_error
    assert unanswered_calls(back.messages) == []


def test_a_result_before_its_call_answers_nothing_and_one_after_it_does() -> None:
    """Only a result in a later user message answers a call (the same id may recur)."""
    early = m.Message(role="user", content=(result("c1"),), timestamp=T0)
    again = m.Message(role="assistant", content=(use("c1"), use("c2")), timestamp=T1)
    answer = m.Message(role="user", content=(result("c2"),), timestamp=T1)
    source = transcript(early, again, answer, AFTER)
    assert unanswered_calls(source.messages) == ["c1"]
    repeated = transcript(early, again, PARTIAL, answer, AFTER)
    assert unanswered_calls(repeated.messages) == []
