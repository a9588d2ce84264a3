"""Hand-written Claude Code records shaped like real 2.x session files (no copied sessions).

Records are dicts serialised with :func:`line` the way Claude Code writes them (compact, key order
kept); :func:`jsonl` joins lines into file text.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from strategies import tools
from txcript import model as m
from txcript.harnesses.claude_code import reader
from txcript.harnesses.claude_code.native import ClaudeSession, parse_lines
from txcript.harnesses.claude_code.store import ClaudeCodeStore, encode_project
from txcript.model import Transcript
from txcript.pairing import answer_open_calls

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


# ---------------------------------------------------------------- the representable subset

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

_MARKUP_LIKE = [
    "<command-name>/x</command-name>",
    "<local-command-stdout>out</local-command-stdout>",
    "<local-command-caveat>c</local-command-caveat>",
    "<command-message>m</command-message>",
    "a </command-args> b",
]
small_texts = st.text(max_size=30) | st.sampled_from(_MARKUP_LIKE)
non_empty = st.text(min_size=1, max_size=20)
stamps = st.integers(0, 10**11).map(lambda ms: T0 + timedelta(milliseconds=ms))
signed = st.builds(m.Thinking, text=small_texts, signature=st.text(max_size=10))
redacted = st.builds(lambda data: m.Thinking(text="", encrypted=data), st.text(max_size=10))
images = st.builds(
    m.Image,
    source=st.builds(m.ImageSource, type=st.just("base64"), media_type=non_empty, data=non_empty),
)
usages = st.none() | st.builds(
    m.Usage,
    input_tokens=st.integers(0, 2**40),
    output_tokens=st.integers(0, 2**40),
    cache_read_input_tokens=st.none() | st.integers(1, 2**40),
    cache_creation_input_tokens=st.none() | st.integers(1, 2**40),
).filter(lambda u: u != m.Usage(input_tokens=0, output_tokens=0))
stop_reasons = (
    st.none()
    | st.sampled_from(sorted(m.STOP_REASONS))
    | st.builds(m.OtherStop, other=st.text(max_size=12).filter(lambda s: s not in m.STOP_REASONS))
)
models = st.none() | non_empty.filter(lambda s: s != "<synthetic>")
text_block = {"type": "text", "text": "x"}
result_outputs = st.one_of(
    small_texts,
    st.lists(st.builds(lambda t: {"type": "text", "text": t}, small_texts), min_size=2, max_size=3),
    st.just([]),
    st.just(
        [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A"}}]
    ),
    st.just([dict(text_block, cache_control={"type": "ephemeral"})]),
)
model_tools = tools.filter(lambda t: not isinstance(t, m.Command))


@st.composite
def claude_transcripts(draw: st.DrawFn) -> m.Transcript:
    """Transcripts Claude Code can carry exactly (see docs/formats/claude-code.md)."""
    messages: list[m.Message] = []
    calls = 0
    units = [
        "prompt",
        *draw(st.lists(st.sampled_from(["prompt", "assistant", "command", "orphan"]), max_size=6)),
    ]
    for unit in units:
        stamp = draw(stamps)
        if unit == "prompt":
            blocks = draw(st.lists(st.builds(m.Text, text=small_texts) | images, max_size=3))
            messages.append(m.Message(role="user", content=tuple(blocks), timestamp=stamp))
        elif unit == "assistant":
            content: list[m.Block] = []
            used: list[str] = []
            for kind in draw(
                st.lists(st.sampled_from(["text", "signed", "redacted", "tool"]), max_size=4)
            ):
                if kind == "text":
                    content.append(m.Text(text=draw(small_texts)))
                elif kind == "signed":
                    content.append(draw(signed))
                elif kind == "redacted":
                    content.append(draw(redacted))
                else:
                    calls += 1
                    call_id = f"toolu_{calls}" + draw(
                        st.from_regex(r"[A-Za-z0-9_-]{0,6}", fullmatch=True)
                    )
                    used.append(call_id)
                    content.append(m.ToolUse(id=call_id, tool=draw(model_tools)))
            messages.append(
                m.Message(
                    role="assistant",
                    content=tuple(content),
                    timestamp=stamp,
                    model=draw(models),
                    stop_reason=draw(stop_reasons),
                    usage=draw(usages),
                )
            )
            answered = [c for c in used if draw(st.booleans())]
            if answered:
                results: list[m.Block] = [
                    m.ToolResult(
                        tool_use_id=c, content=draw(result_outputs), is_error=draw(st.booleans())
                    )
                    for c in answered
                ]
                if draw(st.booleans()):
                    results.append(m.Text(text=draw(small_texts)))
                messages.append(m.Message(role="user", content=tuple(results), timestamp=stamp))
        elif unit == "command":
            call_id = str(draw(st.uuids()))
            tool = m.Command(
                command="/" + draw(st.text(max_size=10)), args=draw(st.none() | non_empty)
            )
            messages.append(
                m.Message(role="user", content=(m.ToolUse(id=call_id, tool=tool),), timestamp=stamp)
            )
            if draw(st.booleans()):
                out = m.ToolResult(
                    tool_use_id=call_id,
                    content=draw(st.text(max_size=20)),
                    is_error=draw(st.booleans()),
                )
                messages.append(m.Message(role="user", content=(out,), timestamp=draw(stamps)))
        else:
            previous = messages[-1].content
            pending = (
                len(previous) == 1
                and isinstance(previous[0], m.ToolUse)
                and isinstance(previous[0].tool, m.Command)
            )
            if not pending:
                out = m.ToolResult(
                    tool_use_id=str(draw(st.uuids())), content=draw(st.text(max_size=20))
                )
                messages.append(m.Message(role="user", content=(out,), timestamp=stamp))
    first_model = next(
        (x.model for x in messages if x.role == "assistant" and x.model is not None), None
    )
    meta = m.Meta(
        id=draw(st.from_regex(r"[a-z0-9-]{1,20}", fullmatch=True)),
        timestamp=draw(st.just(messages[0].timestamp) | stamps),
        cwd=draw(st.none() | non_empty),
        git_branch=draw(st.none() | non_empty),
        title=draw(st.none() | non_empty),
        cli_version=draw(st.none() | non_empty),
        model=first_model,
    )
    # Writers close calls left open mid-session (txcript.pairing); the fixpoint is over closed ones.
    return answer_open_calls(m.Transcript(meta=meta, messages=tuple(messages)))


# ------------------------------------------------------ parallel calls answered out of order

PARALLEL_SID = "7d0c9e1a-2b3c-4d5e-8f90-a1b2c3d4e5f6"


def _parallel_line(kind: str, uuid: str, parent: str | None, second: int, **body: Any) -> str:
    record: dict[str, Any] = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/work/app",
        "sessionId": PARALLEL_SID,
        "version": "2.1.37",
        "gitBranch": "main",
        "type": kind,
        **body,
        "uuid": uuid,
        "timestamp": f"2026-08-21T09:00:{second:02d}.000Z",
    }
    return json.dumps(record, separators=(",", ":"))


def parallel_batches(root: Path) -> None:
    """A session with two parallel batches of calls answered out of order, with errors among
    the results, as Claude Code writes it: one line per call, results in completion order."""
    lines = [_parallel_line("user", "u1", None, 0, message={"role": "user", "content": "audit"})]
    previous = "u1"
    second = 1

    def response(tag: str, calls: list[tuple[str, str, dict[str, Any]]]) -> list[str]:
        nonlocal previous, second
        chain = []
        for n, (call_id, name, tool_input) in enumerate(calls):
            block = {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}
            message = {
                "id": f"msg_{tag}",
                "type": "message",
                "role": "assistant",
                "model": "claude-opus-4-8",
                "content": [block],
                "stop_reason": "tool_use" if n == len(calls) - 1 else None,
                "usage": {"input_tokens": 3, "output_tokens": 4},
            }
            uuid = f"{tag}-a{n}"
            lines.append(_parallel_line("assistant", uuid, previous, second, message=message))
            chain.append(uuid)
            previous = uuid
            second += 1
        return chain

    def results(chain: list[str], answers: list[tuple[int, str, Any, bool]]) -> None:
        nonlocal previous, second
        for index, call_id, content, is_error in answers:
            block = {"type": "tool_result", "tool_use_id": call_id, "content": content}
            if is_error:
                block["is_error"] = True
            uuid = f"r-{call_id}"
            lines.append(
                _parallel_line(
                    "user", uuid, chain[index], second, message={"role": "user", "content": [block]}
                )
            )
            previous = uuid
            second += 1

    first = response(
        "b1",
        [
            ("toolu_1", "Bash", {"command": "npm test"}),
            ("toolu_2", "Read", {"file_path": "/work/app/package.json"}),
            ("toolu_3", "Glob", {"pattern": "**/*.ts"}),
        ],
    )
    results(
        first,
        [
            (2, "toolu_3", "src/a.ts", False),
            (0, "toolu_1", "1 failing", True),
            (1, "toolu_2", "{}", False),
        ],
    )
    second_batch = response(
        "b2",
        [
            ("toolu_4", "Grep", {"pattern": "TODO"}),
            ("toolu_5", "Bash", {"command": "npm run lint"}),
        ],
    )
    results(second_batch, [(1, "toolu_5", "clean", False), (0, "toolu_4", "no access", True)])
    done = {
        "id": "msg_c",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-4-8",
        "content": [{"type": "text", "text": "One test fails; grep was denied."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 9},
    }
    lines.append(_parallel_line("assistant", "c1", previous, second, message=done))
    directory = root / "projects" / "-work-app"
    directory.mkdir(parents=True)
    (directory / f"{PARALLEL_SID}.jsonl").write_text("".join(line + "\n" for line in lines))
