"""Hand-written Kimi Code sessions, shaped as the spec describes Kimi Code's files (never copied).

Times are epoch milliseconds from 2026-10-20T12:00:00Z.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from txcript.harnesses.kimi.store import work_dir_key

WORK_DIR = "/home/dev/api"
KEY = work_dir_key(WORK_DIR)
V2_ID = "session_4c5d6e7f-8091-4a2b-9c3d-4e5f60718293"
V1_ID = "session_5d6e7f80-91a2-4b3c-8d4e-5f6071829304"
GONE_ID = "session_6e7f8091-a2b3-4c4d-9e5f-607182930415"
T0 = 1792497600000


def event(offset_ms: int, kind: str, **payload: Any) -> dict[str, Any]:
    return {"type": kind, **payload, "time": T0 + offset_ms}


def append(offset_ms: int, message: dict[str, Any], agent: str = "main") -> dict[str, Any]:
    return event(offset_ms, "context.append_message", agentId=agent, message=message)


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def v2_state() -> dict[str, Any]:
    return {
        "id": V2_ID,
        "version": 2,
        "title": "Add the health endpoint",
        "titleKind": "generated",
        "lastPrompt": "now add tests",
        "createdAt": T0,
        "updatedAt": T0 + 60_000,
        "archived": False,
        "cwd": WORK_DIR,
        "agents": {"main": {"type": "main"}, "agent-1": {"type": "sub"}},
        "lastTurnReason": "completed",
    }


def v2_wire() -> list[dict[str, Any]]:
    """Two turns; the second is undone (``/undo``), then a third turn asks again. A sub-agent's
    message and the loop events are not the main context; one event kind is from the future."""
    return [
        {"type": "metadata", "protocol_version": "1.5", "created_at": T0},
        event(0, "turn.prompt", input="Add a /health endpoint", origin="user"),
        append(0, {"role": "system", "content": [{"type": "text", "text": "You are Kimi Code."}]}),
        append(1000, user("Add a /health endpoint")),
        event(1500, "llm.request", provider="moonshot", model="kimi-k2-turbo"),
        event(
            2000,
            "context.append_loop_event",
            event={"type": "step.begin", "uuid": "s1", "turnId": "t1"},
        ),
        append(
            3000,
            {
                "role": "assistant",
                "content": [
                    {"type": "think", "think": "A tiny route.", "encrypted": "sig-k"},
                    {"type": "text", "text": "Writing it."},
                ],
                "toolCalls": [
                    {
                        "type": "function",
                        "id": "tc_1",
                        "name": "Write",
                        "arguments": json.dumps({"file_path": "app/health.py", "content": "ok"}),
                    },
                    {
                        "type": "function",
                        "id": "tc_2",
                        "name": "Bash",
                        "arguments": json.dumps({"command": "pytest -q"}),
                    },
                ],
            },
        ),
        event(
            3500,
            "usage.record",
            model="kimi-k2-turbo",
            usage={"inputOther": 300, "output": 50, "inputCacheRead": 700, "inputCacheCreation": 0},
        ),
        append(
            4000,
            {
                "role": "tool",
                "content": [{"type": "text", "text": "written"}],
                "toolCallId": "tc_1",
            },
        ),
        append(
            5000,
            {
                "role": "tool",
                "content": [{"type": "text", "text": "1 failed"}],
                "toolCallId": "tc_2",
                "isError": True,
            },
        ),
        append(
            5500,
            {"role": "user", "content": [{"type": "text", "text": "sub-agent chatter"}]},
            agent="agent-1",
        ),
        append(
            6000, {"role": "assistant", "content": [{"type": "text", "text": "One test fails."}]}
        ),
        event(6500, "turn.ended", reason="completed"),
        append(10_000, user("now add tests")),
        append(
            11_000,
            {"role": "assistant", "content": [{"type": "text", "text": "Tests added (badly)."}]},
        ),
        event(12_000, "context.undo", count=1),
        append(20_000, user("now add good tests")),
        event(20_500, "llm.request", provider="moonshot", model="kimi-k2-thinking"),
        append(
            21_000,
            {"role": "assistant", "content": [{"type": "text", "text": "Good tests added."}]},
        ),
        event(
            21_500,
            "usage.record",
            model="kimi-k2-thinking",
            usage={"inputOther": 100, "output": 20},
        ),
        event(22_000, "telepathy.sync", level=9),
    ]


def v1_state() -> dict[str, Any]:
    """The earlier shape: no version, no agents map, ISO times."""
    return {
        "id": V1_ID,
        "title": "",
        "createdAt": "2026-10-20T12:00:00.000Z",
        "updatedAt": "2026-10-20T12:05:00.000Z",
    }


def v1_wire() -> list[dict[str, Any]]:
    return [
        {"type": "metadata", "protocol_version": "1.0", "created_at": T0},
        append(1000, user("What does main.py do?")),
        append(
            2000,
            {"role": "assistant", "content": [{"type": "text", "text": "It starts the server."}]},
        ),
        event(3000, "context.clear"),
        append(4000, user("Start over: list the routes")),
        append(
            5000,
            {"role": "assistant", "content": [{"type": "text", "text": "/health and /items."}]},
        ),
    ]


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def write_session(
    root: Path, ident: str, state: dict[str, Any], wire: list[dict[str, Any]]
) -> Path:
    directory = root / "sessions" / KEY / ident
    (directory / "agents" / "main").mkdir(parents=True)
    (directory / "state.json").write_text(json.dumps(state, indent=2))
    (directory / "agents" / "main" / "wire.jsonl").write_text(jsonl(wire))
    return directory


def build_store(root: Path) -> None:
    """A ``~/.kimi-code`` with a v2 session, an earlier-shape session, and a tombstoned one."""
    write_session(root, V2_ID, v2_state(), v2_wire())
    write_session(root, V1_ID, v1_state(), v1_wire())
    write_session(root, GONE_ID, {**v1_state(), "id": GONE_ID}, v1_wire())
    entries = [
        {"sessionId": V2_ID, "sessionDir": f"sessions/{KEY}/{V2_ID}", "workDir": WORK_DIR},
        {"sessionId": V1_ID, "sessionDir": f"sessions/{KEY}/{V1_ID}", "workDir": WORK_DIR},
        {"sessionId": GONE_ID, "sessionDir": f"sessions/{KEY}/{GONE_ID}", "workDir": WORK_DIR},
        {"sessionId": GONE_ID, "deleted": True},
    ]
    (root / "session_index.jsonl").write_text(jsonl(entries))
