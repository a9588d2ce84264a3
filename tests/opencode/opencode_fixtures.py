"""OpenCode stores built for tests: real SQLite databases and real file trees, one per generation.

Shapes follow the observed formats (column lists, migration tables, part types); the contents are
invented. Every credential table holds :data:`SENTINELS`, which must never appear in any output.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from txcript import model as m

SENTINELS = (
    "SENTINEL-ACCESS-7f3a",
    "SENTINEL-REFRESH-91bc",
    "SENTINEL-CONTROL-44de",
    "SENTINEL-CREDENTIAL-0a1b",
    "SENTINEL-SHARE-SECRET-c9d8",
)

OLD_SESSION_COLUMNS = (
    "id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL, "
    "directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, "
    "summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER, "
    "summary_diffs TEXT, revert TEXT, permission TEXT, time_created INTEGER NOT NULL, "
    "time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER, "
    "workspace_id TEXT"
)
NEW_SESSION_COLUMNS = (
    OLD_SESSION_COLUMNS + ", path TEXT, agent TEXT, model TEXT, cost REAL, tokens_input INTEGER, "
    "tokens_output INTEGER, tokens_reasoning INTEGER, tokens_cache_read INTEGER, "
    "tokens_cache_write INTEGER, metadata TEXT"
)
_ROW_TABLES = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, sandboxes TEXT NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL
  REFERENCES session(id) ON DELETE CASCADE, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_idx ON message (session_id);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL
  REFERENCES message(id) ON DELETE CASCADE, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX part_message_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE TABLE todo (session_id TEXT NOT NULL, content TEXT NOT NULL, status TEXT NOT NULL,
  priority TEXT NOT NULL, position INTEGER NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL);
CREATE TABLE permission (project_id TEXT PRIMARY KEY, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE session_share (session_id TEXT PRIMARY KEY, id TEXT NOT NULL, secret TEXT NOT NULL,
  url TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
"""
CURRENT_DDL = f"""
CREATE TABLE migration (id TEXT PRIMARY KEY, time_completed INTEGER);
CREATE TABLE session ({NEW_SESSION_COLUMNS});
{_ROW_TABLES}
CREATE TABLE event (id TEXT PRIMARY KEY, aggregate_id TEXT NOT NULL, seq INTEGER NOT NULL,
  type TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE event_sequence (aggregate_id TEXT PRIMARY KEY, seq INTEGER NOT NULL,
  owner_id TEXT);
CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL,
  seq INTEGER);
CREATE TABLE workspace (id TEXT PRIMARY KEY, project_id TEXT, data TEXT);
CREATE TABLE account (id TEXT PRIMARY KEY, email TEXT, access_token TEXT NOT NULL,
  refresh_token TEXT NOT NULL);
CREATE TABLE control_account (id TEXT PRIMARY KEY, access_token TEXT NOT NULL);
CREATE TABLE credential (id TEXT PRIMARY KEY, provider TEXT NOT NULL, value TEXT NOT NULL);
"""
OLD_DDL = f"""
CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY, hash TEXT NOT NULL,
  created_at NUMERIC, name TEXT, applied_at TEXT);
CREATE TABLE session ({OLD_SESSION_COLUMNS});
{_ROW_TABLES}
"""

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z in ms


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def insert_credentials(conn: sqlite3.Connection) -> None:
    access, refresh, control, credential, _secret = SENTINELS
    conn.execute("INSERT INTO account VALUES ('acc_1', 'dev@example.com', ?, ?)", (access, refresh))
    conn.execute("INSERT INTO control_account VALUES ('ctl_1', ?)", (control,))
    conn.execute("INSERT INTO credential VALUES ('cred_1', 'anthropic', ?)", (credential,))


def insert_share(conn: sqlite3.Connection, session_id: str) -> None:
    conn.execute(
        "INSERT INTO session_share VALUES (?, 'shr_1', ?, 'https://opncd.ai/s/x', ?, ?)",
        (session_id, SENTINELS[4], T0, T0),
    )


