"""Hypothesis strategies for Common transcripts covering every block and tool kind."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from txcript import model as m

_START = datetime(2020, 1, 1, tzinfo=UTC)

# Unicode text including empty strings, control characters and astral code points, sometimes huge.
texts = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=20),
    st.builds(lambda s, n: s * n, st.text(min_size=1, max_size=3), st.integers(20_000, 60_000)),
)
names = st.text(min_size=1, max_size=12)
uints = st.integers(min_value=0, max_value=2**63 - 1)

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
# JSON tool output: anything but a bare string (a string always reads back as text output).
json_outputs = json_values.filter(lambda v: not isinstance(v, str))


def millis(offset_ms: int) -> datetime:
    return _START + timedelta(milliseconds=offset_ms)


def micros(offset_us: int) -> datetime:
    return _START + timedelta(microseconds=offset_us)


_typed_names = {"Read", "Write", "Edit", "MultiEdit", "Bash"}

tools: st.SearchStrategy[m.Tool] = st.one_of(
    st.builds(
        m.Command, command=st.text(max_size=8).map(lambda s: "/" + s), args=st.none() | texts
    ),
    st.builds(m.Read, file_path=texts, offset=st.none() | uints, limit=st.none() | uints),
    st.builds(m.Write, file_path=texts, content=texts),
    st.builds(
        m.Edit, file_path=texts, old_string=texts, new_string=texts, replace_all=st.booleans()
    ),
    st.builds(
        m.MultiEdit,
        file_path=texts,
        edits=st.lists(
            st.builds(m.EditSpec, old_string=texts, new_string=texts, replace_all=st.booleans()),
            max_size=3,
        ).map(tuple),
    ),
    st.builds(
        m.Bash,
        command=texts,
        workdir=st.none() | texts,
        timeout_ms=st.none() | uints,
        description=st.none() | texts,
        run_in_background=st.booleans(),
    ),
    # Raw tools under names no typed schema claims, with any JSON input.
    st.builds(
        m.Raw,
        tool_name=names.filter(lambda n: n not in _typed_names and not n.startswith("/")),
        input=json_values,
    ),
)

stop_reasons = (
    st.none() | st.sampled_from(sorted(m.STOP_REASONS)) | st.builds(m.OtherStop, other=texts)
)
usages = st.none() | st.builds(
    m.Usage,
    input_tokens=uints,
    output_tokens=uints,
    cache_read_input_tokens=st.none() | uints,
    cache_creation_input_tokens=st.none() | uints,
)

artifact_sources = st.one_of(
    st.builds(m.TextSource, text=texts, media_type=st.none() | names),
    st.builds(m.Base64Source, data=names, media_type=st.none() | names),
    st.builds(m.PathSource, path=texts, media_type=st.none() | names),
)

blocks: st.SearchStrategy[m.Block] = st.one_of(
    st.builds(m.Text, text=texts),
    st.builds(m.Thinking, text=texts, signature=st.none() | texts, encrypted=st.none() | texts),
    st.builds(m.ToolUse, id=names, tool=tools),
    st.builds(
        m.ToolResult, tool_use_id=names, content=texts | json_outputs, is_error=st.booleans()
    ),
    st.builds(m.Image, source=st.builds(m.ImageSource, type=names, media_type=names, data=names)),
    st.builds(
        m.Artifact, artifact=st.builds(m.ArtifactRef, id=texts, name=texts, source=artifact_sources)
    ),
)

messages = st.builds(
    m.Message,
    role=st.sampled_from(["user", "assistant"]),
    content=st.lists(blocks, max_size=4).map(tuple),
    timestamp=st.integers(0, 10**15).map(micros),
    model=st.none() | texts,
    stop_reason=stop_reasons,
    usage=usages,
)

metas = st.builds(
    m.Meta,
    id=st.text(max_size=20),
    # Simple writes the session start with millisecond precision.
    timestamp=st.integers(0, 10**12).map(millis),
    cwd=st.none() | texts,
    git_branch=st.none() | texts,
    title=st.none() | texts,
    cli_version=st.none() | texts,
    model=st.none() | texts,
)

transcripts = st.builds(
    m.Transcript, meta=metas, messages=st.lists(messages, max_size=6).map(tuple)
)
