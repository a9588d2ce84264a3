"""pi sessions carried through other harnesses' real stores: every call, result and ``is_error``
survives, and only the active branch ever leaves a pi file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_cross_harness import _exchange, hop, signature

from txcript import harnesses
from txcript import model as m

for _directory in ("pi", "claude_code"):
    _path = str(Path(__file__).resolve().parents[1] / _directory)
    if _path not in sys.path:
        sys.path.append(_path)

import pi_fixtures as f  # noqa: E402
from claude_fixtures import parallel_batches  # noqa: E402


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def _claude_parallel_source(root: Path) -> m.Transcript:
    parallel_batches(root)
    claude = harnesses.get("claude_code")
    store = claude.store(root)
    assert store is not None
    (found,) = store.discover()
    return claude.to_common(store.load(found.reference))


def _errors(transcript: m.Transcript) -> dict[str, bool]:
    return {
        b.tool_use_id: b.is_error
        for msg in transcript.messages
        for b in msg.content
        if isinstance(b, m.ToolResult)
    }


def test_claude_parallel_batches_through_pi_into_cursor_desktop_keep_every_call(
    tmp_path: Path,
) -> None:
    """Claude Code (two parallel batches answered out of order, errors among them) → pi →
    Cursor desktop. pi keeps the grouping message by message (one assistant message per batch,
    its results in one user message); Cursor desktop holds each call with its result, so from
    there texts, calls and results are compared kind by kind, with every ``is_error``."""
    source = _claude_parallel_source(tmp_path / "claude")
    in_pi = hop(source, "pi", tmp_path / "pi")
    assert signature(in_pi) == signature(source)
    in_cursor = hop(in_pi, "cursor_desktop", tmp_path / "cursor")
    assert _exchange(in_cursor) == _exchange(source)
    assert _errors(in_cursor) == {
        "toolu_1": True,
        "toolu_2": False,
        "toolu_3": False,
        "toolu_4": True,
        "toolu_5": False,
    }


def test_kimi_style_call_ids_keep_every_result_through_claude_code(tmp_path: Path) -> None:
    """Call ids like ``functions.read:0`` are not ids Claude Code takes: its writer reshapes
    them, each call and its result alike, so the batch comes back with every result."""
    pi = harnesses.get("pi")
    source = pi.to_common(pi.from_text(f.v3()))
    in_claude = hop(source, "claude_code", tmp_path / "claude")
    results = [b for msg in in_claude.messages for b in msg.content if isinstance(b, m.ToolResult)]
    uses = [b for msg in in_claude.messages for b in msg.content if isinstance(b, m.ToolUse)]
    assert [r.is_error for r in results] == [True, False, False, False, False]
    assert {u.id for u in uses} == {r.tool_use_id for r in results}
    assert len(uses) == 5
    back = hop(in_claude, "pi", tmp_path / "pi")
    assert _exchange(back) == _exchange(in_claude)


def test_a_branched_pi_session_into_claude_code_and_back_keeps_its_active_branch_only(
    tmp_path: Path,
) -> None:
    """The abandoned branch never leaves the pi file: not into Claude Code, not back."""
    agent = tmp_path / "pi-src"
    path = f.write_pi(agent, f.SID_TREE, f.branched())
    pi = harnesses.get("pi")
    store = pi.store(agent)
    assert store is not None
    source = pi.to_common(store.load(str(path)))
    in_claude = hop(source, "claude_code", tmp_path / "claude")
    claude_file = next((tmp_path / "claude" / "projects").rglob("*.jsonl"))
    assert "ABANDONED" not in claude_file.read_text()
    assert signature(in_claude) == signature(source)
    back = hop(in_claude, "pi", tmp_path / "pi-back")
    assert signature(back) == signature(source)
    written = next((tmp_path / "pi-back" / "sessions").rglob("*.jsonl")).read_text()
    assert "ABANDONED" not in written
    entries = [json.loads(line) for line in written.splitlines()[1:]]
    # One linear chain: no branch left to walk.
    assert [e["parentId"] for e in entries[1:]] == [e["id"] for e in entries[:-1]]
    texts = [b.text for msg in back.messages for b in msg.content if isinstance(b, m.Text)]
    assert texts == [
        "pick a name",
        "The following is a summary of a branch that this conversation came back from:"
        "\n\n<summary>\ntried a long name</summary>",
        "something short",
        "Use `tx`.",
    ]


def test_a_compacted_pi_session_carries_its_summary_into_claude_code(tmp_path: Path) -> None:
    pi = harnesses.get("pi")
    source = pi.to_common(pi.from_text(f.compacted()))
    in_claude = hop(source, "claude_code", tmp_path / "claude")
    assert signature(in_claude) == signature(source)
    text = next((tmp_path / "claude" / "projects").rglob("*.jsonl")).read_text()
    assert "We set up the project." in text and "COMPACTED early answer" not in text
    # The title is the one pi lists the session under: its first prompt, compacted or not.
    assert in_claude.meta.title == "COMPACTED early prompt"
