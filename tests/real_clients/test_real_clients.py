"""The real Claude Code, Codex, Gemini, OpenCode, Qwen Code, Factory droid, pi, Kilo, Hermes and
Grok CLIs resume what txcript writes, offline.

For every (writer, source) pair, txcript writes the source into the writer's store with
``continue --with <writer>``; the pinned client then resumes a **copy** of that store (resuming
appends to the files) with the exact resume command txcript printed, in an isolated HOME, with a
fake key, a timeout, and its model API pointed at a stub on 127.0.0.1 (:mod:`modelstub`). The
request the client sends to the stub is what it rebuilt from the session; the test compares it,
turn by turn, with what txcript itself reads back from the store.

The clients spend most of their time starting up and waiting, so every selected case runs at
once in a thread pool (``matrix``, one temp HOME and one stub port per case); each test then
only checks its own case's outcome.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import clientsources
import modelstub
import pytest
from realclients import WRITERS, binary, find_binary, record

from txcript import model as m

#: One worker runs the whole tier under pytest-xdist: the session-scoped matrix runs every
#: selected case at once in its own thread pool, and would run again in every worker.
pytestmark = pytest.mark.xdist_group("real_clients")

TIMEOUT = 180
PROBE = "probe"  # the prompt each client sends after the resumed history
CLAUDE_MODEL = "claude-opus-4-5"
PI_MODEL = "stub-model"
HERMES_MODEL = "stub-model"
CODEX_MODEL = "gpt-5"
GEMINI_MODEL = "gemini-2.5-flash"
OPENCODE_MODEL = "stub/stub-model"
QWEN_MODEL = "claude-opus-4-5"
#: Client runs at once: they mostly wait (start-up, the stub, their own timers).
JOBS = int(os.environ.get("TXCRIPT_REAL_CLIENTS_JOBS") or min(8, 2 * (os.cpu_count() or 1)))


@dataclass(frozen=True)
class Outcome:
    expected: dict[str, Any]  # what txcript reads back from the store it wrote
    seen: dict[str, Any]  # what the client sent to the model
    reasoning: str  # how the client sent the source's reasoning
    filled: int = 0  # results the client made up for calls the session left without one


Case = tuple[str, str]  # (writer, source)


# ------------------------------------------------------------------------------ the plumbing


def _home_env(home: Path) -> dict[str, str]:
    """HOME and every XDG directory under it (OpenCode keeps its store in XDG_DATA_HOME)."""
    return {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }


def _base_env() -> dict[str, str]:
    skipped = ("XDG_", "OPENCODE_", "QWEN_", "COPILOT_", "KIMI_", "HERMES_", "GROK_", "XAI_")
    return {k: v for k, v in os.environ.items() if not k.startswith(skipped)}


def _txcript(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(
        [sys.executable, "-m", "txcript", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    return done


def _continue(
    work: Path, source: Path, target: str, home_template: Path | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """``txcript continue <source> --with <target> --json`` into stores under ``work``."""
    project = work / "project"
    project.mkdir(exist_ok=True)
    home = work / "home"
    if home_template is not None and not home.exists():
        shutil.copytree(home_template, home, symlinks=True)
    home.mkdir(exist_ok=True)
    env = _base_env()
    env.update(
        _home_env(home),
        CLAUDE_CONFIG_DIR=str(work / "claude"),
        CODEX_HOME=str(work / "codex"),
        GEMINI_CLI_HOME=str(home),
        PI_CODING_AGENT_DIR=str(work / "pi"),
        HERMES_HOME=str(work / "hermes"),
        GROK_HOME=str(work / "grok"),
        TXCRIPT_DATA_DIR=str(work / "data"),
        TXCRIPT_CACHE_DIR=str(work / "cache"),
    )
    args = ["continue", str(source), "--with", target, "--cwd", str(project)]
    written = json.loads(_txcript(env, *args, "--no-resume", "--json").stdout)
    return written, env


def _read_back(env: dict[str, str], harness: str, session_id: str) -> m.Transcript:
    args = ["export", session_id, "--from", harness, "--format", "common"]
    return m.from_json(_txcript(env, *args).stdout)


def _expected(transcript: m.Transcript) -> dict[str, Any]:
    roles: list[str] = []
    calls = results = errors = 0
    for message in transcript.messages:
        if not roles or roles[-1] != message.role:
            roles.append(message.role)
        for block in message.content:
            # a slash command (Command) is written as the user's text, not as a call
            calls += isinstance(block, m.ToolUse) and not isinstance(block.tool, m.Command)
            results += isinstance(block, m.ToolResult)
            errors += isinstance(block, m.ToolResult) and block.is_error
    return {"turns": roles, "calls": calls, "results": results, "errors": errors}


@dataclass(frozen=True)
class Source:
    path: Path
    thinking: list[str]  # the source's reasoning texts, as txcript reads the source


def _thinking(transcript: m.Transcript) -> list[str]:
    return [
        block.text
        for message in transcript.messages
        for block in message.content
        if isinstance(block, m.Thinking) and block.text
    ]


def _as_text(thinking: list[str], texts: list[str]) -> str:
    """How reasoning that the client did not send as reasoning reached the model."""
    if thinking and any(t in text for t in thinking for text in texts):
        return "as text"
    return "none sent" if thinking else "none in the source"


def _copy(work: Path, name: str) -> Path:
    copy = work / f"{name}-copy"
    shutil.copytree(work / name, copy, symlinks=True)
    return copy


COMPLAINTS = ("No conversation found", "Error parsing", "failed to parse", "invalid")


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a client; any complaint about the file, a non-zero exit or a timeout fails."""
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
    for complaint in COMPLAINTS:
        assert complaint not in output, output[-2000:]
    assert done.returncode == 0, output[-2000:]
    return done


