"""Hand-written Kimi CLI sessions, shaped like the files Kimi CLI 1.52 writes (never copied)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

WORK_DIR = "/home/dev/shop"
KEY = hashlib.md5(WORK_DIR.encode()).hexdigest()
SESSION_ID = "1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a10"
FLAT_ID = "2a3b4c5d-6e7f-4081-9a2b-3c4d5e6f7a81"
#: 2026-10-05T09:00:00Z
T0 = 1791190800.0


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def context_records() -> list[dict[str, Any]]:
    return [
        {"role": "_system_prompt", "content": "You are Kimi."},
        {"role": "_checkpoint", "id": 0},
        {"role": "user", "content": "Fix the failing test"},
        {
            "role": "assistant",
            "content": [
                {"type": "think", "think": "Look at the test first.", "encrypted": "enc-1"},
                {"type": "text", "text": "Reading it."},
            ],
            "tool_calls": [
                {
                    "type": "function",
                    "id": "tool_a",
                    "function": {
                        "name": "ReadFile",
                        "arguments": dumps(
                            {"path": "tests/test_cart.py", "line_offset": 10, "n_lines": 40}
                        ),
                    },
                },
                {
                    "type": "function",
                    "id": "tool_b",
                    "function": {
                        "name": "Shell",
                        "arguments": '{"command": "pytest -q", "timeout": 120}',
                    },
                },
            ],
        },
        {"role": "tool", "content": "def test_total(): ...", "tool_call_id": "tool_a"},
        {
            "role": "tool",
            "content": [
                {
                    "type": "text",
                    "text": "<system>ERROR: Command failed with exit code 1.</system>",
                },
                {"type": "text", "text": "1 failed"},
            ],
            "tool_call_id": "tool_b",
        },
        {"role": "_usage", "token_count": 5120},
        {"role": "_checkpoint", "id": 1},
        {"role": "user", "content": [{"type": "text", "text": "<system>CHECKPOINT 1</system>"}]},
        {
            "role": "assistant",
            "content": "Patching.",
            "tool_calls": [
                {
                    "type": "function",
                    "id": "tool_c",
                    "function": {
                        "name": "StrReplaceFile",
                        "arguments": '{"path": "cart.py", "edit": {"old": "a+b", "new": "a + b"}}',
                    },
                },
                {
                    "type": "function",
                    "id": "tool_d",
                    "function": {"name": "Shell", "arguments": "{not json"},
                },
            ],
        },
        {"role": "tool", "content": "<system>File edited.</system>", "tool_call_id": "tool_c"},
        {
            "role": "tool",
            "content": "<system>ERROR: bad arguments</system>",
            "tool_call_id": "tool_d",
        },
        {"role": "assistant", "content": "Fixed."},
        {"role": "_usage", "token_count": 6000},
    ]


def wire_records() -> list[dict[str, Any]]:
    def event(second: float, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": T0 + second, "message": {"type": kind, "payload": payload}}

    return [
        {"type": "metadata", "protocol_version": "1.10"},
        event(0, "TurnBegin", {"user_input": "Fix the failing test"}),
        event(1, "StepBegin", {"n": 1}),
        event(
            1.5,
            "StatusUpdate",
            {
                "token_usage": {
                    "input_other": 900,
                    "output": 40,
                    "input_cache_read": 4000,
                    "input_cache_creation": 0,
                }
            },
        ),
        event(2, "ToolResult", {"tool_call_id": "tool_a"}),
        event(4, "StepBegin", {"n": 2}),
        event(6, "StepBegin", {"n": 3}),
        event(7, "TurnEnd", {}),
        event(8, "HologramShift", {"level": 3}),
    ]


def state() -> dict[str, Any]:
    return {
        "version": 1,
        "approval": {"yolo": False},
        "custom_title": None,
        "plan_mode": False,
        "archived": False,
        "todos": [],
    }


def index(*paths: str) -> dict[str, Any]:
    return {"work_dirs": [{"path": p, "kaos": "local", "last_session_id": None} for p in paths]}


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(dumps(r) + "\n" for r in records)


def build_store(root: Path) -> None:
    """A ``~/.kimi``: the index, one session directory (context, wire, state, a rotated older
    context), and one flat session file of the oldest layout."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "kimi.json").write_text(json.dumps(index(WORK_DIR), indent=2))
    directory = root / "sessions" / KEY / SESSION_ID
    directory.mkdir(parents=True)
    (directory / "context.jsonl").write_text(jsonl(context_records()))
    (directory / "context_1.jsonl").write_text(jsonl([{"role": "user", "content": "undone"}]))
    (directory / "wire.jsonl").write_text(jsonl(wire_records()))
    (directory / "state.json").write_text(json.dumps(state(), indent=2))
    flat = [
        {"role": "user", "content": "Old flat session"},
        {"role": "assistant", "content": "Hello."},
    ]
    (root / "sessions" / KEY / f"{FLAT_ID}.jsonl").write_text(jsonl(flat))
