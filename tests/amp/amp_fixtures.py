"""Hand-written Amp thread documents modelled on the shapes the spec names (never a real thread).

:func:`legacy_thread` is a local-first-era ``T-<uuid>.json`` with everything a real one carries
beside the conversation: a usage ledger, the debug copy of the last request (system prompt and
all), credits, an ``info`` message of AGENTS.md context, and bookkeeping keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

THREAD_ID = "T-5f0c9a4e-1b2d-4c3e-9f80-7a6b5c4d3e2f"
CREATED_MS = 1_767_261_600_000  # 2026-01-01T10:00:00Z
SYSTEM_PROMPT = "You are Amp. SECRET-SYSTEM-PROMPT-TEXT"
LEDGER_MODEL = "claude-ledger-model"


def legacy_thread() -> dict[str, Any]:
    return {
        "v": 42,
        "id": THREAD_ID,
        "created": CREATED_MS,
        "title": "Fix the flaky test",
        "agentMode": "smart",
        "nextMessageId": 7,
        "env": {
            "initial": {
                "trees": [
                    {
                        "displayName": "acme",
                        "uri": "file:///home/dev/acme%20app",
                        "repository": {
                            "type": "git",
                            "url": "https://example.invalid/acme.git",
                            "ref": "refs/heads/fix/flaky",
                            "sha": "0123456789abcdef0123456789abcdef01234567",
                        },
                    }
                ],
                "platform": {"os": "linux", "client": "CLI", "clientVersion": "0.0.1768123456"},
                "tags": ["model:claude-sonnet-4-5"],
            }
        },
        "messages": [
            {
                "role": "info",
                "messageId": 0,
                "content": [{"type": "text", "text": "AGENTS.md: use pnpm"}],
            },
            {
                "role": "user",
                "messageId": 1,
                "content": [
                    {"type": "text", "text": "The date test is flaky. Look at it."},
                    {
                        "type": "image",
                        "source": {"type": "base64", "mediaType": "image/png", "data": "iVBORw0K"},
                    },
                ],
                "meta": {"sentAt": CREATED_MS + 1000},
                "agentMode": "smart",
                "userState": {"currentlyVisibleFiles": []},
            },
            {
                "role": "assistant",
                "messageId": 2,
                "content": [
                    {
                        "type": "thinking",
                        "thinking": "Read the test first.",
                        "signature": "sig-1",
                        "provider": "anthropic",
                    },
                    {"type": "text", "text": "Reading it."},
                    {
                        "type": "tool_use",
                        "id": "toolu_read",
                        "name": "Read",
                        "input": {"path": "/home/dev/acme app/date.test.ts", "read_range": [1, 40]},
                        "complete": True,
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_bash",
                        "name": "Bash",
                        "input": {"cmd": "pnpm test date", "cwd": "/home/dev/acme app"},
                        "complete": True,
                    },
                ],
                "state": {"type": "complete", "stopReason": "tool_use"},
                "usage": {
                    "model": "claude-sonnet-4-5",
                    "inputTokens": 1200,
                    "outputTokens": 80,
                    "cacheReadInputTokens": 1000,
                    "cacheCreationInputTokens": 150,
                    "maxInputTokens": 200000,
                    "totalInputTokens": 2350,
                    "credits": 3,
                    "timestamp": "2026-01-01T10:00:05.000Z",
                },
            },
            {
                "role": "user",
                "messageId": 3,
                "content": [
                    {
                        "type": "tool_result",
                        "toolUseID": "toolu_read",
                        "run": {"status": "done", "result": {"content": "it('parses', …)"}},
                    },
                    {
                        "type": "tool_result",
                        "toolUseID": "toolu_bash",
                        "run": {
                            "status": "error",
                            "error": "exit 1: expected 2026-01-01",
                            "progress": {},
                            "trackFiles": [],
                        },
                    },
                ],
                "meta": {"sentAt": CREATED_MS + 9000},
            },
            {
                "role": "assistant",
                "messageId": 4,
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_edit",
                        "name": "edit_file",
                        "input": {
                            "path": "/home/dev/acme app/date.ts",
                            "old_str": "new Date()",
                            "new_str": "fixedNow()",
                        },
                        "complete": True,
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_oracle",
                        "name": "oracle",
                        "input": {"task": "review"},
                        "complete": True,
                    },
                ],
                "state": {"type": "cancelled"},
                "usage": {
                    "model": "claude-sonnet-4-5",
                    "inputTokens": 1400,
                    "outputTokens": 40,
                    "timestamp": "2026-01-01T10:00:12.000Z",
                },
            },
            {
                "role": "user",
                "messageId": 5,
                "content": [
                    {
                        "type": "tool_result",
                        "toolUseID": "toolu_edit",
                        "run": {"status": "rejected-by-user"},
                    },
                    {
                        "type": "tool_result",
                        "toolUseID": "toolu_oracle",
                        "run": {"status": "in-progress"},
                    },
                    {"type": "text", "text": "No, keep new Date()."},
                ],
                "meta": {"sentAt": CREATED_MS + 20000},
            },
            {
                "role": "assistant",
                "messageId": 6,
                "content": [{"type": "text", "text": "Understood"}],
                "state": {"type": "streaming"},
            },
        ],
        "usageLedger": {
            "events": [
                {
                    "model": LEDGER_MODEL,
                    "credits": 3,
                    "tokens": {"input": 1200, "output": 80},
                    "operationType": "inference",
                    "fromMessageId": 1,
                    "toMessageId": 2,
                },
                {
                    "model": "title-model",
                    "credits": 1,
                    "tokens": {"input": 20, "output": 5},
                    "operationType": "title-generation",
                    "fromMessageId": 1,
                    "toMessageId": 1,
                },
            ]
        },
        "~debug": {
            "lastInferenceInput": {
                "system": [{"type": "text", "text": SYSTEM_PROMPT}],
                "messages": [{"role": "user", "content": "DEBUG-COPY-OF-REQUEST"}],
            }
        },
        "creditsSinceLastUserMessage": 4,
    }


def thread_text(document: dict[str, Any] | None = None) -> str:
    return json.dumps(document or legacy_thread(), indent=2, ensure_ascii=False) + "\n"


def write_store(root: Path, document: dict[str, Any] | None = None) -> Path:
    """Lay out Amp's data directory under ``root``: the thread, and the credential files beside
    it that must never be opened."""
    threads = root / "threads"
    threads.mkdir(parents=True, exist_ok=True)
    path = threads / f"{(document or legacy_thread())['id']}.json"
    path.write_text(thread_text(document))
    (root / "session.json").write_text('{"apiKey": "sk-amp-SECRET"}')
    (root / "secrets.json").write_text('{"token": "SECRET"}')
    return path