def insert_session(conn: sqlite3.Connection, session: dict[str, Any]) -> None:
    row = dict(session["row"])
    columns = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    conn.execute(f"INSERT INTO session ({columns}) VALUES ({marks})", list(row.values()))
    for message in session["messages"]:
        info = dict(message["info"])
        message_id = info.pop("id")
        created = info["time"]["created"]
        conn.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (message_id, row["id"], created, created, dumps(info)),
        )
        for part in message["parts"]:
            data = dict(part)
            part_id = data.pop("id")
            conn.execute(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                (part_id, message_id, row["id"], created, created, dumps(data)),
            )


def insert_events(conn: sqlite3.Connection, session: dict[str, Any]) -> None:
    """Event-sourcing rows that duplicate the message/part rows (readers must ignore them)."""
    session_id = session["row"]["id"]
    seq = 0
    for message in session["messages"]:
        for part in message["parts"]:
            seq += 1
            conn.execute(
                "INSERT INTO event VALUES (?, ?, ?, 'message.part.updated.1', ?)",
                (f"evt_{session_id}_{seq}", session_id, seq, dumps({"part": part})),
            )
    conn.execute("INSERT INTO event_sequence VALUES (?, ?, NULL)", (session_id, seq))


def build_db(
    path: Path,
    ddl: str,
    committed: list[dict[str, Any]],
    in_wal: list[dict[str, Any]] = (),  # type: ignore[assignment]
    *,
    credentials: bool = True,
    events: bool = True,
) -> Path:
    """A WAL database at ``path``: ``committed`` sessions checkpointed into the main file and
    ``in_wal`` sessions only in a ``-wal`` beside it (no ``-shm``, as a closed app leaves it)."""
    build = path.parent / f".build-{path.name}"
    build.mkdir(parents=True)
    db = build / path.name
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(ddl)
    if "migration (" in ddl:
        conn.execute("INSERT INTO migration VALUES ('20260301000000_events', ?)", (T0,))
    else:
        conn.execute(
            "INSERT INTO __drizzle_migrations VALUES (1, 'abc', 1700000000000, "
            "'0000_init', '2025-12-01')"
        )
    if credentials and "account" in ddl:
        insert_credentials(conn)
    for session in committed:
        insert_session(conn, session)
        if events and "event" in ddl:
            insert_events(conn, session)
    if committed:
        insert_share(conn, committed[0]["row"]["id"])
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    for session in in_wal:
        insert_session(conn, session)
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(db, path)
    if in_wal:
        shutil.copyfile(str(db) + "-wal", str(path) + "-wal")
    conn.close()
    shutil.rmtree(build)
    return path


def snapshot(directory: Path) -> dict[str, str]:
    """Every file under ``directory`` (relative path → sha256), for byte-identity checks."""
    out = {}
    for base, _dirs, names in os.walk(directory):
        for name in names:
            full = Path(base, name)
            out[str(full.relative_to(directory))] = hashlib.sha256(full.read_bytes()).hexdigest()
    return out


# ------------------------------------------------------------------------------- sessions

MAIN_ID = "ses_4a1b2c3d4e5fAbCdEfGhIjKlMn"
UNTITLED_ID = "ses_4a1b2c3d4e60AbCdEfGhIjKlMo"
OLD_ID = "ses_3f00aa11bb22OldSchemaSess01"
CHANNEL_ID = "ses_3f00aa11bb23ChannelSess001"
IMAGE = "iVBORw0KGgoAAAANSUhEUg=="


def current_session_row(session_id: str, title: str, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": session_id,
        "project_id": "global",
        "parent_id": None,
        "slug": "brave-otter",
        "directory": "/work/repo",
        "title": title,
        "version": "1.14.2",
        "share_url": None,
        "summary_additions": 3,
        "summary_deletions": 1,
        "summary_files": 1,
        "summary_diffs": None,
        "revert": None,
        "permission": None,
        "time_created": T0,
        "time_updated": T0 + 9000,
        "time_compacting": None,
        "time_archived": None,
        "workspace_id": None,
        "path": "repo",
        "agent": "build",
        "model": dumps({"id": "claude-sonnet-4-5", "providerID": "anthropic"}),
        "cost": 0.0123,
        "tokens_input": 130,
        "tokens_output": 33,
        "tokens_reasoning": 5,
        "tokens_cache_read": 50,
        "tokens_cache_write": 0,
        "metadata": None,
    }
    row.update(extra)
    return row


