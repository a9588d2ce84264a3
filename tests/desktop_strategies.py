"""Hypothesis strategies of the Common transcripts Antigravity and Cowork hold exactly.

Each one draws only what its format carries one to one (see ``docs/formats/antigravity.md`` and
``docs/formats/cowork.md``); the fixpoint tests and the conformance declarations share them.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

from strategies import tools
from txcript import model as m
from txcript.pairing import answer_open_calls

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
texts = st.text(max_size=30)
non_empty = st.text(min_size=1, max_size=20).filter(lambda s: s.strip() == s and s)
micro_stamps = st.integers(0, 10**14).map(lambda us: T0 + timedelta(microseconds=us))
milli_stamps = st.integers(0, 10**11).map(lambda ms: T0 + timedelta(milliseconds=ms))
model_tools = tools.filter(lambda t: not isinstance(t, m.Command))
counts = st.integers(0, 2**40)
usages = st.none() | st.builds(
    m.Usage,
    input_tokens=counts,
    output_tokens=counts,
    cache_read_input_tokens=st.none() | st.integers(1, 2**40),
    cache_creation_input_tokens=st.none() | st.integers(1, 2**40),
).filter(lambda u: u != m.Usage(input_tokens=0, output_tokens=0))
stop_reasons = (
    st.none()
    | st.sampled_from(sorted(m.STOP_REASONS))
    | st.builds(m.OtherStop, other=texts.filter(lambda s: s not in m.STOP_REASONS))
)
images = st.builds(
    lambda data, media: m.Image(
        source=m.ImageSource(
            type="base64", media_type=media, data=base64.b64encode(data).decode("ascii")
        )
    ),
    st.binary(max_size=12),
    non_empty,
)


def _prompt_title(messages: list[m.Message]) -> str | None:
    for message in messages:
        if message.role == "user" and not any(isinstance(b, m.ToolResult) for b in message.content):
            return m.prompt_title(message.content)
    return None


# ---------------------------------------------------------------------------------- antigravity


@st.composite
def antigravity_transcripts(draw: st.DrawFn) -> m.Transcript:
    """A prompt, then assistant turns of thinking, text and calls each answered (or not) by a
    message of results, and prompts of texts and images."""
    messages: list[m.Message] = []
    calls = 0
    units = ["prompt", *draw(st.lists(st.sampled_from(["prompt", "assistant"]), max_size=5))]
    for unit in units:
        stamp = draw(micro_stamps)
        if unit == "assistant" and messages and messages[-1].role == "assistant":
            # (Planner steps of one instant are one message: keep two messages apart.)
            stamp = stamp if stamp != messages[-1].timestamp else stamp + timedelta(microseconds=1)
        if unit == "prompt":
            said = draw(
                st.lists(
                    st.builds(m.Text, text=texts.filter(lambda s: "<USER_SETTINGS" not in s)),
                    max_size=3,
                )
            )
            shown = draw(st.lists(images, max_size=2))
            messages.append(m.Message(role="user", content=(*said, *shown), timestamp=stamp))
            continue
        # Blocks in any order: one planner step holds thinking, text, calls in that order, and
        # a message in another order is written as steps of one instant, read as one message.
        content: list[m.Block] = []
        used = []
        for kind in draw(st.lists(st.sampled_from(["thinking", "text", "tool"]), max_size=5)):
            if kind == "thinking":
                content.append(m.Thinking(text=draw(non_empty), signature=draw(st.none() | texts)))
            elif kind == "text":
                content.append(m.Text(text=draw(texts)))
            else:
                calls += 1
                used.append(f"call-{calls}")
                content.append(m.ToolUse(id=used[-1], tool=draw(model_tools)))
        number = draw(st.none() | st.integers(0, 2**31))
        messages.append(
            m.Message(
                role="assistant",
                content=tuple(content),
                timestamp=stamp,
                model=None if number is None else f"antigravity-model-{number}",
                stop_reason=draw(stop_reasons),
                usage=draw(usages),
            )
        )
        answered = [c for c in used if draw(st.booleans())]
        if answered:
            results = tuple(
                m.ToolResult(tool_use_id=c, content=draw(texts), is_error=draw(st.booleans()))
                for c in answered
            )
            messages.append(m.Message(role="user", content=results, timestamp=draw(micro_stamps)))
    closed = answer_open_calls(
        m.Transcript(meta=m.Meta(id="x", timestamp=T0), messages=tuple(messages))
    ).messages
    first_model = next((x.model for x in closed if x.role == "assistant" and x.model), None)
    meta = m.Meta(
        id=str(draw(st.uuids())),
        timestamp=draw(micro_stamps),
        cwd=draw(st.none() | non_empty.map(lambda s: "/" + s.replace("\\", "/").lstrip("/"))),
        git_branch=draw(st.none() | non_empty),
        title=draw(st.none() | non_empty | st.just(_prompt_title(list(closed)))),
        model=first_model,
    )
    return m.Transcript(meta=meta, messages=closed)


# --------------------------------------------------------------------------------------- cowork


@st.composite
def cowork_transcripts(draw: st.DrawFn) -> m.Transcript:
    """Claude Code-shaped turns (prompts; text, signed thinking and calls; results), under a
    Cowork task id, with the record's title, cwd, model and millisecond start."""
    messages: list[m.Message] = []
    calls = 0
    units = ["prompt", *draw(st.lists(st.sampled_from(["prompt", "assistant"]), max_size=5))]
    for unit in units:
        stamp = draw(milli_stamps)
        if unit == "prompt":
            messages.append(
                m.Message(role="user", content=(m.Text(text=draw(non_empty)),), timestamp=stamp)
            )
            continue
        content: list[m.Block] = []
        used = []
        for kind in draw(st.lists(st.sampled_from(["text", "thinking", "tool"]), max_size=3)):
            if kind == "text":
                content.append(m.Text(text=draw(texts)))
            elif kind == "thinking":
                content.append(m.Thinking(text=draw(texts), signature=draw(non_empty)))
            else:
                calls += 1
                used.append(f"toolu_{calls}")
                content.append(m.ToolUse(id=used[-1], tool=draw(model_tools)))
        messages.append(
            m.Message(
                role="assistant",
                content=tuple(content),
                timestamp=stamp,
                model=draw(st.none() | non_empty.filter(lambda s: s != "<synthetic>")),
                stop_reason=draw(stop_reasons),
                usage=draw(usages),
            )
        )
        if used:
            results = tuple(
                m.ToolResult(tool_use_id=c, content=draw(texts), is_error=draw(st.booleans()))
                for c in used
            )
            messages.append(m.Message(role="user", content=results, timestamp=stamp))
    first_model = next((x.model for x in messages if x.role == "assistant" and x.model), None)
    meta = m.Meta(
        id="local_" + str(draw(st.uuids())),
        timestamp=draw(milli_stamps),
        cwd=draw(st.none() | non_empty),
        git_branch=draw(st.none() | non_empty),
        title=draw(st.none() | non_empty),
        cli_version=draw(st.none() | non_empty),
        # The record's model, else the transcript's first.
        model=draw(st.none() | non_empty) or first_model,
    )
    return m.Transcript(meta=meta, messages=tuple(messages))
