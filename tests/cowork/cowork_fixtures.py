"""Cowork stores built in temp dirs: ``<org>/<account>/`` trees laid out like Claude desktop's.

Per task, the app record ``local_<id>.json`` and the Claude Code transcript of the run behind it
at ``local_<id>/.claude/projects/<slug>/<cliSessionId>.jsonl`` (``harness-formats-2.md`` §11).
Hand-written, modelled on the spec: no real session's content.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ORG = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
ACCOUNT = "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e"
OTHER_ACCOUNT = "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f"
TASK = "local_6f1e2d3c-4b5a-4c6d-8e7f-809a1b2c3d4e"
DITTO = "local_ditto_7a8b9c0d"
CLI_TASK = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"
CLI_DITTO = "8c7b6a5f-4e3d-4c2b-9a1f-0e9d8c7b6a5f"
CREATED_MS = 1_787_216_400_000  # 2026-08-20T09:00:00Z
CWD = "/sessions/brave-otter"
MANIFEST = "<uploaded_files>\n/sessions/brave-otter/uploads/report.pdf\n</uploaded_files>"


def line(
    kind: str, uuid: str | None, parent: str | None, second: int, **body: Any
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": CWD,
        "sessionId": CLI_TASK,
        "version": "2.1.37",
        "gitBranch": "",
        "type": kind,
        **body,
        "timestamp": f"2026-08-20T09:00:{second:02d}.000Z",
    }
    if uuid is not None:
        record["uuid"] = uuid
    return record


def task_lines() -> list[dict[str, Any]]:
    bash = {
        "type": "tool_use",
        "id": "toolu_ls",
        "name": "mcp__workspace__bash",
        "input": {"command": "ls uploads"},
    }
    return [
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-08-20T09:00:01.000Z",
            "sessionId": CLI_TASK,
        },
        line(
            "user",
            "u1",
            None,
            2,
            message={"role": "user", "content": f"{MANIFEST}\nSummarise report.pdf"},
        ),
        line(
            "assistant",
            "a1",
            "u1",
            3,
            message={
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-opus-4-8",
                "content": [bash],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        ),
        line(
            "user",
            "u2",
            "a1",
            4,
            message={
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_ls", "content": "report.pdf"}
                ],
            },
        ),
        line(
            "assistant",
            "a2",
            "u2",
            5,
            message={
                "id": "msg_2",
                "type": "message",
                "role": "assistant",
                "model": "claude-opus-4-8",
                "content": [{"type": "text", "text": "Revenue rose 4%."}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 20, "output_tokens": 7},
            },
        ),
        {"type": "last-prompt", "lastPrompt": "Summarise report.pdf", "sessionId": CLI_TASK},
    ]


def ditto_lines() -> list[dict[str, Any]]:
    return [
        {
            **line("user", "d1", None, 10, message={"role": "user", "content": "Tidy the notes"}),
            "sessionId": CLI_DITTO,
            "cwd": "/Users/dev/notes",
        },
        {
            **line(
                "assistant",
                "d2",
                "d1",
                11,
                message={
                    "id": "msg_d",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-6",
                    "content": [{"type": "text", "text": "Done."}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 3, "output_tokens": 1},
                },
            ),
            "sessionId": CLI_DITTO,
            "cwd": "/Users/dev/notes",
        },
        {"type": "ai-title", "aiTitle": "Tidy notes", "sessionId": CLI_DITTO},
    ]


def record(task_id: str, cli_id: str, *, created: int, last: int, **extra: Any) -> dict[str, Any]:
    return {
        "sessionId": task_id,
        "processName": "cowork-vm-brave-otter",
        "cwd": CWD,
        "createdAt": created,
        "lastActivityAt": last,
        "cliSessionId": cli_id,
        "isArchived": False,
        "hostLoopMode": False,
        **extra,
    }


def put_task(
    tree: Path,
    task_id: str,
    value: dict[str, Any] | None,
    lines: list[dict[str, Any]] | None,
    *,
    slug: str = "-sessions-brave-otter",
) -> Path:
    tree.mkdir(parents=True, exist_ok=True)
    path = tree / f"{task_id}.json"
    if value is not None:
        path.write_text(json.dumps(value, indent=2))
    if lines is not None:
        cli_id = value["cliSessionId"] if value else "x"
        transcript = tree / task_id / ".claude" / "projects" / slug / f"{cli_id}.jsonl"
        transcript.parent.mkdir(parents=True, exist_ok=True)
        transcript.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in lines))
        for name in ("outputs", "uploads"):
            (tree / task_id / name).mkdir(exist_ok=True)
        (tree / task_id / "audit.jsonl").write_text('{"hmac":"00"}\n')
    return path


def account_with_two_tasks(root: Path, *, noise: bool = True) -> dict[str, Path]:
    """One account: a task in the tree, a ditto task under agent/, and (``noise``) what is not a
    task: trees that are not accounts, a settings file, a record missing a required field."""
    account = root / ORG / ACCOUNT
    out = {
        "task": put_task(
            account,
            TASK,
            record(
                TASK,
                CLI_TASK,
                created=CREATED_MS,
                last=CREATED_MS + 5000,
                title="Summarise the quarterly report",
                model="claude-opus-4-8",
                initialMessage="Summarise report.pdf",
            ),
            task_lines(),
        ),
        "ditto": put_task(
            account / "agent",
            DITTO,
            {
                **record(DITTO, CLI_DITTO, created=CREATED_MS + 9000, last=CREATED_MS + 11000),
                "cwd": "/Users/dev/notes",
            },
            ditto_lines(),
            slug="-Users-dev-notes",
        ),
    }
    if not noise:
        return out
    # Not accounts, not tasks: skipped (the invalid record with one warning).
    (root / "skills-plugin" / ACCOUNT).mkdir(parents=True)
    (root / "skills-plugin" / ACCOUNT / f"{TASK}.json").write_text("{}")
    (root / ORG / "not-an-account").mkdir()
    (account / "cowork_settings.json").write_text("{}")
    broken = record("local_broken", CLI_TASK, created=1, last=1)
    del broken["processName"]
    put_task(account, "local_broken", broken, None)
    return out
