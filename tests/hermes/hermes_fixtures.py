"""Hand-written Hermes stores modelled on the spec and the schema Hermes 0.19 creates (never a
copied real database): a newest-schema ``state.db`` (version 22: ``active``, ``compacted``,
``cwd``, ``git_branch``, ``archived`` …, the full-text index and its triggers), a version-6
database without those columns, both log formats under ``sessions/``, and a corrupted database.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

# ------------------------------------------------------------------------------- schemas

_FTS = """
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content)
    VALUES (new.id, COALESCE(new.content, '') || ' ' || COALESCE(new.tool_calls, ''));
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
END;
"""

NEWEST = (
    """
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (22);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, session_key TEXT, chat_id TEXT,
    chat_type TEXT, thread_id TEXT, display_name TEXT, origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0, model TEXT, model_config TEXT, system_prompt TEXT,
    parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
    message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0, cwd TEXT, git_branch TEXT, git_repo_root TEXT,
    billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT, estimated_cost_usd REAL,
    actual_cost_usd REAL, cost_status TEXT, cost_source TEXT, pricing_version TEXT, title TEXT,
    api_call_count INTEGER DEFAULT 0, handoff_state TEXT, handoff_platform TEXT,
    handoff_error TEXT, compression_failure_cooldown_until REAL,
    compression_failure_error TEXT, compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    profile_name TEXT, rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    effect_disposition TEXT, timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT,
    reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT,
    codex_reasoning_items TEXT, codex_message_items TEXT, platform_message_id TEXT,
    observed INTEGER DEFAULT 0, active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0, api_content TEXT
);
CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE gateway_routing (scope TEXT NOT NULL DEFAULT '', session_key TEXT NOT NULL,
    entry_json TEXT NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (scope, session_key));
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
"""
    + _FTS
)

#: A real version-6 database has none of messages.active/compacted, sessions.cwd/git_branch/
#: archived (nor the columns added after them).
V6 = (
    """
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (6);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT,
    system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL,
    end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, title TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT, reasoning TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
