"""Hand-written Copilot CLI sessions, shaped like the files Copilot CLI 1.0.102 writes (never
copied): an event log with its workspace.yaml, and ``session-store.db`` rows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

LOG_ID = "8e9f0a1b-2c3d-4e4f-8a5b-6c7d8e9f0a1b"
DB_ONLY_ID = "9f0a1b2c-3d4e-4f50-9b6c-7d8e9f0a1b2c"
FLAT_ID = "0a1b2c3d-4e5f-4061-8c7d-8e9f0a1b2c3d"
CWD = "/home/dev/site"

#: The store database's schema, as Copilot CLI 1.0.102 creates it (the tables txcript reads).
SCHEMA = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, cwd TEXT, repository TEXT, host_type TEXT, branch TEXT, summary TEXT,
    created_at TEXT DEFAULT (datetime('now')), updated_at TEXT DEFAULT (datetime('now'))
);
CREATE TABLE turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    turn_index INTEGER NOT NULL, user_message TEXT, assistant_response TEXT,
    timestamp TEXT DEFAULT (datetime('now')), UNIQUE(session_id, turn_index)
);
CREATE TABLE assistant_usage_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    turn_index INTEGER, agent_id TEXT, parent_tool_call_id TEXT, model TEXT NOT NULL,
    copilot_usage_model TEXT, input_tokens INTEGER, output_tokens INTEGER,
    cache_read_tokens INTEGER, cache_write_tokens INTEGER, reasoning_tokens INTEGER,
    total_nano_aiu INTEGER, request_multiplier REAL, duration_ms INTEGER,
    time_to_first_token_ms INTEGER, output_ttft_ms REAL, inter_token_latency_ms INTEGER,
    initiator TEXT, api_endpoint TEXT, reasoning_effort TEXT, finish_reason TEXT,
    content_filter_triggered INTEGER, token_details_json TEXT,
    created_at TEXT DEFAULT (datetime('now'))
);
"""


def stamp(second: int) -> str:
    return f"2026-11-10T08:00:{second:02d}.000Z"


def events() -> list[dict[str, Any]]:
    chain: list[dict[str, Any]] = []

    def add(second: int, kind: str, **data: Any) -> None:
        parent = chain[-1]["id"] if chain else None
        chain.append(
            {
                "type": kind,
                "data": data,
                "id": f"e{len(chain)}",
                "timestamp": stamp(second),
                "parentId": parent,
            }
        )

    add(
        0,
        "session.start",
        sessionId=LOG_ID,
        version=1,
        producer="copilot-agent",
        copilotVersion="1.0.102",
        startTime=stamp(0),
        selectedModel="claude-sonnet-4.5",
        context={"cwd": CWD, "gitRoot": CWD, "branch": "feature/nav"},
    )
    add(
        1,
        "user.message",
        content="Fix the nav\nand check links",
        attachments=[{"type": "blob", "mimeType": "image/png", "data": "iVBORw0KGgo="}],
    )
    add(1, "system.message", role="system", content="You are the GitHub Copilot CLI.")
    add(2, "assistant.turn_start", turnId="0")
    add(2, "assistant.reasoning", reasoningId="r1", content="Find the nav component.")
    add(
        3,
        "session.usage_record",
        usage={
            "model": "claude-sonnet-4.5",
            "inputTokens": 900,
            "outputTokens": 30,
            "cacheReadTokens": 100,
            "cacheWriteTokens": 0,
        },
    )
    add(
        3,
        "assistant.message",
        messageId="m1",
        model="claude-sonnet-4.5",
        content="Looking.",
        toolRequests=[
            {
                "toolCallId": "toolu_a",
                "name": "bash",
                "arguments": {"command": "grep -r nav src", "description": "find nav"},
                "type": "function",
            },
            {
                "toolCallId": "toolu_b",
                "name": "view",
                "arguments": {"path": "/home/dev/site/missing.html"},
                "type": "function",
            },
        ],
    )
    add(
        4,
        "tool.execution_start",
        toolCallId="toolu_a",
        toolName="bash",
        arguments={"command": "grep -r nav src"},
    )
    add(
        5,
        "tool.execution_complete",
        toolCallId="toolu_a",
        success=True,
        result={"content": "src/nav.tsx", "detailedContent": "src/nav.tsx\n"},
    )
    add(
        5,
        "tool.execution_complete",
        toolCallId="toolu_b",
        success=False,
        error={"message": "Path does not exist", "code": "failure"},
    )
    add(6, "subagent.started", toolCallId="toolu_a")
    add(
        6,
        "assistant.message",
        messageId="sub",
        content="sub-agent says hi",
        toolRequests=[],
        parentToolCallId="toolu_a",
    )
    add(7, "assistant.turn_end", turnId="0")
    add(8, "assistant.usage", model="claude-sonnet-4.5", inputTokens=1000, outputTokens=12)
    add(
        8,
        "assistant.message",
        messageId="m2",
        model="claude-sonnet-4.5",
        content="The nav is in src/nav.tsx; missing.html does not exist.",
        toolRequests=[],
        reasoningText="Summarise.",
        reasoningOpaque="opaque-sig",
    )
    add(9, "session.title_changed", title="Nav fix")
    add(10, "quantum.entangle", level=1)
    add(11, "session.shutdown", modelMetrics={}, currentModel="claude-sonnet-4.5")
    return chain


