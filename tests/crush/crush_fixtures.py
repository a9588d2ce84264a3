"""Crush stores built for tests: a global ``projects.json`` and real per-project SQLite databases.

The schema follows Crush's migrations (goose-style ``goose_db_version`` bookkeeping; ``sessions``
and ``messages`` with the triggers that keep ``message_count`` and ``updated_at``), in its first
and its current generation; times are Unix **seconds**, as Crush writes them. Contents invented.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

INITIAL_DDL = """
CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL,
  is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    parent_session_id TEXT,
    title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
    prompt_tokens INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
    completion_tokens INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens >= 0),
    cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0),
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    created_at INTEGER NOT NULL   -- Unix timestamp in milliseconds
);
CREATE TABLE files (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL DEFAULT '[]',
    model TEXT,
    created_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    finished_at INTEGER,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
CREATE INDEX idx_messages_session_id ON messages (session_id);
CREATE TRIGGER update_sessions_updated_at AFTER UPDATE ON sessions
BEGIN UPDATE sessions SET updated_at = strftime('%s', 'now') WHERE id = new.id; END;
CREATE TRIGGER update_messages_updated_at AFTER UPDATE ON messages
BEGIN UPDATE messages SET updated_at = strftime('%s', 'now') WHERE id = new.id; END;
CREATE TRIGGER update_session_message_count_on_insert AFTER INSERT ON messages
BEGIN UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;
CREATE TRIGGER update_session_message_count_on_delete AFTER DELETE ON messages
BEGIN UPDATE sessions SET message_count = message_count - 1 WHERE id = old.session_id; END;
INSERT INTO goose_db_version (version_id, is_applied) VALUES (0, 1), (20250424200609, 1);
"""
CURRENT_DDL = (
    INITIAL_DDL
    + """
ALTER TABLE sessions ADD COLUMN summary_message_id TEXT;
ALTER TABLE sessions ADD COLUMN todos TEXT;
ALTER TABLE messages ADD COLUMN provider TEXT;
ALTER TABLE messages ADD COLUMN is_summary_message INTEGER DEFAULT 0 NOT NULL;
CREATE TABLE read_files (session_id TEXT NOT NULL, path TEXT NOT NULL, read_at INTEGER NOT NULL,
  PRIMARY KEY (path, session_id));
INSERT INTO goose_db_version (version_id, is_applied) VALUES
  (20250515105448, 1), (20250624000000, 1), (20250627000000, 1), (20250810000000, 1),
  (20251117000000, 1), (20251201000000, 1);
"""
)

PROJECT = "/home/dev/shop"
OLD_PROJECT = "/home/dev/legacy"
MAIN_ID = "3c5e7a9b-1d2f-4a6b-8c0d-2e4f6a8b0c1d"
SUB_ID = "toolu_agent_01"
OLD_ID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
SUMMARY_ID = "6e5d4c3b-2a19-4f8e-8d7c-6b5a49382716"
T0 = 1_793_000_000  # 2026-10-26T07:33:20Z, in seconds
MODEL = "claude-sonnet-4-5"


def part(kind: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "data": data}


def parts(*items: dict[str, Any]) -> str:
    return json.dumps(list(items), separators=(",", ":"))


def message(
    ident: str,
    session: str,
    role: str,
    at: int,
    items: list[dict[str, Any]],
    model: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "id": ident,
        "session_id": session,
        "role": role,
        "parts": parts(*items),
        "model": model,
        "created_at": at,
        "updated_at": at,
        "finished_at": at if role == "assistant" else None,
        **extra,
    }


def main_session() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Reasoning, a parallel batch (one call failing), a tool message, two rows in one second."""
    s = MAIN_ID
    rows = [
        message("m1", s, "user", T0, [part("text", text="Why does checkout fail?")]),
        message(
            "m2",
            s,
            "assistant",
            T0 + 2,
            [
                part("reasoning", thinking="Check the tests and the handler.", signature="sig-c"),
                part("text", text="Looking at both."),
                part(
                    "tool_call",
                    id="call_1",
                    name="bash",
                    input='{"command":"go test ./...","description":"Run tests"}',
                    provider_executed=False,
                    finished=True,
                ),
                part(
                    "tool_call",
                    id="call_2",
                    name="view",
                    input=json.dumps(
                        {"file_path": f"{PROJECT}/checkout.go", "offset": 10, "limit": 40}
                    ),
                    provider_executed=False,
                    finished=True,
                ),
                part(
                    "tool_call",
                    id="call_3",
                    name="grep",
                    input='{"pattern":"TODO"}',
                    provider_executed=False,
                    finished=True,
                ),
                part("finish", reason="tool_use", time=T0 + 3),
            ],
            MODEL,
            provider="anthropic",
        ),
        message(
            "m3",
            s,
            "tool",
            T0 + 5,
            [
                part(
                    "tool_result",
                    tool_call_id="call_1",
                    name="bash",
                    content="FAIL checkout",
                    metadata="",
                    is_error=True,
                ),
                part(
                    "tool_result",
                    tool_call_id="call_2",
                    name="view",
                    content="func Checkout() {}",
                    metadata="",
                    is_error=False,
                ),
                part(
                    "tool_result",
                    tool_call_id="call_3",
                    name="grep",
                    content="no matches",
                    metadata="",
                    is_error=False,
                ),
            ],
        ),
        # Same second as m3: Crush's order is then the order rows were inserted.
        message(
            "m4",
            s,
            "assistant",
            T0 + 5,
            [
                part("text", text="The handler returns early."),
                part("finish", reason="end_turn", time=T0 + 6),
            ],
            MODEL,
            provider="anthropic",
        ),
        message("m5", s, "user", T0 + 9, [part("text", text="Thanks"), part("hologram", frames=3)]),
    ]
    session = {
        "id": s,
        "parent_session_id": None,
        "title": "Checkout failure",
        "message_count": 0,
        "prompt_tokens": 900,
        "completion_tokens": 120,
        "cost": 0.02,
        "updated_at": T0 + 9,
        "created_at": T0,
        "summary_message_id": None,
        "todos": None,
    }
    return session, rows


def side_sessions() -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The agent tool's sub-session (id = its call id) and Crush's title session."""
    sub = {
        "id": SUB_ID,
        "parent_session_id": MAIN_ID,
        "title": "Find callers",
        "message_count": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost": 0.0,
        "updated_at": T0 + 4,
        "created_at": T0 + 3,
    }
    title = {**sub, "id": f"title-{MAIN_ID}", "title": "title", "created_at": T0 + 1}
    sub_rows = [
        message("sm1", SUB_ID, "user", T0 + 3, [part("text", text="Who calls Checkout?")]),
        message(
            "sm2",
            SUB_ID,
            "assistant",
            T0 + 4,
            [part("text", text="main.go"), part("finish", reason="end_turn", time=T0 + 4)],
            MODEL,
        ),
    ]
    return [(sub, sub_rows), (title, [])]


def summary_session() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A compacted session: its context starts at the summary message."""
    s = SUMMARY_ID
    rows = [
        message("c1", s, "user", T0 + 100, [part("text", text="old question")]),
        message(
            "c2",
            s,
            "assistant",
            T0 + 101,
            [part("text", text="old answer"), part("finish", reason="end_turn", time=T0 + 101)],
            MODEL,
        ),
        message(
            "c3",
            s,
            "assistant",
            T0 + 102,
            [
                part("text", text="Summary: asked and answered."),
                part("finish", reason="end_turn", time=T0 + 102),
            ],
            MODEL,
            is_summary_message=1,
        ),
        message("c4", s, "user", T0 + 103, [part("text", text="next question")]),
    ]
    session = {
        "id": s,
        "parent_session_id": None,
        "title": "Compacted",
        "message_count": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost": 0.0,
        "updated_at": T0 + 103,
        "created_at": T0 + 100,
        "summary_message_id": "c3",
    }
    return session, rows


def old_session() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A session in the first schema (no provider, summary or todos columns), canceled."""
    s = OLD_ID
    rows = [
        message("o1", s, "user", T0 - 86_400, [part("text", text="Rename the package")]),
        message(
            "o2",
            s,
            "assistant",
            T0 - 86_399,
            [
                part(
                    "tool_call",
                    id="call_9",
                    name="edit",
                    input=json.dumps(
                        {
                            "file_path": f"{OLD_PROJECT}/go.mod",
                            "old_string": "module a",
                            "new_string": "module b",
                        }
                    ),
                    provider_executed=False,
                    finished=True,
                ),
                part("finish", reason="canceled", time=T0 - 86_398),
            ],
            "gpt-4.1",
        ),
    ]
    session = {
        "id": s,
        "parent_session_id": None,
        "title": "Rename",
        "message_count": 0,
        "prompt_tokens": 10,
        "completion_tokens": 2,
        "cost": 0.0,
        "updated_at": T0 - 86_398,
        "created_at": T0 - 86_400,
    }
    return session, rows


def build_db(
    path: Path, ddl: str, sessions: list[tuple[dict[str, Any], list[dict[str, Any]]]]
) -> Path:
    """A database laid out by ``ddl`` holding ``sessions``, each session row as Crush's triggers
    leave it (its message count, its last update) but with fixed values: the messages go in first,
    so no trigger stamps the session with the time the test ran."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(ddl)
    conn.execute("PRAGMA journal_mode=WAL")
    for session, rows in sessions:
        for row in rows:
            conn.execute(
                f"INSERT INTO messages ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})",
                list(row.values()),
            )
        counted = {**session, "message_count": len(rows)}
        conn.execute(
            f"INSERT INTO sessions ({', '.join(counted)}) VALUES "
            f"({', '.join('?' for _ in counted)})",
            list(counted.values()),
        )
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def write_projects(root: Path, entries: list[dict[str, Any]]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "projects.json").write_text(json.dumps({"projects": entries}, indent=2))


def build_current(root: Path, projects_root: Path | None = None) -> Path:
    """A project with the current schema: the main session, its side sessions, a compacted one.
    ``root`` is the global data dir; the project lives under ``projects_root`` (default:
    ``root/work``) so a test can hand its own directory."""
    base = projects_root or root / "work"
    project = base / PROJECT.lstrip("/")
    database = build_db(
        project / ".crush" / "crush.db",
        CURRENT_DDL,
        [main_session(), *side_sessions(), summary_session()],
    )
    write_projects(
        root,
        [
            {
                "path": str(project),
                "data_dir": str(project / ".crush"),
                "last_accessed": "2026-10-26T09:00:00Z",
            }
        ],
    )
    return database


def build_initial(root: Path) -> Path:
    """A project whose database is still in Crush's first schema, listed with a relative
    ``data_dir``."""
    project = root / "work" / OLD_PROJECT.lstrip("/")
    database = build_db(project / ".crush" / "crush.db", INITIAL_DDL, [old_session()])
    write_projects(
        root,
        [{"path": str(project), "data_dir": ".crush", "last_accessed": "2026-10-25T09:00:00Z"}],
    )
    return database


def build_empty(root: Path, project: Path, data_dir: Path | None = None) -> Path:
    """A project Crush has run in once (migrated, no sessions): where a copy can be written.
    ``data_dir`` (default ``<project>/.crush``) is where its database lives."""
    data_dir = data_dir or project / ".crush"
    database = build_db(data_dir / "crush.db", CURRENT_DDL, [])
    entries = []
    index = root / "projects.json"
    if index.exists():
        entries = json.loads(index.read_text())["projects"]
    entries.append(
        {
            "path": str(project),
            "data_dir": str(data_dir),
            "last_accessed": "2026-11-01T00:00:00Z",
        }
    )
    write_projects(root, entries)
    return database
