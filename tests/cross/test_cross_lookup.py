"""Direct lookup across stores: one id held by two harnesses resolves to the newest copy, as a
full discovery does, and a prefix that two harnesses' ids share is ambiguous with the same
error."""

from __future__ import annotations

from pathlib import Path

import pytest

from lookup_checks import assert_same_answers, by_resolve, save_sessions
from txcript.harnesses.claude_code.store import ClaudeCodeStore
from txcript.harnesses.codex.store import CodexStore

SHARED = "5a5a5a5a-0000-4000-8000-000000000001"
CLAUDE_ONLY = "5a5a0000-1111-4000-8000-000000000002"


@pytest.fixture
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    save_sessions(
        [
            ("claude_code", SHARED, "older, in Claude Code", 0),
            ("codex", SHARED, "newer, in Codex", 5),
            ("claude_code", CLAUDE_ONLY, "only here", 1),
        ]
    )


@pytest.mark.usefixtures("stores")
def test_an_id_in_two_stores_resolves_to_the_newest_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = by_resolve(SHARED)
    assert not isinstance(answer, str) and answer[0].harness == "codex"
    claude = by_resolve(SHARED, "claude_code")
    assert not isinstance(claude, str) and claude[0].harness == "claude_code"
    direct = [SHARED, CLAUDE_ONLY, "5a5a0", f"{SHARED}#1-2"]
    others = ["5a5a", "5a5a5", "newer, in Codex", "only here#1", "5a5a#1"]
    for store_class in (ClaudeCodeStore, CodexStore):
        assert_same_answers(monkeypatch, store_class, direct, others)
    assert_same_answers(monkeypatch, CodexStore, [SHARED, "5a5a"], ["only"], scope="codex")
