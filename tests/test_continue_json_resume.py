"""``continue --json`` carries ``cwd`` and ``env``: its resume command, run in ``cwd`` with
``env`` added, runs as the printed ``resume with:`` line does (a copy under ``--out`` needs the
store variable, and Claude Code the session's directory). It carried the command alone."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import RunCli


def document(directory: Path, cwd: Path) -> Path:
    path = directory / "session.json"
    path.write_text(
        json.dumps(
            {
                "id": "sess-1",
                "cwd": str(cwd),
                "timestamp": "2026-08-21T09:30:00.000Z",
                "messages": [
                    {"role": "user", "content": "hello", "timestamp": "2026-08-21T09:30:01Z"},
                    {"role": "assistant", "content": "hi", "timestamp": "2026-08-21T09:30:02Z"},
                ],
            }
        )
    )
    return path


@pytest.mark.parametrize("harness", ["claude_code", "codex"])
def test_the_json_resume_runs_as_the_printed_line(
    run_cli: RunCli, tmp_path: Path, harness: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program, variable in (("claude", "CLAUDE_CONFIG_DIR"), ("codex", "CODEX_HOME")):
        stand_in = bin_dir / program
        stand_in.write_text(f'#!/bin/sh\necho "$(pwd) ${{{variable}}} $*"\n')
        stand_in.chmod(0o755)
    source = document(tmp_path, project)
    out = tmp_path / "exported"
    written = run_cli("continue", str(source), "--with", harness, "--out", str(out), "--json")
    assert written.code == 0, written
    shown = json.loads(written.stdout)
    human = run_cli(
        "continue", str(source), "--with", harness, "--out", str(out), "--replace"
    ).stdout
    line = next(x for x in human.splitlines() if "resume with:" in x).split("resume with: ")[1]
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    for variable in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        env.pop(variable, None)
    by_line = subprocess.run(["sh", "-c", line], env=env, cwd=tmp_path, capture_output=True)
    by_json = subprocess.run(
        shown["resume_command"],
        env={**env, **shown["env"]},
        cwd=shown["cwd"] or tmp_path,
        capture_output=True,
    )
    assert by_json.stdout == by_line.stdout, (shown, line)
    variable = "CLAUDE_CONFIG_DIR" if harness == "claude_code" else "CODEX_HOME"
    assert shown["env"] == {variable: str(out)}
    assert str(out) in by_json.stdout.decode() and shlex.split(line)[-1] in by_json.stdout.decode()
    if harness == "claude_code":  # found only from the session's directory
        assert shown["cwd"] == str(project)
        assert by_json.stdout.decode().startswith(str(project))
