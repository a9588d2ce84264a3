"""A store root that is not there is most often a typo in its variable (``CURSOR_DESKTOP_USER_DIR``,
``CLAUDE_CONFIG_DIR``). A live write there used to create a new store no app reads, silently.

A database the app keeps (Cursor desktop's, OpenCode's) is the app's to create: the live write is
refused, with one line naming it, and nothing is created. A file store, which its app would create
itself, is created, with a note naming the new root, so that a typo shows. ``list`` on a missing
root says so. ``--out`` writes anywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import RunCli
from txcript import harnesses

WRITERS = harnesses.ids(write=True)


def document(directory: Path) -> Path:
    path = directory / "session.json"
    path.write_text(
        json.dumps(
            {
                "id": "sess-1",
                "cwd": str(directory),
                "timestamp": "2026-08-21T09:30:00.000Z",
                "messages": [
                    {"role": "user", "content": "hello", "timestamp": "2026-08-21T09:30:01Z"},
                    {"role": "assistant", "content": "hi", "timestamp": "2026-08-21T09:30:02Z"},
                ],
            }
        )
    )
    return path


def everything_under(path: Path) -> list[Path]:
    return sorted(path.rglob("*")) if path.exists() else []


@pytest.mark.parametrize("writer", WRITERS)
def test_a_live_write_into_a_missing_root_is_refused_or_named(
    writer: str, run_cli: RunCli, tmp_path: Path, isolated_home: Path
) -> None:
    harness = harnesses.get(writer)
    root = harness.default_root()
    assert root is not None
    missing = not root.exists()  # (a store rooted at HOME itself is there already)
    source = document(tmp_path)
    result = run_cli("continue", str(source), "--with", writer, "--no-resume")
    if harness.info.app_makes_store:
        assert result.code == 2, result
        (line,) = result.stderr.splitlines()
        assert line.startswith("txcript: error: no ") and str(root) in line, line
        assert [p for p in everything_under(isolated_home) if not p.is_dir()] == []
        assert not missing or not root.exists()
    elif result.code == 0:
        notes = [line for line in result.stderr.splitlines() if f"no {harness.name} store" in line]
        assert len(notes) == (1 if missing else 0), result.stderr
        assert not notes or str(root) in notes[0]
        assert root.exists()
    else:  # a store that needs what its app makes first (a Cowork account) refuses by itself
        (line,) = result.stderr.splitlines()
        assert line.startswith("txcript: error: ") and result.code in (1, 2), result
        assert [p for p in everything_under(isolated_home) if not p.is_dir()] == []


def test_a_typo_in_the_cursor_desktop_variable_writes_nothing(
    run_cli: RunCli, tmp_path: Path
) -> None:
    typo = tmp_path / "Cursr" / "User"
    result = run_cli(
        "continue",
        str(document(tmp_path)),
        "--with",
        "cursor_desktop",
        "--no-resume",
        env={"CURSOR_DESKTOP_USER_DIR": str(typo)},
    )
    assert result.code == 2, result
    assert "$CURSOR_DESKTOP_USER_DIR" in result.stderr and str(typo) in result.stderr
    assert not (tmp_path / "Cursr").exists()
    # --out is a faithful copy anywhere: it may create the database.
    out = tmp_path / "exported"
    written = run_cli(
        "continue", str(document(tmp_path)), "--with", "cursor_desktop", "--out", str(out)
    )
    assert written.code == 0, written
    assert (out / "globalStorage" / "state.vscdb").is_file()


def test_a_typo_in_the_claude_variable_is_named(run_cli: RunCli, tmp_path: Path) -> None:
    typo = tmp_path / "claud"
    result = run_cli(
        "continue",
        str(document(tmp_path)),
        "--with",
        "claude_code",
        "--no-resume",
        env={"CLAUDE_CONFIG_DIR": str(typo)},
    )
    assert result.code == 0, result
    assert f"there was no Claude Code store at {typo} (from $CLAUDE_CONFIG_DIR)" in result.stderr


def test_list_says_when_a_named_store_is_not_there(run_cli: RunCli, isolated_home: Path) -> None:
    one = run_cli("list", "--from", "codex")
    assert one.code == 0, one
    assert one.stdout == f"no local codex sessions found (no store at {isolated_home}/.codex)\n"
    two = run_cli("list", "--from", "codex", "--from", "gemini")
    assert two.stdout == (
        f"no local sessions found (no codex store at {isolated_home}/.codex; "
        f"no gemini store at {isolated_home}/.gemini)\n"
    )
