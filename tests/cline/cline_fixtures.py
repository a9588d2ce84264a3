"""Cline, Roo and Kilo stores built for tests: real task directories, real ``state.vscdb`` and
``kilo.db`` databases, laid out under a home directory as the editors and CLIs lay them out.

Shapes follow the spec (harness-formats-2 §20); the conversations are invented. ``T0`` is
2026-03-01T10:00:00Z in epoch milliseconds.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

T0 = 1_772_359_200_000
CLINE_EXT = "saoudrizwan.claude-dev"
ROO_EXT = "rooveterinaryinc.roo-cline"
KILO_EXT = "kilocode.kilo-code"

XML_TASK = "1772359200000"
NATIVE_TASK = "1772445600000"
SDK_SESSION = "1772532000000_k3x9q"
ROO_TASK = "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
ROO_ITEM_TASK = "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a6c"
KILO_TASK = "4c1f8f0e-9a2b-4c3d-8e7f-112233445566"
KILO_SESSION = "ses_39d0c1a2b3c4KiloSessionAbCd"

STATE_DDL = "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def user_dir(home: Path, editor: str = "Code") -> Path:
    return home / ".config" / editor / "User"


def storage(home: Path, extension: str, editor: str = "Code") -> Path:
    return user_dir(home, editor) / "globalStorage" / extension


def write_task(
    home: Path, extension: str, task_id: str, files: dict[str, Any], editor: str = "Code"
) -> Path:
    task = storage(home, extension, editor) / "tasks" / task_id
    task.mkdir(parents=True)
    for name, value in files.items():
        (task / name).write_text(value if isinstance(value, str) else dumps(value))
    return task


def state_db(home: Path, rows: dict[str, str], editor: str = "Code") -> Path:
    """The editor's ``state.vscdb`` with the given ``ItemTable`` rows (and one of the editor's
    own, which no write may touch)."""
    path = user_dir(home, editor) / "globalStorage" / "state.vscdb"
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute(STATE_DDL)
    conn.execute(
        "INSERT INTO ItemTable VALUES (?, ?)", ("workbench.panel.pinnedPanels", '["terminal"]')
    )
    for key, value in rows.items():
        conn.execute("INSERT INTO ItemTable VALUES (?, ?)", (key, value))
    conn.commit()
    conn.close()
    return path


def _env(cwd: str) -> str:
    return (
        "<environment_details>\n# VSCode Visible Files\nsrc/calc.py\n\n"
        f"# Current Working Directory ({cwd}) Files\nsrc/\nsrc/calc.py\ntests/\n"
        "</environment_details>"
    )


# ------------------------------------------------------------------------ Cline, XML era


def cline_xml_task(home: Path) -> Path:
    """An XML-era Cline task indexed in ``state/taskHistory.json``: two calls in markup, one
    answered with an error, and a closing call the user never answered (it stays text)."""
    history = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<task>\nWhy does total(3) give 6?\n</task>"},
                {"type": "text", "text": _env("/home/dev/calc")},
            ],
            "ts": T0 + 100,
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": "<thinking>Read the function first.</thinking>\n\n"
                    "<read_file>\n<path>src/calc.py</path>\n</read_file>",
                }
            ],
            "ts": T0 + 2000,
            "modelInfo": {"modelId": "claude-sonnet-4-5", "providerId": "anthropic"},
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "[read_file for 'src/calc.py'] Result:"},
                {"type": "text", "text": "def total(n):\n    return sum(range(n + 1))"},
                {"type": "text", "text": _env("/home/dev/calc")},
            ],
            "ts": T0 + 3000,
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": "The range includes n. Running the tests:\n"
                    "<execute_command>\n<command>pytest -q</command>\n"
                    "<requires_approval>false</requires_approval>\n</execute_command>",
                }
            ],
            "ts": T0 + 5000,
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "[execute_command for 'pytest -q'] Result:"},
                {
                    "type": "text",
                    "text": "The tool execution failed with the following error:\n<error>\n"
                    "pytest: command not found\n</error>",
                },
            ],
            "ts": T0 + 6000,
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": "<attempt_completion>\n<result>total(n) sums 0..n inclusive."
                    "</result>\n</attempt_completion>",
                }
            ],
            "ts": T0 + 8000,
        },
    ]
    ui = [
        {"ts": T0, "type": "say", "say": "task", "text": "Why does total(3) give 6?"},
        {"ts": T0 + 2000, "type": "say", "say": "tool", "text": '{"tool":"readFile"}'},
        {"ts": T0 + 8000, "type": "ask", "ask": "completion_result", "text": ""},
    ]
    task = write_task(
        home,
        CLINE_EXT,
        XML_TASK,
        {
            "api_conversation_history.json": history,
            "ui_messages.json": ui,
            "task_metadata.json": {"files_in_context": [], "model_usage": []},
        },
    )
    (task / "checkpoints").mkdir()  # the shadow git repository: not part of the conversation
    index = storage(home, CLINE_EXT) / "state" / "taskHistory.json"
    index.parent.mkdir(parents=True)
    entry = {
        "id": XML_TASK,
        "ulid": "01JNQ8ZK0000000000000000XM",
        "ts": T0 + 8000,
        "task": "Why does total(3) give 6?",
        "tokensIn": 1200,
        "tokensOut": 80,
        "cacheWrites": 0,
        "cacheReads": 0,
        "totalCost": 0.0042,
        "size": 4096,
        "cwdOnTaskInitialization": "/home/dev/calc",
        "modelId": "claude-sonnet-4-5",
    }
    index.write_text(dumps([entry]))
    return task


# --------------------------------------------------------------------- Cline, native era


def cline_native_task(home: Path) -> Path:
    """A native-tool-era Cline task in VS Code Insiders, indexed in the editor's globalState:
    signed and redacted thinking, an image, a document block, a call answered with is_error."""
    history = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<task>\nRename total to sum_to\n</task>"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"},
                },
                {
                    "type": "document",
                    "source": {"type": "text", "media_type": "text/plain", "data": "notes"},
                },
            ],
            "ts": T0 + 86_400_000 + 50,
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "A rename in one file.", "signature": "sig-1"},
                {"type": "redacted_thinking", "data": "ENCRYPTED=="},
                {"type": "text", "text": "Editing the file."},
                {
                    "type": "tool_use",
                    "id": "toolu_01Edit",
                    "name": "replace_in_file",
                    "input": {
                        "path": "src/calc.py",
                        "diff": "<<<<<<< SEARCH\ndef total(n):\n=======\ndef sum_to(n):\n"
                        ">>>>>>> REPLACE\n",
                    },
                },
                {
                    "type": "tool_use",
                    "id": "toolu_02Grep",
                    "name": "search_files",
                    "input": {"path": ".", "regex": "total\\("},
                },
            ],
            "ts": T0 + 86_400_000 + 3000,
            "modelInfo": {"modelId": "claude-opus-4-5", "providerId": "anthropic", "mode": "act"},
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01Edit",
                    "content": [{"type": "text", "text": "The file was saved."}],
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_02Grep",
                    "content": "permission denied",
                    "is_error": True,
                },
            ],
            "ts": T0 + 86_400_000 + 4000,
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Renamed; the search was refused."}],
            "ts": T0 + 86_400_000 + 6000,
        },
    ]
    ui = [{"ts": T0 + 86_400_000, "type": "say", "say": "task", "text": "Rename total to sum_to"}]
    task = write_task(
        home,
        CLINE_EXT,
        NATIVE_TASK,
        {
            "api_conversation_history.json": history,
            "ui_messages.json": ui,
            "task_metadata.json": {},
            "context_history.json": [],
            "settings.json": {"mode": "act"},
        },
        editor="Code - Insiders",
    )
    entry = {
        "id": NATIVE_TASK,
        "ts": T0 + 86_400_000 + 6000,
        "task": "Rename total to sum_to",
        "tokensIn": 900,
        "tokensOut": 60,
        "totalCost": 0.01,
        "cwdOnTaskInitialization": "/home/dev/calc",
    }
    state = {"apiProvider": "anthropic", "taskHistory": [entry], "mode": "act"}
    state_db(home, {"saoudrizwan.claude-dev": dumps(state)}, editor="Code - Insiders")
    return task


def cline_sdk_session(home: Path) -> Path:
    """A Cline CLI (Cline 4) session under ``~/.cline/data/sessions/<id>/``, shaped as the
    ``cline`` CLI 3.0.65 writes one (manifest, and messages with ``modelInfo.id``)."""
    directory = home / ".cline" / "data" / "sessions" / SDK_SESSION
    directory.mkdir(parents=True)
    manifest = {
        "session_id": SDK_SESSION,
        "source": "cli",
        "started_at": "2026-03-03T10:00:00.000Z",
        "status": "completed",
        "provider": "anthropic",
        "model": "claude-haiku-4-5",
        "cwd": "/home/dev/site",
        "workspace_root": "/home/dev/site",
        "prompt": "Add a footer",
        "metadata": {
            "sessionHistoryOrigin": {"mode": "user", "version": "3.0.65"},
            "title": "Add a footer to the site",
            "totalCost": 0,
        },
        "messages_path": f"{SDK_SESSION}.messages.json",
    }
    messages = {
        "version": 1,
        "updated_at": "2026-03-03T10:00:09.000Z",
        "agent": "lead",
        "sessionId": SDK_SESSION,
        "origin": "cli",
        "messages": [
            {
                "id": "30f7cf0c-e1a7-42cd-a339-270674f32c6d",
                "role": "user",
                "content": [
                    {"type": "text", "text": '<user_input mode="act">Add a footer</user_input>'}
                ],
                "ts": T0 + 172_800_000 + 100,
            },
            {
                "role": "assistant",
                "modelInfo": {"id": "claude-haiku-4-5", "provider": "anthropic"},
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_w1",
                        "name": "write_to_file",
                        "input": {"path": "footer.html", "content": "<footer>hi</footer>"},
                    }
                ],
                "ts": T0 + 172_800_000 + 2000,
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_w1", "content": "written"}
                ],
                "ts": T0 + 172_800_000 + 3000,
            },
        ],
        "system_prompt": "You are Cline.",
    }
    (directory / f"{SDK_SESSION}.json").write_text(dumps(manifest))
    (directory / f"{SDK_SESSION}.messages.json").write_text(dumps(messages))
    return directory


# ------------------------------------------------------------------------------------- Roo


def roo_state_task(home: Path) -> Path:
    """A Roo task whose history index is the editor's globalState (``state.vscdb``), in
    VSCodium: native tools with Roo's ``cwd`` on execute_command."""
    history = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<task>\nHow big is the repo?\n</task>"},
                {"type": "text", "text": _env("/srv/app")},
            ],
            "ts": T0 + 100,
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_r1",
                    "name": "execute_command",
                    "input": {"command": "du -sh .", "cwd": "/srv/app"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_r2",
                    "name": "read_file",
                    "input": {"path": "README.md"},
                },
            ],
            "ts": T0 + 1000,
            "modelInfo": {"modelId": "gpt-5"},
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_r1", "content": "12M\t."},
                {"type": "tool_result", "tool_use_id": "toolu_r2", "content": "# App"},
            ],
            "ts": T0 + 2000,
        },
        {"role": "assistant", "content": "Twelve megabytes.", "ts": T0 + 3000},
    ]
    task = write_task(
        home,
        ROO_EXT,
        ROO_TASK,
        {
            "api_conversation_history.json": history,
            "ui_messages.json": [{"ts": T0, "type": "say", "say": "text", "text": "How big?"}],
            "task_metadata.json": {"files_in_context": []},
        },
        editor="VSCodium",
    )
    entry = {
        "id": ROO_TASK,
        "number": 3,
        "ts": T0 + 3000,
        "task": "How big is the repo?",
        "tokensIn": 300,
        "tokensOut": 20,
        "totalCost": 0.002,
        "workspace": "/srv/app",
        "mode": "code",
    }
    state = {"mode": "code", "taskHistory": [entry], "customModes": []}
    state_db(home, {"RooVeterinaryInc.roo-cline": dumps(state)}, editor="VSCodium")
    return task