WORKSPACE = f"""id: {LOG_ID}
cwd: {CWD}
git_root: {CWD}
branch: feature/nav
name: Fix the nav
user_named: false
summary_count: 0
created_at: 2026-11-10T08:00:00.000Z
updated_at: 2026-11-10T08:00:11.000Z
"""


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def build_database(path: Path) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.executescript(SCHEMA)
        conn.execute("INSERT INTO schema_version VALUES (8)")
        conn.execute(
            "INSERT INTO sessions VALUES (?, ?, NULL, NULL, ?, ?, ?, ?)",
            (LOG_ID, CWD, "feature/nav", "Fix the nav", stamp(0), stamp(11)),
        )
        conn.execute(
            "INSERT INTO sessions VALUES (?, ?, 'octo/site', 'github', 'main', ?, ?, ?)",
            (DB_ONLY_ID, CWD, "Bump deps", "2026-11-01T07:00:00.000Z", "2026-11-01 07:05:00"),
        )
        turns = [
            (DB_ONLY_ID, 0, "Bump the deps", "Bumped 3 packages.", "2026-11-01T07:01:00.000Z"),
            (DB_ONLY_ID, 1, "Run the build", "Build passes.", "2026-11-01 07:04:00"),
            (LOG_ID, 0, "Fix the nav", "The nav is in src/nav.tsx", stamp(9)),
        ]
        conn.executemany(
            "INSERT INTO turns (session_id, turn_index, user_message, assistant_response,"
            " timestamp)"
            " VALUES (?, ?, ?, ?, ?)",
            turns,
        )
        # Every time given: a column left to its ``datetime('now')`` default made the fixture,
        # and the golden export of it, change with the clock.
        usage = [
            (DB_ONLY_ID, 0, "gpt-5", 500, 40, 100, 0, "2026-11-01 07:01:10"),
            (DB_ONLY_ID, 0, "gpt-5", 700, 10, 300, 0, "2026-11-01 07:01:20"),
            (DB_ONLY_ID, 1, "gpt-5", 800, 5, 0, 20, "2026-11-01 07:04:10"),
        ]
        conn.executemany(
            "INSERT INTO assistant_usage_events (session_id, turn_index, model, input_tokens,"
            " output_tokens, cache_read_tokens, cache_write_tokens, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            usage,
        )
    conn.close()


def build_store(root: Path) -> None:
    """A ``~/.copilot``: a session-state directory, a flat legacy log, and the store database
    with a session whose event log is gone."""
    directory = root / "session-state" / LOG_ID
    directory.mkdir(parents=True)
    (directory / "events.jsonl").write_text(jsonl(events()))
    (directory / "workspace.yaml").write_text(WORKSPACE)
    (directory / "checkpoints").mkdir()
    flat = [
        {
            "type": "session.start",
            "data": {"sessionId": FLAT_ID, "startTime": stamp(0), "context": {"cwd": "/old"}},
            "id": "f0",
            "timestamp": stamp(0),
            "parentId": None,
        },
        {
            "type": "user.message",
            "data": {"content": "hello"},
            "id": "f1",
            "timestamp": stamp(1),
            "parentId": "f0",
        },
        {
            "type": "assistant.message",
            "data": {"messageId": "x", "content": "hi", "toolRequests": []},
            "id": "f2",
            "timestamp": stamp(2),
            "parentId": "f1",
        },
    ]
    (root / "history-session-state").mkdir()
    (root / "history-session-state" / f"{FLAT_ID}.jsonl").write_text(jsonl(flat))
    build_database(root / "session-store.db")