"""
    + _FTS
)

# ------------------------------------------------------------------------------ sessions

CLI_ID = "20260301_100500_a1b2c3"
TELEGRAM_ID = "20260302_090000_b2c3d4"
ARCHIVED_ID = "20260303_080000_c3d4e5"
CRON_ID = "cron_nightly_20260110_030000"
JSONL_ID = "20260210_080000_d4e5f6"
SNAPSHOT_ID = "20260205_070000_0a0b0c"
T_CLI = 1772359500.0  # 2026-03-01T10:05:00Z
T_V6 = 1768014000.0  # 2026-01-10T03:00:00Z
T_JSONL = 1770710400.0  # 2026-02-10T08:00:00Z
CWD = "/home/dev/acme"
SYSTEM_PROMPT = "You are Hermes. SYSTEM-PROMPT-TEXT"


def _calls(*calls: tuple[str, str, dict[str, Any] | str]) -> str:
    return json.dumps(
        [
            {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
            for call_id, name, args in calls
        ]
    )


def _insert(conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> None:
    names = list(row)
    conn.execute(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
        [row[n] for n in names],
    )


def cli_messages() -> list[dict[str, Any]]:
    t = T_CLI
    image = [
        {"type": "text", "text": "Here is the screenshot"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K"}},
    ]
    return [
        {"role": "session_meta", "content": None, "timestamp": t},
        {"role": "system", "content": SYSTEM_PROMPT, "timestamp": t},
        {"role": "user", "content": "The date test fails", "timestamp": t + 1},
        {
            "role": "assistant",
            "content": "Running it.",
            "reasoning_content": "Run the tests first.",
            "reasoning_details": '[{"type": "reasoning.text", "text": "Run the tests first."}, '
            '{"type": "reasoning.encrypted", "data": "enc-1"}]',
            "tool_calls": _calls(
                ("call_1", "terminal", {"command": "pytest -q", "timeout": 60}),
                ("call_2", "read_file", {"path": f"{CWD}/test_date.py", "offset": 1, "limit": 40}),
            ),
            "finish_reason": "tool_calls",
            "timestamp": t + 2.5,
            "token_count": 120,
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "tool_name": "terminal",
            "content": '{"output": "1 failed", "exit_code": 1}',
            "timestamp": t + 4,
        },
        {
            "role": "tool",
            "tool_call_id": "call_2",
            "tool_name": "read_file",
            "content": "1|import datetime",
            "timestamp": t + 4.25,
        },
        {"role": "user", "content": "no wait, undo that", "timestamp": t + 5, "active": 0},
        {"role": "assistant", "content": "Undone.", "timestamp": t + 6, "active": 0},
        {"role": "user", "content": "\x00json:" + json.dumps(image), "timestamp": t + 10},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": _calls(
                (
                    "call_3",
                    "patch",
                    {
                        "mode": "replace",
                        "path": f"{CWD}/date.py",
                        "old_string": "now()",
                        "new_string": "fixed_now()",
                    },
                ),
                ("call_4", "web_search", "{not json"),
            ),
            "finish_reason": "tool_calls",
            "timestamp": t + 11,
        },
        {
            "role": "tool",
            "tool_call_id": "call_3",
            "tool_name": "patch",
            "content": '{"error": "old_string not found"}',
            "timestamp": t + 12,
            "effect_disposition": "none",
        },
        {
            "role": "tool",
            "tool_call_id": "call_4",
            "tool_name": "web_search",
            "content": "Error executing tool 'web_search': bad arguments",
            "timestamp": t + 12,
        },
        {"role": "assistant", "content": "Fixed it.", "finish_reason": "stop", "timestamp": t + 13},
    ]


def write_newest(path: Path) -> Path:
    """A newest-schema database: a CLI session, an untitled Telegram one, an archived one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(NEWEST)
    _insert(
        conn,
        "sessions",
        {
            "id": CLI_ID,
            "source": "cli",
            "model": "anthropic/claude-sonnet-4",
            "model_config": '{"temperature": 0}',
            "system_prompt": SYSTEM_PROMPT,
            "started_at": T_CLI,
            "message_count": 13,
            "tool_call_count": 4,
            "input_tokens": 5000,
            "output_tokens": 300,
            "cwd": CWD,
            "git_branch": "main",
            "git_repo_root": CWD,
            "billing_provider": "openrouter",
            "title": "Fix the failing test",
        },
    )
    for row in cli_messages():
        _insert(conn, "messages", {"session_id": CLI_ID, **row})
    _insert(
        conn,
        "sessions",
        {
            "id": TELEGRAM_ID,
            "source": "telegram",
            "user_id": "42",
            "chat_id": "-100",
            "model": "nousresearch/hermes-4",
            "started_at": T_CLI + 86400,
            "parent_session_id": None,
        },
    )
    for n, (role, content) in enumerate(
        [("user", "What is on my calendar?\nthanks"), ("assistant", "Two meetings.")]
    ):
        _insert(
            conn,
            "messages",
            {
                "session_id": TELEGRAM_ID,
                "role": role,
                "content": content,
                "timestamp": T_CLI + 86400 + n,
            },
        )
    _insert(
        conn,
        "sessions",
        {"id": ARCHIVED_ID, "source": "cli", "started_at": T_CLI + 2 * 86400, "archived": 1},
    )
    _insert(
        conn,
        "messages",
        {
            "session_id": ARCHIVED_ID,
            "role": "user",
            "content": "old",
            "timestamp": T_CLI + 2 * 86400,
        },
    )
    conn.commit()
    conn.close()
    return path


