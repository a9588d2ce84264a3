"""Hand-written pi-format sessions, one per generation and shape the spec names, laid out as
pi, Campfire and OpenClaw lay them out. Modelled on the format documentation; no real session.

Each builder returns the file's text; ``write_*`` puts it where the app keeps it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SID_V1 = "11111111-1111-4111-8111-111111111111"
SID_V2 = "22222222-2222-4222-8222-222222222222"
SID_V3 = "0199a5b0-0000-7000-8000-000000000003"
SID_TREE = "0199a5b0-0000-7000-8000-00000000000b"
SID_COMPACT = "0199a5b0-0000-7000-8000-00000000000c"
SID_TAIL = "0199a5b0-0000-7000-8000-00000000000d"
SID_DUP = "0199a5b0-0000-7000-8000-00000000000e"
SID_CLAW = "0199a5b0-0000-7000-8000-0000000000c1"
SID_CLAW_ORPHAN = "0199a5b0-0000-7000-8000-0000000000c2"
CWD = "/work/app"
T0 = 1793527200000  # 2026-11-01T10:00:00Z in Unix ms


def iso(offset_s: float) -> str:
    from datetime import UTC, datetime, timedelta

    moment = datetime(2026, 11, 1, 10, tzinfo=UTC) + timedelta(seconds=offset_s)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def ms(offset_s: float) -> int:
    return T0 + int(offset_s * 1000)


def line(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def text(values: list[dict[str, Any]]) -> str:
    return "".join(line(v) + "\n" for v in values)


USAGE = {
    "input": 120,
    "output": 30,
    "cacheRead": 800,
    "cacheWrite": 0,
    "totalTokens": 950,
    "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0.01, "cacheWrite": 0, "total": 0.31},
}
ZERO_USAGE = {**USAGE, "input": 0, "output": 0, "cacheRead": 0, "totalTokens": 0}


def user(text_: str, at: float) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text_}], "timestamp": ms(at)}


def assistant(
    content: list[dict[str, Any]], at: float, stop: str = "stop", **extra: Any
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": extra.pop("model", "claude-sonnet-4-5"),
        "usage": extra.pop("usage", USAGE),
        "stopReason": stop,
        "timestamp": ms(at),
        **extra,
    }


def result(call_id: str, name: str, output: str, at: float, error: bool = False) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": output}],
        "isError": error,
        "timestamp": ms(at),
    }


def entry(kind: str, entry_id: str, parent: str | None, at: float, **body: Any) -> dict[str, Any]:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": iso(at), **body}


def header(sid: str, version: int | None = 3, **extra: Any) -> dict[str, Any]:
    value: dict[str, Any] = {"type": "session"}
    if version is not None:
        value["version"] = version
    value.update({"id": sid, "timestamp": iso(0), "cwd": CWD, **extra})
    return value


# ------------------------------------------------------------------------------ generations


def v1() -> str:
    """Version 1: no entry ids, the model and thinking level in the header, a hookMessage
    (renamed ``custom`` in v3) and a ``!command``."""
    return text(
        [
            header(
                SID_V1, None, provider="anthropic", modelId="claude-sonnet-4-5", thinkingLevel="off"
            ),
            {"type": "message", "timestamp": iso(1), "message": user("list the files", 1)},
            {
                "type": "message",
                "timestamp": iso(2),
                "message": assistant(
                    [
                        {
                            "type": "toolCall",
                            "id": "toolu_01",
                            "name": "ls",
                            "arguments": {"path": "."},
                        }
                    ],
                    2,
                    "toolUse",
                ),
            },
            {
                "type": "message",
                "timestamp": iso(3),
                "message": result("toolu_01", "ls", "a.py\nb.py", 3),
            },
            {
                "type": "message",
                "timestamp": iso(4),
                "message": {
                    "role": "hookMessage",
                    "customType": "reminder",
                    "content": "remember the tests",
                    "display": True,
                    "timestamp": ms(4),
                },
            },
            {
                "type": "message",
                "timestamp": iso(5),
                "message": {
                    "role": "bashExecution",
                    "command": "git status",
                    "output": "clean",
                    "exitCode": 0,
                    "cancelled": False,
                    "truncated": False,
                    "timestamp": ms(5),
                },
            },
            {
                "type": "message",
                "timestamp": iso(6),
                "message": assistant([{"type": "text", "text": "Two files."}], 6),
            },
        ]
    )


def v2() -> str:
    """Version 2: ids and parents, a thinking block with a signature, an edit in the old
    single-pair shape, a model change, and a ``hookMessage``."""
    return text(
        [
            header(SID_V2, 2),
            entry("model_change", "a0000001", None, 0, provider="openai", modelId="gpt-5"),
            entry("thinking_level_change", "a0000002", "a0000001", 0, thinkingLevel="high"),
            entry("message", "a0000003", "a0000002", 1, message=user("fix the off-by-one", 1)),
            entry(
                "message",
                "a0000004",
                "a0000003",
                2,
                message=assistant(
                    [
                        {
                            "type": "thinking",
                            "thinking": "loop bound",
                            "thinkingSignature": "sig-1",
                        },
                        {
                            "type": "toolCall",
                            "id": "call_1|fc_1",
                            "name": "edit",
                            "arguments": {"path": "a.py", "oldText": "i <= n", "newText": "i < n"},
                        },
                    ],
                    2,
                    "toolUse",
                    model="gpt-5",
                    api="openai-responses",
                    provider="openai",
                ),
            ),
            entry(
                "message",
                "a0000005",
                "a0000004",
                3,
                message=result("call_1|fc_1", "edit", "patched", 3),
            ),
            entry(
                "message",
                "a0000006",
                "a0000005",
                4,
                message={
                    "role": "hookMessage",
                    "customType": "lint",
                    "content": [{"type": "text", "text": "lint ok"}],
                    "display": False,
                    "timestamp": ms(4),
                },
            ),
            entry(
                "message",
                "a0000007",
                "a0000006",
                5,
                message=assistant(
                    [{"type": "text", "text": "Fixed."}], 5, model="gpt-5", usage=ZERO_USAGE
                ),
            ),
        ]
    )


def v3() -> str:
    """Version 3: a parallel batch with Kimi-style ids (``functions.read:0``), answered out of
    order with one error; typed read/bash/write/multi-edit calls; a ``!!`` run kept out of the
    context; a session name, a label and extension state."""
    calls = [
        {
            "type": "toolCall",
            "id": "functions.read:0",
            "name": "read",
            "arguments": {"path": "a.py", "offset": 10, "limit": 20},
        },
        {
            "type": "toolCall",
            "id": "functions.read:1",
            "name": "read",
            "arguments": {"path": "b.py"},
        },
        {
            "type": "toolCall",
            "id": "functions.bash:2",
            "name": "bash",
            "arguments": {"command": "pytest", "timeout": 90},
        },
    ]
    return text(
        [
            header(SID_V3),
            entry("model_change", "b0000001", None, 0, provider="moonshotai", modelId="kimi-k2"),
            entry(
                "message",
                "b0000002",
                "b0000001",
                1,
                message=user("read both files and run the tests", 1),
            ),
            entry(
                "message",
                "b0000003",
                "b0000002",
                2,
                message=assistant(
                    calls,
                    2,
                    "toolUse",
                    model="kimi-k2",
                    provider="moonshotai",
                    api="openai-completions",
                ),
            ),
            entry(
                "message",
                "b0000004",
                "b0000003",
                3,
                message=result("functions.bash:2", "bash", "1 failed", 3, error=True),
            ),
            entry(
                "message",
                "b0000005",
                "b0000004",
                3,
                message=result("functions.read:0", "read", "A", 3),
            ),
            entry(
                "message",
                "b0000006",
                "b0000005",
                3,
                message=result("functions.read:1", "read", "B", 3),
            ),
            entry("custom", "b0000007", "b0000006", 4, customType="todo", data={"open": 1}),
            entry("label", "b0000008", "b0000007", 4, targetId="b0000002", label="start"),
            entry(
                "message",
                "b0000009",
                "b0000008",
                5,
                message={
                    "role": "bashExecution",
                    "command": "cat .env",
                    "output": "SECRET=1",
                    "exitCode": 0,
                    "cancelled": False,
                    "truncated": False,
                    "excludeFromContext": True,
                    "timestamp": ms(5),
                },
            ),
            entry(
                "message",
                "b000000a",
                "b0000009",
                6,
                message=assistant(
                    [
                        {
                            "type": "toolCall",
                            "id": "functions.write:0",
                            "name": "write",
                            "arguments": {"path": "c.py", "content": "x = 1\n"},
                        },
                        {
                            "type": "toolCall",
                            "id": "functions.edit:1",
                            "name": "edit",
                            "arguments": {
                                "path": "a.py",
                                "edits": [
                                    {"oldText": "a", "newText": "b"},
                                    {"oldText": "c", "newText": "d"},
                                ],
                            },
                        },
                    ],
                    6,
                    "toolUse",
                    model="kimi-k2",
                ),
            ),
            entry(
                "message",
                "b000000b",
                "b000000a",
                7,
                message=result("functions.write:0", "write", "ok", 7),
            ),
            entry(
                "message",
                "b000000c",
                "b000000b",
                7,
                message=result("functions.edit:1", "edit", "ok", 7),
            ),
            entry("session_info", "b000000d", "b000000c", 8, name="  Kimi batch  "),
            entry(
                "message",
                "b000000e",
                "b000000d",
                9,
                message=assistant(
                    [{"type": "text", "text": "One test fails."}], 9, model="kimi-k2"
                ),
            ),
        ]
    )


def branched() -> str:
    """A tree: the first answer was abandoned (``/tree`` back to the prompt) with a branch
    summary, and the leaf is on the second branch."""
    return text(
        [
            header(SID_TREE),
            entry("message", "c0000001", None, 1, message=user("pick a name", 1)),
            entry(
                "message",
                "c0000002",
                "c0000001",
                2,
                message=assistant([{"type": "text", "text": "ABANDONED answer"}], 2),
            ),
            entry("message", "c0000003", "c0000002", 3, message=user("ABANDONED follow-up", 3)),
            entry(
                "branch_summary",
                "c0000004",
                "c0000001",
                4,
                fromId="c0000003",
                summary="tried a long name",
            ),
            entry("message", "c0000005", "c0000004", 5, message=user("something short", 5)),
            entry(
                "message",
                "c0000006",
                "c0000005",
                6,
                message=assistant([{"type": "text", "text": "Use `tx`."}], 6),
            ),
        ]
    )


def compacted() -> str:
    """A compaction that keeps the last exchange before it (``firstKeptEntryId``)."""
    return text(
        [
            header(SID_COMPACT),
            entry("message", "d0000001", None, 1, message=user("COMPACTED early prompt", 1)),
            entry(
                "message",
                "d0000002",
                "d0000001",
                2,
                message=assistant([{"type": "text", "text": "COMPACTED early answer"}], 2),
            ),
            entry("message", "d0000003", "d0000002", 3, message=user("kept prompt", 3)),
            entry(
                "message",
                "d0000004",
                "d0000003",
                4,
                message=assistant([{"type": "text", "text": "kept answer"}], 4),
            ),
            entry(
                "compaction",
                "d0000005",
                "d0000004",
                5,
                summary="We set up the project.",
                firstKeptEntryId="d0000003",
                tokensBefore=50000,
                details={"readFiles": [], "modifiedFiles": []},
            ),
            entry("message", "d0000006", "d0000005", 6, message=user("after compaction", 6)),
            entry(
                "message",
                "d0000007",
                "d0000006",
                7,
                message=assistant([{"type": "text", "text": "continuing"}], 7),
            ),
        ]
    )


def compacted_with_tail() -> str:
    """A newer compaction that carries its kept messages itself (``retainedTail``)."""
    return text(
        [
            header(SID_TAIL),
            entry("message", "e0000001", None, 1, message=user("COMPACTED prompt", 1)),
            entry(
                "message",
                "e0000002",
                "e0000001",
                2,
                message=assistant([{"type": "text", "text": "COMPACTED answer"}], 2),
            ),
            entry(
                "compaction",
                "e0000003",
                "e0000002",
                3,
                summary="Summary of the start.",
                retainedTail=[
                    user("tail prompt", 2.5),
                    assistant([{"type": "text", "text": "tail answer"}], 2.6),
                ],
                tokensBefore=900,
            ),
            entry("message", "e0000004", "e0000003", 4, message=user("next", 4)),
        ]
    )


def duplicated_header() -> str:
    """The header written twice (same id: skipped), CRLF on one line, a non-JSON line."""
    lines = [
        line(header(SID_DUP)),
        line(entry("message", "f0000001", None, 1, message=user("hello", 1))),
        line(header(SID_DUP)),
        "not json at all",
        line(
            entry(
                "message",
                "f0000002",
                "f0000001",
                2,
                message=assistant([{"type": "text", "text": "hi"}], 2),
            )
        )
        + "\r",
    ]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------ stores


def project_dir(cwd: str = CWD) -> str:
    return "--" + cwd.lstrip("/").replace("/", "-") + "--"


def write_pi(agent_dir: Path, sid: str, body: str, stamp: str = "2026-11-01T10-00-00-000Z") -> Path:
    """A session file where pi keeps it: ``<agent dir>/sessions/--<cwd>--/<time>_<id>.jsonl``."""
    directory = agent_dir / "sessions" / project_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{stamp}_{sid}.jsonl"
    path.write_text(body, newline="")
    return path


def openclaw_session() -> str:
    return text(
        [
            header(SID_CLAW, cwd="/home/u/.openclaw/workspace"),
            entry(
                "custom",
                "90000001",
                None,
                0,
                customType="model-snapshot",
                data={"model": "claude-opus-4-8"},
            ),
            entry(
                "message", "90000002", "90000001", 1, message=user("[Telegram] what's on today?", 1)
            ),
            entry(
                "message",
                "90000003",
                "90000002",
                2,
                message=assistant(
                    [{"type": "text", "text": "Two meetings."}], 2, model="claude-opus-4-8"
                ),
            ),
        ]
    )


def openclaw_orphan() -> str:
    """An older session of the same key, left unindexed when the key rotated."""
    return text(
        [
            header(SID_CLAW_ORPHAN, cwd="/home/u/.openclaw/workspace"),
            entry("message", "91000001", None, 1, message=user("yesterday's question", 1)),
        ]
    )


OPENCLAW_INDEX = {
    "agent:main:main": {
        "sessionId": SID_CLAW,
        "sessionFile": f"/home/u/.openclaw/agents/main/sessions/{SID_CLAW}.jsonl",
        "sessionStartedAt": T0,
        "updatedAt": T0 + 2000,
        "chatType": "direct",
        "channel": "telegram",
        "displayName": "Telegram: me",
        "modelOverride": "claude-opus-4-8",
        "thinkingLevel": "low",
        "inputTokens": 10,
        "outputTokens": 5,
        "totalTokens": 15,
        "compactionCount": 0,
    },
    "cron:daily": {"sessionId": "0199a5b0-0000-7000-8000-0000000000ff", "updatedAt": T0},
}


def write_openclaw(state_dir: Path, agent: str = "main") -> Path:
    """An agent dir with its index, the indexed session, an unindexed older one, and rotated
    and checkpoint copies that are not sessions of their own."""
    sessions = state_dir / "agents" / agent / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / f"{SID_CLAW}.jsonl").write_text(openclaw_session())
    (sessions / f"{SID_CLAW_ORPHAN}.jsonl").write_text(openclaw_orphan())
    (sessions / f"{SID_CLAW}.jsonl.reset.2026-10-31T04-00-00Z").write_text(openclaw_orphan())
    (sessions / f"{SID_CLAW}.checkpoint.1.jsonl").write_text(openclaw_session())
    (sessions / "sessions.json").write_text(json.dumps(OPENCLAW_INDEX, indent=2) + "\n")
    return sessions