def _assistant(message_id: str, parent: str, created: int, **extra: Any) -> dict[str, Any]:
    info: dict[str, Any] = {
        "id": message_id,
        "role": "assistant",
        "time": {"created": created, "completed": created + 4000},
        "parentID": parent,
        "modelID": "claude-sonnet-4-5",
        "providerID": "anthropic",
        "mode": "build",
        "agent": "build",
        "path": {"cwd": "/work/repo", "root": "/work/repo"},
        "cost": 0.0123,
        "tokens": {"input": 130, "output": 33, "reasoning": 5, "cache": {"read": 50, "write": 0}},
    }
    info.update(extra)
    return info


def main_session() -> dict[str, Any]:
    """Current schema: a user prompt with an image, a three-step loop, an error-only reply."""
    user = {
        "id": "msg_a00000000001AAAAAAAAAAAAAA",
        "role": "user",
        "time": {"created": T0 + 1000},
        "agent": "build",
        "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"},
    }
    user_parts = [
        {"id": "prt_a00000000001AAAAAAAAAAAAA1", "type": "text", "text": "fix the failing test"},
        {
            "id": "prt_a00000000001AAAAAAAAAAAAA2",
            "type": "file",
            "mime": "image/png",
            "filename": "screen.png",
            "url": f"data:image/png;base64,{IMAGE}",
        },
    ]
    t = T0 + 2000
    assistant = _assistant(
        "msg_a00000000002AAAAAAAAAAAAAA", user["id"], t, finish="stop", summary=False
    )
    tokens1 = {"input": 100, "output": 20, "reasoning": 5, "cache": {"read": 50, "write": 0}}
    tokens2 = {"input": 20, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}}
    tokens3 = {"input": 10, "output": 8, "reasoning": 0, "cache": {"read": 0, "write": 7}}
    parts = [
        {"id": "prt_a00000000002AAAAAAAAAAAA01", "type": "step-start"},
        {
            "id": "prt_a00000000002AAAAAAAAAAAA02",
            "type": "reasoning",
            "text": "The test probably fails on an off-by-one.",
            "metadata": {"anthropic": {"signature": "sig-abc"}},
            "time": {"start": t + 100, "end": t + 200},
        },
        {
            "id": "prt_a00000000002AAAAAAAAAAAA03",
            "type": "text",
            "text": "Let me run the tests.",
            "time": {"start": t + 200, "end": t + 300},
        },
        {
            "id": "prt_a00000000002AAAAAAAAAAAA04",
            "type": "tool",
            "callID": "toolu_01",
            "tool": "bash",
            "state": {
                "status": "completed",
                "input": {"command": "pytest -q", "description": "Run the tests"},
                "output": "1 failed, 3 passed",
                "title": "pytest -q",
                "metadata": {"exit": 1},
                "time": {"start": t + 300, "end": t + 900},
            },
        },
        {
            "id": "prt_a00000000002AAAAAAAAAAAA05",
            "type": "tool",
            "callID": "toolu_02",
            "tool": "read",
            "state": {
                "status": "completed",
                "input": {"filePath": "/work/repo/calc.py", "offset": 1, "limit": 20},
                "output": "def total(n):\n    return sum(range(n + 1))",
                "title": "calc.py",
                "metadata": {},
                "time": {"start": t + 310, "end": t + 950},
            },
        },
        {
            "id": "prt_a00000000002AAAAAAAAAAAA06",
            "type": "step-finish",
            "reason": "tool-calls",
            "cost": 0.01,
            "tokens": tokens1,
        },
        {"id": "prt_a00000000002AAAAAAAAAAAA07", "type": "snapshot", "snapshot": "abc123"},
        {"id": "prt_a00000000002AAAAAAAAAAAA08", "type": "step-start"},
        {
            "id": "prt_a00000000002AAAAAAAAAAAA09",
            "type": "tool",
            "callID": "toolu_03",
            "tool": "edit",
            "state": {
                "status": "error",
                "input": {
                    "filePath": "/work/repo/calc.py",
                    "oldString": "n + 1",
                    "newString": "n",
                },
                "error": "oldString not found in content",
                "time": {"start": t + 1500, "end": t + 1600},
            },
        },
        {
            "id": "prt_a00000000002AAAAAAAAAAAA10",
            "type": "tool",
            "callID": "toolu_04",
            "tool": "glob",
            "state": {"status": "running", "input": {"pattern": "**/*.py"}, "time": {"start": t}},
        },
        {
            "id": "prt_a00000000002AAAAAAAAAAAA11",
            "type": "step-finish",
            "reason": "tool-calls",
            "cost": 0.001,
            "tokens": tokens2,
        },
        {"id": "prt_a00000000002AAAAAAAAAAAA12", "type": "patch", "hash": "h", "files": []},
        {"id": "prt_a00000000002AAAAAAAAAAAA13", "type": "step-start"},
        {
            "id": "prt_a00000000002AAAAAAAAAAAA14",
            "type": "text",
            "text": "Fixed the off-by-one.",
            "time": {"start": t + 3000, "end": t + 3500},
        },
        {
            "id": "prt_a00000000002AAAAAAAAAAAA15",
            "type": "step-finish",
            "reason": "stop",
            "cost": 0.001,
            "tokens": tokens3,
        },
    ]
    failed = _assistant(
        "msg_a00000000003AAAAAAAAAAAAAA",
        user["id"],
        T0 + 8000,
        error={"name": "APIError", "data": {"message": "rate limited", "isRetryable": True}},
    )
    return {
        "row": current_session_row(MAIN_ID, "Fix the parser"),
        "messages": [
            {"info": user, "parts": user_parts},
            {"info": assistant, "parts": parts},
            {"info": failed, "parts": []},
        ],
    }


