"""A reader's warning is said once. Resolving a REF used to give the warnings of the direct
lookups back, then fall back on a full discovery that read the same stores again and said them
again (two or three times before the error). And a REF that names only an unreadable file now
gets an error naming that file and why, not "no session matches"."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from cli_helpers import claude_session
from conftest import RunCli

SID = "2d4f6a8c-1b3e-4d5f-8a7b-9c0d1e2f3a4b"


@pytest.fixture
def stores(isolated_home: Path) -> Path:
    """A Claude Code store with one good session and one file that is no session."""
    claude_session(isolated_home / ".claude", SID, title="good one")
    garbage = isolated_home / ".claude" / "projects" / "-w" / "garbage.jsonl"
    garbage.parent.mkdir(parents=True)
    garbage.write_text("not json at all\n")
    codex = isolated_home / ".codex" / "sessions" / "2026" / "01" / "02"
    codex.mkdir(parents=True)
    (codex / "rollout-2026-01-02T03-04-05-broken.jsonl").write_text("{not json\n")
    return garbage


def repeated(stderr: str) -> list[str]:
    warnings = Counter(line for line in stderr.splitlines() if line.startswith("txcript: warning"))
    return [line for line, count in warnings.items() if count > 1]


@pytest.mark.parametrize("reference", ["garb", "nothing-like-it", "good one", SID[:4], "2d4f#1"])
def test_each_warning_is_said_once(run_cli: RunCli, stores: Path, reference: str) -> None:
    result = run_cli("view", reference)
    assert repeated(result.stderr) == [], result.stderr


def test_a_name_only_an_unreadable_file_holds_names_that_file(
    run_cli: RunCli, stores: Path
) -> None:
    result = run_cli("view", "garbage")
    assert result.code == 2, result
    assert result.stderr.splitlines()[-1] == (
        f"txcript: error: reading {stores}: not a Claude Code session file (no JSON records)"
    )
    assert f"skipping {stores}" not in result.stderr  # said once: by the error
    elsewhere = run_cli("view", "nothing-like-it")
    assert "no local session matches `nothing-like-it`" in elsewhere.stderr
