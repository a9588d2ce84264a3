"""Regression (found by the conformance suite's hostile-input contract): naming a session by
its id when the store's file for it is damaged printed the same warning twice. The store's
direct lookup read the file and warned; with nothing found, the full discovery that decides
titles and prefixes read it again and warned again. ``export``, ``continue`` and ``delete``
went through it for every store with a lookup (Claude Code, Codex, Gemini, OpenCode, the
Cursor CLI). A lookup's warnings are now given only when its answer stands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import RunCli

SID = "3f1c2a4e-8b7d-4e21-9a6b-0c5d2e7f9a11"


def _damaged_store(home: Path) -> dict[str, str]:
    directory = home / "claude" / "projects" / "-work-app"
    directory.mkdir(parents=True)
    (directory / f"{SID}.jsonl").write_bytes(b"\x00\xff not JSON at all\n")
    good = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "0b1d2c3e-4f50-4a61-8b72-93a4b5c6d7e8",
        "cwd": "/work/app",
        "timestamp": "2026-08-21T09:30:01.000Z",
        "message": {"role": "user", "content": "hello"},
    }
    (directory / "0b1d2c3e-4f50-4a61-8b72-93a4b5c6d7e8.jsonl").write_text(json.dumps(good) + "\n")
    return {"CLAUDE_CONFIG_DIR": str(home / "claude"), "TXCRIPT_DATA_DIR": str(home / "data")}


@pytest.mark.parametrize(
    "args",
    [
        ("export", SID, "--from", "claude_code", "--format", "common"),
        ("export", SID, "--format", "common"),
        ("delete", SID, "--from", "claude_code", "--yes"),
    ],
)
def test_a_damaged_session_named_by_its_id_warns_once(
    run_cli: RunCli, tmp_path: Path, args: tuple[str, ...]
) -> None:
    result = run_cli(*args, env=_damaged_store(tmp_path))
    assert result.code == 2, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    last = result.stderr.splitlines()[-1]
    if args[0] == "export":
        # The id names nothing but that damaged file: the error says so, once, instead of
        # "no session matches" after the warning.
        assert warnings == [] and last.startswith("txcript: error: reading ") and SID in last
    else:
        assert len(warnings) == 1 and SID in warnings[0], result.stderr
        assert last.startswith("txcript: error: no local")


def test_a_session_found_by_its_id_still_shows_the_lookups_warnings(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """The held-back warnings are given when the lookup's answer stands."""
    env = _damaged_store(tmp_path)
    directory = tmp_path / "claude" / "projects" / "-work-app"
    path = directory / f"{SID}.jsonl"
    record = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": SID,
        "cwd": "/work/app",
        "timestamp": "2026-08-21T09:30:01.000Z",
        "message": {"role": "user", "content": "hello"},
    }
    path.write_text(json.dumps(record) + "\n{broken line\n")
    result = run_cli("export", SID, "--from", "claude_code", "--format", "common", env=env)
    assert result.code == 0, result.stderr
    assert result.stderr.count("not valid JSON") == 1, result.stderr