# ------------------------------------------------------------------------------ Claude Code


#: What each client puts in place of a result the session never recorded (a call still in flight
#: when the session ended): Claude Code, OpenCode, Qwen Code, droid; Codex's below.
FILLED_RESULTS = (
    "[Tool call interrupted",
    "[Tool execution was interrupted]",
    "Tool execution result was not recorded",
    "Error: Tool execution was cancelled",
)
CODEX_FILLED_RESULT = "aborted"
#: The reply a client adds after such a call, or between two user turns: Claude Code, Gemini.
FILLER_REPLIES = ("No response requested.", "[The previous response was interrupted before it")


def _filled(text: str) -> bool:
    return text.startswith(FILLED_RESULTS)


def _filler(text: str | None) -> bool:
    return text is not None and text.startswith(FILLER_REPLIES)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(c.get("text", "") for c in content if isinstance(c, dict))
    return ""


def _anthropic_seen(body: dict[str, Any]) -> dict[str, Any]:
    """Turns, calls, results and errors of an Anthropic Messages request, without the probe.

    Results the client filled in for calls that had none are counted apart, as ``filled``, and
    the reply it puts between two user turns is left out: they are the client's, not the
    session's. The probe (and what the client adds beside it) is taken off the last message.
    """
    history = [dict(message) for message in body["messages"]]
    last = history[-1]["content"]
    if isinstance(last, list):
        last = [b for b in last if not _is_probe(b)]
    history[-1]["content"] = [] if last == PROBE else last
    roles: list[str] = []
    calls = results = errors = filled = 0
    for message in history:
        content = message["content"]
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        kept = []
        for block in blocks:
            kind = block.get("type")
            if kind == "tool_result" and _filled(_text_of(block.get("content"))):
                filled += 1
            elif not (message["role"] == "assistant" and _filler(block.get("text"))):
                kept.append(block)
        if not kept:
            continue
        if not roles or roles[-1] != message["role"]:
            roles.append(message["role"])
        for block in kept:
            calls += block.get("type") == "tool_use"
            results += block.get("type") == "tool_result"
            errors += block.get("type") == "tool_result" and bool(block.get("is_error"))
    return {"turns": roles, "calls": calls, "results": results, "errors": errors, "filled": filled}


def _is_probe(block: dict[str, Any]) -> bool:
    text = block.get("text", "") if block.get("type") == "text" else None
    # Kilo puts its reminders and environment details after the probe behind a blank line.
    return text is not None and (
        text == PROBE or text.lstrip().startswith(("<system-reminder>", "<environment_details>"))
    )


def _anthropic_reasoning(body: dict[str, Any], thinking: list[str]) -> str:
    blocks = [
        block
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
    ]
    if any(b.get("type") in ("thinking", "redacted_thinking") for b in blocks):
        return "thinking blocks"
    return _as_text(thinking, [b.get("text", "") for b in blocks if b.get("type") == "text"])


