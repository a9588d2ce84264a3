"""Hand-written Qwen Code chats, shaped like the files Qwen Code 0.24 writes (never copied)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CWD = "/home/dev/acme"
PROJECT = "-home-dev-acme"
LINEAR_ID = "5b0c1d2e-3f40-4a51-8b62-7c8d9e0f1a2b"
REWOUND_ID = "6c1d2e3f-4051-4b62-9c73-8d9e0f1a2b3c"
COMPRESSED_ID = "7d2e3f40-5162-4c73-8d84-9e0f1a2b3c4d"
VERSION = "0.24.4"


def line(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def record(
    session: str, uuid: str, parent: str | None, second: int, kind: str, **body: Any
) -> dict[str, Any]:
    provenance = {"user": "real_user", "assistant": "assistant_output"}.get(kind, kind)
    return {
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": session,
        "timestamp": f"2026-11-02T10:00:{second:02d}.000Z",
        "type": kind,
        "provenance": provenance,
        "cwd": CWD,
        "version": VERSION,
        "gitBranch": "main",
        **body,
    }


def telemetry(session: str, uuid: str, parent: str, second: int) -> dict[str, Any]:
    payload = {"uiEvent": {"event.name": "qwen-code.api_response", "model": "qwen3-coder-plus"}}
    return record(
        session, uuid, parent, second, "system", subtype="ui_telemetry", systemPayload=payload
    )


def linear_records() -> list[dict[str, Any]]:
    """One prompt, a reply with reasoning and two calls (one failing), the results, a closing
    reply, the title record Qwen appends, and a record of a kind Qwen never wrote."""
    s = LINEAR_ID
    return [
        record(
            s,
            "u1",
            None,
            0,
            "user",
            message={"role": "user", "parts": [{"text": "Run the tests\nthen lint"}]},
        ),
        telemetry(s, "t1", "u1", 1),
        record(
            s,
            "a1",
            "t1",
            2,
            "assistant",
            model="qwen3-coder-plus",
            message={
                "role": "model",
                "parts": [
                    {"text": "Tests first.", "thought": True, "thoughtSignature": "c2lnLTE="},
                    {"text": "Running them."},
                    {
                        "functionCall": {
                            "id": "call_1",
                            "name": "run_shell_command",
                            "args": {
                                "command": "npm test",
                                "is_background": False,
                                "timeout": 120000,
                            },
                        }
                    },
                    {
                        "functionCall": {
                            "id": "call_2",
                            "name": "read_file",
                            "args": {"file_path": "/home/dev/acme/.eslintrc"},
                        }
                    },
                ],
            },
            usageMetadata={
                "promptTokenCount": 1200,
                "cachedContentTokenCount": 800,
                "candidatesTokenCount": 60,
                "totalTokenCount": 1260,
                "thoughtsTokenCount": 12,
            },
            contextWindowSize=131072,
        ),
        record(
            s,
            "r1",
            "a1",
            3,
            "tool_result",
            message={
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "call_1",
                            "name": "run_shell_command",
                            "response": {"output": "12 passing"},
                        }
                    }
                ],
            },
            toolCallResult={"callId": "call_1", "status": "success", "resultDisplay": "12 passing"},
        ),
        record(
            s,
            "r2",
            "r1",
            4,
            "tool_result",
            message={
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "call_2",
                            "name": "read_file",
                            "response": {"error": "File not found: /home/dev/acme/.eslintrc"},
                        }
                    }
                ],
            },
            toolCallResult={
                "callId": "call_2",
                "status": "error",
                "resultDisplay": "File not found",
                "error": {},
                "errorType": "file_not_found",
            },
        ),
        record(
            s,
            "a2",
            "r2",
            5,
            "assistant",
            model="qwen3-coder-plus",
            message={"role": "model", "parts": [{"text": "Tests pass; there is no lint config."}]},
            usageMetadata={
                "input": 1300,
                "output": 20,
                "cached": 0,
                "thoughts": 0,
                "tool": 0,
                "total": 1320,
            },
        ),
        record(
            s,
            "x1",
            "a2",
            6,
            "system",
            subtype="galaxy_brain",
            systemPayload={"note": "from a future build"},
        ),
        record(
            s,
            "ti",
            "a2",
            7,
            "system",
            subtype="custom_title",
            systemPayload={"customTitle": "Tests and lint", "titleSource": "auto"},
        ),
    ]


def rewound_records() -> list[dict[str, Any]]:
    """A first answer, then ``/rewind`` to the first prompt and a second try: the first answer
    (and its call) is a dead branch that stays in the file."""
    s = REWOUND_ID
    prompt = {"role": "user", "parts": [{"text": "Rename foo to bar"}]}
    return [
        record(s, "u1", None, 0, "user", message=prompt),
        record(
            s,
            "old-a1",
            "u1",
            1,
            "assistant",
            model="qwen3-coder-plus",
            message={
                "role": "model",
                "parts": [
                    {
                        "functionCall": {
                            "id": "call_old",
                            "name": "edit",
                            "args": {
                                "file_path": "/home/dev/acme/a.py",
                                "old_string": "foo",
                                "new_string": "baz",
                            },
                        }
                    }
                ],
            },
        ),
        record(
            s,
            "old-r1",
            "old-a1",
            2,
            "tool_result",
            message={
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "call_old",
                            "name": "edit",
                            "response": {"output": "edited"},
                        }
                    }
                ],
            },
            toolCallResult={"callId": "call_old", "status": "success", "resultDisplay": "edited"},
        ),
        record(
            s, "rw", "old-r1", 3, "system", subtype="rewind", systemPayload={"targetUuid": "u1"}
        ),
        record(
            s,
            "new-a1",
            "u1",
            4,
            "assistant",
            model="qwen3-coder-plus",
            message={
                "role": "model",
                "parts": [
                    {"text": "Renaming."},
                    {
                        "functionCall": {
                            "id": "call_new",
                            "name": "edit",
                            "args": {
                                "file_path": "/home/dev/acme/a.py",
                                "old_string": "foo",
                                "new_string": "bar",
                                "replace_all": True,
                            },
                        }
                    },
                ],
            },
        ),
        record(
            s,
            "new-r1",
            "new-a1",
            5,
            "tool_result",
            message={
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "call_new",
                            "name": "edit",
                            "response": {"output": "edited 3"},
                        }
                    }
                ],
            },
            toolCallResult={"callId": "call_new", "status": "success", "resultDisplay": "edited 3"},
        ),
    ]


def compressed_records() -> list[dict[str, Any]]:
    """A long chat compressed by ``/compress``: the model context after it starts from the
    compressed history; the new prompt follows."""
    s = COMPRESSED_ID
    return [
        record(
            s, "u1", None, 0, "user", message={"role": "user", "parts": [{"text": "Long work"}]}
        ),
        record(
            s,
            "a1",
            "u1",
            1,
            "assistant",
            model="qwen3-coder-plus",
            message={"role": "model", "parts": [{"text": "Done a lot."}]},
        ),
        record(
            s,
            "c1",
            "a1",
            2,
            "system",
            subtype="chat_compression",
            systemPayload={
                "info": {"originalTokenCount": 90000, "newTokenCount": 900},
                "compressedHistory": [
                    {"role": "user", "parts": [{"text": "Summary: we did a lot."}]},
                    {"role": "model", "parts": [{"text": "Got it."}]},
                ],
            },
        ),
        record(
            s, "u2", "c1", 3, "user", message={"role": "user", "parts": [{"text": "Next step"}]}
        ),
    ]


def text_of(records: list[dict[str, Any]]) -> str:
    return "".join(line(r) + "\n" for r in records)


def write_chat(root: Path, session: str, records: list[dict[str, Any]]) -> Path:
    """Lay a chat out under a Qwen runtime root as Qwen does."""
    chats = root / "projects" / PROJECT / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    path = chats / f"{session}.jsonl"
    path.write_text(text_of(records), encoding="utf-8")
    return path


def build_store(root: Path) -> None:
    """Every generation in one store: the linear chat, the rewound one, the compressed one."""
    write_chat(root, LINEAR_ID, linear_records())
    write_chat(root, REWOUND_ID, rewound_records())
    write_chat(root, COMPRESSED_ID, compressed_records())
