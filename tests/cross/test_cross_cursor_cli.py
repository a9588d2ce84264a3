"""A session carried Cursor desktop → Cursor CLI → Claude Code → Cursor CLI through real stores."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cross_harness import cursor_source, hop, signature

from txcript import model as m


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "txcript-cache"))


def calls(transcript: m.Transcript) -> list[m.ToolUse]:
    return [b for msg in transcript.messages for b in msg.content if isinstance(b, m.ToolUse)]


def test_desktop_to_cli_to_claude_code_to_cli_keeps_every_message(tmp_path: Path) -> None:
    source = cursor_source()
    in_cli = hop(source, "cursor", tmp_path / "cli-1")
    assert signature(in_cli) == signature(source)
    in_claude = hop(in_cli, "claude_code", tmp_path / "claude")
    assert signature(in_claude) == signature(source)
    back = hop(in_claude, "cursor", tmp_path / "cli-2")
    assert signature(back) == signature(source)
    results = [b for msg in back.messages for b in msg.content if isinstance(b, m.ToolResult)]
    assert any(r.is_error for r in results) == any(
        b.is_error for msg in source.messages for b in msg.content if isinstance(b, m.ToolResult)
    )
    assert calls(back)[0].tool == m.Bash(
        command="npm test", workdir="/Users/dev/acme", timeout_ms=120000
    )
    assert calls(back)[1].tool == m.Read(
        file_path="/Users/dev/acme/config.yaml", offset=1, limit=50
    )
    assert back.meta.cwd == source.meta.cwd
    assert back.meta.title == source.meta.title