def write_v6(path: Path) -> Path:
    """A version-6 database: a cron session (no cwd, branch, active or archived columns)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(V6)
    _insert(
        conn,
        "sessions",
        {
            "id": CRON_ID,
            "source": "cron",
            "model": "nousresearch/hermes-3",
            "started_at": T_V6,
            "end_reason": "completed",
            "title": "Nightly report",
        },
    )
    rows = [
        {"role": "user", "content": "Summarise yesterday's logs", "timestamp": T_V6},
        {
            "role": "assistant",
            "content": None,
            "reasoning": "Read the log first.",
            "tool_calls": _calls(("call_a", "read_file", {"path": "/var/log/app.log"})),
            "finish_reason": "tool_calls",
            "timestamp": T_V6 + 1,
        },
        {
            "role": "tool",
            "tool_call_id": "call_a",
            "tool_name": "read_file",
            "content": "3 errors",
            "timestamp": T_V6 + 2,
        },
        {
            "role": "assistant",
            "content": "Three errors.",
            "finish_reason": "stop",
            "timestamp": T_V6 + 3,
        },
    ]
    for row in rows:
        _insert(conn, "messages", {"session_id": CRON_ID, **row})
    conn.commit()
    conn.close()
    return path


def jsonl_text() -> str:
    rows: list[dict[str, Any]] = [
        {
            "role": "session_meta",
            "tools": [{"type": "function", "function": {"name": "terminal"}}],
            "model": "nousresearch/hermes-4",
            "platform": "discord",
            "timestamp": T_JSONL,
        },
        {"role": "user", "content": "ping the server", "timestamp": T_JSONL + 1},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_p",
                    "type": "function",
                    "function": {"name": "terminal", "arguments": '{"command": "ping -c1 srv"}'},
                }
            ],
            "finish_reason": "tool_calls",
            "timestamp": T_JSONL + 2,
        },
        {
            "role": "tool",
            "tool_call_id": "call_p",
            "content": "1 packets received",
            "timestamp": T_JSONL + 3,
        },
        {
            "role": "assistant",
            "content": "It answers.",
            "finish_reason": "stop",
            "reasoning": "One packet came back.",
            "timestamp": T_JSONL + 4,
        },
    ]
    return "".join(json.dumps(r) + "\n" for r in rows)


def snapshot_text() -> str:
    return json.dumps(
        {
            "session_id": SNAPSHOT_ID,
            "model": "anthropic/claude-sonnet-4",
            "base_url": "https://example.invalid/v1",
            "platform": "cli",
            "session_start": "2026-02-05T07:00:00+00:00",
            "last_updated": "2026-02-05T07:01:00+00:00",
            "system_prompt": SYSTEM_PROMPT,
            "tools": [],
            "message_count": 2,
            "messages": [
                {"role": "user", "content": "Hello from the snapshot"},
                {"role": "assistant", "content": "Hi."},
            ],
        },
        indent=2,
    )


def write_logs(home: Path) -> None:
    """Both log formats, a log of a session the database holds (the database wins), and the
    files beside them that are not conversation."""
    logs = home / "sessions"
    logs.mkdir(parents=True, exist_ok=True)
    (logs / f"{JSONL_ID}.jsonl").write_text(jsonl_text())
    (logs / f"session_{SNAPSHOT_ID}.json").write_text(snapshot_text())
    stale = json.dumps({"session_id": CLI_ID, "messages": [{"role": "user", "content": "STALE"}]})
    (logs / f"session_{CLI_ID}.json").write_text(stale)
    (logs / "sessions.json").write_text('{"agent:main": {"session_id": "x"}}')
    (logs / "request_dump_20260210_080000.json").write_text('{"messages": [{"content": "DUMP"}]}')


def corrupt(path: Path) -> Path:
    """A database whose pages after the header are overwritten: "database disk image is
    malformed" as soon as a table is read."""
    write_newest(path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for offset in range(page, len(data)):
        data[offset] = 0x5A
    path.write_bytes(bytes(data))
    return path


def write_home(home: Path) -> Path:
    """``~/.hermes``: the newest database, both logs, and a v6 database under a profile."""
    write_newest(home / "state.db")
    write_logs(home)
    write_v6(home / "profiles" / "ops" / "state.db")
    return home


# ----------------------------------------------------------------- what the codec holds exactly

from datetime import UTC, datetime, timedelta  # noqa: E402

from hypothesis import strategies as st  # noqa: E402

from txcript import model as m  # noqa: E402

_START = datetime(2026, 1, 1, tzinfo=UTC)
_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12
)
#: Result text Hermes's own failure signals would read as an error.
_plain_result = _text.filter(lambda t: not t.startswith(("Error executing tool", "[Tool", "{")))
_NOT_RAW = {
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Bash",
    "terminal",
    "read_file",
    "write_file",
    "patch",
}
_inputs = st.dictionaries(st.text(max_size=4), st.integers(0, 9) | _text, max_size=3)
_tools = st.one_of(
    st.builds(
        m.Bash,
        command=_text,
        workdir=st.none() | _text,
        timeout_ms=st.none() | st.integers(0, 10**6),
        description=st.none() | _text,
        run_in_background=st.booleans(),
    ),
    st.builds(
        m.Read,
        file_path=_text,
        offset=st.none() | st.integers(0, 10**4),
        limit=st.none() | st.integers(0, 10**4),
    ),
    st.builds(m.Write, file_path=_text, content=_text),
    st.builds(
        m.Edit, file_path=_text, old_string=_text, new_string=_text, replace_all=st.booleans()
    ),
    st.builds(
        m.Raw,
        tool_name=_text.filter(lambda n: n not in _NOT_RAW and not n.startswith("/")),
        input=_inputs,
    ),
)
_stops = st.none() | st.sampled_from(
    ["end_turn", "tool_use", "max_tokens", "stop_sequence", "aborted", "error"]
)


