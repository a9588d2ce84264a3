"""``txcript demo``: the main job end to end in a sandbox, as a fresh install runs it."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import RunCli


def test_demo_lists_continues_into_claude_code_and_shows_the_session(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    real_claude = isolated_home / ".claude"
    result = run_cli("demo", env={"TMPDIR": str(tmp_path)})
    assert result.code == 0, result.stderr
    out = result.stdout
    assert "$ txcript list" in out
    assert re.search(r"cursor_desktop +\S+ ago +5c2f7e0a-8d41-4b6e-9a3c-2e7d1f0b9c48", out)
    assert "cursor_desktop → claude_code" in out
    assert re.search(r"resume with: cd \S+ && claude --resume=[0-9a-f-]{36}", out)
    # The continued session, read back from Claude Code, with every kind of block.
    for piece in (
        "[thinking]\nA test that fails intermittently",
        '[tool 1 Bash]\n{"command":"for i in',
        "[result 1 error]\nF\n=== FAILURES ===",
        '[tool 2 Read]\n{"file_path":"src/dates/parse.py","limit":40,"offset":1}',
        "[result 2]\n1  from datetime import",
    ):
        assert piece in out
    # The sandbox is removed and the user's real stores were never touched.
    assert list(tmp_path.iterdir()) == []
    assert not real_claude.exists()


def test_demo_keep_leaves_the_sandbox_for_inspection(run_cli: RunCli, tmp_path: Path) -> None:
    result = run_cli("demo", "--keep", env={"TMPDIR": str(tmp_path)})
    assert result.code == 0, result.stderr
    (sandbox,) = tmp_path.iterdir()
    assert (sandbox / "Cursor" / "User" / "globalStorage" / "state.vscdb").is_file()
    assert list((sandbox / "claude" / "projects").glob("*/*.jsonl"))
