"""Factory droid stores built for tests: real directory trees laid out as droid lays them out.

Record shapes follow what droid 0.225 writes (a ``session_start`` header; ``message`` records
chained by ``parentId``; the ``llm_only`` context message before each prompt; ``agent_turn_outcome``
bookkeeping; a pretty-printed ``.settings.json``); the contents are invented.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PROJECT = "/Users/dev/acme"
PROJECT_KEY = "-Users-dev-acme"
MAIN_ID = "5f0c2a9e-7b1d-4c3e-9a8f-1e2d3c4b5a69"
FLAT_ID = "0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a"
SUB_ID = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
MODEL = "claude-opus-4-5-20251101"


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def message(
    ident: str, parent: str | None, second: int, role: str, content: Any, **extra: Any
) -> dict[str, Any]:
    record: dict[str, Any] = {"type": "message", "id": ident}
    if parent is not None:
        record["parentId"] = parent
    record["timestamp"] = f"2026-11-02T10:00:{second:02d}.250Z"
    record["message"] = {"role": role, "content": content, **extra}
    return record


def main_records() -> list[dict[str, Any]]:
    """A session with droid's context message, reasoning, a parallel batch with one failing
    call, an answer, bookkeeping and one record of a kind no droid build writes."""
    return [
        {
            "type": "session_start",
            "id": MAIN_ID,
            "title": "Fix the failing test",
            "owner": "dev@example.com",
            "version": 2,
            "cwd": PROJECT,
            "isSessionTitleManuallySet": False,
        },
        message(
            "context-u1",
            None,
            0,
            "user",
            [
                {
                    "type": "text",
                    "text": "<system-reminder>\nTools: Read, Execute\n</system-reminder>",
                }
            ],
            visibility="llm_only",
        ),
        message(
            "u1",
            "context-u1",
            1,
            "user",
            [{"type": "text", "text": "Fix the failing test"}],
            interactionMode="auto",
        ),
        message(
            "a1",
            "u1",
            2,
            "assistant",
            [
                {
                    "type": "thinking",
                    "thinking": "Run the tests first.",
                    "signature": "sig-1",
                    "signatureProvider": "anthropic",
                    "durationMs": 12,
                },
                {"type": "text", "text": "Running the tests and reading the config."},
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "Execute",
                    "input": {"command": "npm test", "timeout": 120},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_02",
                    "name": "Read",
                    "input": {"file_path": f"{PROJECT}/jest.config.js"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_03",
                    "name": "Grep",
                    "input": {"pattern": "TODO", "path": PROJECT},
                },
            ],
            modelId=MODEL,
            reasoningEffort="high",
        ),
        message(
            "r1",
            "a1",
            3,
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01",
                    "is_error": True,
                    "content": "1 failing: sum adds",
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_02",
                    "is_error": False,
                    "content": "module.exports = {}",
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_03",
                    "is_error": False,
                    "content": [{"type": "text", "text": "src/a.ts:3: TODO"}],
                },
            ],
        ),
        message(
            "a2",
            "r1",
            4,
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": "toolu_04",
                    "name": "Create",
                    "input": {
                        "file_path": f"{PROJECT}/src/sum.ts",
                        "content": "export const sum = (a, b) => a + b;\n",
                    },
                },
            ],
            modelId=MODEL,
        ),
        message(
            "r2",
            "a2",
            5,
            "user",
            [{"type": "tool_result", "tool_use_id": "toolu_04", "content": "File created"}],
        ),
        message(
            "a3",
            "r2",
            6,
            "assistant",
            [{"type": "text", "text": "Fixed: sum now adds."}],
            modelId=MODEL,
        ),
        {"type": "agent_turn_outcome", "turnId": "u1", "reason": "completed", "resultKind": "text"},
        {"type": "todo_state", "todos": [{"content": "fix sum", "status": "completed"}]},
        {"type": "mission_checkpoint", "step": 3},
    ]


SETTINGS = {
    "assistantActiveTimeMs": 2210,
    "model": MODEL,
    "reasoningEffort": "high",
    "autonomyLevel": "low",
    "tokenUsage": {
        "inputTokens": 1200,
        "outputTokens": 340,
        "cacheCreationTokens": 0,
        "cacheReadTokens": 800,
        "thinkingTokens": 20,
    },
    "providerLock": "anthropic",
}


def flat_records() -> list[dict[str, Any]]:
    """An older build's flat session (no cwd directory), legacy ``sessionTitle``, no settings."""
    return [
        {
            "type": "session_start",
            "id": FLAT_ID,
            "title": "New Session",
            "sessionTitle": "Explain the build",
            "owner": "dev@example.com",
        },
        message("f1", None, 10, "user", "Explain the build"),
        message(
            "f2",
            "f1",
            11,
            "assistant",
            [{"type": "text", "text": "It uses esbuild."}],
            modelId="gpt-5",
        ),
    ]


def sub_records() -> list[dict[str, Any]]:
    """A Task tool's sub-agent session, spawned by the main one."""
    return [
        {
            "type": "session_start",
            "id": SUB_ID,
            "title": "# Task Tool Invocation",
            "owner": "dev@example.com",
            "version": 2,
            "cwd": PROJECT,
            "callingSessionId": MAIN_ID,
            "callingToolUseId": "toolu_09",
        },
        message("s1", None, 20, "user", [{"type": "text", "text": "List the tests"}]),
        message(
            "s2", "s1", 21, "assistant", [{"type": "text", "text": "There are 3."}], modelId=MODEL
        ),
    ]


def write_session(
    directory: Path, session_id: str, records: list[dict[str, Any]], settings: dict[str, Any] | None
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{session_id}.jsonl"
    path.write_text("".join(_line(r) + "\n" for r in records), encoding="utf-8")
    if settings is not None:
        (directory / f"{session_id}.settings.json").write_text(
            json.dumps(settings, indent=2), encoding="utf-8"
        )
    return path


def build_project(root: Path) -> Path:
    """The per-project layout (``sessions/<key>/``): the main session and its sub-agent's."""
    directory = root / "sessions" / PROJECT_KEY
    write_session(directory, SUB_ID, sub_records(), {"model": MODEL})
    return write_session(directory, MAIN_ID, main_records(), SETTINGS)


def build_flat(root: Path) -> Path:
    """The older flat layout (``sessions/<uuid>.jsonl``)."""
    return write_session(root / "sessions", FLAT_ID, flat_records(), None)