def claude_code(work: Path, source: Source, client: Path) -> Outcome:
    stub = modelstub.start()
    try:
        written, env = _continue(work, source.path, "claude_code")
        transcript = _read_back(env, "claude_code", written["id"])
        copy = _copy(work, "claude")
        command = [str(client), *written["resume_command"][1:], "-p", PROBE]
        run_env = dict(
            env,
            CLAUDE_CONFIG_DIR=str(copy),
            ANTHROPIC_BASE_URL=stub.url,
            ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        _run([*command, "--model", CLAUDE_MODEL], work / "project", run_env)
        bodies = [
            b for b in stub.bodies("/v1/messages") if isinstance(b, dict) and b.get("messages")
        ]
    finally:
        stub.close()
    assert bodies, "Claude Code sent no request to the model stub"
    body = bodies[0]
    reasoning = _anthropic_reasoning(body, source.thinking)
    seen = _anthropic_seen(body)
    filled = seen.pop("filled")
    return Outcome(_expected(transcript), seen, reasoning, filled)


# ------------------------------------------------------------------------------------ Codex


def _codex_seen(body: dict[str, Any]) -> dict[str, Any]:
    roles: list[str] = []
    calls = results = filled = 0
    items = list(body["input"])
    if items and [c.get("text") for c in items[-1].get("content") or []] == [PROBE]:
        items.pop()
    for item in items:
        kind = item.get("type")
        if kind in ("function_call", "custom_tool_call", "local_shell_call"):
            calls += 1
            role = "assistant"
        elif kind in ("function_call_output", "custom_tool_call_output"):
            if item.get("output") == CODEX_FILLED_RESULT:
                filled += 1
                continue
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
    return {"turns": roles, "calls": calls, "results": results, "filled": filled}


def _codex_reasoning(body: dict[str, Any], thinking: list[str]) -> str:
    if any(item.get("type") == "reasoning" for item in body["input"]):
        return "reasoning items"
    texts = [
        c.get("text", "")
        for item in body["input"]
        if item.get("type") == "message"
        for c in item.get("content", [])
    ]
    return _as_text(thinking, texts)


def codex(work: Path, source: Source, client: Path) -> Outcome:
    stub = modelstub.start()
    try:
        written, env = _continue(work, source.path, "codex")
        transcript = _read_back(env, "codex", written["id"])
        copy = _copy(work, "codex")
        command = [
            str(client),
            "exec",
            "--skip-git-repo-check",
            "-c",
            f"model={CODEX_MODEL}",
            "-c",
            f'openai_base_url="{stub.url}/v1"',
            *written["resume_command"][1:],
            PROBE,
        ]
        run_env = dict(env, CODEX_HOME=str(copy), OPENAI_API_KEY="sk-test-not-a-key")
        _run(command, work / "project", run_env)
        bodies = [b for b in stub.bodies("/v1/responses") if isinstance(b, dict) and b.get("input")]
    finally:
        stub.close()
    assert bodies, "Codex sent no request to the model stub"
    expected = _expected(transcript)
    del expected["errors"]  # a Responses request carries no error flag on a call's output
    reasoning = _codex_reasoning(bodies[0], source.thinking)
    seen = _codex_seen(bodies[0])
    filled = seen.pop("filled")
    return Outcome(expected, seen, reasoning, filled)


# ----------------------------------------------------------------------------------- Gemini


def _gemini_seen(body: dict[str, Any]) -> dict[str, Any]:
    roles: list[str] = []
    calls = results = errors = 0
    contents = [dict(content) for content in body["contents"]]
    if contents:
        parts = contents[-1].get("parts", [])
        contents[-1]["parts"] = [p for p in parts if p.get("text") != PROBE]
    for content in contents:
        if content.get("role") == "model":
            content["parts"] = [p for p in content.get("parts", []) if not _filler(p.get("text"))]
        if not content.get("parts"):
            continue
        role = "assistant" if content.get("role") == "model" else "user"
        if not roles or roles[-1] != role:
            roles.append(role)
        for part in content.get("parts", []):
            calls += "functionCall" in part
            if "functionResponse" in part:
                results += 1
                errors += "error" in (part["functionResponse"].get("response") or {})
    return {"turns": roles, "calls": calls, "results": results, "errors": errors}


def _gemini_reasoning(body: dict[str, Any], thinking: list[str]) -> str:
    parts = [part for content in body["contents"] for part in content.get("parts", [])]
    if any(part.get("thought") for part in parts):
        return "thought parts"
    return _as_text(thinking, [part.get("text", "") for part in parts])


def gemini(work: Path, source: Source, client: Path) -> Outcome:
    stub = modelstub.start()
    try:
        written, env = _continue(work, source.path, "gemini")
        transcript = _read_back(env, "gemini", written["id"])
        home = _copy(work, "home")
        # The client's own settings: API-key auth (no login prompt).
        (home / ".gemini" / "settings.json").write_text(
            json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}})
        )
        command = [str(client), *written["resume_command"][1:], "-p", PROBE, "-m", GEMINI_MODEL]
        run_env = dict(
            env,
            **_home_env(home),
            GEMINI_CLI_HOME=str(home),
            GEMINI_API_KEY="test-key-not-a-key",
            GOOGLE_GEMINI_BASE_URL=stub.url,
            GEMINI_CLI_TRUST_WORKSPACE="true",
        )
        _run(command, work / "project", run_env)
        bodies = [
            b
            for b in stub.bodies_like(":streamGenerateContent")
            if isinstance(b, dict) and b.get("contents")
        ]
    finally:
        stub.close()
    assert bodies, "Gemini sent no request to the model stub"
    reasoning = _gemini_reasoning(bodies[0], source.thinking)
    return Outcome(_expected(transcript), _gemini_seen(bodies[0]), reasoning)


# -------------------------------------------------------------------------------- Qwen Code


def qwen(work: Path, source: Source, client: Path) -> Outcome:
    """Qwen Code resumes from the project directory (``cd <root>; qwen --resume <id>``), here
    speaking Anthropic Messages to the stub (its requests keep each result's error flag)."""
    stub = modelstub.start()
    try:
        written, env = _continue(work, source.path, "qwen")
        transcript = _read_back(env, "qwen", written["id"])
        home = _copy(work, "home")
        command = [str(client), *written["resume_command"][1:], "-p", PROBE]
        run_env = dict(
            env,
            **_home_env(home),
            ANTHROPIC_BASE_URL=stub.url,
            ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
            QWEN_DISABLE_AUTO_TITLE="1",
        )
        _run([*command, "--auth-type", "anthropic", "-m", QWEN_MODEL], work / "project", run_env)
        bodies = [
            b
            for b in stub.bodies("/v1/messages")
            if isinstance(b, dict) and b.get("messages") and b.get("tools")
        ]
    finally:
        stub.close()
    assert bodies, "Qwen Code sent no request to the model stub"
    body = bodies[0]
    reasoning = _anthropic_reasoning(body, source.thinking)
    seen = _anthropic_seen(body)
    filled = seen.pop("filled")
    return Outcome(_expected(transcript), seen, reasoning, filled)


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


