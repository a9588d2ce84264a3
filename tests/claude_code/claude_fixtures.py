"""Hand-written Claude Code records shaped like real 2.x session files (no copied sessions).

Records are dicts serialised with :func:`line` the way Claude Code writes them (compact, key order
kept); :func:`jsonl` joins lines into file text.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from txcript.harnesses.claude_code import reader
from txcript.harnesses.claude_code.native import ClaudeSession, parse_lines
from txcript.harnesses.claude_code.store import ClaudeCodeStore, encode_project
from txcript.model import Transcript

SID = "3f1c2a4e-8b7d-4e21-9a6b-0c5d2e7f9a11"
CWD = "/Users/dev/src/app"
VERSION = "2.1.37"
MODEL = "claude-opus-4-8"


def at(clock: str) -> str:
    """``"09:30:01.250"`` on 2026-08-21 as Claude Code writes it."""
    return f"2026-08-21T{clock}Z"


def when(clock: str) -> datetime:
    return datetime.fromisoformat(at(clock).replace("Z", "+00:00")).astimezone(UTC)


def line(record: Any) -> str:
    return record if isinstance(record, str) else json.dumps(record, separators=(",", ":"))


def jsonl(records: list[Any]) -> str:
    return "".join(line(r) + "\n" for r in records)


def _envelope(kind: str, uuid: str, parent: str | None, clock: str, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "parentUuid": parent,
        "isSidechain": extra.pop("isSidechain", False),
        "userType": "external",
        "cwd": extra.pop("cwd", CWD),
        "sessionId": extra.pop("sessionId", SID),
        "version": extra.pop("version", VERSION),
        "gitBranch": extra.pop("gitBranch", "main"),
        "type": kind,
    }
    record.update(extra)
    record["uuid"] = uuid
    record["timestamp"] = at(clock)
    return record


def user(uuid: str, parent: str | None, clock: str, content: Any, **extra: Any) -> dict[str, Any]:
    message = {"role": "user", "content": content}
    return _envelope("user", uuid, parent, clock, message=message, **extra)


def assistant(
    uuid: str,
    parent: str | None,
    clock: str,
    content: list[dict[str, Any]],
    *,
    message_id: str = "msg_01",
    model: str = MODEL,
    stop_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    message = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage
        or {
            "input_tokens": 4,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
            "service_tier": "standard",
        },
    }
    return _envelope(
        "assistant", uuid, parent, clock, message=message, requestId="req_011CV", **extra
    )


def system(uuid: str, parent: str | None, clock: str, subtype: str, **extra: Any) -> dict[str, Any]:
    return _envelope("system", uuid, parent, clock, subtype=subtype, level="info", **extra)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str, tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def tool_result(call_id: str, content: Any, is_error: bool | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result", "content": content}
    if is_error is not None:
        out["is_error"] = is_error
    return out


PNG = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}


def realistic_records() -> list[Any]:
    """A short 2.x session: bookkeeping around one tool round trip, titles, a broken line."""
    usage_a = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 1200,
        "cache_read_input_tokens": 0,
        "output_tokens": 3,
        "service_tier": "standard",
    }
    usage_b = dict(usage_a, output_tokens=42)
    usage_c = {
        "input_tokens": 7,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 1210,
        "output_tokens": 15,
    }
    return [
        {
            "type": "queue-operation",
            "operation": "dequeue",
            "timestamp": at("09:30:00.900"),
            "sessionId": SID,
        },
        {
            "type": "file-history-snapshot",
            "messageId": "u1",
            "snapshot": {"messageId": "u1", "trackedFileBackups": {}, "timestamp": at("09:30:01")},
            "isSnapshotUpdate": False,
        },
        user(
            "u1",
            None,
            "09:30:01.000",
            "fix the off-by-one in src/lib.rs",
            permissionMode="default",
            promptId="p-1",
        ),
        assistant(
            "a1",
            "u1",
            "09:30:03.100",
            [{"type": "thinking", "thinking": "Look at the loop bound.", "signature": "EqQB"}],
            message_id="msg_A",
            usage=usage_a,
        ),
        assistant(
            "a2",
            "a1",
            "09:30:03.400",
            [tool_use("toolu_01", "Read", {"file_path": "/Users/dev/src/app/src/lib.rs"})],
            message_id="msg_A",
            stop_reason="tool_use",
            usage=usage_b,
        ),
        {
            "parentUuid": "a2",
            "isSidechain": False,
            "type": "progress",
            "data": {"type": "hook"},
            "toolUseID": "toolu_01",
            "uuid": "p1",
            "timestamp": at("09:30:03.500"),
        },
        user(
            "u2",
            "a2",
            "09:30:03.600",
            [tool_result("toolu_01", "1\tfn f(n: usize) {\n2\t  for i in 0..=n {}")],
            toolUseResult={"type": "text", "file": {"filePath": "src/lib.rs"}},
        ),
        assistant(
            "a3",
            "u2",
            "09:30:05.000",
            [text("The loop runs one step too far; use `0..n`.")],
            message_id="msg_B",
            stop_reason="end_turn",
            usage=usage_c,
        ),
        system("s1", "a3", "09:30:05.100", "turn_duration", durationMs=4100),
        {"type": "last-prompt", "lastPrompt": "fix the off-by-one", "sessionId": SID},
        {"type": "summary", "summary": "Loop bound fix", "leafUuid": "a3"},
        {"type": "ai-title", "aiTitle": "Fix off-by-one in loop", "sessionId": SID},
        "{this line was cut off by a crash",
        {"type": "custom-title", "customTitle": "off-by-one", "sessionId": SID},
        {"type": "permission-mode", "permissionMode": "default", "sessionId": SID},
    ]


def session(records: list[Any], session_id: str = "", **kwargs: Any) -> ClaudeSession:
    lines, final = parse_lines(jsonl(records))
    return ClaudeSession(session_id=session_id, lines=lines, final_newline=final, **kwargs)


def common(records: list[Any], **kwargs: Any) -> Transcript:
    return reader.to_common(session(records, **kwargs))


def put(
    root: Path,
    records: list[Any] | str | bytes,
    *,
    cwd: str = CWD,
    session_id: str = SID,
    side: dict[str, bytes] | None = None,
) -> Path:
    """Write a session file where Claude Code keeps it under config root ``root``."""
    directory = root / "projects" / encode_project(cwd)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{session_id}.jsonl"
    if isinstance(records, bytes):
        path.write_bytes(records)
    else:
        body = records if isinstance(records, str) else jsonl(records)
        path.write_bytes(body.encode("utf-8"))
    for relative, data in (side or {}).items():
        target = directory / session_id / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return path


def store(root: Path) -> ClaudeCodeStore:
    return ClaudeCodeStore(root)
