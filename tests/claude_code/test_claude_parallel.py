"""Parallel tool calls: every call of a batch and every result, grouped the way the API wants.

Claude Code writes one response with several calls as a chain of assistant lines sharing
``message.id`` (A1 ← A2 ← A3), hangs each result from the line of the call it answers, in
completion order, and hangs the next turn from the last result written. Walking ``parentUuid``
back from the leaf passes through one call of each batch. Regression: a real session with 26
calls and 22 results read as 23 calls and 8 results, without a warning.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from claude_fixtures import (
    MODEL,
    assistant,
    common,
    system,
    text,
    tool_result,
    tool_use,
    user,
    when,
)

from txcript import model as m
from txcript.diagnostics import TranscriptWarning

USAGE = {"input_tokens": 5, "output_tokens": 30}


def batch(
    tag: str, parent: str, minute: int, calls: int, order: list[int]
) -> tuple[list[dict[str, Any]], str]:
    """One response: a thinking line, a text line, ``calls`` call lines; results in ``order``.

    Returns the records and the uuid of the last result written (where the next turn hangs).
    """
    clock = f"09:{minute:02d}"
    records: list[dict[str, Any]] = [
        assistant(
            f"{tag}-think",
            parent,
            f"{clock}:01.000",
            [{"type": "thinking", "thinking": f"plan {tag}", "signature": f"sig-{tag}"}],
            message_id=f"msg_{tag}",
        ),
        assistant(
            f"{tag}-text",
            f"{tag}-think",
            f"{clock}:01.100",
            [text(f"running {calls}")],
            message_id=f"msg_{tag}",
        ),
    ]
    previous = f"{tag}-text"
    for n in range(1, calls + 1):
        records.append(
            assistant(
                f"{tag}-a{n}",
                previous,
                f"{clock}:01.{100 + n}",
                [tool_use(f"toolu_{tag}{n}", "Bash", {"command": f"echo {n}"})],
                message_id=f"msg_{tag}",
                stop_reason="tool_use" if n == calls else None,
                usage=USAGE if n == calls else None,
            )
        )
        previous = f"{tag}-a{n}"
    for position, n in enumerate(order):
        records.append(
            user(
                f"{tag}-r{n}",
                f"{tag}-a{n}",
                f"{clock}:0{2 + position}.000",
                [tool_result(f"toolu_{tag}{n}", f"out {n}", is_error=n == 2 or None)],
                toolUseResult={"stdout": f"out {n}", "stderr": "", "interrupted": False},
            )
        )
    return records, f"{tag}-r{order[-1]}"


def calls_message(tag: str, minute: int, calls: int) -> m.Message:
    return m.Message(
        role="assistant",
        content=(
            m.Thinking(text=f"plan {tag}", signature=f"sig-{tag}"),
            m.Text(text=f"running {calls}"),
            *(
                m.ToolUse(id=f"toolu_{tag}{n}", tool=m.Bash(command=f"echo {n}"))
                for n in range(1, calls + 1)
            ),
        ),
        timestamp=when(f"09:{minute:02d}:01.000"),
        model=MODEL,
        stop_reason="tool_use",
        usage=m.Usage(input_tokens=5, output_tokens=30),
    )


def results_message(tag: str, minute: int, calls: int) -> m.Message:
    """Every result of the batch, in call order, stamped with the first result written."""
    return m.Message(
        role="user",
        content=tuple(
            m.ToolResult(tool_use_id=f"toolu_{tag}{n}", content=f"out {n}", is_error=n == 2)
            for n in range(1, calls + 1)
        ),
        timestamp=when(f"09:{minute:02d}:02.000"),
    )


def reply(uuid: str, parent: str, clock: str, words: str, message_id: str) -> dict[str, Any]:
    return assistant(
        uuid,
        parent,
        clock,
        [text(words)],
        message_id=message_id,
        stop_reason="end_turn",
        usage=USAGE,
    )


def reply_message(clock: str, words: str) -> m.Message:
    return m.Message(
        role="assistant",
        content=(m.Text(text=words),),
        timestamp=when(clock),
        model=MODEL,
        stop_reason="end_turn",
        usage=m.Usage(input_tokens=5, output_tokens=30),
    )


def prompt(clock: str, words: str) -> m.Message:
    return m.Message(role="user", content=(m.Text(text=words),), timestamp=when(clock))


def quiet_common(records: list[dict[str, Any]]) -> m.Transcript:
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        return common(records)


@pytest.mark.parametrize(
    ("calls", "order"),
    [(2, [2, 1]), (3, [3, 1, 2]), (4, [2, 4, 1, 3]), (5, [5, 3, 1, 4, 2])],
)
def test_a_batch_answered_out_of_order_reads_whole_in_call_order(
    calls: int, order: list[int]
) -> None:
    first, last_result = batch("b", "u1", 1, calls, order)
    records = [
        user("u1", None, "09:00:00.000", "check everything"),
        *first,
        # Claude Code hangs attachments (hook output, reminders) between results and the reply.
        {
            "parentUuid": last_result,
            "isSidechain": False,
            "type": "attachment",
            "attachment": {"type": "hook_success"},
            "uuid": "att-1",
            "timestamp": "2026-08-21T09:01:30.000Z",
        },
        reply("c1", "att-1", "09:02:00.000", "all done", "msg_c"),
    ]
    assert quiet_common(records).messages == (
        prompt("09:00:00.000", "check everything"),
        calls_message("b", 1, calls),
        results_message("b", 1, calls),
        reply_message("09:02:00.000", "all done"),
    )


def test_consecutive_batches_each_keep_their_calls_and_results() -> None:
    first, after_first = batch("b", "u1", 1, 3, [3, 1, 2])
    second, after_second = batch("d", after_first, 3, 2, [2, 1])
    records = [
        user("u1", None, "09:00:00.000", "go"),
        *first,
        *second,
        reply("c1", after_second, "09:05:00.000", "done", "msg_c"),
    ]
    transcript = quiet_common(records)
    assert transcript.messages == (
        prompt("09:00:00.000", "go"),
        calls_message("b", 1, 3),
        results_message("b", 1, 3),
        calls_message("d", 3, 2),
        results_message("d", 3, 2),
        reply_message("09:05:00.000", "done"),
    )
    uses = [b for msg in transcript.messages for b in msg.content if isinstance(b, m.ToolUse)]
    results = [b for msg in transcript.messages for b in msg.content if isinstance(b, m.ToolResult)]
    assert len(uses) == len(results) == 5


def test_a_rewind_on_top_of_a_batch_keeps_the_batch_and_leaves_the_abandoned_turns_out() -> None:
    first, last_result = batch("b", "u1", 1, 3, [2, 3, 1])
    records = [
        user("u1", None, "09:00:00.000", "check everything"),
        *first,
        # The abandoned branch: a reply and a follow-up hanging from the last result...
        reply("old-reply", last_result, "09:02:00.000", "old answer", "msg_old"),
        user("old-prompt", "old-reply", "09:02:10.000", "and then?"),
        # ...a sidechain line answering a call of the batch again (subagent noise)...
        user(
            "side-r3",
            "b-a3",
            "09:02:20.000",
            [tool_result("toolu_b3", "side")],
            isSidechain=True,
        ),
        # ...and the rewind: the user went back to the batch's results and asked again.
        user("new-prompt", last_result, "09:03:00.000", "summarise instead"),
        reply("new-reply", "new-prompt", "09:03:05.000", "summary", "msg_new"),
    ]
    assert quiet_common(records).messages == (
        prompt("09:00:00.000", "check everything"),
        calls_message("b", 1, 3),
        results_message("b", 1, 3),
        prompt("09:03:00.000", "summarise instead"),
        reply_message("09:03:05.000", "summary"),
    )


def test_a_compaction_after_a_batch_keeps_the_batch_before_the_boundary() -> None:
    first, last_result = batch("b", "u1", 1, 4, [4, 2, 3, 1])
    records = [
        user("u1", None, "09:00:00.000", "check everything"),
        *first,
        reply("c1", last_result, "09:02:00.000", "all done", "msg_c"),
        system(
            "cb",
            None,
            "09:10:00.000",
            "compact_boundary",
            logicalParentUuid="c1",
            compactMetadata={"trigger": "auto", "preTokens": 150000},
        ),
        user(
            "summary",
            "cb",
            "09:10:01.000",
            "This session is being continued from a previous one.",
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        ),
        user("u3", "summary", "09:10:05.000", "next task"),
        reply("c2", "u3", "09:10:09.000", "on it", "msg_d"),
    ]
    assert quiet_common(records).messages == (
        prompt("09:00:00.000", "check everything"),
        calls_message("b", 1, 4),
        results_message("b", 1, 4),
        reply_message("09:02:00.000", "all done"),
        prompt("09:10:01.000", "This session is being continued from a previous one."),
        prompt("09:10:05.000", "next task"),
        reply_message("09:10:09.000", "on it"),
    )


def test_a_call_left_without_result_mid_session_is_named_in_one_warning() -> None:
    first, _ = batch("b", "u1", 1, 3, [3, 1])  # the result of call 2 was never written
    records = [user("u1", None, "09:00:00.000", "go"), *first]
    records.append(reply("c1", "b-r1", "09:02:00.000", "done", "msg_c"))
    with pytest.warns(TranscriptWarning) as caught:
        transcript = common(records)
    lines = [str(w.message) for w in caught if issubclass(w.category, TranscriptWarning)]
    assert len(lines) == 1
    assert "toolu_b2" in lines[0] and "has no result" in lines[0]
    results = transcript.messages[2].content
    assert [r.tool_use_id for r in results if isinstance(r, m.ToolResult)] == [
        "toolu_b1",
        "toolu_b3",
    ]


def test_a_batch_still_running_at_the_end_is_in_flight_not_warned() -> None:
    first, _ = batch("b", "u1", 1, 3, [1])
    records = [user("u1", None, "09:00:00.000", "go"), *first[:-1]]  # no result yet
    transcript = quiet_common(records)
    assert transcript.messages[-1].role == "assistant"
    assert len([b for b in transcript.messages[-1].content if isinstance(b, m.ToolUse)]) == 3
