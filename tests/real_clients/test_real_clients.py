"""The real Claude Code, Codex, Gemini and OpenCode CLIs resume what txcript writes, offline.

Each client runs on a **copy** of a store txcript wrote (resuming appends to the files), with an
isolated HOME, a fake key, a timeout, and its model API pointed at a stub on 127.0.0.1
(:mod:`modelstub`). The request the client sends to the stub is what it rebuilt from the session
file; the test compares it, turn by turn, with what txcript itself reads back from the copy.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import modelstub
import pytest
from realclients import binary, record

from txcript import model as m
from txcript.model import to_json

EXAMPLE_CURSOR = Path(__file__).parents[1] / "cursor_desktop" / "data" / "example-session.json"
TIMEOUT = 180
CLAUDE_MODEL = "claude-opus-4-5"
CODEX_MODEL = "gpt-5"
GEMINI_MODEL = "gemini-2.5-flash"
OPENCODE_MODEL = "stub/stub-model"


@pytest.fixture
def stub() -> Iterator[modelstub.ModelStub]:
    server = modelstub.start()
    try:
        yield server
    finally:
        server.close()


def _parallel_calls() -> m.Transcript:
    """A Claude-style parallel batch: three calls in one response, one result failing."""
    t = datetime(2026, 11, 20, 9, tzinfo=UTC)
    step = timedelta(seconds=1)
    calls = (
        m.ToolUse(id="toolu_a1", tool=m.Bash(command="ls")),
        m.ToolUse(id="toolu_a2", tool=m.Read(file_path="/w/README.md")),
        m.ToolUse(id="toolu_a3", tool=m.Raw(tool_name="Grep", input={"pattern": "TODO"})),
    )
    results = (
        m.ToolResult(tool_use_id="toolu_a1", content="README.md\nsrc"),
        m.ToolResult(tool_use_id="toolu_a2", content="# acme"),
        m.ToolResult(tool_use_id="toolu_a3", content="grep: bad pattern", is_error=True),
    )
    messages = (
        m.Message(role="user", content=(m.Text("look around"),), timestamp=t),
        m.Message(
            role="assistant",
            content=(
                m.Thinking("three reads at once", signature="sig"),
                m.Text("Looking."),
                *calls,
            ),
            timestamp=t + step,
        ),
        m.Message(role="user", content=results, timestamp=t + 2 * step),
        m.Message(role="assistant", content=(m.Text("Found it."),), timestamp=t + 3 * step),
    )
    meta = m.Meta(id="parallel-batch-source", timestamp=t, cwd="/w", title="parallel")
    return m.Transcript(meta=meta, messages=messages)


def _sources(tmp_path: Path) -> dict[str, Path]:
    common = tmp_path / "parallel.common.json"
    common.write_text(to_json(_parallel_calls()))
    simple = tmp_path / "plain.json"
    simple.write_text(
        json.dumps(
            {
                "id": "not-a-uuid session",
                "messages": [
                    {"role": "user", "content": "hello"},
                    {"role": "assistant", "content": "hi there"},
                    {"role": "user", "content": "thanks"},
                    {"role": "assistant", "content": "any time"},
                ],
            }
        )
    )
    return {"parallel": common, "cursor_desktop": EXAMPLE_CURSOR, "simple": simple}


def _txcript(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "txcript", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip().startswith(("{", "[")) else {}


def _home_env(home: Path) -> dict[str, str]:
    """HOME and every XDG directory under it (OpenCode keeps its store in XDG_DATA_HOME)."""
    return {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }


def _continue(
    tmp_path: Path, source: Path, target: str, home_template: Path | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    home = tmp_path / "home"
    if home_template is not None and not home.exists():
        shutil.copytree(home_template, home, symlinks=True)
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "OPENCODE_"))}
    env.update(
        _home_env(home),
        CLAUDE_CONFIG_DIR=str(tmp_path / "claude"),
        CODEX_HOME=str(tmp_path / "codex"),
        GEMINI_CLI_HOME=str(home),
        TXCRIPT_DATA_DIR=str(tmp_path / "data"),
        TXCRIPT_CACHE_DIR=str(tmp_path / "cache"),
    )
    written = _txcript(
        env,
        "continue",
        str(source),
        "--with",
        target,
        "--cwd",
        str(project),
        "--no-resume",
        "--json",
    )
    return written, env


def _read_back(env: dict[str, str], harness: str, session_id: str) -> m.Transcript:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "txcript",
            "export",
            session_id,
            "--from",
            harness,
            "--format",
            "common",
        ],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return m.from_json(done.stdout)


def _expected(transcript: m.Transcript) -> dict[str, Any]:
    roles: list[str] = []
    calls = results = errors = 0
    for message in transcript.messages:
        if not roles or roles[-1] != message.role:
            roles.append(message.role)
        for block in message.content:
            calls += isinstance(block, m.ToolUse)
            results += isinstance(block, m.ToolResult)
            errors += isinstance(block, m.ToolResult) and block.is_error
    return {"turns": roles, "calls": calls, "results": results, "errors": errors}


def _fresh_copy(tmp_path: Path, name: str) -> Path:
    copy = tmp_path / f"{name}-copy"
    shutil.copytree(tmp_path / name, copy, symlinks=True)
    return copy


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=dict(env, PWD=str(cwd)),  # OpenCode takes its directory from $PWD
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired as timed_out:
        output = f"{timed_out.stdout or ''}{timed_out.stderr or ''}"
        pytest.fail(f"{argv[0]} {argv[1]} timed out after {TIMEOUT}s: {output[-2000:]}")
    output = done.stdout + done.stderr
    for complaint in ("No conversation found", "Error parsing", "failed to parse", "invalid"):
        assert complaint not in output, output[-2000:]
    assert done.returncode == 0, output[-2000:]
    return done


# ------------------------------------------------------------------------------ Claude Code


def _claude_reasoning(body: dict[str, Any]) -> str:
    kinds = {
        block.get("type")
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
    }
    return "thinking blocks" if kinds & {"thinking", "redacted_thinking"} else "none sent"


def _codex_reasoning(body: dict[str, Any]) -> str:
    kinds = {item.get("type") for item in body["input"]}
    return "reasoning items" if "reasoning" in kinds else "none sent"


def _claude_seen(body: dict[str, Any]) -> dict[str, Any]:
    history = body["messages"][:-1]  # the last user message is the probe
    roles: list[str] = []
    calls = results = errors = 0
    for message in history:
        if not roles or roles[-1] != message["role"]:
            roles.append(message["role"])
        content = message["content"]
        blocks = content if isinstance(content, list) else [{"type": "text"}]
        for block in blocks:
            calls += block.get("type") == "tool_use"
            results += block.get("type") == "tool_result"
            errors += block.get("type") == "tool_result" and bool(block.get("is_error"))
    return {"turns": roles, "calls": calls, "results": results, "errors": errors}


@pytest.mark.parametrize("source", ["parallel", "cursor_desktop", "simple"])
def test_claude_code_resumes_the_copy_and_rebuilds_every_turn(
    tmp_path: Path, stub: modelstub.ModelStub, source: str
) -> None:
    client = binary("claude_code")
    written, env = _continue(tmp_path, _sources(tmp_path)[source], "claude_code")
    expected = _expected(_read_back(env, "claude_code", written["id"]))
    copy = _fresh_copy(tmp_path, "claude")
    command = [str(client), *written["resume_command"][1:], "-p", "probe", "--model", CLAUDE_MODEL]
    run_env = dict(
        env,
        CLAUDE_CONFIG_DIR=str(copy),
        ANTHROPIC_BASE_URL=stub.url,
        ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    _run(command, tmp_path / "project", run_env)
    bodies = [b for b in stub.bodies("/v1/messages") if isinstance(b, dict) and b.get("messages")]
    assert bodies, "Claude Code sent no request to the model stub"
    seen = _claude_seen(bodies[0])
    assert seen == expected
    record("claude_code", source, {**seen, "reasoning": _claude_reasoning(bodies[0])})


# ------------------------------------------------------------------------------------ Codex


def _codex_seen(body: dict[str, Any]) -> dict[str, Any]:
    roles: list[str] = []
    calls = results = 0
    for item in body["input"]:
        kind = item.get("type")
        if kind == "function_call":
            calls += 1
            role = "assistant"
        elif kind == "function_call_output":
            results += 1
            role = "user"
        elif kind == "message" and item.get("role") in ("user", "assistant"):
            texts = [c.get("text", "") for c in item.get("content", [])]
            if item["role"] == "user" and all(t.lstrip().startswith("<") for t in texts):
                continue  # context Codex injects (<environment_context>, AGENTS.md)
            role = item["role"]
        else:
            continue
        if not roles or roles[-1] != role:
            roles.append(role)
    if roles and roles[-1] == "user":
        roles.pop()  # the probe
    return {"turns": roles, "calls": calls, "results": results}


@pytest.mark.parametrize("source", ["parallel", "cursor_desktop", "simple"])
def test_codex_resumes_the_copy_and_rebuilds_every_turn(
    tmp_path: Path, stub: modelstub.ModelStub, source: str
) -> None:
    client = binary("codex")
    written, env = _continue(tmp_path, _sources(tmp_path)[source], "codex")
    expected = _expected(_read_back(env, "codex", written["id"]))
    copy = _fresh_copy(tmp_path, "codex")
    command = [
        str(client),
        "exec",
        "--skip-git-repo-check",
        "-c",
        f"model={CODEX_MODEL}",
        "-c",
        f'openai_base_url="{stub.url}/v1"',
        *written["resume_command"][1:],
        "probe",
    ]
    run_env = dict(env, CODEX_HOME=str(copy), OPENAI_API_KEY="sk-test-not-a-key")
    _run(command, tmp_path / "project", run_env)
    bodies = [b for b in stub.bodies("/v1/responses") if isinstance(b, dict) and b.get("input")]
    assert bodies, "Codex sent no request to the model stub"
    seen = _codex_seen(bodies[0])
    del expected["errors"]
    assert seen == expected
    record("codex", source, {**seen, "reasoning": _codex_reasoning(bodies[0])})


def test_claude_assistant_lines_always_carry_a_model(tmp_path: Path) -> None:
    """Regression: a copy from a source without per-message models (a Simple document) wrote
    assistant lines with no ``message.model``; Claude Code then hung on a resume without a key
    instead of reporting that it is not logged in. Every line now carries the source's model,
    else Claude Code's own ``<synthetic>`` marker, which reads back as no model."""
    written, env = _continue(tmp_path, _sources(tmp_path)["simple"], "claude_code")
    lines = [json.loads(x) for x in Path(written["location"]).read_text().splitlines()]
    models = [r["message"]["model"] for r in lines if r.get("type") == "assistant"]
    assert models == ["<synthetic>", "<synthetic>"]
    assert all(msg.model is None for msg in _read_back(env, "claude_code", written["id"]).messages)


