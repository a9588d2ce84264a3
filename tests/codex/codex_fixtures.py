"""Hand-written Codex rollouts, one per generation, shaped like real files (never copied ones)."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from txcript import model as m
from txcript.harnesses.codex import codec, tools
from txcript.pairing import answer_open_calls

SESSION_ID = "019a1b2c-3d4e-7f60-8a1b-2c3d4e5f6a7b"
BARE_ID = "5f0c7d1e-2a3b-4c5d-8e9f-0a1b2c3d4e5f"
LEGACY_ID = "a1b2c3d4-e5f6-4789-8abc-def012345678"
ENCRYPTED = "gAAAAABo-opaque-encrypted-reasoning=="
IMAGE_DATA = "iVBORw0KGgoAAAANSUhEUg=="


def line(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def env(ts: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def _text(role: str, text: str, kind: str = "input_text") -> dict[str, Any]:
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _usage(inp: int, cached: int, out: int) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "cached_input_tokens": cached,
        "output_tokens": out,
        "reasoning_output_tokens": 0,
        "total_tokens": inp + out,
    }


def _token_count(ts: str, last: dict[str, Any] | None, total: dict[str, Any] | None) -> Any:
    info = None
    if last is not None:
        info = {
            "total_token_usage": total,
            "last_token_usage": last,
            "model_context_window": 272000,
        }
    return env(ts, "event_msg", {"type": "token_count", "info": info, "rate_limits": None})


PATCH = (
    "*** Begin Patch\n"
    "*** Update File: src/parser.rs\n"
    "@@ fn parse(\n"
    " let mut i = 0;\n"
    "-while i <= n {\n"
    "+while i < n {\n"
    "@@\n"
    "-    i += 2;\n"
    "+    i += 1;\n"
    "*** End Patch"
)


def current_records() -> list[Any]:
    """A current (enveloped) rollout: two turns, the second aborted, plus noise."""
    t = "2026-08-20T10:00:0{}.{}Z".format
    u1, u2, u3 = _usage(1200, 1000, 80), _usage(1400, 1200, 60), _usage(1500, 1400, 20)
    total = _usage(4100, 3600, 160)
    return [
        env(
            t(0, "000"),
            "session_meta",
            {
                "id": SESSION_ID,
                "timestamp": t(0, "000"),
                "cwd": "/home/dev/proj",
                "originator": "codex_cli_rs",
                "cli_version": "0.77.0",
                "source": "cli",
                "model_provider": "openai",
                "base_instructions": {"text": "You are Codex, a coding agent."},
                "git": {
                    "commit_hash": "0123456789abcdef0123456789abcdef01234567",
                    "branch": "fix/parser",
                    "repository_url": "git@github.com:dev/proj.git",
                },
            },
        ),
        env(t(0, "010"), "response_item", _text("developer", "<permissions instructions>…")),
        env(
            t(0, "011"),
            "response_item",
            _text("user", "# AGENTS.md instructions for /home/dev/proj\n\n<INSTRUCTIONS>x"),
        ),
        env(
            t(0, "012"),
            "response_item",
            _text("user", "<environment_context>\n  <cwd>/home/dev/proj</cwd>\n"),
        ),
        env(t(1, "000"), "event_msg", {"type": "task_started", "turn_id": "t1"}),
        env(
            t(1, "000"),
            "turn_context",
            {
                "turn_id": "t1",
                "cwd": "/home/dev/proj",
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "workspace-write", "network_access": False},
                "model": "gpt-5.1-codex",
                "effort": "medium",
                "summary": "auto",
            },
        ),
        env(t(1, "100"), "response_item", _text("user", "Fix the failing parser test\nplease")),
        env(
            t(1, "100"),
            "event_msg",
            {"type": "user_message", "message": "Fix the failing parser test\nplease"},
        ),
        _token_count(t(1, "200"), None, None),
        env(
            t(2, "000"),
            "response_item",
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "**Running tests**"}],
                "content": None,
                "encrypted_content": ENCRYPTED,
            },
        ),
        env(t(2, "000"), "event_msg", {"type": "agent_reasoning", "text": "**Running tests**"}),
        env(
            t(2, "100"),
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": '{"cmd":"cargo test","workdir":"/home/dev/proj",'
                '"yield_time_ms":10000}',
                "call_id": "call_exec1",
            },
        ),
        _token_count(t(2, "200"), u1, u1),
        env(
            t(3, "000"),
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_exec1",
                "output": "Chunk ID: 4f2a\nWall time: 1.2040 seconds\n"
                "Process exited with code 101\nOriginal token count: 9\n"
                "Output:\nFAILED parser::tests::bounds",
            },
        ),
        env(
            t(3, "500"),
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "call_patch1",
                "name": "apply_patch",
                "input": PATCH,
            },
        ),
        _token_count(t(3, "600"), u2, _usage(2600, 2200, 140)),
        _token_count(t(3, "601"), u2, _usage(2600, 2200, 140)),
        env(
            t(4, "000"),
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "call_patch1",
                "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\n"
                "Success. Updated the following files:\nM src/parser.rs\n",
            },
        ),
        env(
            t(4, "100"),
            "response_item",
            {
                "type": "function_call",
                "name": "update_plan",
                "arguments": '{"plan":[{"step":"fix bound","status":"completed"}]}',
                "call_id": "call_plan1",
            },
        ),
        env(
            t(4, "200"),
            "response_item",
            {"type": "function_call_output", "call_id": "call_plan1", "output": "Plan updated"},
        ),
        env(t(4, "300"), "response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "g"}}),
        env(
            t(5, "000"),
            "response_item",
            _text("assistant", "Fixed the off-by-one.", "output_text"),
        ),
        env(
            t(5, "000"), "event_msg", {"type": "agent_message", "message": "Fixed the off-by-one."}
        ),
        _token_count(t(5, "100"), u3, total),
        env(t(5, "200"), "event_msg", {"type": "task_complete", "turn_id": "t1"}),
        {"timestamp": t(5, "300"), "type": "world_state", "payload": {"open_files": []}},
        env(t(6, "000"), "event_msg", {"type": "task_started", "turn_id": "t2"}),
        env(
            t(6, "000"),
            "turn_context",
            {
                "cwd": "/home/dev/proj",
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "read-only"},
                "model": "gpt-5.1-codex-max",
                "summary": "auto",
            },
        ),
        env(
            t(6, "100"),
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "what is in this screenshot?"},
                    {"type": "input_image", "image_url": f"data:image/png;base64,{IMAGE_DATA}"},
                ],
            },
        ),
        env(
            t(7, "000"),
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "arguments": '{"command":["ls","-la","my dir"],"timeout_ms":5000}',
                "call_id": "call_ls",
            },
        ),
        env(t(7, "500"), "event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        env(
            t(8, "000"),
            "compacted",
            {"message": "summary of the work", "replacement_history": [_text("user", "old")]},
        ),
    ]


def current_text() -> str:
    rows = [line(r) for r in current_records()]
    rows.insert(20, '{"timestamp":"2026-08-20T10:00:04.150Z","type":"event_msg","payl')
    return "\n".join(rows) + "\n"


#: The 1-based line number of the truncated line :func:`current_text` holds.
BROKEN_LINE = 21


def bare_records() -> list[Any]:
    """A mid-2025 rollout: a bare header, then one Responses item per line."""
    return [
        {
            "id": BARE_ID,
            "timestamp": "2025-06-01T08:30:00.000Z",
            "instructions": None,
            "git": {"commit_hash": "abc", "branch": "main", "repository_url": None},
        },
        {"record_type": "state"},
        _text("user", "<user_instructions>\nbe brief\n</user_instructions>"),
        _text("user", "<environment_context>\n  <cwd>/srv/app</cwd>\n</environment_context>"),
        _text("user", "list the files"),
        {"record_type": "state"},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [],
            "encrypted_content": ENCRYPTED,
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "name": "shell",
            "arguments": '{"command":["bash","-lc","ls -la"],"workdir":"/srv/app",'
            '"timeout_ms":10000}',
            "call_id": "call_1",
        },
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": '{"output":"total 0\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}',
        },
        {
            "type": "local_shell_call",
            "id": "lsh_1",
            "call_id": "call_2",
            "status": "completed",
            "action": {
                "type": "exec",
                "command": ["cat", "README.md"],
                "timeout_ms": None,
                "working_directory": "/srv/app",
                "env": None,
                "user": None,
            },
        },
        {
            "type": "function_call_output",
            "call_id": "call_2",
            "output": '{"output":"cat: README.md: No such file","metadata":{"exit_code":1,'
            '"duration_seconds":0.0}}',
        },
        {
            "type": "function_call",
            "name": "shell",
            "arguments": '{"command":["bash","-lc","rm -rf build"],'
            '"with_escalated_permissions":true,"justification":"clean"}',
            "call_id": "call_3",
        },
        {"type": "function_call_output", "call_id": "call_3", "output": "denied"},
        {"type": "function_call", "name": "broken", "arguments": "{not json", "call_id": "call_4"},
        _text("assistant", "There are no files.", "output_text"),
    ]


def bare_text() -> str:
    return "\n".join(line(r) for r in bare_records()) + "\n"


def legacy_document() -> dict[str, Any]:
    """The TypeScript CLI's single JSON document."""
    return {
        "session": {
            "timestamp": "2025-04-16T17:20:05.123Z",
            "id": LEGACY_ID,
            "instructions": "",
        },
        "items": [
            {
                "id": "msg_1",
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "hello codex"}],
            },
            {
                "id": "fc_1",
                "type": "function_call",
                "status": "completed",
                "call_id": "call_a",
                "name": "shell",
                "arguments": '{"command":["apply_patch","*** Begin Patch\\n*** Add File: '
                'hello.txt\\n+hi\\n*** End Patch"]}',
            },
            {
                "type": "function_call_output",
                "call_id": "call_a",
                "output": '{"output":"Done!","metadata":{"exit_code":0,"duration_seconds":0}}',
            },
            {
                "id": "msg_2",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {"type": "output_text", "text": "Created hello.txt", "annotations": []}
                ],
            },
        ],
    }


