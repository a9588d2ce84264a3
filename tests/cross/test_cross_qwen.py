"""Cursor desktop → Qwen Code → Claude Code through real stores keeps every call and result."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cross_harness import cursor_source, hop, signature

from txcript import model as m


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def _results(transcript: m.Transcript) -> list[tuple[str, bool]]:
    return [
        (b.tool_use_id, b.is_error)
        for msg in transcript.messages
        for b in msg.content
        if isinstance(b, m.ToolResult)
    ]


def test_cursor_to_qwen_to_claude_code_keeps_every_call_result_and_error(tmp_path: Path) -> None:
    """Message by message, with the real call ids, every ``is_error`` (the Cursor example's read
    fails) and the typed arguments. One documented loss on this route is asserted, not hidden:
    Claude Code's API refuses unsigned reasoning on resume, so from Claude Code on reasoning
    that carries no Anthropic signature is plain text (docs/formats/claude-code.md); the
    Cursor example's reasoning is signed, so here it stays reasoning."""
    source = cursor_source()
    in_qwen = hop(source, "qwen", tmp_path / "qwen")
    assert signature(in_qwen) == signature(source)
    in_claude = hop(in_qwen, "claude_code", tmp_path / "claude")
    assert signature(in_claude) == signature(source)
    assert _results(in_claude) == _results(source)
    assert any(error for _, error in _results(source))
    uses = [b for msg in in_claude.messages for b in msg.content if isinstance(b, m.ToolUse)]
    assert uses[0].tool == m.Bash(command="npm test", workdir="/Users/dev/acme", timeout_ms=120000)
    assert uses[1].tool == m.Read(file_path="/Users/dev/acme/config.yaml", offset=1, limit=50)


def test_cursor_to_kimi_cli_and_back_keeps_every_call_result_and_error(tmp_path: Path) -> None:
    """Kimi CLI's result slot holds text only: structured output comes back as its compact JSON
    text, which is the form the signature compares."""
    source = cursor_source()
    in_kimi = hop(source, "kimi_cli", tmp_path / "kimi")
    assert signature(in_kimi) == signature(source)
    back = hop(in_kimi, "cursor_desktop", tmp_path / "cursor")
    assert signature(back) == signature(source)
    assert _results(back) == _results(source)
