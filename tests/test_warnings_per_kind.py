"""A warning repeated per line no longer floods stderr: 200,000 ``$rewindTo`` lines naming no
message printed 200,001 warnings. A reader says each kind once with a count (Gemini's replay
does), and the command line says any warning that differs only in a line or item number once,
with how many more came, whatever reader gave it."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from conftest import RunCli
from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.gemini import native

HEADER = {"sessionId": "s-1", "projectHash": "p", "startTime": "2026-01-01T00:00:00Z"}
MESSAGE = {"id": "m1", "type": "user", "timestamp": "2026-01-01T00:00:01Z", "content": "hi"}


def test_the_gemini_replay_says_each_kind_once_with_a_count() -> None:
    values = [HEADER, MESSAGE, *({"$rewindTo": f"gone-{n}"} for n in range(2000)), [1], [2]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chat = native.replay_values(values, "chat")
    said = [str(w.message) for w in caught if issubclass(w.category, TranscriptWarning)]
    assert said == [
        "chat: line 3: $rewindTo names no earlier message (gone-0); ignored "
        "(and 1999 more like it)",
        "chat: line 2003 is not a JSON object; skipped (and 1 more like it)",
    ]
    assert [m["id"] for m in chat.messages] == ["m1"]


def test_the_cli_says_a_warning_per_line_once_with_a_count(run_cli: RunCli, tmp_path: Path) -> None:
    """Claude Code's reader warns per line it skips: the command line says the first."""
    from cli_helpers import claude_session

    path = claude_session(tmp_path / "claude", "2d4f6a8c-1b3e-4d5f-8a7b-9c0d1e2f3a4b")
    path.write_text(path.read_text() + "{not json\n" * 500)
    viewed = run_cli("view", str(path))
    assert viewed.code == 0, viewed
    lines = viewed.stderr.splitlines()
    assert lines[0].startswith("txcript: warning: claude_code line 3: not valid JSON; skipped")
    assert lines[-1] == (
        "txcript: warning: … and 499 more like: claude_code line 3: not valid JSON; skipped"
    )
    assert len(lines) == 2, lines


def test_a_gemini_log_of_many_dead_rewinds_lists_with_one_warning(
    run_cli: RunCli, tmp_path: Path
) -> None:
    chat = tmp_path / "chat.jsonl"
    lines = [HEADER, MESSAGE, *({"$rewindTo": "gone"} for _ in range(3000))]
    chat.write_text("".join(json.dumps(v) + "\n" for v in lines))
    viewed = run_cli("view", str(chat), "--from", "gemini")
    assert viewed.code == 0, viewed
    assert viewed.stderr.count("txcript: warning:") == 1, viewed.stderr
    assert "(and 2999 more like it)" in viewed.stderr
