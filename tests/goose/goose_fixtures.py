"""Goose stores built for tests: a real ``sessions.db`` in two schema generations, and the older
``sessions/<name>.jsonl`` files.

The schema follows Goose's session manager as the spec describes it (version 13: ``name``,
``session_type``, token and accumulated columns, ``model_config_json``, ``archived_at``; an early
version with ``description`` and few columns); contents are invented.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

CURRENT_DDL = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY,
  applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT,
    provider_name TEXT, model_config_json TEXT, goose_mode TEXT, thread_id TEXT,
    archived_at TIMESTAMP, project_id TEXT, accumulated_cost REAL
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER,
    metadata_json TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE TABLE threads (id TEXT PRIMARY KEY, name TEXT, created_at TIMESTAMP);
CREATE TABLE thread_messages (thread_id TEXT, message_id INTEGER);
CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, model TEXT,
  input_tokens INTEGER, output_tokens INTEGER, cost REAL, is_compaction INTEGER);
INSERT INTO schema_version (version) VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10),
  (11), (12), (13);
"""
EARLY_DDL = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY,
  applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO schema_version (version) VALUES (1), (2), (3);
"""

MAIN_ID = "20261103_2"
EARLY_ID = "20251020_1"
HIDDEN_ID = "20261103_3"
LEGACY_NAME = "refactor-notes"
MIGRATED_NAME = "20250301_1"  # a JSONL file Goose already imported into its database
T0 = 1_793_700_000  # 2026-11-03T10:00:00Z
CWD = "/home/dev/api"
MODEL_CONFIG = json.dumps({"model_name": "gpt-4o", "context_limit": 128000, "temperature": None})
VISIBLE = json.dumps({"userVisible": True, "agentVisible": True})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def request(ident: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "toolRequest",
        "id": ident,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
    }


def response(ident: str, content: Any, *, is_error: bool = False) -> dict[str, Any]:
    value: dict[str, Any] = {"content": content}
    if is_error:
        value["isError"] = True
    return {
        "type": "toolResponse",
        "id": ident,
        "toolResult": {"status": "success", "value": value},
    }


def main_messages() -> list[tuple[str, list[dict[str, Any]], int, str]]:
    """(role, content, seconds after T0, metadata): reasoning, two calls at once (one failing
    through isError, one through an error status), a compacted-away exchange, app notices, and
    one content type no Goose writes."""
    hidden = json.dumps({"userVisible": True, "agentVisible": False})
    return [
        ("user", [text("old question")], 0, hidden),
        ("assistant", [text("old answer")], 1, hidden),
        ("user", [text("Add a health endpoint")], 10, VISIBLE),
        (
            "assistant",
            [
                {"type": "thinking", "thinking": "Look at the router first.", "signature": "sig-g"},
                text("Checking the routes."),
                request("call_a", "developer__shell", {"command": "rg -n route src"}),
                request(
                    "call_b",
                    "developer__text_editor",
                    {"command": "view", "path": f"{CWD}/src/app.py"},
                ),
            ],
            12,
            VISIBLE,
        ),
        (
            "user",
            [
                response("call_a", [text("rg: src: No such file")], is_error=True),
                {
                    "type": "toolResponse",
                    "id": "call_b",
                    "toolResult": {"status": "error", "error": "-32603: file not found"},
                },
            ],
            14,
            VISIBLE,
        ),
        (
            "assistant",
            [
                request(
                    "call_c",
                    "developer__text_editor",
                    {"command": "write", "path": f"{CWD}/app.py", "file_text": "app = 1\n"},
                ),
            ],
            16,
            VISIBLE,
        ),
        (
            "user",
            [
                {
                    "type": "toolConfirmationRequest",
                    "id": "call_c",
                    "toolName": "developer__text_editor",
                },
                response(
                    "call_c",
                    [text("wrote app.py"), {"type": "resource", "resource": {"uri": "file:///x"}}],
                ),
            ],
            18,
            VISIBLE,
        ),
        ("assistant", [text("Added."), {"type": "hologram", "frames": 2}], 20, VISIBLE),
    ]


def _insert(conn: sqlite3.Connection, table: str, row: dict[str, Any]) -> None:
    """Insert ``row``, giving the columns whose default is the current time a fixed value (the
    session's creation; the message's own time), so every build holds the same bytes."""
    row = dict(row)
    if table == "sessions":
        row.setdefault("updated_at", row.get("created_at"))
    elif "created_timestamp" in row:
        moment = datetime.fromtimestamp(row["created_timestamp"], tz=UTC)
        row.setdefault("timestamp", f"{moment:%Y-%m-%d %H:%M:%S}")
    conn.execute(
        f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})",
        list(row.values()),
    )


def build_current(root: Path) -> Path:
    """``root`` is the data directory; the database is ``root/sessions/sessions.db``."""
    database = root / "sessions" / "sessions.db"
    database.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(database)
    conn.executescript(CURRENT_DDL)
    _insert(
        conn,
        "sessions",
        {
            "id": MAIN_ID,
            "name": "Health endpoint",
            "user_set_name": 0,
            "session_type": "user",
            "working_dir": CWD,
            "created_at": "2026-11-03 10:00:00",
            "updated_at": "2026-11-03 10:00:20",
            "extension_data": "{}",
            "total_tokens": 90,
            "input_tokens": 70,
            "output_tokens": 20,
            "accumulated_total_tokens": 400,
            "accumulated_input_tokens": 320,
            "accumulated_output_tokens": 80,
            "provider_name": "openai",
            "model_config_json": MODEL_CONFIG,
            "goose_mode": "auto",
        },
    )
    for number, (role, content, offset, metadata) in enumerate(main_messages()):
        _insert(
            conn,
            "messages",
            {
                "message_id": f"msg_{number}",
                "session_id": MAIN_ID,
                "role": role,
                "content_json": json.dumps(content),
                "created_timestamp": T0 + offset,
                "metadata_json": metadata,
            },
        )
    _insert(
        conn,
        "sessions",
        {
            "id": HIDDEN_ID,
            "name": "",
            "session_type": "hidden",
            "working_dir": CWD,
            "created_at": "2026-11-03 10:30:00",
        },
    )
    _insert(
        conn,
        "sessions",
        {
            "id": MIGRATED_NAME,
            "name": "imported",
            "working_dir": CWD,
            "created_at": "2025-03-01 08:00:00",
        },
    )
    _insert(
        conn,
        "messages",
        {
            "message_id": "msg_imported",
            "session_id": MIGRATED_NAME,
            "role": "user",
            "content_json": json.dumps([text("hello")]),
            "created_timestamp": 1_740_816_000,
            "metadata_json": VISIBLE,
        },
    )
    conn.commit()
    conn.close()
    return database


def build_early(root: Path) -> Path:
    """An early schema: ``description`` is the title, no type, model or visibility columns."""
    database = root / "sessions" / "sessions.db"
    database.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(database)
    conn.executescript(EARLY_DDL)
    _insert(
        conn,
        "sessions",
        {
            "id": EARLY_ID,
            "description": "Bump deps",
            "working_dir": CWD,
            "created_at": "2025-10-20 07:00:00",
        },
    )
    for role, content, offset in (
        ("user", [text("bump the deps")], 0),
        ("assistant", [request("c1", "developer__shell", {"command": "uv lock --upgrade"})], 5),
        ("user", [response("c1", [text("Resolved 40 packages")])], 9),
    ):
        _insert(
            conn,
            "messages",
            {
                "session_id": EARLY_ID,
                "role": role,
                "content_json": json.dumps(content),
                "created_timestamp": 1_760_943_600 + offset,
            },
        )
    conn.commit()
    conn.close()
    return database


def build_empty(root: Path, ddl: str = CURRENT_DDL) -> Path:
    """A database Goose created and migrated (to ``ddl``), holding no session: where a copy is
    written."""
    database = root / "sessions" / "sessions.db"
    database.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(database)
    conn.executescript(ddl)
    conn.commit()
    conn.close()
    return database


def legacy_lines() -> list[dict[str, Any]]:
    return [
        {
            "working_dir": "/home/dev/old",
            "description": "Refactor notes",
            "schedule_id": None,
            "message_count": 3,
            "total_tokens": 210,
        },
        {"id": "m1", "role": "user", "created": 1_740_000_000, "content": [text("Split utils.py")]},
        {
            "role": "assistant",
            "created": 1_740_000_004,
            "content": [
                request(
                    "t1",
                    "developer__text_editor",
                    {
                        "command": "str_replace",
                        "path": "/home/dev/old/utils.py",
                        "old_str": "def a",
                        "new_str": "def b",
                    },
                )
            ],
        },
        {"role": "user", "created": 1_740_000_006, "content": [response("t1", [text("ok")])]},
    ]


def build_legacy(root: Path) -> Path:
    """The older JSONL generation, beside a JSONL file Goose already imported (and no database,
    or with one: ``build_current`` first)."""
    directory = root / "sessions"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{LEGACY_NAME}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in legacy_lines()))
    imported = [
        {"working_dir": CWD, "description": "imported"},
        {"role": "user", "created": 1_740_800_000, "content": [text("hello")]},
    ]
    (directory / f"{MIGRATED_NAME}.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in imported)
    )
    return path
