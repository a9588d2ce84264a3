"""Kimi CLI: session directories with the kimi.json index, and the flat oldest layout; a writer."""

from __future__ import annotations

import json
import shutil
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import strategies as st

_TESTS = Path(__file__).parents[2]
for _place in (_TESTS, _TESTS / "conformance", _TESTS / "kimi_cli"):
    if str(_place) not in sys.path:
        sys.path.append(str(_place))

import kimi_cli_fixtures  # noqa: E402
from declare import (  # noqa: E402
    Conformance,
    Family,
    HopLimit,
    commands_as_prompts,
    composed,
    text_before_calls,
)

from strategies import tools  # noqa: E402
from txcript import model as m  # noqa: E402

_START = datetime(2024, 1, 1, tzinfo=UTC)
_KIMI_NAMES = {"Shell", "ReadFile", "WriteFile", "StrReplaceFile"}
ERROR_OPEN, CLOSE = "<system>ERROR: ", "</system>"
texts = st.text(max_size=30).filter(lambda t: not t.startswith("<system>"))
solid = st.text(min_size=1, max_size=20).filter(lambda t: bool(t.strip()))
ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=12)
kimi_tools = tools.filter(lambda t: not (isinstance(t, m.Raw) and t.tool_name in _KIMI_NAMES))


def _at(ms: int) -> datetime:
    return _START + timedelta(milliseconds=ms)


prompt = st.lists(
    st.one_of(
        st.builds(m.Text, texts),
        st.builds(lambda d: m.Image(m.ImageSource("base64", "image/png", d)), solid),
    ),
    max_size=3,
)
# A reply's text and reasoning, then its calls: an OpenAI-style message holds them apart.
reply = st.tuples(
    st.lists(
        st.one_of(
            st.builds(m.Text, texts), st.builds(m.Thinking, texts, signature=st.none() | solid)
        ),
        max_size=3,
    ),
    st.lists(st.builds(m.ToolUse, ids, kimi_tools), max_size=3),
).map(lambda parts: [*parts[0], *parts[1]])
results = st.lists(
    st.builds(m.ToolResult, ids, texts, is_error=st.booleans()), min_size=1, max_size=3
)


@st.composite
def _transcripts(draw: st.DrawFn) -> m.Transcript:
    """What Kimi CLI's files hold: times only where the wire has them (a prompt's ``TurnBegin``,
    a reply's ``StepBegin``; a result turn carries the time before it), text results, a title
    always (``state.json``), and no model, usage, branch or CLI version."""
    clock = draw(st.integers(0, 10**11))
    messages: list[m.Message] = [m.Message("user", tuple(draw(prompt)), _at(clock))]
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["prompt", "reply", "results"]))
        if kind == "results" and all(isinstance(b, m.ToolResult) for b in messages[-1].content):
            kind = "reply"
        if kind == "results":
            messages.append(m.Message("user", tuple(draw(results)), messages[-1].timestamp))
            continue
        clock += draw(st.integers(0, 10**6))
        if kind == "reply":
            messages.append(m.Message("assistant", tuple(draw(reply)), _at(clock)))
        else:
            messages.append(m.Message("user", tuple(draw(prompt)), _at(clock)))
    meta = m.Meta(
        id=draw(ids),
        timestamp=messages[0].timestamp,
        cwd=draw(st.none() | solid),
        title=draw(solid),
    )
    return m.Transcript(meta=meta, messages=tuple(messages))


def _directory(root: Path) -> None:
    kimi_cli_fixtures.build_store(root)
    (root / "sessions" / kimi_cli_fixtures.KEY / f"{kimi_cli_fixtures.FLAT_ID}.jsonl").unlink()


def _flat(root: Path) -> None:
    kimi_cli_fixtures.build_store(root)
    shutil.rmtree(root / "sessions" / kimi_cli_fixtures.KEY / kimi_cli_fixtures.SESSION_ID)
    index = kimi_cli_fixtures.index(kimi_cli_fixtures.WORK_DIR)
    (root / "kimi.json").write_text(json.dumps(index, indent=2))


CONFORMANCE = Conformance(
    harness="kimi_cli",
    families=(
        Family("session-directory", _directory, sessions=1),
        Family("flat-legacy-file", _flat, sessions=1),
    ),
    representable=_transcripts(),
    hop_limit=HopLimit(
        "a Kimi message holds its text and reasoning before its tool calls (OpenAI-style), and "
        "a slash command the user ran is the prompt that ran it, its output the user's text",
        composed(commands_as_prompts, text_before_calls),
    ),
)