def legacy_text() -> str:
    return json.dumps(legacy_document(), indent=2) + "\n"


# ------------------------------------------------------------------- 2026 rollout shapes

SID_2026 = "019b2c3d-4e5f-7a6b-8c7d-9e0f1a2b3c4d"


def _at_2026(second: int, millis: int = 0) -> str:
    return f"2026-03-02T08:15:{second:02d}.{millis:03d}Z"


def rollout_2026() -> list[Any]:
    return [
        env(
            _at_2026(0),
            "session_meta",
            {
                "id": SID_2026,
                "timestamp": _at_2026(0),
                "cwd": "/home/dev/app",
                "originator": "Codex Desktop",
                "cli_version": "0.118.0-alpha.2",
                "source": {"subagent": {"thread_spawn": {"parent_thread_id": "p", "depth": 1}}},
                "agent_nickname": "scout",
                "agent_role": "explorer",
                "model_provider": "local-ollama",
                "base_instructions": None,
            },
        ),
        env(_at_2026(1), "event_msg", {"type": "task_started", "turn_id": "t1"}),
        env(
            _at_2026(1),
            "turn_context",
            {
                "turn_id": "t1",
                "cwd": "/home/dev/app",
                "current_date": "2026-03-02",
                "timezone": "Europe/Berlin",
                "personality": "pragmatic",
                "collaboration_mode": {"mode": "default"},
                "realtime_active": False,
                "truncation_policy": {"mode": "tokens", "limit": 10000},
                "approval_policy": "never",
                "sandbox_policy": {"type": "danger-full-access"},
                "model": "qwen3-coder",
                "summary": "auto",
            },
        ),
        env(
            _at_2026(1, 5),
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "list the repo and check the issue tracker"}
                ],
            },
        ),
        env(
            _at_2026(2),
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "call_ls",
                "arguments": json.dumps({"cmd": "ls", "workdir": "/home/dev/app"}),
            },
        ),
        env(
            _at_2026(2, 1),
            "response_item",
            {
                "type": "function_call",
                "name": "tracker__search",
                "call_id": "call_mcp",
                "arguments": json.dumps({"query": "crash"}),
            },
        ),
        env(
            _at_2026(3),
            "event_msg",
            {
                "type": "exec_command_end",
                "call_id": "call_ls",
                "exit_code": 0,
                "aggregated_output": "README.md\n",
                "stdout": "README.md\n",
                "stderr": "",
            },
        ),
        env(
            _at_2026(3),
            "event_msg",
            {
                "type": "mcp_tool_call_end",
                "call_id": "call_mcp",
                "invocation": {
                    "server": "tracker",
                    "tool": "search",
                    "arguments": {"query": "crash"},
                },
                "duration": {"secs": 0, "nanos": 5},
                "result": {"Err": "tracker unreachable"},
            },
        ),
        env(
            _at_2026(4),
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_ls",
                "output": "Command: /bin/bash -lc ls\nChunk ID: 7\nWall time: 0.01 seconds\n"
                "Process exited with code 0\nOriginal token count: 2\nOutput:\nREADME.md\n",
            },
        ),
        env(
            _at_2026(4, 1),
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_mcp",
                "output": "tool call error: tracker unreachable",
            },
        ),
        env(
            _at_2026(5),
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Only a README; the tracker is down."}],
            },
        ),
        env(
            _at_2026(6),
            "event_msg",
            {"type": "turn_aborted", "turn_id": "t1", "reason": "interrupted"},
        ),
        env(_at_2026(7), "event_msg", {"type": "some_2027_event", "x": 1}),
        env(_at_2026(7), "world_state", {"anything": True}),
    ]