# ----------------------------------------------------------------------------------- Gemini


def _gemini_seen(body: dict[str, Any]) -> dict[str, Any]:
    roles: list[str] = []
    calls = results = errors = 0
    reasoning = "none sent"
    for content in body["contents"]:
        role = "assistant" if content.get("role") == "model" else "user"
        if not roles or roles[-1] != role:
            roles.append(role)
        for part in content.get("parts", []):
            calls += "functionCall" in part
            if "functionResponse" in part:
                results += 1
                errors += "error" in (part["functionResponse"].get("response") or {})
            if part.get("thought"):
                reasoning = "thought parts"
    if roles and roles[-1] == "user":
        roles.pop()  # the probe
    return {
        "turns": roles,
        "calls": calls,
        "results": results,
        "errors": errors,
        "reasoning": reasoning,
    }


@pytest.mark.parametrize("source", ["parallel", "cursor_desktop", "simple"])
def test_gemini_resumes_the_copy_and_rebuilds_every_turn(
    tmp_path: Path, stub: modelstub.ModelStub, source: str
) -> None:
    client = binary("gemini")
    written, env = _continue(tmp_path, _sources(tmp_path)[source], "gemini")
    expected = _expected(_read_back(env, "gemini", written["id"]))
    home = tmp_path / "home-copy"
    shutil.copytree(tmp_path / "home", home, symlinks=True)
    # The client's own settings: API-key auth (no login prompt).
    (home / ".gemini" / "settings.json").write_text(
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}})
    )
    command = [str(client), *written["resume_command"][1:], "-p", "probe", "-m", GEMINI_MODEL]
    run_env = dict(
        env,
        HOME=str(home),
        GEMINI_CLI_HOME=str(home),
        GEMINI_API_KEY="test-key-not-a-key",
        GOOGLE_GEMINI_BASE_URL=stub.url,
        GEMINI_CLI_TRUST_WORKSPACE="true",
    )
    _run(command, tmp_path / "project", run_env)
    bodies = [
        b
        for b in stub.bodies_like(":streamGenerateContent")
        if isinstance(b, dict) and b.get("contents")
    ]
    assert bodies, "Gemini sent no request to the model stub"
    seen = _gemini_seen(bodies[0])
    reasoning = seen.pop("reasoning")
    assert seen == expected
    record("gemini", source, {**seen, "reasoning": reasoning})


