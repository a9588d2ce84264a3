"""Hand-written Gemini CLI chats, one per file form and record kind, shaped like real files."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from txcript import model as m

ROOT_PATH = "/home/dev/acme"
SLUG = "acme"
PROJECT_HASH = hashlib.sha256(ROOT_PATH.encode()).hexdigest()
LEGACY_ID = "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
LOG_ID = "9e8d7c6b-5a49-4382-9716-05f4e3d2c1b0"
PARENT_ID = LOG_ID
SUBAGENT_ID = "k3x9q2"


def line(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def legacy_document() -> dict[str, Any]:
    """A 2025 legacy chat: string prompts, thoughts, one shell call, an info notice."""
    return {
        "sessionId": LEGACY_ID,
        "projectHash": PROJECT_HASH,
        "startTime": "2025-09-01T08:00:00.000Z",
        "lastUpdated": "2025-09-01T08:01:30.000Z",
        "messages": [
            {
                "id": "u1",
                "timestamp": "2025-09-01T08:00:05.000Z",
                "type": "user",
                "content": "List the files\nin the repo",
            },
            {
                "id": "g1",
                "timestamp": "2025-09-01T08:00:09.500Z",
                "type": "gemini",
                "content": "",
                "thoughts": [
                    {
                        "subject": "Listing files",
                        "description": "I will run ls.",
                        "timestamp": "2025-09-01T08:00:08.000Z",
                    }
                ],
                "toolCalls": [
                    {
                        "id": "run_shell_command-1",
                        "name": "run_shell_command",
                        "args": {"command": "ls", "description": "List files"},
                        "result": [
                            {
                                "functionResponse": {
                                    "id": "run_shell_command-1",
                                    "name": "run_shell_command",
                                    "response": {"output": "README.md\nsrc"},
                                }
                            }
                        ],
                        "status": "success",
                        "timestamp": "2025-09-01T08:00:10.000Z",
                        "displayName": "Shell",
                        "description": "List files",
                        "resultDisplay": "README.md\nsrc",
                        "renderOutputAsMarkdown": False,
                    }
                ],
                "model": "gemini-2.5-pro",
                "tokens": {
                    "input": 1200,
                    "output": 40,
                    "cached": 0,
                    "thoughts": 12,
                    "tool": 0,
                    "total": 1252,
                },
            },
            {
                "id": "i1",
                "timestamp": "2025-09-01T08:00:20.000Z",
                "type": "info",
                "content": "Memory refreshed.",
            },
            {
                "id": "g2",
                "timestamp": "2025-09-01T08:01:30.000Z",
                "type": "gemini",
                "content": "The repo holds README.md and src.",
                "model": "gemini-2.5-pro",
                "tokens": {
                    "input": 1300,
                    "output": 9,
                    "cached": 1024,
                    "thoughts": 0,
                    "tool": 0,
                    "total": 1309,
                },
            },
        ],
    }


def legacy_text() -> str:
    return json.dumps(legacy_document(), indent=2, ensure_ascii=False)


def _call(
    ident: str,
    name: str,
    args: Any,
    status: str,
    response: Any,
    *,
    display: str | None = None,
    when: str = "2026-02-10T09:00:12.000Z",
) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": ident,
        "name": name,
        "args": args,
        "status": status,
        "timestamp": when,
        "displayName": name,
        "description": "",
        "renderOutputAsMarkdown": False,
    }
    if response is not None:
        call["result"] = [{"functionResponse": {"id": ident, "name": name, "response": response}}]
    if display is not None:
        call["resultDisplay"] = display
    return call


def log_records() -> list[Any]:
    """A 2026 log: Parts prompts, injected context, a slash command, every tool status,
    a re-appended record, ``$set`` patches and a rewind."""
    header = {
        "sessionId": LOG_ID,
        "projectHash": PROJECT_HASH,
        "startTime": "2026-02-10T09:00:00.000Z",
        "lastUpdated": "2026-02-10T09:00:00.000Z",
        "kind": "main",
    }
    context = {
        "id": "ctx",
        "timestamp": "2026-02-10T09:00:01.000Z",
        "type": "user",
        "content": [{"text": "<session_context>\nOS: linux\n</session_context>"}],
    }
    prompt = {
        "id": "p1",
        "timestamp": "2026-02-10T09:00:02.000Z",
        "type": "user",
        "content": [
            {"text": "Fix the parser"},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
        ],
        "displayContent": "Fix the parser [image]",
    }
    first_answer = {
        "id": "a1",
        "timestamp": "2026-02-10T09:00:10.000Z",
        "type": "gemini",
        "content": "",
        "model": "auto-gemini-3",
    }
    calls = [
        _call(
            "read-1",
            "read_file",
            {"file_path": "/home/dev/acme/parser.py", "offset": 10, "limit": 20},
            "success",
            {"output": "def parse(): ..."},
            display="",
        ),
        _call(
            "replace-1",
            "replace",
            {"file_path": "/home/dev/acme/parser.py", "old_string": "<=", "new_string": "<"},
            "error",
            {"error": "old_string not found"},
        ),
        _call(
            "shell-1",
            "run_shell_command",
            {"command": "pytest", "dir_path": "/home/dev/acme"},
            "cancelled",
            {"error": "[Operation Cancelled] Reason: User cancelled the operation."},
        ),
        _call(
            "write-1",
            "write_file",
            {"file_path": "/home/dev/acme/notes.md", "content": "# Notes\n"},
            "cancelled",
            None,
        ),
        _call(
            "mcp-1",
            "search_docs",
            {"query": "parser", "limit": 3},
            "success",
            {"hits": [1, 2]},
        ),
    ]
    # The same record again, now complete: the last one wins, in the first one's place.
    final_answer = dict(
        first_answer,
        content="I looked at the parser.",
        thoughts=[
            {"subject": "", "description": "Reading first.", "timestamp": "2026-02-10T09:00:09Z"}
        ],
        toolCalls=calls,
        tokens={"input": 900, "output": 50, "cached": 300, "thoughts": 5, "tool": 0, "total": 955},
    )
    command = {
        "id": "cmd-1",
        "timestamp": "2026-02-10T09:00:20.000Z",
        "type": "user",
        "content": "/memory show",
    }
    notice = {
        "id": "n1",
        "timestamp": "2026-02-10T09:00:21.000Z",
        "type": "error",
        "content": "API error: quota",
    }
    dropped = {
        "id": "gone",
        "timestamp": "2026-02-10T09:00:30.000Z",
        "type": "user",
        "content": [{"text": "this prompt was rewound"}],
    }
    dropped_answer = {
        "id": "gone-answer",
        "timestamp": "2026-02-10T09:00:31.000Z",
        "type": "gemini",
        "content": "never mind",
    }
    last = {
        "id": "p2",
        "timestamp": "2026-02-10T09:01:00.000Z",
        "type": "user",
        "content": [{"text": "Thanks"}],
    }
    return [
        header,
        context,
        prompt,
        first_answer,
        {"$set": {"lastUpdated": "2026-02-10T09:00:10.000Z"}},
        final_answer,
        command,
        notice,
        dropped,
        dropped_answer,
        {"$rewindTo": "gone"},
        last,
        {"$set": {"lastUpdated": "2026-02-10T09:01:00.000Z", "summary": "Parser fix"}},
    ]


def log_text() -> str:
    return "\n".join(line(r) for r in log_records()) + "\n"


def subagent_document() -> dict[str, Any]:
    return {
        "sessionId": SUBAGENT_ID,
        "projectHash": PROJECT_HASH,
        "startTime": "2026-02-10T09:00:40.000Z",
        "lastUpdated": "2026-02-10T09:00:45.000Z",
        "kind": "subagent",
        "summary": "Investigate the codebase",
        "directories": [ROOT_PATH],
        "messages": [
            {
                "id": "s1",
                "timestamp": "2026-02-10T09:00:40.000Z",
                "type": "user",
                "content": [{"text": "Find the parser"}],
            },
            {
                "id": "s2",
                "timestamp": "2026-02-10T09:00:45.000Z",
                "type": "gemini",
                "content": "It is parser.py.",
                "model": "gemini-3-flash",
            },
        ],
    }


def put(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def build_store(root: Path) -> dict[str, Path]:
    """A ``.gemini`` root: a slug project (registered, marked) holding the log, its sub-agent chat
    and a copy of the legacy chat; the old sha256 directory holding the legacy chat too."""
    put(root / "projects.json", json.dumps({"projects": {ROOT_PATH: SLUG}}, indent=2))
    slug_dir = root / "tmp" / SLUG
    put(slug_dir / ".project_root", ROOT_PATH)
    paths = {
        "log": put(slug_dir / "chats" / f"session-2026-02-10T09-00-{LOG_ID[:8]}.jsonl", log_text()),
        "subagent": put(
            slug_dir / "chats" / PARENT_ID / f"{SUBAGENT_ID}.json",
            json.dumps(subagent_document(), indent=2),
        ),
        "legacy_slug": put(
            slug_dir / "chats" / f"session-2025-09-01T08-00-{LEGACY_ID[:8]}.json", legacy_text()
        ),
        "legacy_hash": put(
            root
            / "tmp"
            / PROJECT_HASH
            / "chats"
            / f"session-2025-09-01T08-00-{LEGACY_ID[:8]}.json",
            legacy_text(),
        ),
    }
    put(slug_dir / "logs.json", "[]")
    return paths


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


# ------------------------------------------------- the representable subset (hypothesis)

_INJECTED = ("/", "?", "<session_context>", "<hook_context>")
_texts = st.text(max_size=30)
_prompt_texts = _texts.filter(lambda t: not t.startswith(_INJECTED))
_json_objects = st.dictionaries(
    st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=3
)
_uints = st.integers(0, 2**40)
_tools = st.one_of(
    st.builds(
        m.Bash,
        command=_texts,
        workdir=st.none() | _texts,
        timeout_ms=st.none() | _uints,
        description=st.none() | _texts,
        run_in_background=st.booleans(),
    ),
    st.builds(m.Read, file_path=_texts, offset=st.none() | _uints, limit=st.none() | _uints),
    st.builds(m.Write, file_path=_texts, content=_texts),
    st.builds(
        m.Edit, file_path=_texts, old_string=_texts, new_string=_texts, replace_all=st.booleans()
    ),
    st.builds(
        m.MultiEdit,
        file_path=_texts,
        edits=st.lists(
            st.builds(m.EditSpec, old_string=_texts, new_string=_texts, replace_all=st.booleans()),
            max_size=2,
        ).map(tuple),
    ),
    st.builds(
        m.Raw,
        tool_name=st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True).filter(
            lambda n: n not in ("run_shell_command", "read_file", "write_file", "replace")
        ),
        input=_json_objects,
    ),
)


@st.composite
def gemini_shaped(draw: st.DrawFn) -> m.Transcript:
    """Common as Gemini groups it: prompts, assistant turns (thinking, text, calls) each followed
    by one message answering every call, slash commands on their own."""
    clock = [draw(st.integers(0, 10**12))]

    def tick() -> datetime:
        clock[0] += draw(st.integers(0, 10**9))
        return datetime.fromtimestamp(1_700_000_000 + clock[0] / 1e6, tz=UTC)

    messages: list[m.Message] = []
    model = None
    for unit in draw(st.lists(st.sampled_from(["prompt", "turn", "command"]), max_size=5)):
        if unit == "prompt":
            blocks: list[m.Block] = [m.Text(t) for t in draw(st.lists(_prompt_texts, max_size=2))]
            if blocks and draw(st.booleans()):
                blocks.append(m.Image(m.ImageSource("base64", "image/png", draw(_texts))))
            messages.append(m.Message("user", tuple(blocks), tick()))
        elif unit == "command":
            name = "/" + draw(st.from_regex(r"[a-z]{0,8}", fullmatch=True))
            tool = m.Command(command=name, args=draw(st.none() | _texts))
            messages.append(m.Message("user", (m.ToolUse(f"cmd-{len(messages)}", tool),), tick()))
        else:
            blocks = [m.Thinking(t) for t in draw(st.lists(_texts, max_size=2))]
            texts = draw(st.lists(_texts, max_size=2))
            if texts != [""]:
                blocks += [m.Text(t) for t in texts]
            calls = [
                m.ToolUse(f"call-{len(messages)}-{k}", tool)
                for k, tool in enumerate(draw(st.lists(_tools, max_size=3)))
            ]
            turn_model = draw(st.none() | st.sampled_from(["gemini-3-pro", "auto-gemini-3"]))
            model = model or turn_model
            usage = draw(
                st.none()
                | st.builds(
                    m.Usage,
                    input_tokens=_uints,
                    output_tokens=_uints,
                    cache_read_input_tokens=st.none() | st.integers(1, 2**40),
                )
            )
            messages.append(
                m.Message("assistant", (*blocks, *calls), tick(), model=turn_model, usage=usage)
            )
            if calls:
                results = tuple(
                    m.ToolResult(
                        c.id,
                        draw(_texts | _json_objects | st.lists(st.integers(), max_size=2)),
                        is_error=draw(st.booleans()),
                    )
                    for c in calls
                )
                messages.append(m.Message("user", results, tick()))
    start = datetime.fromtimestamp(1_700_000_000 + draw(st.integers(0, 10**6)), tz=UTC)
    meta = m.Meta(
        id=draw(st.uuids()).hex,
        timestamp=start,
        cwd=draw(st.none() | st.just("/home/dev/repo")),
        title=draw(st.text(min_size=1, max_size=20)),
        model=model,
    )
    return m.Transcript(meta=meta, messages=tuple(messages))
