"""Cursor desktop → Gemini → Codex → Gemini through real stores keeps every call and result."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cross_harness import cursor_source, hop, signature

from txcript import model as m


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def test_cursor_to_gemini_keeps_every_call_result_error_and_the_reasoning(tmp_path: Path) -> None:
    source = cursor_source()
    in_gemini = hop(source, "gemini", tmp_path / "gemini")
    assert signature(in_gemini) == signature(source)
    assert any(isinstance(b, m.Thinking) for msg in in_gemini.messages for b in msg.content)


def test_cursor_to_gemini_to_codex_to_gemini_keeps_every_message(tmp_path: Path) -> None:
    """Calls, results, their ids, every ``is_error`` (Codex keeps a failure of any tool in its
    exit-code envelope) and the reasoning (as reasoning, never as text) survive every leg."""
    source = cursor_source()
    current = source
    for index, harness_id in enumerate(("gemini", "codex", "gemini")):
        current = hop(current, harness_id, tmp_path / f"{index}-{harness_id}")
        assert signature(current) == signature(source), f"after {harness_id}"
    uses = [b for msg in current.messages for b in msg.content if isinstance(b, m.ToolUse)]
    assert uses[0].tool == m.Bash(command="npm test", workdir="/Users/dev/acme", timeout_ms=120000)
    assert uses[1].tool == m.Read(file_path="/Users/dev/acme/config.yaml", offset=1, limit=50)
