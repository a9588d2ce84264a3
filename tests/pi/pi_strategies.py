"""The Common transcripts the pi-format codec holds exactly (the codec fixpoint's domain), for
the pi, Campfire and OpenClaw conformance declarations.

What lies outside, and why (``docs/formats/pi.md``): a user's slash command (pi has no slot for
one: it is written as its text), a MultiEdit of exactly one edit (pi's ``edit`` with one
replacement reads back as Edit), ``stop_sequence`` (pi says ``stop``), usage that is all zero or
has a zero cache count (pi always writes counts, so zero means unknown), times finer than a
millisecond, a title with
surrounding blanks (pi trims session names), results whose call has none, and two results
messages in a row (consecutive ``toolResult`` messages are one batch).
"""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

from txcript import model as m

_START = datetime(2024, 1, 1, tzinfo=UTC)
_PI_NAMES = {"read", "write", "bash", "edit"}
_TYPED = {"Read", "Write", "Edit", "MultiEdit", "Bash"}

texts = st.text(max_size=30)
small = st.integers(min_value=0, max_value=2**40)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
raw_names = st.text(alphabet=string.ascii_letters + "_.-:", min_size=1, max_size=12).filter(
    lambda n: n not in _PI_NAMES and n not in _TYPED
)
edit_specs = st.builds(m.EditSpec, old_string=texts, new_string=texts, replace_all=st.booleans())
tools: st.SearchStrategy[m.Tool] = st.one_of(
    st.builds(m.Read, file_path=texts, offset=st.none() | small, limit=st.none() | small),
    st.builds(m.Write, file_path=texts, content=texts),
    st.builds(
        m.Edit, file_path=texts, old_string=texts, new_string=texts, replace_all=st.booleans()
    ),
    st.builds(
        m.MultiEdit,
        file_path=texts,
        edits=st.lists(edit_specs, max_size=3).filter(lambda e: len(e) != 1).map(tuple),
    ),
    st.builds(
        m.Bash,
        command=texts,
        workdir=st.none() | texts,
        timeout_ms=st.none() | st.integers(0, 10**9),
        description=st.none() | texts,
        run_in_background=st.booleans(),
    ),
    st.builds(m.Raw, tool_name=raw_names, input=json_values),
)
images = st.builds(
    m.Image,
    source=st.builds(
        m.ImageSource,
        type=st.just("base64"),
        media_type=st.sampled_from(["image/png", "image/jpeg"]),
        data=texts,
    ),
)
thinking = st.builds(
    m.Thinking, text=texts, signature=st.none() | texts, encrypted=st.none() | texts
)
counts = st.integers(1, 2**40)
usages = st.none() | st.builds(
    m.Usage,
    input_tokens=counts,
    output_tokens=st.integers(0, 2**40),
    cache_read_input_tokens=st.none() | counts,
    cache_creation_input_tokens=st.none() | counts,
)
stops = st.sampled_from(["end_turn", "tool_use", "max_tokens", "error", "aborted"]) | st.builds(
    m.OtherStop,
    other=st.text(min_size=1, max_size=8).filter(
        lambda s: s not in ("stop", "length", "toolUse", "error", "aborted")
    ),
)
call_ids = st.text(alphabet=string.ascii_letters + string.digits + "_.:|-", min_size=1, max_size=16)


@st.composite
def transcripts(draw: st.DrawFn) -> m.Transcript:
    clock = [draw(st.integers(0, 10**9))]

    def moment() -> datetime:
        clock[0] += draw(st.integers(0, 5000))
        return _START + timedelta(milliseconds=clock[0])

    messages: list[m.Message] = []
    used: set[str] = set()
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["user", "assistant", "calls"]))
        if kind == "user":
            blocks = draw(
                st.lists(st.one_of(st.builds(m.Text, texts), images), min_size=1, max_size=3)
            )
            messages.append(m.Message(role="user", content=tuple(blocks), timestamp=moment()))
            continue
        content: list[m.Block] = draw(
            st.lists(st.one_of(st.builds(m.Text, texts), thinking), max_size=2)
        )
        calls: list[m.ToolUse] = []
        if kind == "calls":
            for tool in draw(st.lists(tools, min_size=1, max_size=3)):
                call_id = draw(call_ids.filter(lambda c: c not in used))
                used.add(call_id)
                calls.append(m.ToolUse(id=call_id, tool=tool))
        messages.append(
            m.Message(
                role="assistant",
                content=(*content, *calls),
                timestamp=moment(),
                model=draw(st.none() | st.text(min_size=1, max_size=10)),
                stop_reason=draw(stops),
                usage=draw(usages),
            )
        )
        if calls:
            results: list[m.Block] = []
            for call in calls:
                results.append(
                    m.ToolResult(
                        tool_use_id=call.id, content=draw(texts), is_error=draw(st.booleans())
                    )
                )
                results.extend(draw(st.lists(images, max_size=1)))
            messages.append(m.Message(role="user", content=tuple(results), timestamp=moment()))
    title = draw(st.text(min_size=1, max_size=20).map(str.strip).filter(bool))
    meta = m.Meta(
        id=str(draw(st.uuids())),
        timestamp=_START + timedelta(milliseconds=draw(st.integers(0, 10**9))),
        cwd=draw(st.none() | st.text(min_size=1, max_size=20)),
        title=title,
        model=draw(st.text(min_size=1, max_size=12)),
    )
    return m.Transcript(meta=meta, messages=tuple(messages))