def roo_item_task(home: Path) -> Path:
    """A Roo 2026 task carrying its own ``history_item.json`` (no central index)."""
    entry = {
        "id": ROO_ITEM_TASK,
        "number": 4,
        "ts": T0 + 9000,
        "task": "Say hello",
        "tokensIn": 10,
        "tokensOut": 2,
        "totalCost": 0,
        "workspace": "/srv/app",
        "mode": "ask",
        "status": "completed",
    }
    history = [
        {"role": "user", "content": [{"type": "text", "text": "Say hello"}], "ts": T0 + 7000},
        {"role": "assistant", "content": [{"type": "text", "text": "Hello."}], "ts": T0 + 9000},
    ]
    return write_task(
        home,
        ROO_EXT,
        ROO_ITEM_TASK,
        {
            "api_conversation_history.json": history,
            "ui_messages.json": [{"ts": T0 + 7000, "type": "say", "say": "text", "text": "hi"}],
            "history_item.json": entry,
        },
    )


# ------------------------------------------------------------------------------------ Kilo

KILO_DDL = """
CREATE TABLE migration (id TEXT PRIMARY KEY, time_completed INTEGER);
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, sandboxes TEXT NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT,
  slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL,
  share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER,
  summary_diffs TEXT, revert TEXT, permission TEXT, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER,
  workspace_id TEXT);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT
  NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE account (id TEXT PRIMARY KEY, email TEXT, access_token TEXT NOT NULL);
"""
KILO_SECRET = "SENTINEL-KILO-TOKEN-5e6f"