def rollout_2026_text() -> str:
    return "".join(line(r) + "\n" for r in rollout_2026())


# ----------------------------------------------------------------- chat-shaped legacy


def chat_document() -> dict[str, Any]:
    return {
        "session": {"timestamp": "2025-05-01T12:00:00.000Z", "id": SID_2026, "instructions": ""},
        "items": [
            {"role": "system", "content": "You are a helpful agent."},
            {"role": "user", "content": [{"type": "text", "text": "what is in here?"}]},
            {
                "role": "assistant",
                "content": "",
                "reasoning": "Look at the files first.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "index": 0,
                        "type": "function",
                        "function": {"name": "shell", "arguments": '{"command":["ls"]}'},
                    },
                    {
                        "id": "call_2",
                        "index": 1,
                        "type": "function",
                        "function": {"name": "read_notes", "arguments": '{"n":1}'},
                    },
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": '{"output":"a.txt\\n","metadata":{"exit_code":0}}',
            },
            {"role": "tool", "tool_call_id": "call_2", "content": "no notes"},
            {"role": "assistant", "content": [{"type": "text", "text": "Just a.txt."}]},
        ],
    }


# ------------------------------------------------------------------------ state database

THREADS_DDL = """
CREATE TABLE threads (
    id TEXT PRIMARY KEY,
    rollout_path TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    source TEXT NOT NULL,
    model_provider TEXT NOT NULL,
    cwd TEXT NOT NULL,
    title TEXT NOT NULL,
    sandbox_policy TEXT NOT NULL,
    approval_mode TEXT NOT NULL,
    tokens_used INTEGER NOT NULL DEFAULT 0,
    has_user_event INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    archived_at INTEGER,
    git_sha TEXT,
    git_branch TEXT,
    git_origin_url TEXT,
    cli_version TEXT NOT NULL DEFAULT '',
    first_user_message TEXT NOT NULL DEFAULT '',
    agent_nickname TEXT,
    memory_mode TEXT NOT NULL DEFAULT 'enabled'
);
CREATE TABLE thread_dynamic_tools (thread_id TEXT NOT NULL, name TEXT NOT NULL);
"""


