"""Tool calls and their results: finding calls left unanswered, and closing them for a writer.

The APIs behind the harnesses txcript writes (Anthropic Messages, OpenAI Responses, Cursor's
agent) reject a resumed conversation in which a model's tool call has no result and later
messages follow. A real session can hold one anyway: the app crashed while the tool ran, or a
result line was lost. Readers report it (:func:`describe_unanswered`); every writer closes it
first (:func:`answer_open_calls`), with an error result saying that no result was recorded, so
the copy it writes resumes. A call in the last message is still in flight and stays open.

Only model calls count: a :class:`~txcript.model.ToolUse` in an **assistant** message. A user's
slash command (a ToolUse on a user message) may have no output at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from txcript.model import Message, ToolResult, ToolUse, Transcript

#: The content of the error result a writer adds for a call that has none.
NO_RESULT = "No result was recorded for this tool call."


def _last_answer(messages: Sequence[Message]) -> dict[str, int]:
    """Each answered call id → the index of the last user message holding a result for it.

    A call in message ``i`` is answered later exactly when this index is greater than ``i``.
    (A result on an assistant message answers nothing: no API takes it there.)
    """
    last: dict[str, int] = {}
    for index, message in enumerate(messages):
        if message.role != "user":
            continue
        for block in message.content:
            if isinstance(block, ToolResult):
                last[block.tool_use_id] = index
    return last


def _open_calls(
    messages: Sequence[Message], blockwise: bool = False
) -> list[tuple[int, list[str]]]:
    """``(message index, call ids)`` of assistant calls with no later result, mid-session.

    ``blockwise``: the target writes every block as its own message, so a call followed by any
    later block of its message is mid-session too.
    """
    answered = _last_answer(messages)
    out: list[tuple[int, list[str]]] = []
    last = len(messages) - 1
    for index, message in enumerate(messages):
        if message.role != "assistant":
            continue
        final = len(message.content) - 1
        missing = [
            block.id
            for position, block in enumerate(message.content)
            if isinstance(block, ToolUse)
            and answered.get(block.id, -1) <= index
            and (index < last or (blockwise and position < final))
        ]
        if missing:
            out.append((index, list(dict.fromkeys(missing))))
    return out


def unanswered_calls(messages: Sequence[Message]) -> list[str]:
    """Ids of model calls that have no result although later messages follow, in order."""
    return [call for _, calls in _open_calls(messages) for call in calls]


def describe_unanswered(harness: str, session_id: str, messages: Sequence[Message]) -> str | None:
    """The one warning line a reader gives for a session with unanswered calls, or None."""
    missing = unanswered_calls(messages)
    if not missing:
        return None
    more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
    where = f"session {session_id}" if session_id else "the session"
    return (
        f"{harness} {where}: tool call {missing[0]}{more} has no result although the "
        "conversation goes on; a copy written by txcript gets an error result saying so"
    )


def answer_open_calls(transcript: Transcript, *, blockwise: bool = False) -> Transcript:
    """The transcript with an error result (:data:`NO_RESULT`) for each open mid-session call.

    The results go into the user message right after the call's message when that message
    already holds results for the same assistant message (after its last one), else into a new
    user message inserted after the call's message with the call's timestamp. A transcript
    with nothing open is returned unchanged (the same object). ``blockwise`` is for writers
    that store every block as a message of its own (Cursor desktop's bubbles): there a call
    followed by another block of its message is closed too.
    """
    found = _open_calls(transcript.messages, blockwise)
    if not found:
        return transcript
    messages = list(transcript.messages)
    # Work from the end so earlier indexes stay valid.
    for index, missing in reversed(found):
        call_message = messages[index]
        added = tuple(
            ToolResult(tool_use_id=call, content=NO_RESULT, is_error=True) for call in missing
        )
        batch = {b.id for b in call_message.content if isinstance(b, ToolUse)}
        following = messages[index + 1] if index + 1 < len(messages) else None
        last = (
            _last_result_of(following, batch)
            if following is not None and following.role == "user"
            else None
        )
        if following is not None and last is not None:
            content = following.content
            messages[index + 1] = msgspec.structs.replace(
                following, content=content[: last + 1] + added + content[last + 1 :]
            )
        else:
            reply = Message(role="user", content=added, timestamp=call_message.timestamp)
            messages.insert(index + 1, reply)
    return msgspec.structs.replace(transcript, messages=tuple(messages))


def _last_result_of(message: Message, calls: set[str]) -> int | None:
    last: int | None = None
    for position, block in enumerate(message.content):
        if isinstance(block, ToolResult) and block.tool_use_id in calls:
            last = position
    return last
