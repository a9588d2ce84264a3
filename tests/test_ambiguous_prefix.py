"""An ambiguous prefix names at most 10 candidates, each title cut to 60 characters: the error
is one line a user reads, whatever the store holds (titles of pasted paragraphs)."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import claude_session
from conftest import RunCli


def test_an_ambiguous_prefix_names_ten_candidates_with_short_titles(
    run_cli: RunCli, isolated_home: Path
) -> None:
    long_title = "Refactor " + "the billing module and its tests " * 10
    for n in range(14):
        claude_session(
            isolated_home / ".claude",
            f"abcd{n:04x}-0000-4000-8000-000000000000",
            title=f"{n} {long_title}",
            clock=f"2026-08-21T09:{n:02d}:00.000Z",
        )
    result = run_cli("view", "abcd")
    assert result.code == 2, result
    (line,) = result.stderr.splitlines()
    assert line.startswith("txcript: error: `abcd` prefixes the ids of 14 sessions")
    assert line.count("claude_code abcd") == 10 and line.endswith("; and 4 more")
    titles = [part.split(" (", 1)[1].rstrip(")") for part in line.split("; ") if " (" in part]
    assert len(titles) == 10 and all(len(title) == 60 and title.endswith("…") for title in titles)