def make_db(root: Path, ddl: str = THREADS_DDL, name: str = "state_5.sqlite") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    db = root / name
    with sqlite3.connect(db) as connection:
        connection.executescript(ddl)
    connection.close()
    return db


# --------------------------------------------------------------------- property: fixpoint

_START = datetime(2024, 1, 1, tzinfo=UTC)
_CODEX_NAMES = {"shell", "container.exec", "shell_command", "exec_command", "apply_patch"}
_TYPED = {"Read", "Write", "Edit", "MultiEdit", "Bash"}

texts = st.text(max_size=30)
nonempty = st.text(min_size=1, max_size=20)
prompt_texts = texts.filter(lambda s: not s.lstrip().startswith(codec.SCAFFOLDING))
when = st.integers(0, 10**14).map(lambda us: _START + timedelta(microseconds=us))
uints = st.integers(0, 2**62)
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
edit_specs = st.builds(m.EditSpec, old_string=texts, new_string=texts, replace_all=st.booleans())
codex_tools: st.SearchStrategy[m.Tool] = st.one_of(
    st.builds(
        m.Bash,
        command=texts,
        workdir=st.none() | texts,
        timeout_ms=st.none() | uints,
        description=st.none() | texts,
        run_in_background=st.booleans(),
    ),
    st.builds(
        m.Edit, file_path=texts, old_string=texts, new_string=texts, replace_all=st.booleans()
    ),
    st.builds(m.MultiEdit, file_path=texts, edits=st.lists(edit_specs, max_size=3).map(tuple)),
    st.builds(m.Write, file_path=texts, content=texts),
    st.builds(m.Read, file_path=texts, offset=st.none() | uints, limit=st.none() | uints),
    st.builds(m.Command, command=texts.map(lambda s: "/" + s), args=st.none() | texts),
    st.builds(
        m.Raw,
        tool_name=nonempty.filter(
            lambda n: n not in _CODEX_NAMES | _TYPED and not n.startswith("/")
        ),
        input=json_values,
    ),
)
images = st.builds(
    m.Image,
    source=st.builds(
        m.ImageSource,
        type=st.just("base64"),
        media_type=st.sampled_from(["image/png", "image/jpeg", "image/webp"]),
        data=st.text(alphabet="ABCabc012+/=", max_size=12),
    ),
)
usages = st.none() | st.builds(
    m.Usage,
    input_tokens=uints,
    output_tokens=uints,
    cache_read_input_tokens=st.none() | st.integers(1, 2**40),
)


