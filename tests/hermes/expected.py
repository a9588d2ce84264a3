"""The exact Common output of each Hermes fixture (see hermes_fixtures.py)."""

from __future__ import annotations

from typing import Any

#: The newest-schema CLI session: rewound rows and bookkeeping left out, failures from the
#: results themselves, reasoning and its opaque details, an image part.
CLI: dict[str, Any] = {
    "meta": {
        "id": "20260301_100500_a1b2c3",
        "timestamp": "2026-03-01T10:05:00Z",
        "cwd": "/home/dev/acme",
        "git_branch": "main",
        "title": "Fix the failing test",
        "model": "anthropic/claude-sonnet-4",
    },
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "The date test fails"}],
            "timestamp": "2026-03-01T10:05:01Z",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "text": "Run the tests first.",
                    "encrypted": '[{"type": "reasoning.text", "text": "Run the tests '
                    'first."}, {"type": "reasoning.encrypted", "data": '
                    '"enc-1"}]',
                },
                {"type": "text", "text": "Running it."},
                {
                    "type": "tool_use",
                    "id": "call_1",
                    "tool": {"name": "Bash", "command": "pytest -q", "timeout_ms": 60000},
                },
                {
                    "type": "tool_use",
                    "id": "call_2",
                    "tool": {
                        "name": "Read",
                        "file_path": "/home/dev/acme/test_date.py",
                        "offset": 1,
                        "limit": 40,
                    },
                },
            ],
            "timestamp": "2026-03-01T10:05:02.500Z",
            "stop_reason": "tool_use",
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_1",
                    "content": '{"output": "1 failed", "exit_code": 1}',
                    "is_error": True,
                },
                {"type": "tool_result", "tool_use_id": "call_2", "content": "1|import datetime"},
            ],
            "timestamp": "2026-03-01T10:05:04Z",
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Here is the screenshot"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"},
                },
            ],
            "timestamp": "2026-03-01T10:05:10Z",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "call_3",
                    "tool": {
                        "name": "Edit",
                        "file_path": "/home/dev/acme/date.py",
                        "old_string": "now()",
                        "new_string": "fixed_now()",
                    },
                },
                {
                    "type": "tool_use",
                    "id": "call_4",
                    "tool": {"name": "Raw", "tool_name": "web_search", "input": "{not json"},
                },
            ],
            "timestamp": "2026-03-01T10:05:11Z",
            "stop_reason": "tool_use",
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_3",
                    "content": "old_string not found",
                    "is_error": True,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "call_4",
                    "content": "Error executing tool 'web_search': bad arguments",
                    "is_error": True,
                },
            ],
            "timestamp": "2026-03-01T10:05:12Z",
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Fixed it."}],
            "timestamp": "2026-03-01T10:05:13Z",
            "stop_reason": "end_turn",
        },
    ],
}

#: The version-6 cron session (no cwd, branch, active or archived column in its schema).
CRON: dict[str, Any] = {
    "meta": {
        "id": "cron_nightly_20260110_030000",
        "timestamp": "2026-01-10T03:00:00Z",
        "title": "Nightly report",
        "model": "nousresearch/hermes-3",
    },
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Summarise yesterday's logs"}],
            "timestamp": "2026-01-10T03:00:00Z",
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "text": "Read the log first."},
                {
                    "type": "tool_use",
                    "id": "call_a",
                    "tool": {"name": "Read", "file_path": "/var/log/app.log"},
                },
            ],
            "timestamp": "2026-01-10T03:00:01Z",
            "stop_reason": "tool_use",
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_a", "content": "3 errors"}],
            "timestamp": "2026-01-10T03:00:02Z",
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Three errors."}],
            "timestamp": "2026-01-10T03:00:03Z",
            "stop_reason": "end_turn",
        },
    ],
}

#: The JSONL transcript log (a ``session_meta`` line, then rows).
TRANSCRIPT: dict[str, Any] = {
    "meta": {
        "id": "20260210_080000_d4e5f6",
        "timestamp": "2026-02-10T08:00:00Z",
        "title": "ping the server",
        "model": "nousresearch/hermes-4",
    },
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "ping the server"}],
            "timestamp": "2026-02-10T08:00:01Z",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "call_p",
                    "tool": {"name": "Bash", "command": "ping -c1 srv"},
                }
            ],
            "timestamp": "2026-02-10T08:00:02Z",
            "stop_reason": "tool_use",
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_p", "content": "1 packets received"}
            ],
            "timestamp": "2026-02-10T08:00:03Z",
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "text": "One packet came back."},
                {"type": "text", "text": "It answers."},
            ],
            "timestamp": "2026-02-10T08:00:04Z",
            "stop_reason": "end_turn",
        },
    ],
}

#: The JSON snapshot log (no per-message times: every message takes the session's start).
SNAPSHOT: dict[str, Any] = {
    "meta": {
        "id": "20260205_070000_0a0b0c",
        "timestamp": "2026-02-05T07:00:00Z",
        "title": "Hello from the snapshot",
        "model": "anthropic/claude-sonnet-4",
    },
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hello from the snapshot"}],
            "timestamp": "2026-02-05T07:00:00Z",
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Hi."}],
            "timestamp": "2026-02-05T07:00:00Z",
        },
    ],
}

#: The untitled Telegram session: named by its first prompt's first line.
TELEGRAM: dict[str, Any] = {
    "meta": {
        "id": "20260302_090000_b2c3d4",
        "timestamp": "2026-03-02T10:05:00Z",
        "title": "What is on my calendar?",
        "model": "nousresearch/hermes-4",
    },
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "What is on my calendar?\nthanks"}],
            "timestamp": "2026-03-02T10:05:00Z",
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Two meetings."}],
            "timestamp": "2026-03-02T10:05:01Z",
        },
    ],
}
