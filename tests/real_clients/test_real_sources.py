"""txcript reads what the real Copilot CLI and Qwen Code write, every call and result included.

Copilot CLI is a read-only source (txcript writes nothing into it), so its tier runs the other
way round from the resume matrix: the pinned client works one offline turn against the loopback
model stub, which asks for two tool calls (one that succeeds, one that fails), and the session
the client recorded is then listed and read by txcript. Qwen Code gets the same check as a
source, besides resuming txcript's copies in the matrix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import modelstub
import pytest
from realclients import binary

from txcript import model as m

TIMEOUT = 180
PROMPT = "look around"
#: The batch the stub asks for first: a command that succeeds, and a read of a missing file.
COPILOT_CALLS = [
    {"id": "toolu_ok", "name": "bash", "input": {"command": "echo hi", "description": "say hi"}},
    {"id": "toolu_bad", "name": "view", "input": {"path": "/nonexistent/txcript-probe.txt"}},
]
#: With the resume matrix on one worker under pytest-xdist: the clients share the machine.
pytestmark = pytest.mark.xdist_group("real_clients")
QWEN_CALLS = [
    {"id": "toolu_ok", "name": "run_shell_command", "input": {"command": "echo hi"}},
    {"id": "toolu_bad", "name": "read_file", "input": {"file_path": "/nonexistent/probe.txt"}},
]


def _env(home: Path, **extra: str) -> dict[str, str]:
    skipped = ("XDG_", "OPENCODE_", "QWEN_", "COPILOT_", "KIMI_", "ANTHROPIC_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skipped)}
    env.update(HOME=str(home), USERPROFILE=str(home), **extra)
    return env


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> None:
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired as timed_out:
        pytest.fail(f"{argv[0]} timed out after {TIMEOUT}s: {timed_out.stdout}{timed_out.stderr}")
    assert done.returncode == 0, (done.stdout + done.stderr)[-2000:]


def _txcript(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "txcript", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _exchange(transcript: m.Transcript) -> dict[str, Any]:
    calls = [b for x in transcript.messages for b in x.content if isinstance(b, m.ToolUse)]
    results = [b for x in transcript.messages for b in x.content if isinstance(b, m.ToolResult)]
    return {
        "calls": [c.id for c in calls],
        "results": {r.tool_use_id: r.is_error for r in results},
        "prompts": [
            b.text
            for x in transcript.messages
            if x.role == "user"
            for b in x.content
            if isinstance(b, m.Text)
        ],
    }


def _read(env: dict[str, str], harness: str) -> m.Transcript:
    listed = json.loads(_txcript(env, "list", "--from", harness, "--json"))
    assert len(listed) == 1, listed
    session = listed[0]["id"]
    return m.from_json(_txcript(env, "export", session, "--from", harness, "--format", "common"))


def test_txcript_reads_the_session_copilot_cli_wrote_with_every_call_and_result(
    tmp_path: Path,
) -> None:
    client = binary("copilot")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    stub = modelstub.start(calls=[COPILOT_CALLS])
    try:
        env = _env(
            home,
            COPILOT_HOME=str(home / ".copilot"),
            COPILOT_OFFLINE="1",
            COPILOT_AUTO_UPDATE="false",
            COPILOT_PROVIDER_TYPE="anthropic",
            COPILOT_PROVIDER_BASE_URL=stub.url,
            COPILOT_PROVIDER_API_KEY="sk-ant-test-not-a-key",
            COPILOT_MODEL="claude-opus-4-5",
        )
        _run([str(client), "-p", PROMPT, "--allow-all-tools"], project, env)
    finally:
        stub.close()
    read_env = dict(env, TXCRIPT_DATA_DIR=str(tmp_path / "data"))
    transcript = _read(read_env, "copilot")
    got = _exchange(transcript)
    assert got["calls"] == ["toolu_ok", "toolu_bad"]
    assert got["results"] == {"toolu_ok": False, "toolu_bad": True}
    assert got["prompts"] == [PROMPT]
    assert transcript.meta.cwd == str(project)
    assert transcript.messages[-1].content == (m.Text(modelstub.REPLY),)


def test_txcript_reads_the_session_qwen_code_wrote_with_every_call_and_result(
    tmp_path: Path,
) -> None:
    client = binary("qwen")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    stub = modelstub.start(calls=[QWEN_CALLS])
    try:
        env = _env(
            home,
            ANTHROPIC_BASE_URL=stub.url,
            ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
            QWEN_DISABLE_AUTO_TITLE="1",
        )
        argv = [str(client), "-p", PROMPT, "--auth-type", "anthropic", "-m", "claude-opus-4-5"]
        _run([*argv, "--approval-mode", "yolo"], project, env)
    finally:
        stub.close()
    transcript = _read(dict(env, TXCRIPT_DATA_DIR=str(tmp_path / "data")), "qwen")
    got = _exchange(transcript)
    assert got["calls"] == ["toolu_ok", "toolu_bad"]
    assert got["results"] == {"toolu_ok": False, "toolu_bad": True}
    assert got["prompts"] == [PROMPT]
    assert transcript.meta.cwd == str(project)