def untitled_session() -> dict[str, Any]:
    user = {
        "id": "msg_b00000000001BBBBBBBBBBBBBB",
        "role": "user",
        "time": {"created": T0 + 60_000},
        "agent": "build",
        "model": {"providerID": "openai", "modelID": "gpt-5"},
    }
    part = {"id": "prt_b00000000001BBBBBBBBBBBBB1", "type": "text", "text": "hello"}
    row = current_session_row(
        UNTITLED_ID,
        "New session - 2026-01-01T00:01:00.000Z",
        time_created=T0 + 60_000,
        time_updated=T0 + 60_000,
        model=None,
        directory="/work/other",
    )
    return {"row": row, "messages": [{"info": user, "parts": [part]}]}


def old_session(session_id: str = OLD_ID, title: str = "Old schema session") -> dict[str, Any]:
    """1.2.x: 19 session columns; an assistant message holding only an error and no parts."""
    row = current_session_row(session_id, title, time_created=T0 - 86_400_000)
    for column in (
        "path",
        "agent",
        "model",
        "cost",
        "tokens_input",
        "tokens_output",
        "tokens_reasoning",
        "tokens_cache_read",
        "tokens_cache_write",
        "metadata",
    ):
        del row[column]
    row["version"] = "1.2.10"
    start = T0 - 86_400_000
    user = {
        "id": f"msg_c0000000000{session_id[-1]}CCCCCCCCCCCCCC",
        "role": "user",
        "time": {"created": start + 1000},
        "agent": "build",
        "model": {"providerID": "anthropic", "modelID": "claude-opus-4"},
    }
    text = {"id": f"prt_c0000000000{session_id[-1]}CCCCCCCCCCCCC1", "type": "text", "text": "hi"}
    failed = _assistant(
        f"msg_c0000000000{session_id[-1]}CCCCCCCCCCCCCD",
        user["id"],
        start + 2000,
        modelID="claude-opus-4",
        error={"name": "APIError", "data": {"message": "overloaded"}},
    )
    return {
        "row": row,
        "messages": [{"info": user, "parts": [text]}, {"info": failed, "parts": []}],
    }


# --------------------------------------------------------------------------- file stores


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))


FILES_ID = "ses_2e00aa11bb22FileStoreSess1"
OLDEST_ID = "ses_1d00aa11bb22OldestLayout01"