def kilo_db_path(home: Path) -> Path:
    return home / ".local" / "share" / "kilo" / "kilo.db"


def empty_kilo_db(home: Path) -> Path:
    """``kilo.db`` as the Kilo CLI leaves it after its first run: the schema, no session."""
    path = kilo_db_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(KILO_DDL)
    conn.execute("INSERT INTO migration VALUES ('20260301000000_init', ?)", (T0,))
    conn.execute("INSERT INTO account VALUES ('acc', 'dev@example.com', ?)", (KILO_SECRET,))
    conn.commit()
    conn.close()
    return path


def kilo_db(home: Path) -> Path:
    """Kilo's 2026 ``kilo.db``: one session with a prompt, a completed bash call and a reply."""
    path = empty_kilo_db(home)
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, "
        "time_created, time_updated) VALUES (?, 'global', NULL, 'calm-heron', '/work/kilo', "
        "'Count the lines', '1.0.3', ?, ?)",
        (KILO_SESSION, T0, T0 + 5000),
    )
    user = {"role": "user", "time": {"created": T0 + 100}, "agent": "code"}
    assistant = {
        "role": "assistant",
        "time": {"created": T0 + 1000, "completed": T0 + 4000},
        "parentID": "msg_39d0c1a2b3c4AAAAAAAAAAAAA1",
        "modelID": "claude-sonnet-4-5",
        "providerID": "anthropic",
        "mode": "code",
        "path": {"cwd": "/work/kilo", "root": "/work/kilo"},
        "cost": 0.001,
        "tokens": {"input": 40, "output": 9, "reasoning": 0, "cache": {"read": 0, "write": 0}},
        "finish": "stop",
    }
    messages = [
        ("msg_39d0c1a2b3c4AAAAAAAAAAAAA1", user, [{"type": "text", "text": "wc -l main.go"}]),
        (
            "msg_39d0c1a2b3c5AAAAAAAAAAAAA2",
            assistant,
            [
                {
                    "type": "tool",
                    "callID": "toolu_k1",
                    "tool": "bash",
                    "state": {
                        "status": "completed",
                        "input": {"command": "wc -l main.go"},
                        "output": "42 main.go",
                        "title": "wc",
                        "metadata": {"exit": 0},
                        "time": {"start": T0 + 1500, "end": T0 + 2000},
                    },
                },
                {"type": "text", "text": "42 lines."},
            ],
        ),
    ]
    for n, (message_id, data, parts) in enumerate(messages):
        created = data["time"]["created"]
        conn.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (message_id, KILO_SESSION, created, created, dumps(data)),
        )
        for k, part in enumerate(parts):
            conn.execute(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                (
                    f"prt_39d0c1a2b3c{n}AAAAAAAAAAAA{k:02d}",
                    message_id,
                    KILO_SESSION,
                    created,
                    created,
                    dumps(part),
                ),
            )
    conn.commit()
    conn.close()
    return path


def kilo_legacy_task(home: Path) -> Path:
    """A task of Kilo's older (Roo-fork) extension, indexed in the editor's globalState."""
    history = [
        {"role": "user", "content": [{"type": "text", "text": "ping"}], "ts": T0 + 10},
        {"role": "assistant", "content": [{"type": "text", "text": "pong"}], "ts": T0 + 20},
    ]
    task = write_task(
        home,
        KILO_EXT,
        KILO_TASK,
        {
            "api_conversation_history.json": history,
            "ui_messages.json": [{"ts": T0, "type": "say", "say": "text", "text": "ping"}],
            "task_metadata.json": {},
        },
        editor="Cursor",
    )
    entry = {
        "id": KILO_TASK,
        "number": 1,
        "ts": T0 + 20,
        "task": "ping",
        "tokensIn": 1,
        "tokensOut": 1,
        "totalCost": 0,
        "workspace": "/work/kilo",
    }
    state_db(home, {"kilocode.Kilo-Code": dumps({"taskHistory": [entry]})}, editor="Cursor")
    return task