# --------------------------------------------------------------------------------- OpenCode

#: OpenCode with nothing it would fetch or share: no self-update, no model catalogue download,
#: no default plugins, no LSP downloads.
OPENCODE_OFFLINE = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
}


@pytest.fixture(scope="session")
def opencode_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A HOME in which the real OpenCode created its own empty database (txcript writes into an
    existing OpenCode database and never creates one)."""
    client = binary("opencode")
    home = tmp_path_factory.mktemp("opencode-pristine") / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "OPENCODE_"))}
    env.update(_home_env(home), **OPENCODE_OFFLINE)
    done = subprocess.run(
        [str(client), "session", "list", "--format", "json"],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (home / ".local" / "share" / "opencode" / "opencode.db").is_file()
    return home


def _opencode_copy(
    tmp_path: Path, env: dict[str, str], stub: modelstub.ModelStub
) -> dict[str, str]:
    """A copy of the HOME txcript wrote into, configured with one provider: the stub, spoken to
    through OpenCode's bundled Anthropic provider (its requests keep each result's error flag)."""
    home = tmp_path / "home-copy"
    shutil.copytree(tmp_path / "home", home, symlinks=True)
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "stub": {
                "npm": "@ai-sdk/anthropic",
                "name": "model stub",
                "options": {"baseURL": f"{stub.url}/v1", "apiKey": "sk-ant-test-not-a-key"},
                "models": {"stub-model": {"name": "stub model"}},
            }
        },
        "model": OPENCODE_MODEL,
        "small_model": OPENCODE_MODEL,
        "share": "disabled",
        "autoupdate": False,
    }
    (home / ".config" / "opencode" / "opencode.json").write_text(json.dumps(config))
    return dict(env, **_home_env(home), **OPENCODE_OFFLINE)


def _opencode_body(stub: modelstub.ModelStub) -> dict[str, Any]:
    bodies = [
        b
        for b in stub.bodies("/v1/messages")
        if isinstance(b, dict) and b.get("messages") and b.get("tools")
    ]
    assert bodies, "OpenCode sent no request to the model stub"
    return bodies[0]


def _run_opencode(
    argv: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    done = _run(argv, cwd, env)
    assert "Error" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-2000:]
    return done


@pytest.mark.parametrize("source", ["parallel", "cursor_desktop", "simple"])
def test_opencode_resumes_the_copy_and_rebuilds_every_turn(
    tmp_path: Path, stub: modelstub.ModelStub, opencode_home: Path, source: str
) -> None:
    client = binary("opencode")
    written, env = _continue(tmp_path, _sources(tmp_path)[source], "opencode", opencode_home)
    expected = _expected(_read_back(env, "opencode", written["id"]))
    run_env = _opencode_copy(tmp_path, env, stub)
    # The resume command is the TUI's (`opencode --session <id>`); `run` takes the same flag and
    # sends one prompt without a terminal.
    command = [str(client), "run", *written["resume_command"][1:], "-m", OPENCODE_MODEL, "probe"]
    _run_opencode(command, tmp_path / "project", run_env)
    body = _opencode_body(stub)
    seen = _claude_seen(body)
    assert seen == expected
    record("opencode", source, {**seen, "reasoning": _claude_reasoning(body)})


def test_opencode_resumes_a_copy_without_a_model_on_the_default_one(
    tmp_path: Path, stub: modelstub.ModelStub, opencode_home: Path
) -> None:
    """Regression: a source naming no model (a Simple document) was written with user messages
    answered by ``opencode/unknown``; OpenCode resumes on the last user message's model, so the
    exact resume command failed with "Model not found". OpenCode lists the copy under its
    directory, and resumes it, with no ``-m``, on the configured default model."""
    client = binary("opencode")
    written, env = _continue(tmp_path, _sources(tmp_path)["simple"], "opencode", opencode_home)
    run_env = _opencode_copy(tmp_path, env, stub)
    listed = _run_opencode(
        [str(client), "session", "list", "--format", "json"], tmp_path / "project", run_env
    )
    rows = [r for r in json.loads(listed.stdout) if r["id"] == written["id"]]
    assert [r["directory"] for r in rows] == [str(tmp_path / "project")]
    command = [str(client), "run", *written["resume_command"][1:], "probe"]
    _run_opencode(command, tmp_path / "project", run_env)
    assert [b["model"] for b in stub.bodies("/v1/messages") if b.get("tools")] == ["stub-model"]