def _reports_errors(tool: m.Tool) -> bool:
    """Only outputs of calls written into the shell family carry an exit code."""
    if isinstance(tool, m.Bash):
        return True
    if isinstance(tool, m.Edit | m.MultiEdit | m.Write):
        return tools.patch_for(tool) is not None
    return isinstance(tool, m.Raw) and tool.tool_name in tools.EXEC_FAMILY


@st.composite
def codex_transcripts(draw: st.DrawFn) -> m.Transcript:
    messages: list[m.Message] = []
    first_prompt: list[m.Block] | None = None
    calls = 0
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["prompt", "assistant", "calls"]))
        if kind == "prompt":
            blocks = draw(
                st.lists(
                    st.one_of(prompt_texts.map(lambda s: m.Text(text=s)), images),
                    min_size=1,
                    max_size=3,
                )
            )
            first_prompt = blocks if first_prompt is None else first_prompt
            messages.append(m.Message(role="user", content=tuple(blocks), timestamp=draw(when)))
            continue
        content: list[m.Block] = draw(
            st.lists(
                st.one_of(
                    texts.map(lambda s: m.Text(text=s)),
                    st.builds(m.Thinking, text=texts, encrypted=st.none() | nonempty),
                ),
                min_size=1 if kind == "assistant" else 0,
                max_size=3,
            )
        )
        used: list[tuple[str, m.Tool]] = []
        if kind == "calls":
            for tool in draw(st.lists(codex_tools, min_size=1, max_size=3)):
                calls += 1
                used.append((f"call-{calls}", tool))
                content.append(m.ToolUse(id=f"call-{calls}", tool=tool))
        messages.append(
            m.Message(
                role="assistant",
                content=tuple(content),
                timestamp=draw(when),
                model=draw(st.none() | nonempty),
                stop_reason=draw(st.sampled_from([None, "end_turn", "aborted", "error"])),
                usage=draw(usages),
            )
        )
        if used and draw(st.booleans()):
            results = tuple(
                m.ToolResult(
                    tool_use_id=call_id,
                    content=draw(texts),
                    is_error=_reports_errors(tool) and draw(st.booleans()),
                )
                for call_id, tool in used
            )
            messages.append(m.Message(role="user", content=results, timestamp=draw(when)))
    derived = m.prompt_title(first_prompt) if first_prompt is not None else None
    title = draw(st.sampled_from([derived, draw(texts)]))
    meta = m.Meta(
        id=draw(texts),
        timestamp=draw(when),
        cwd=draw(st.none() | nonempty),
        git_branch=draw(st.none() | texts),
        title=title,
        cli_version=draw(st.none() | nonempty),
        model=draw(st.none() | nonempty),
    )
    # Writers close calls left open mid-session (txcript.pairing); the fixpoint is over closed ones.
    return answer_open_calls(m.Transcript(meta=meta, messages=tuple(messages)))