def opencode_pristine(place: Path, client: Path) -> Path:
    """A HOME in which the real OpenCode created its own empty database (txcript creates one
    only under ``--out``; a live copy goes into the database the app made)."""
    home = place / "home"
    home.mkdir(parents=True)
    env = dict(_base_env(), **_home_env(home), **OPENCODE_OFFLINE)
    _run([str(client), "session", "list", "--format", "json"], home, env)
    assert (home / ".local" / "share" / "opencode" / "opencode.db").is_file()
    return home


def _opencode_copy(work: Path, env: dict[str, str], stub: modelstub.ModelStub) -> dict[str, str]:
    """A copy of the HOME txcript wrote into, configured with one provider: the stub, spoken to
    through OpenCode's bundled Anthropic provider (its requests keep each result's error flag,
    which an OpenAI-compatible chat request does not)."""
    home = _copy(work, "home")
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "stub": {
                "npm": "@ai-sdk/anthropic",
                "name": "model stub",
                "options": {"baseURL": f"{stub.url}/v1", "apiKey": "sk-ant-test-not-a-key"},
                "models": {
                    "stub-model": {
                        "name": "stub model",
                        "attachment": True,
                        "modalities": {"input": ["text", "image"], "output": ["text"]},
                    }
                },
            }
        },
        "model": OPENCODE_MODEL,
        "small_model": OPENCODE_MODEL,
        "share": "disabled",
        "autoupdate": False,
    }
    (home / ".config" / "opencode" / "opencode.json").write_text(json.dumps(config))
    return dict(env, **_home_env(home), **OPENCODE_OFFLINE)


def _opencode_bodies(stub: modelstub.ModelStub) -> list[dict[str, Any]]:
    """The agent's requests (the ones offering tools; a title request offers none)."""
    return [
        b
        for b in stub.bodies("/v1/messages")
        if isinstance(b, dict) and b.get("messages") and b.get("tools")
    ]


