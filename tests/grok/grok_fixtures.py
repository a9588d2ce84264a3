"""Hand-written Grok session directories modelled on the spec (never a copied session).

:func:`write_newer` is a build that records each turn's token usage in ``turn_completed`` and
names turns with ``promptIndex``; :func:`write_older` is a build without either (turns matched by
order), whose summary has no start time and whose read tool is ``read_file``. Both carry what a
real directory holds beside the conversation: the system prompt, the synthetic environment
preamble, a backend tool call, a hook execution, a call's in-progress update, sidecars.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION_ID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
OLDER_ID = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
CWD = "/home/dev/acme app"
PROJECT = "%2Fhome%2Fdev%2Facme%20app"
T0 = 1_767_261_600_000  # 2026-01-01T10:00:00Z in ms
MODEL = "grok-code-fast-1"


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":")) + "\n"


def _chat(read_tool: tuple[str, dict[str, str]], *, indexed: bool) -> str:
    read_name, read_args = read_tool

    def prompt(text: str, index: int, **extra: Any) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "type": "user",
            "content": [{"type": "text", "text": f"<user_query>\n{text}\n</user_query>"}],
        }
        if indexed:
            entry["prompt_index"] = index
        return {**entry, **extra}

    first = prompt("Why does the build fail?", 0)
    entries = [
        {"type": "system", "content": "You are Grok, a coding agent. SYSTEM-PROMPT"},
        {
            "type": "user",
            "content": [{"type": "text", "text": "<user_info>\nOS: linux\n</user_info>"}],
            "synthetic_reason": "environment_context",
        },
        first,
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Check the build script."}],
            "encrypted_content": "gAAAA-encrypted",
            "status": "completed",
        },
        {
            "type": "assistant",
            "content": "Let me run it.",
            "tool_calls": [
                {
                    "id": "call_sh",
                    "name": "Shell",
                    "arguments": json.dumps(
                        {"command": "npm run build", "cwd": CWD, "block_until_ms": 30000.0}
                    ),
                },
                {"id": "call_rd", "name": read_name, "arguments": json.dumps(read_args)},
            ],
            "model_id": MODEL,
            "model_fingerprint": "fp_1",
            "reasoning_effort": "high",
        },
        {"type": "tool_result", "tool_call_id": "call_sh", "content": "error TS2304: foo"},
        {"type": "tool_result", "tool_call_id": "call_rd", "content": '{"name":"acme"}'},
        {"type": "backend_tool_call", "kind": "web_search"},
        {
            "type": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_sr",
                    "name": "StrReplace",
                    "arguments": json.dumps(
                        {"path": f"{CWD}/src/a.ts", "old_string": "foo", "new_string": "bar"}
                    ),
                },
                {"id": "call_bad", "name": "Glob", "arguments": "{not json"},
            ],
            "model_id": MODEL,
        },
        {"type": "tool_result", "tool_call_id": "call_sr", "content": "ok"},
        {"type": "tool_result", "tool_call_id": "call_bad", "content": "bad arguments"},
        {"type": "assistant", "content": "Fixed: `foo` was undefined.", "model_id": MODEL},
        prompt("thanks, stop here", 1, prior_turn_interrupt=False),
        {"type": "assistant", "content": "Stopping", "model_id": MODEL},
    ]
    return "".join(_line(e) for e in entries)


def _updates(session_id: str, *, usage: bool) -> str:
    lines: list[str] = []
    event = 0

    def update(ms: int, body: dict[str, Any], prompt: int | None, xai: bool = False) -> None:
        nonlocal event
        event += 1
        meta: dict[str, Any] = {"eventId": f"{session_id}-{event}", "agentTimestampMs": T0 + ms}
        if usage:  # the newer build: a user chunk names its prompt in its own _meta
            if body["sessionUpdate"] == "user_message_chunk" and prompt is not None:
                body = {**body, "_meta": {"modelId": MODEL, "promptIndex": prompt}}
            meta["totalTokens"] = 1000 + event
        line = {
            "timestamp": (T0 + ms) // 1000,
            "method": "_x.ai/session/update" if xai else "session/update",
            "params": {"sessionId": session_id, "update": body, "_meta": meta},
        }
        lines.append(_line(line))

    def text(kind: str, value: str) -> dict[str, Any]:
        return {"sessionUpdate": kind, "content": {"type": "text", "text": value}}

    def call(call_id: str, title: str, raw: Any) -> dict[str, Any]:
        return {
            "sessionUpdate": "tool_call",
            "toolCallId": call_id,
            "title": title,
            "kind": "execute",
            "status": "pending",
            "rawInput": raw,
        }

    def done(call_id: str, status: str, output: str) -> dict[str, Any]:
        return {
            "sessionUpdate": "tool_call_update",
            "toolCallId": call_id,
            "status": status,
            "rawOutput": output,
        }

    update(1000, text("user_message_chunk", "Why does the build fail?"), 0)
    image = {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}
    update(1000, {"sessionUpdate": "user_message_chunk", "content": image}, 0)
    update(2000, text("agent_thought_chunk", "Check the build "), 0)
    update(2100, text("agent_thought_chunk", "script."), 0)
    update(3000, text("agent_message_chunk", "Let me "), 0)
    update(3100, text("agent_message_chunk", "run it."), 0)
    update(3500, call("call_sh", "Shell", {"command": "npm run build"}), 0)
    update(3600, call("call_rd", "Read", {}), 0)
    update(
        4000,
        {"sessionUpdate": "tool_call_update", "toolCallId": "call_sh", "status": "in_progress"},
        0,
    )
    update(5000, done("call_sh", "failed", "error TS2304: foo"), 0)
    update(5200, done("call_rd", "completed", '{"name":"acme"}'), 0)
    update(
        5300, {"sessionUpdate": "hook_execution", "hook": "post_tool", "output": "HOOK"}, 0, True
    )
    update(6000, call("call_sr", "StrReplace", {}), 0)
    update(6100, call("call_bad", "Glob", "{not json"), 0)
    update(7000, done("call_sr", "completed", "ok"), 0)
    update(7100, done("call_bad", "failed", "bad arguments"), 0)
    update(8000, text("agent_message_chunk", "Fixed: `foo` "), 0)
    update(8100, text("agent_message_chunk", "was undefined."), 0)
    first: dict[str, Any] = {"sessionUpdate": "turn_completed", "stop_reason": "end_turn"}
    if usage:
        first["usage"] = {
            "inputTokens": 5400,
            "outputTokens": 320,
            "cachedReadTokens": 4000,
            "reasoningTokens": 120,
            "totalTokens": 5720,
        }
    update(9000, first, 0, True)
    update(20000, text("user_message_chunk", "thanks, stop here"), 1)
    update(21000, text("agent_message_chunk", "Stopping"), 1)
    second: dict[str, Any] = {"sessionUpdate": "turn_completed", "stop_reason": "cancelled"}
    if usage:
        second["usage"] = {"inputTokens": 6000, "outputTokens": 3, "totalTokens": 6003}
    update(22000, second, 1, True)
    return "".join(lines)


def _summary(session_id: str, *, started: bool) -> str:
    summary: dict[str, Any] = {
        "info": {"id": session_id, "cwd": CWD},
        "session_summary": "Fixing a TypeScript build error",
        "generated_title": "Fix the build",
        "updated_at": "2026-01-01T10:00:22.000Z",
        "last_active_at": "2026-01-01T10:00:22.000Z",
        "num_messages": 9,
        "num_chat_messages": 14,
        "current_model_id": MODEL,
        "chat_format_version": 1,
        "git_root_dir": CWD,
        "git_remotes": ["origin"],
        "head_branch": "main",
        "head_commit": "0123abc",
    }
    if started:
        summary["created_at"] = "2026-01-01T10:00:00.000Z"
    return json.dumps(summary, indent=2)


def _write(root: Path, session_id: str, chat: str, updates: str, summary: str) -> Path:
    directory = root / "sessions" / PROJECT / session_id
    directory.mkdir(parents=True)
    (directory / "chat_history.jsonl").write_text(chat)
    (directory / "updates.jsonl").write_text(updates)
    (directory / "summary.json").write_text(summary)
    # what a live directory also holds, never read or written
    (directory / "events.jsonl").write_text('{"event":"start"}\n')
    (directory / "system_prompt.txt").write_text("SYSTEM-PROMPT")
    (directory.parent / "prompt_history.jsonl").write_text('{"prompt":"Why"}\n')
    (root / "session_search.sqlite").write_bytes(b"")
    return directory


def write_newer(root: Path) -> Path:
    return _write(
        root,
        SESSION_ID,
        _chat(("Read", {"path": f"{CWD}/package.json"}), indexed=True),
        _updates(SESSION_ID, usage=True),
        _summary(SESSION_ID, started=True),
    )


def write_older(root: Path) -> Path:
    return _write(
        root,
        OLDER_ID,
        _chat(("read_file", {"target_file": f"{CWD}/package.json"}), indexed=False),
        _updates(OLDER_ID, usage=False),
        _summary(OLDER_ID, started=False),
    )


# ----------------------------------------------------------------- what the codec holds exactly

from datetime import UTC, datetime, timedelta  # noqa: E402

from hypothesis import strategies as st  # noqa: E402

from txcript import model as m  # noqa: E402

_START = datetime(2026, 1, 1, tzinfo=UTC)
_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12
)
_NOT_RAW = {"Read", "Write", "Edit", "MultiEdit", "Bash", "Shell", "StrReplace", "read_file"}
_inputs = st.dictionaries(st.text(max_size=4), st.integers(0, 9) | _text, max_size=3)
_tools = st.one_of(
    st.builds(
        m.Bash,
        command=_text,
        workdir=st.none() | _text,
        timeout_ms=st.none() | st.integers(0, 10**6),
        description=st.none() | _text,
        run_in_background=st.booleans(),
    ),
    st.builds(
        m.Read,
        file_path=_text,
        offset=st.none() | st.integers(0, 10**4),
        limit=st.none() | st.integers(0, 10**4),
    ),
    st.builds(m.Write, file_path=_text, content=_text),
    st.builds(
        m.Edit, file_path=_text, old_string=_text, new_string=_text, replace_all=st.booleans()
    ),
    st.builds(
        m.Raw,
        tool_name=_text.filter(lambda n: n not in _NOT_RAW and not n.startswith("/")),
        input=_inputs,
    ),
)
_turn_stops = st.none() | st.sampled_from(
    ["end_turn", "max_tokens", "aborted", "tool_use", "stop_sequence", "error"]
)
_usages = st.none() | st.builds(
    m.Usage,
    input_tokens=st.integers(0, 10**7),
    output_tokens=st.integers(0, 10**7),
    cache_read_input_tokens=st.none() | st.integers(0, 10**7),
)


@st.composite
def conversations(draw: st.DrawFn) -> m.Transcript:
    """What a Grok session holds exactly: prompts (texts, then images), assistant turns
    (reasoning, at most one reply, calls), each call's results in one message after it; a turn's
    stop reason and usage on its last assistant message; times to the millisecond."""
    clock = 0
    calls = 0
    messages: list[m.Message] = []

    def at() -> datetime:
        nonlocal clock
        clock += draw(st.integers(1, 10**6))
        return _START + timedelta(milliseconds=clock)

    for _ in range(draw(st.integers(1, 3))):
        prompt: list[m.Block] = [m.Text(t) for t in draw(st.lists(_text, min_size=1, max_size=2))]
        for _ in range(draw(st.integers(0, 1))):
            prompt.append(
                m.Image(m.ImageSource(type="base64", media_type="image/png", data=draw(_text)))
            )
        messages.append(m.Message(role="user", content=tuple(prompt), timestamp=at()))
        turn: list[int] = []
        for _ in range(draw(st.integers(0, 3))):
            blocks: list[m.Block] = [
                m.Thinking(draw(_text), encrypted=draw(st.none() | _text))
                for _ in range(draw(st.integers(0, 2)))
            ]
            if draw(st.booleans()) or not blocks:
                blocks.append(m.Text(draw(_text)))
            results = []
            for _ in range(draw(st.integers(0, 2))):
                calls += 1
                blocks.append(m.ToolUse(id=f"call_{calls}", tool=draw(_tools)))
                results.append(
                    m.ToolResult(
                        tool_use_id=f"call_{calls}",
                        content=draw(st.just("") | _text),
                        is_error=draw(st.booleans()),
                    )
                )
            model = draw(st.none() | st.just(MODEL))
            messages.append(
                m.Message(role="assistant", content=tuple(blocks), timestamp=at(), model=model)
            )
            turn.append(len(messages) - 1)
            if results:
                messages.append(m.Message(role="user", content=tuple(results), timestamp=at()))
        if turn:
            last = messages[turn[-1]]
            messages[turn[-1]] = m.Message(
                role="assistant",
                content=last.content,
                timestamp=last.timestamp,
                model=last.model,
                stop_reason=draw(_turn_stops),
                usage=draw(_usages),
            )
    meta = m.Meta(
        id=SESSION_ID,
        timestamp=_START,
        cwd=draw(st.none() | st.just(CWD)),
        git_branch=draw(st.none() | st.just("main")),
        title=draw(st.none() | _text),
        model=draw(st.none() | st.just(MODEL)),
    )
    return m.Transcript(meta=meta, messages=tuple(messages))