def storage_layout(root: Path, session_id: str = FILES_ID, title: str = "File store") -> None:
    """``storage/session/<project>/<ses>.json`` + ``storage/message`` + ``storage/part``."""
    start = T0 - 2 * 86_400_000
    write_json(
        root / "storage" / "session" / "a1b2c3" / f"{session_id}.json",
        {
            "id": session_id,
            "version": "0.15.0",
            "projectID": "a1b2c3",
            "directory": "/work/files",
            "title": title,
            "time": {"created": start, "updated": start + 5000},
        },
    )
    user_id, reply_id = "msg_d00000000001DDDDDDDDDDDDDD", "msg_d00000000002DDDDDDDDDDDDDD"
    write_json(
        root / "storage" / "message" / session_id / f"{user_id}.json",
        {"id": user_id, "sessionID": session_id, "role": "user", "time": {"created": start + 1}},
    )
    write_json(
        root / "storage" / "message" / session_id / f"{reply_id}.json",
        {
            "id": reply_id,
            "sessionID": session_id,
            "role": "assistant",
            "time": {"created": start + 2, "completed": start + 3},
            "modelID": "claude-3-7-sonnet",
            "providerID": "anthropic",
            "path": {"cwd": "/work/files", "root": "/work/files"},
            "tokens": {"input": 9, "output": 4, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "finish": "stop",
        },
    )
    write_json(
        root / "storage" / "part" / user_id / "prt_d00000000001DDDDDDDDDDDDD1.json",
        {
            "id": "prt_d00000000001DDDDDDDDDDDDD1",
            "messageID": user_id,
            "sessionID": session_id,
            "type": "text",
            "text": "list the files",
        },
    )
    write_json(
        root / "storage" / "part" / reply_id / "prt_d00000000002DDDDDDDDDDDDD1.json",
        {
            "id": "prt_d00000000002DDDDDDDDDDDDD1",
            "messageID": reply_id,
            "sessionID": session_id,
            "type": "text",
            "text": "a.txt and b.txt",
        },
    )


def oldest_layout(root: Path) -> None:
    """0.5.x: ``project/<project>/storage/session/{info,message,part}``."""
    base = root / "project" / "global" / "storage" / "session"
    start = T0 - 3 * 86_400_000
    write_json(
        base / "info" / f"{OLDEST_ID}.json",
        {
            "id": OLDEST_ID,
            "version": "0.5.2",
            "title": "Oldest layout",
            "time": {"created": start, "updated": start + 10},
        },
    )
    user_id, reply_id = "msg_e00000000001EEEEEEEEEEEEEE", "msg_e00000000002EEEEEEEEEEEEEE"
    write_json(
        base / "message" / OLDEST_ID / f"{user_id}.json",
        {"id": user_id, "sessionID": OLDEST_ID, "role": "user", "time": {"created": start + 1}},
    )
    write_json(
        base / "message" / OLDEST_ID / f"{reply_id}.json",
        {
            "id": reply_id,
            "sessionID": OLDEST_ID,
            "role": "assistant",
            "system": ["You are opencode."],
            "time": {"created": start + 2},
            "modelID": "claude-3-5-sonnet",
            "providerID": "anthropic",
            "path": {"cwd": "/work/oldest", "root": "/work/oldest"},
            "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "error": {"name": "UnknownError", "data": {"message": "boom"}},
        },
    )
    write_json(
        base / "part" / OLDEST_ID / user_id / "prt_e00000000001EEEEEEEEEEEEE1.json",
        {
            "id": "prt_e00000000001EEEEEEEEEEEEE1",
            "type": "text",
            "text": "hello from 0.5",
            "messageID": user_id,
            "sessionID": OLDEST_ID,
        },
    )
    (root / "storage").mkdir(exist_ok=True)
    (root / "storage" / "migration").write_text("1")


def every_generation(data: Path) -> Path:
    """An OpenCode data dir holding every generation at once: the old database, a stable-channel
    database, the file layout and the oldest file layout."""
    build_db(data / "opencode.db", OLD_DDL, [old_session()])
    build_db(data / "opencode-stable.db", OLD_DDL, [], [old_session(CHANNEL_ID, "From stable")])
    storage_layout(data)
    oldest_layout(data)
    return data


# ------------------------------------------------- the representable subset (hypothesis)

START = datetime(2026, 3, 1, tzinfo=UTC)

_texts = st.text(min_size=0, max_size=30)
_paths = st.text(min_size=1, max_size=20)
_tools = st.one_of(
    st.builds(
        m.Bash,
        command=_texts,
        description=st.none() | _texts,
        timeout_ms=st.none() | st.integers(0, 10**9),
    ),
    st.builds(
        m.Read,
        file_path=_paths,
        offset=st.none() | st.integers(0, 10**6),
        limit=st.none() | st.integers(0, 10**6),
    ),
    st.builds(
        m.Edit, file_path=_paths, old_string=_texts, new_string=_texts, replace_all=st.booleans()
    ),
    st.builds(m.Write, file_path=_paths, content=_texts),
    st.builds(
        m.Raw,
        tool_name=st.text(min_size=1, max_size=10).filter(
            lambda n: n not in {"bash", "read", "edit", "write"}
        ),
        input=st.dictionaries(st.text(max_size=5), st.integers() | _texts, max_size=3),
    ),
)
_stops = st.none() | st.sampled_from(sorted(m.STOP_REASONS))
_usages = st.none() | st.builds(
    m.Usage,
    input_tokens=st.integers(1, 10**9),
    output_tokens=st.integers(0, 10**9),
    cache_read_input_tokens=st.none() | st.integers(1, 10**6),
    cache_creation_input_tokens=st.none() | st.integers(1, 10**6),
)
_content = st.one_of(
    st.builds(m.Text, text=_texts),
    st.builds(m.Thinking, text=_texts, signature=st.none() | _texts, encrypted=st.none() | _texts),
)


@st.composite
def conversations(draw: st.DrawFn) -> m.Transcript:
    """Shapes OpenCode groups as it writes them: a user turn, then assistant turns each followed
    by the results of its calls (stamped later), every turn non-empty and in time order."""
    clock = 0
    calls = 0
    messages: list[m.Message] = []
    model = draw(st.sampled_from(["claude-sonnet-4-5", "gpt-5"]))
    for _ in range(draw(st.integers(1, 3))):
        clock += draw(st.integers(1, 5000))
        user = draw(st.lists(st.builds(m.Text, text=_texts), min_size=1, max_size=2))
        messages.append(
            m.Message(
                role="user", content=tuple(user), timestamp=START + timedelta(milliseconds=clock)
            )
        )
        for _ in range(draw(st.integers(1, 3))):
            clock += draw(st.integers(1, 5000))
            blocks: list[m.Block] = [draw(_content)]
            results: list[m.Block] = []
            for _ in range(draw(st.integers(0, 2))):
                calls += 1
                call_id = f"call_{calls}"
                blocks.append(m.ToolUse(id=call_id, tool=draw(_tools)))
                if draw(st.booleans()):
                    results.append(
                        m.ToolResult(
                            tool_use_id=call_id, content=draw(_texts), is_error=draw(st.booleans())
                        )
                    )
            when = START + timedelta(milliseconds=clock)
            messages.append(
                m.Message(
                    role="assistant",
                    content=tuple(blocks),
                    timestamp=when,
                    model=model,
                    stop_reason=draw(_stops),
                    usage=draw(_usages),
                )
            )
            if results:
                clock += draw(st.integers(1, 5000))
                messages.append(
                    m.Message(
                        role="user",
                        content=tuple(results),
                        timestamp=START + timedelta(milliseconds=clock),
                    )
                )
    meta = m.Meta(
        id=MAIN_ID,
        timestamp=START,
        cwd=draw(st.none() | st.just("/work/repo")),
        title=draw(
            st.none()
            | st.text(min_size=1, max_size=20).filter(lambda t: not t.startswith("New session - "))
        ),
        cli_version=draw(st.none() | st.just("1.14.2")),
        model=draw(st.none() | st.just(model)),
    )
    return m.Transcript(meta=meta, messages=tuple(messages))