def _run_opencode(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = _run(argv, cwd, env)
    output = done.stdout + done.stderr
    assert "Error" not in output, output[-2000:]
    return done.stdout


def _opencode_run(client: Path, written: dict[str, Any], *extra: str) -> list[str]:
    # The resume command is the TUI's (`opencode --session <id>`); `run` takes the same flag and
    # sends one prompt without a terminal.
    return [str(client), "run", *written["resume_command"][1:], *extra, PROBE]


def opencode(work: Path, source: Source, client: Path, pristine: Path) -> Outcome:
    stub = modelstub.start()
    try:
        written, env = _continue(work, source.path, "opencode", pristine)
        transcript = _read_back(env, "opencode", written["id"])
        run_env = _opencode_copy(work, env, stub)
        command = _opencode_run(client, written, "-m", OPENCODE_MODEL)
        _run_opencode(command, work / "project", run_env)
        bodies = _opencode_bodies(stub)
    finally:
        stub.close()
    assert bodies, "OpenCode sent no request to the model stub"
    reasoning = _anthropic_reasoning(bodies[0], source.thinking)
    seen = _anthropic_seen(bodies[0])
    filled = seen.pop("filled")
    return Outcome(_expected(transcript), seen, reasoning, filled)


# ----------------------------------------------------------------------------- Factory droid

#: droid's model for the run: a custom (bring-your-own-key) model, the stub, spoken to as
#: Anthropic. No Factory login is needed for a custom model.
DROID_MODEL = "claude-opus-4-5"


def _droid_env(home: Path, stub: modelstub.ModelStub) -> dict[str, str]:
    """droid with one custom model (the stub), and Factory's own API and telemetry pointed at the
    stub too, so nothing leaves 127.0.0.1: ``droid exec -s`` first asks that API for the session,
    and goes on with the local file when it answers 404 (which the stub answers to anything it
    does not know)."""
    settings = {
        "customModels": [
            {
                "model": DROID_MODEL,
                "displayName": "stub",
                "baseUrl": stub.url,
                "apiKey": "sk-ant-test-not-a-key",
                "provider": "anthropic",
                "maxOutputTokens": 1000,
            }
        ]
    }
    (home / ".factory").mkdir(parents=True, exist_ok=True)
    (home / ".factory" / "settings.json").write_text(json.dumps(settings))
    return {
        **_home_env(home),
        "FACTORY_API_BASE_URL": stub.url,
        "FACTORY_TELEMETRY_INGEST_BASE_URL": stub.url,
        "FACTORY_DISABLE_KEYRING": "1",
        "FACTORY_DROID_AUTO_UPDATE_ENABLED": "false",
    }


def _without_reminders(body: dict[str, Any]) -> dict[str, Any]:
    """The request without the context droid adds around the history (user messages of
    ``<system-reminder>`` blocks only)."""

    def reminder(message: dict[str, Any]) -> bool:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        return message.get("role") == "user" and all(
            b.get("type") == "text" and str(b.get("text", "")).startswith("<system-reminder>")
            for b in blocks
        )

    return {**body, "messages": [msg for msg in body["messages"] if not reminder(msg)]}


def droid(work: Path, source: Source, client: Path) -> Outcome:
    stub = modelstub.start()
    try:
        written, env = _continue(work, source.path, "droid")
        transcript = _read_back(env, "droid", written["id"])
        home = _copy(work, "home")
        run_env = dict(env, **_droid_env(home, stub))
        # droid lists the copy among its sessions (its own session search, by a word of it).
        listing = _run(
            [str(client), "search", _a_word(transcript), "--json", "--limit-sessions", "50"],
            work / "project",
            run_env,
        )
        listed = [s["sessionId"] for s in json.loads(listing.stdout)["sessions"]]
        assert written["id"] in listed, listing.stdout[-2000:]
        # The resume command is the TUI's (`droid --resume <id>`); `exec -s` takes the same id
        # and sends one prompt without a terminal.
        assert written["resume_command"][1:] == ["--resume", written["id"]]
        command = [str(client), "exec", "-s", written["id"], "-m", f"custom:{DROID_MODEL}", PROBE]
        _run(command, work / "project", run_env)
        bodies = [
            b for b in stub.bodies("/v1/messages") if isinstance(b, dict) and b.get("messages")
        ]
    finally:
        stub.close()
    assert bodies, "droid sent no request to the model stub"
    body = _without_reminders(bodies[0])
    reasoning = _anthropic_reasoning(body, source.thinking)
    seen = _anthropic_seen(body)
    filled = seen.pop("filled")
    return Outcome(_expected(transcript), seen, reasoning, filled)


def _a_word(transcript: m.Transcript) -> str:
    """A word of the session's first prompt, for droid's search to find it by."""
    for message in transcript.messages:
        for block in message.content:
            if isinstance(block, m.Text):
                words = [w for w in block.text.split() if len(w) >= 4 and w.isalpha()]
                if words:
                    return words[0]
    return transcript.meta.id


# ---------------------------------------------------------------------------------------- pi


def pi(work: Path, source: Source, client: Path) -> Outcome:
    """pi resumes a copy of the agent dir txcript wrote into, in print mode, on one custom
    provider: the stub, spoken to through pi's Anthropic Messages client (its requests keep each
    result's error flag). ``--offline`` skips pi's start-up network calls."""
    stub = modelstub.start()
    try:
        written, env = _continue(work, source.path, "pi")
        transcript = _read_back(env, "pi", written["id"])
        copy = _copy(work, "pi")
        provider = {
            "baseUrl": stub.url,
            "api": "anthropic-messages",
            "apiKey": "sk-ant-test-not-a-key",
            "models": [{"id": PI_MODEL, "input": ["text", "image"], "reasoning": False}],
        }
        (copy / "models.json").write_text(json.dumps({"providers": {"stub": provider}}))
        command = [
            str(client),
            *written["resume_command"][1:],
            "-p",
            PROBE,
            "--provider",
            "stub",
            "--model",
            PI_MODEL,
            "--offline",
        ]
        run_env = dict(env, PI_CODING_AGENT_DIR=str(copy), PI_OFFLINE="1")
        _run(command, work / "project", run_env)
        bodies = [
            b for b in stub.bodies("/v1/messages") if isinstance(b, dict) and b.get("messages")
        ]
    finally:
        stub.close()
    assert bodies, "pi sent no request to the model stub"
    reasoning = _anthropic_reasoning(bodies[0], source.thinking)
    seen = _anthropic_seen(bodies[0])
    filled = seen.pop("filled")
    # pi never replays a turn that ended in an error or was aborted (an incomplete turn): the
    # model retries from the last complete one. txcript writes such a turn as it was.
    replayed = tuple(
        message
        for message in transcript.messages
        if not (message.role == "assistant" and message.stop_reason in ("aborted", "error"))
    )
    expected = _expected(m.Transcript(meta=transcript.meta, messages=replayed))
    return Outcome(expected, seen, reasoning, filled)


# ------------------------------------------------------------------------------------ Kilo

#: Kilo's CLI is an OpenCode fork: the same switches, under its own name.
KILO_OFFLINE = {
    "KILO_DISABLE_AUTOUPDATE": "1",
    "KILO_DISABLE_MODELS_FETCH": "1",
    "KILO_DISABLE_DEFAULT_PLUGINS": "1",
    "KILO_DISABLE_LSP_DOWNLOAD": "1",
    "KILO_DISABLE_SHARE": "1",
}


def kilo_pristine(place: Path, client: Path) -> Path:
    """A HOME in which the real Kilo CLI created its own empty ``kilo.db`` (txcript writes into
    an existing database and never creates one)."""
    home = place / "home"
    home.mkdir(parents=True)
    env = dict(_base_env(), **_home_env(home), **KILO_OFFLINE)
    _run([str(client), "session", "list", "--format", "json"], home, env)
    assert (home / ".local" / "share" / "kilo" / "kilo.db").is_file()
    return home


def _kilo_copy(work: Path, env: dict[str, str], stub: modelstub.ModelStub) -> dict[str, str]:
    """A copy of the HOME txcript wrote into, with the stub as Kilo's one provider (through the
    bundled Anthropic provider, as for OpenCode)."""
    home = _copy(work, "home")
    config = {
        "$schema": "https://app.kilo.ai/config.json",
        "provider": {
            "stub": {
                "npm": "@ai-sdk/anthropic",
                "name": "model stub",
                "options": {"baseURL": f"{stub.url}/v1", "apiKey": "sk-ant-test-not-a-key"},
                "models": {
                    "stub-model": {
                        "name": "stub model",
                        "attachment": True,
                        "modalities": {"input": ["text", "image"], "output": ["text"]},
                    }
                },
            }
        },
        "model": OPENCODE_MODEL,
        "small_model": OPENCODE_MODEL,
        "share": "disabled",
        "autoupdate": False,
    }
    (home / ".config" / "kilo" / "kilo.jsonc").write_text(json.dumps(config))
    return dict(env, **_home_env(home), **KILO_OFFLINE)


def kilo(work: Path, source: Source, client: Path, pristine: Path) -> Outcome:
    stub = modelstub.start()
    try:
        written, env = _continue(work, source.path, "kilo", pristine)
        transcript = _read_back(env, "kilo", written["id"])
        run_env = _kilo_copy(work, env, stub)
        command = _opencode_run(client, written, "-m", OPENCODE_MODEL)
        _run_opencode(command, work / "project", run_env)
        bodies = _opencode_bodies(stub)
    finally:
        stub.close()
    assert bodies, "Kilo sent no request to the model stub"
    reasoning = _anthropic_reasoning(bodies[0], source.thinking)
    seen = _anthropic_seen(bodies[0])
    filled = seen.pop("filled")
    return Outcome(_expected(_kilo_retried(transcript)), seen, reasoning, filled)


def _kilo_retried(transcript: m.Transcript) -> m.Transcript:
    """What Kilo resumes from: a session whose last reply failed (stop reason ``error``) has
    that whole turn — every reply after the last prompt — taken back, and the prompt is answered
    again (OpenCode keeps the turn). Any other session as it is."""
    messages = transcript.messages
    if not messages or messages[-1].role != "assistant" or messages[-1].stop_reason != "error":
        return transcript
    prompts = [
        i
        for i, message in enumerate(messages)
        if message.role == "user" and any(not isinstance(b, m.ToolResult) for b in message.content)
    ]
    kept = messages[: prompts[-1] + 1] if prompts else ()
    return m.Transcript(meta=transcript.meta, messages=kept)


# ----------------------------------------------------------------------------------- Hermes

#: What Hermes says when it resumes without its session store (a database it cannot open).
HERMES_COMPLAINTS = ("Session store unavailable", "Session not found", "No session found")
#: What Hermes puts in place of a result the session never recorded.
HERMES_FILLED_RESULT = "[Result unavailable"


def _hermes_seen(body: dict[str, Any]) -> dict[str, Any]:
    """Turns, calls and results of a Chat Completions request, without the system prompt and
    the probe (a tool message counts on the user's side, as the session's results do)."""
    history = [msg for msg in body["messages"] if msg.get("role") != "system"]
    if history and history[-1].get("role") == "user" and _text_of(history[-1]["content"]) == PROBE:
        history.pop()
    roles: list[str] = []
    calls = results = filled = 0
    for message in history:
        role = "assistant" if message.get("role") == "assistant" else "user"
        calls += len(message.get("tool_calls") or []) if role == "assistant" else 0
        if message.get("role") == "tool":
            if _text_of(message.get("content")).startswith(HERMES_FILLED_RESULT):
                filled += 1
                continue
            results += 1
        if role == "assistant" and not message.get("tool_calls") and not message.get("content"):
            continue
        if not roles or roles[-1] != role:
            roles.append(role)
    return {"turns": roles, "calls": calls, "results": results, "filled": filled}


def _hermes_reasoning(body: dict[str, Any], thinking: list[str]) -> str:
    fields = ("reasoning_content", "reasoning", "reasoning_details")
    if any(any(m.get(f) for f in fields) for m in body["messages"] if m.get("role") == "assistant"):
        return "reasoning fields"
    return _as_text(thinking, [_text_of(m.get("content")) for m in body["messages"]])


def hermes(work: Path, source: Source, client: Path) -> Outcome:
    stub = modelstub.start()
    try:
        written, env = _continue(work, source.path, "hermes")
        transcript = _read_back(env, "hermes", written["id"])
        copy = _copy(work, "hermes")
        # The client's own configuration: one OpenAI-compatible endpoint, the stub.
        (copy / "config.yaml").write_text(
            "model:\n"
            "  provider: custom\n"
            f"  base_url: {stub.url}/v1\n"
            f"  default: {HERMES_MODEL}\n"
            "  api_key: sk-test-not-a-key\n"
        )
        command = [str(client), "chat", *written["resume_command"][1:], "-q", PROBE, "-Q"]
        done = _run(command, work / "project", dict(env, HERMES_HOME=str(copy)))
        output = done.stdout + done.stderr
        for complaint in HERMES_COMPLAINTS:
            assert complaint not in output, output[-2000:]
        # The agent's request offers tools (a side request, such as describing an image for a
        # model without vision, offers none).
        bodies = [
            b
            for b in stub.bodies("/v1/chat/completions")
            if isinstance(b, dict) and b.get("messages") and b.get("tools")
        ]
    finally:
        stub.close()
    assert bodies, "Hermes sent no request to the model stub"
    expected = _expected(transcript)
    del expected["errors"]  # a Chat Completions request carries no error flag on a result
    reasoning = _hermes_reasoning(bodies[0], source.thinking)
    seen = _hermes_seen(bodies[0])
    filled = seen.pop("filled")
    return Outcome(expected, seen, reasoning, filled)


# ------------------------------------------------------------------------------------- Grok

GROK_MODEL = "stub-model"
#: What Grok says when it cannot open a session (a summary it cannot parse reads as none).
GROK_COMPLAINTS = ("Session does not exist", "Couldn't create session")
#: What Grok puts in place of a result the session never recorded.
GROK_FILLED_RESULT = "Tool execution was cancelled by the user"


def _grok_seen(body: dict[str, Any]) -> dict[str, Any]:
    """Turns, calls and results of Grok's Chat Completions request, without the system prompt
    and the probe (the prompt wrapped in ``<user_query>``)."""
    history = [msg for msg in body["messages"] if msg.get("role") != "system"]
    if history and history[-1].get("role") == "user" and PROBE in _text_of(history[-1]["content"]):
        history.pop()
    roles: list[str] = []
    calls = results = filled = 0
    for message in history:
        role = "assistant" if message.get("role") == "assistant" else "user"
        calls += len(message.get("tool_calls") or []) if role == "assistant" else 0
        if message.get("role") == "tool":
            if _text_of(message.get("content")).startswith(GROK_FILLED_RESULT):
                filled += 1
                continue
            results += 1
        if role == "assistant" and not message.get("tool_calls") and not message.get("content"):
            continue
        if not roles or roles[-1] != role:
            roles.append(role)
    return {"turns": roles, "calls": calls, "results": results, "filled": filled}


def grok(work: Path, source: Source, client: Path) -> Outcome:
    stub = modelstub.start()
    try:
        written, env = _continue(work, source.path, "grok")
        transcript = _read_back(env, "grok", written["id"])
        copy = _copy(work, "grok")
        command = [
            str(client),
            *written["resume_command"][1:],
            "-p",
            PROBE,
            "-m",
            GROK_MODEL,
            "--output-format",
            "json",
        ]
        run_env = dict(
            env,
            GROK_HOME=str(copy),
            XAI_API_KEY="xai-test-not-a-key",
            GROK_MODELS_BASE_URL=f"{stub.url}/v1",
            DISABLE_TELEMETRY="1",
        )
        done = _run(command, work / "project", run_env)
        for complaint in GROK_COMPLAINTS:
            assert complaint not in done.stdout + done.stderr, done.stdout[-2000:]
        # The agent's request offers tools (the title request goes to /v1/responses).
        bodies = [
            b
            for b in stub.bodies("/v1/chat/completions")
            if isinstance(b, dict) and b.get("messages") and b.get("tools")
        ]
    finally:
        stub.close()
    assert bodies, "Grok sent no request to the model stub"
    expected = _expected(transcript)
    del expected["errors"]  # a Chat Completions request carries no error flag on a result
    reasoning = _hermes_reasoning(bodies[0], source.thinking)
    seen = _grok_seen(bodies[0])
    filled = seen.pop("filled")
    return Outcome(expected, seen, reasoning, filled)


# ------------------------------------------------------------------------------- the matrix

MATRIX_TEST = "test_the_client_resumes_the_copy_and_rebuilds_every_turn"


@pytest.fixture(scope="session")
def sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Source]:
    place = tmp_path_factory.mktemp("sources")
    env = dict(_base_env(), HOME=str(place / "home"), TXCRIPT_DATA_DIR=str(place / "data"))
    out = {}
    for name, path in clientsources.build(place).items():
        read = m.from_json(_txcript(env, "export", str(path), "--format", "common").stdout)
        out[name] = Source(path, _thinking(read))
    return out


