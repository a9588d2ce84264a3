"""Qwen Code: chats as JSON Lines uuid trees; a writer."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

_TESTS = Path(__file__).parents[2]
for _place in (_TESTS, _TESTS / "conformance", _TESTS / "qwen"):  # strategies, declare, fixtures
    if str(_place) not in sys.path:
        sys.path.append(str(_place))

import qwen_fixtures  # noqa: E402
from declare import Conformance, Family, HopLimit, commands_as_prompts  # noqa: E402

from strategies import json_outputs, tools, uints  # noqa: E402
from txcript import model as m  # noqa: E402
from txcript.harnesses.qwen.codec import HOOK_CONTEXT  # noqa: E402

_START = datetime(2024, 1, 1, tzinfo=UTC)
#: Qwen's own tool names: a Raw call under one of them with arguments that fit would be typed.
_QWEN_NAMES = {"run_shell_command", "read_file", "write_file", "edit"}
texts = st.text(max_size=30).filter(lambda t: not t.strip().startswith(HOOK_CONTEXT))
solid = st.text(min_size=1, max_size=20).filter(lambda t: bool(t.strip()))
ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=12)
qwen_tools = tools.filter(lambda t: not (isinstance(t, m.Raw) and t.tool_name in _QWEN_NAMES))


def _at(ms: int) -> datetime:
    return _START + timedelta(milliseconds=ms)


images = st.one_of(
    st.builds(lambda d: m.Image(m.ImageSource("base64", "image/png", d)), solid),
    st.builds(lambda d: m.Image(m.ImageSource("url", "image/jpeg", d)), solid),
)
prompt = st.lists(st.one_of(st.builds(m.Text, texts), images), min_size=1, max_size=3)
reply = st.lists(
    st.one_of(
        st.builds(m.Text, texts),
        st.builds(m.Thinking, texts, signature=st.none() | solid),
        st.builds(m.ToolUse, ids, qwen_tools),
    ),
    min_size=1,
    max_size=4,
)
results = st.lists(
    st.builds(
        m.ToolResult,
        ids,
        texts | json_outputs.filter(lambda v: v is not None),
        is_error=st.booleans(),
    ),
    min_size=1,
    max_size=3,
)
usages = st.none() | st.builds(m.Usage, uints, uints, cache_read_input_tokens=st.none() | uints)


@st.composite
def _transcripts(draw: st.DrawFn) -> m.Transcript:
    """Prompts, replies and result turns, never two result turns in a row (Qwen's records give
    one user turn per run of results); a title and CLI version always (a copy always records
    both); the session starts at its first record."""
    count = draw(st.integers(0, 6))
    messages: list[m.Message] = []
    clock = draw(st.integers(0, 10**11))
    for _ in range(count):
        clock += draw(st.integers(0, 10**6))
        kind = draw(st.sampled_from(["prompt", "reply", "results"]))
        if (
            kind == "results"
            and messages
            and all(isinstance(b, m.ToolResult) for b in messages[-1].content)
        ):
            kind = "reply"
        if kind == "reply":
            messages.append(
                m.Message(
                    "assistant",
                    tuple(draw(reply)),
                    _at(clock),
                    model=draw(st.none() | solid),
                    usage=draw(usages),
                )
            )
        else:
            blocks = draw(prompt if kind == "prompt" else results)
            messages.append(m.Message("user", tuple(blocks), _at(clock)))
    model = next((x.model for x in messages if x.role == "assistant" and x.model), None)
    meta = m.Meta(
        id=draw(ids),
        timestamp=messages[0].timestamp if messages else _at(clock),
        cwd=draw(st.none() | solid),
        git_branch=draw(st.none() | solid),
        title=draw(solid),
        cli_version=draw(solid),
        model=model,
    )
    return m.Transcript(meta=meta, messages=tuple(messages))


def _linear(root: Path) -> None:
    qwen_fixtures.write_chat(root, qwen_fixtures.LINEAR_ID, qwen_fixtures.linear_records())


def _rewound(root: Path) -> None:
    qwen_fixtures.write_chat(root, qwen_fixtures.REWOUND_ID, qwen_fixtures.rewound_records())


def _compressed(root: Path) -> None:
    records: list[dict[str, Any]] = qwen_fixtures.compressed_records()
    qwen_fixtures.write_chat(root, qwen_fixtures.COMPRESSED_ID, records)


CONFORMANCE = Conformance(
    harness="qwen",
    families=(
        Family("linear-chat", _linear, sessions=1),
        Family("rewound-branch", _rewound, sessions=1),
        Family("compressed-chat", _compressed, sessions=1),
    ),
    representable=_transcripts(),
    hop_limit=HopLimit(
        "a slash command the user ran is no model call in Qwen's history: it is the prompt "
        "that ran it, and its output the user's text after it",
        commands_as_prompts,
    ),
)
