"""Hops through Crush, Goose and Factory droid keep every call, every result and its ``is_error``.

* Claude Code (two parallel batches answered out of order, errors among them) → Crush → Codex;
* Codex (a current rollout) → Goose → Cursor desktop;
* Claude Code → droid → Claude Code.

Crush and Goose write only into a store their app created (a migrated database), so each hop
into them first lays one out, as the app would have on its first run.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from test_cross_harness import _exchange, hop, signature

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning

TESTS = Path(__file__).parents[1]
for _sibling in ("claude_code", "codex", "crush", "goose"):
    if str(TESTS / _sibling) not in sys.path:
        sys.path.append(str(TESTS / _sibling))

import claude_fixtures  # noqa: E402
import codex_fixtures  # noqa: E402
import crush_fixtures  # noqa: E402
import goose_fixtures  # noqa: E402


def _claude_source(root: Path) -> m.Transcript:
    claude_fixtures.parallel_batches(root)
    claude = harnesses.get("claude_code")
    store = claude.store(root)
    assert store is not None
    (found,) = store.discover()
    return claude.to_common(store.load(found.reference))


def _codex_source(root: Path) -> m.Transcript:
    codex = harnesses.get("codex")
    root.mkdir(parents=True)
    path = root / "rollout-2026-01-01T00-00-00-codex-source.jsonl"
    path.write_text(codex_fixtures.current_text())
    with warnings.catch_warnings():  # (the fixture holds one damaged line on purpose)
        warnings.simplefilter("ignore", TranscriptWarning)
        return codex.to_common(codex.from_text(path.read_text()))


def _errors(transcript: m.Transcript) -> dict[str, bool]:
    return {
        b.tool_use_id: b.is_error
        for msg in transcript.messages
        for b in msg.content
        if isinstance(b, m.ToolResult)
    }


def _calls(transcript: m.Transcript) -> list[Any]:
    return [b for msg in transcript.messages for b in msg.content if isinstance(b, m.ToolUse)]


def test_claude_parallel_batches_through_crush_to_codex_keep_every_call(tmp_path: Path) -> None:
    source = _claude_source(tmp_path / "claude")
    assert len(_calls(source)) == 5
    crush_root = tmp_path / "crush"
    crush_fixtures.build_empty(crush_root, Path(source.meta.cwd or ""), tmp_path / "crush-data")
    in_crush = hop(source, "crush", crush_root)
    # Message for message: Crush keeps each batch in one assistant row and its results in one
    # tool row, in the order Claude Code answered them.
    assert signature(in_crush) == signature(source)
    in_codex = hop(in_crush, "codex", tmp_path / "codex")
    assert signature(in_codex) == signature(source)
    assert _errors(in_codex) == {
        "toolu_1": True,
        "toolu_2": False,
        "toolu_3": False,
        "toolu_4": True,
        "toolu_5": False,
    }


def test_codex_through_goose_to_cursor_desktop_keeps_every_call(tmp_path: Path) -> None:
    source = _codex_source(tmp_path / "codex")
    assert _calls(source), "the Codex fixture has calls"
    goose_root = tmp_path / "goose"
    goose_fixtures.build_empty(goose_root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        in_goose = hop(source, "goose", goose_root)
    assert _exchange(in_goose) == _exchange(source)
    assert _errors(in_goose) == _errors(source)
    in_cursor = hop(in_goose, "cursor_desktop", tmp_path / "cursor")
    # Cursor desktop holds a call and its result in one bubble: each kind keeps its order.
    assert _exchange(in_cursor) == _exchange(source)
    assert _errors(in_cursor) == _errors(source)


@pytest.mark.parametrize("via", ["droid"])
def test_claude_through_droid_and_back_keeps_every_message(tmp_path: Path, via: str) -> None:
    source = _claude_source(tmp_path / "claude")
    through = hop(source, via, tmp_path / via / ".factory")
    assert signature(through) == signature(source)
    back = hop(through, "claude_code", tmp_path / "back")
    assert signature(back) == signature(source)