@pytest.fixture(scope="session")
def matrix(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    sources: dict[str, Source],
) -> dict[Case, Outcome | BaseException]:
    """Every selected (writer, source) case whose client is installed, run at once."""
    cases: list[Case] = [
        (item.callspec.params["writer"], item.callspec.params["source"])
        for item in request.session.items
        if getattr(item, "originalname", None) == MATRIX_TEST and hasattr(item, "callspec")
    ]
    clients = {writer: find_binary(writer) for writer, _ in cases}
    root = tmp_path_factory.mktemp("matrix")
    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        pristine: Future[Path] | None = None
        if clients.get("opencode") is not None:
            pristine = pool.submit(
                opencode_pristine, root / "opencode-pristine", clients["opencode"]
            )
        kilo_home: Future[Path] | None = None
        if clients.get("kilo") is not None:
            kilo_home = pool.submit(kilo_pristine, root / "kilo-pristine", clients["kilo"])
        drivers: dict[str, Callable[[Path, Source, Path], Outcome]] = {
            "claude_code": claude_code,
            "codex": codex,
            "gemini": gemini,
            "opencode": lambda work, source, client: opencode(
                work, source, client, _wait(pristine)
            ),
            "qwen": qwen,
            "droid": droid,
            "pi": pi,
            "kilo": lambda work, source, client: kilo(work, source, client, _wait(kilo_home)),
            "hermes": hermes,
            "grok": grok,
        }
        futures: dict[Case, Future[Outcome]] = {}
        for writer, source in cases:
            client = clients[writer]
            if client is None:
                continue
            work = root / f"{writer}-{source}"
            work.mkdir()
            futures[writer, source] = pool.submit(drivers[writer], work, sources[source], client)
        outcomes: dict[Case, Outcome | BaseException] = {}
        for case, future in futures.items():
            error = future.exception()
            outcomes[case] = future.result() if error is None else error
    return outcomes