@st.composite
def conversations(draw: st.DrawFn) -> m.Transcript:
    """What Hermes rows hold exactly: prompts (text, images), assistant turns (one reasoning,
    at most one reply, calls, a finish reason; no per-message model or usage), each call's
    results in one message after it; times to the millisecond."""
    clock = 0
    calls = 0
    messages: list[m.Message] = []

    def at() -> datetime:
        nonlocal clock
        clock += draw(st.integers(1, 10**6))
        return _START + timedelta(milliseconds=clock)

    for _ in range(draw(st.integers(1, 3))):
        prompt: list[m.Block] = [m.Text(t) for t in draw(st.lists(_text, min_size=1, max_size=2))]
        for _ in range(draw(st.integers(0, 1))):
            prompt.append(
                m.Image(m.ImageSource(type="base64", media_type="image/png", data=draw(_text)))
            )
        messages.append(m.Message(role="user", content=tuple(prompt), timestamp=at()))
        for _ in range(draw(st.integers(0, 3))):
            blocks: list[m.Block] = []
            if draw(st.booleans()):
                encrypted = draw(st.none() | _text.filter(lambda t: not t.startswith("[")))
                blocks.append(m.Thinking(draw(_text), encrypted=encrypted))
            if draw(st.booleans()) or not blocks:
                blocks.append(m.Text(draw(_text)))
            results = []
            for _ in range(draw(st.integers(0, 2))):
                calls += 1
                blocks.append(m.ToolUse(id=f"call_{calls}", tool=draw(_tools)))
                failed = draw(st.booleans())
                results.append(
                    m.ToolResult(
                        tool_use_id=f"call_{calls}",
                        content=draw(_text if failed else _plain_result),
                        is_error=failed,
                    )
                )
            messages.append(
                m.Message(
                    role="assistant",
                    content=tuple(blocks),
                    timestamp=at(),
                    stop_reason=draw(_stops),
                )
            )
            if results:
                messages.append(m.Message(role="user", content=tuple(results), timestamp=at()))
    meta = m.Meta(
        id=CLI_ID,
        timestamp=_START,
        cwd=draw(st.none() | st.just(CWD)),
        git_branch=draw(st.none() | st.just("main")),
        title=draw(_text),
        model=draw(st.none() | st.just("anthropic/claude-sonnet-4")),
    )
    return m.Transcript(meta=meta, messages=tuple(messages))