def _wait(pristine: Future[Path] | None) -> Path:
    assert pristine is not None
    return pristine.result()


@pytest.mark.parametrize("source", clientsources.SOURCES)
@pytest.mark.parametrize("writer", WRITERS)
def test_the_client_resumes_the_copy_and_rebuilds_every_turn(
    writer: str, source: str, matrix: dict[Case, Outcome | BaseException]
) -> None:
    binary(writer)  # skips (or, with CI=true, fails) when the client is not installed
    outcome = matrix[writer, source]
    if isinstance(outcome, BaseException):
        raise outcome
    assert outcome.seen == outcome.expected
    record(
        writer, source, {**outcome.seen, "reasoning": outcome.reasoning, "filled": outcome.filled}
    )


# ------------------------------------------------------------------------ single regressions


def test_claude_assistant_lines_always_carry_a_model(
    tmp_path: Path, sources: dict[str, Source]
) -> None:
    """Regression: a copy from a source without per-message models (a Simple document) wrote
    assistant lines with no ``message.model``; Claude Code then hung on a resume without a key
    instead of reporting that it is not logged in. Every line now carries the source's model,
    else Claude Code's own ``<synthetic>`` marker, which reads back as no model."""
    written, env = _continue(tmp_path, sources["simple"].path, "claude_code")
    lines = [json.loads(x) for x in Path(written["location"]).read_text().splitlines()]
    models = [r["message"]["model"] for r in lines if r.get("type") == "assistant"]
    assert models == ["<synthetic>", "<synthetic>"]
    assert all(msg.model is None for msg in _read_back(env, "claude_code", written["id"]).messages)


def test_opencode_resumes_a_copy_without_a_model_on_the_default_one(
    tmp_path: Path, sources: dict[str, Source]
) -> None:
    """Regression: a source naming no model (a Simple document) was written with user messages
    answered by ``opencode/unknown``; OpenCode resumes on the last user message's model, so the
    exact resume command failed with "Model not found". OpenCode lists the copy under its
    directory, and resumes it, with no ``-m``, on the configured default model."""
    client = binary("opencode")
    pristine = opencode_pristine(tmp_path / "pristine", client)
    work = tmp_path / "work"
    work.mkdir()
    stub = modelstub.start()
    try:
        written, env = _continue(work, sources["simple"].path, "opencode", pristine)
        run_env = _opencode_copy(work, env, stub)
        listing = [str(client), "session", "list", "--format", "json"]
        listed = json.loads(_run_opencode(listing, work / "project", run_env))
        rows = [r for r in listed if r["id"] == written["id"]]
        assert [r["directory"] for r in rows] == [str(work / "project")]
        _run_opencode(_opencode_run(client, written), work / "project", run_env)
        models = [b["model"] for b in _opencode_bodies(stub)]
    finally:
        stub.close()
    assert models == ["stub-model"]


def test_opencode_lists_and_resumes_a_database_txcript_created(
    tmp_path: Path, sources: dict[str, Source]
) -> None:
    """Regression: ``continue --with opencode --out DIR`` needed an ``opencode.db`` in DIR ("run
    `opencode` once to create it"). txcript now creates the database with the schema of the
    newest release it knows, its migrations recorded; the real OpenCode, with DIR as its data
    directory, runs no migration over it, lists the copy under its directory and resumes it."""
    from txcript.shared.formats.opencode.schema import MIGRATIONS

    client = binary("opencode")
    work = tmp_path / "work"
    project = work / "project"
    project.mkdir(parents=True)
    home = work / "home"
    (home / ".config" / "opencode").mkdir(parents=True)
    out = home / ".local" / "share" / "opencode"
    env = _base_env()
    env.update(
        _home_env(work / "elsewhere"),
        TXCRIPT_DATA_DIR=str(work / "data"),
        TXCRIPT_CACHE_DIR=str(work / "cache"),
    )
    args = ["continue", str(sources["simple"].path), "--with", "opencode", "--cwd", str(project)]
    written = json.loads(_txcript(env, *args, "--out", str(out), "--json").stdout)
    assert (out / "opencode.db").is_file()
    stub = modelstub.start()
    try:
        run_env = _opencode_copy(work, env, stub)
        listing = [str(client), "session", "list", "--format", "json"]
        listed = json.loads(_run_opencode(listing, project, run_env))
        assert [r["directory"] for r in listed if r["id"] == written["id"]] == [str(project)]
        _run_opencode(_opencode_run(client, written, "-m", OPENCODE_MODEL), project, run_env)
        bodies = _opencode_bodies(stub)
    finally:
        stub.close()
    assert bodies, "OpenCode sent no request to the model stub"
    import sqlite3

    conn = sqlite3.connect(work / "home-copy" / ".local" / "share" / "opencode" / "opencode.db")
    try:
        applied = [row[0] for row in conn.execute("SELECT id FROM migration ORDER BY rowid")]
    finally:
        conn.close()
    assert applied == list(MIGRATIONS)  # nothing was migrated again (nor newly)
