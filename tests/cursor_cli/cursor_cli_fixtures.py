"""Cursor CLI chat directories built in temp dirs: real ``store.db`` files shaped like the agent's.

Blobs are content-addressed (id = hex SHA-256 of the data), message blobs are compact JSON, and
the turn graph is encoded here with a few lines of protobuf wire writing of its own, independent
of the code under test.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from txcript import model as m
from txcript.harnesses.cursor_cli.head import derived_title
from txcript.harnesses.cursor_cli.tools import CURSOR_NAMES
from txcript.harnesses.cursor_cli.transcripts import slug_of

CWD = "/home/dev/acme"
CHAT_ID = "3b1f6a0e-9c2d-4e8f-a1b2-c3d4e5f60718"
CREATED_MS = 1764583200000  # 2025-12-01T10:00:00Z
IMAGE = "iVBORw0KGgoAAAANSUhEUg=="
PATCH = "*** Begin Patch\n*** Add File: notes.md\n+hello\n*** End Patch"


def md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def encode(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


# -- protobuf wire, written independently of txcript's encoder -------------------------------


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def pb_bytes(number: int, value: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def pb_int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


@dataclass
class Graph:
    """The graph blobs of a chat: turn nodes, their children, and the root."""

    nodes: list[bytes]
    root: bytes

    @property
    def root_id(self) -> str:
        return digest(self.root)


def graph(message_blobs: Sequence[bytes], turns: Sequence[Sequence[bytes]]) -> Graph:
    """A root listing ``message_blobs`` (field 1) and turns (field 8) of the given child nodes."""
    nodes: list[bytes] = []
    turn_ids = []
    for children in turns:
        nodes.extend(children)
        turn = b"".join(
            pb_bytes(1 if i == 0 else 2, bytes.fromhex(digest(c))) for i, c in enumerate(children)
        )
        nodes.append(turn)
        turn_ids.append(bytes.fromhex(digest(turn)))
    root = b"".join(
        [
            *(pb_bytes(1, bytes.fromhex(digest(m))) for m in message_blobs),
            *(pb_bytes(8, t) for t in turn_ids),
            pb_int(10, CREATED_MS),
            pb_int(26, CREATED_MS),
        ]
    )
    return Graph(nodes, root)


def user_node(text: str) -> bytes:
    return pb_bytes(1, text.encode()) + pb_bytes(2, b"0b7c2f1e-uuid") + pb_int(4, 1)


def text_step(text: str) -> bytes:
    return pb_bytes(1, pb_bytes(1, text.encode()))


def tool_step(kind: int, subject: str, call_id: str) -> bytes:
    return pb_bytes(
        2, pb_bytes(kind, pb_bytes(1, subject.encode())) + pb_bytes(57, call_id.encode())
    )


# -- the messages of the kitchen-sink chat ----------------------------------------------------

SYSTEM = {"role": "system", "content": "You are a coding agent."}
CONTEXT = {
    "role": "user",
    "content": [
        {
            "type": "text",
            "text": "<user_info>\nOS Version: linux 6.8\nShell: bash\n"
            f"Workspace Path: {CWD}\n</user_info>",
        }
    ],
}
PROMPT = {
    "role": "user",
    "content": [
        {"type": "text", "text": "<user_query>\nWhy do the tests fail?\n</user_query>"},
        {"type": "image", "image": IMAGE, "mimeType": "image/png"},
    ],
    "createdAt": CREATED_MS + 1000,
}
CALLS = {
    "id": "msg-a1",
    "role": "assistant",
    "content": [
        {"type": "reasoning", "text": "Run the tests first.", "signature": "sig-1"},
        {"type": "text", "text": "Running the tests and reading the config."},
        {
            "type": "tool-call",
            "toolCallId": "call-1",
            "toolName": "Shell",
            "args": {"command": "npm test", "cwd": CWD, "timeout": 120000},
        },
        {
            "type": "tool-call",
            "toolCallId": "call-2",
            "toolName": "Read",
            "args": {"path": f"{CWD}/config.yaml", "offset": 1, "limit": 50},
        },
    ],
    "providerOptions": {"cursor": {"modelName": "claude-4.5-sonnet"}},
    "createdAt": CREATED_MS + 2000,
}
RESULTS = {
    "id": "msg-t1",
    "role": "tool",
    "content": [
        {"type": "tool-result", "toolCallId": "call-2", "toolName": "Read", "result": "port: 80"},
        {
            "type": "tool-result",
            "toolCallId": "call-1",
            "toolName": "Shell",
            "result": "1 failing",
            "isError": True,
        },
    ],
}
EDITS = {
    "id": "msg-a2",
    "role": "assistant",
    "content": [
        {"type": "redacted-reasoning", "data": "opaque-redacted=="},
        {
            "type": "tool-call",
            "toolCallId": "call-3",
            "toolName": "StrReplace",
            "args": {
                "path": f"{CWD}/config.yaml",
                "old_string": "port: 80",
                "new_string": "port: 8080",
            },
        },
        {"type": "tool-call", "toolCallId": "call-4", "toolName": "ApplyPatch", "args": PATCH},
        {
            "type": "tool-call",
            "toolCallId": "call-5",
            "toolName": "Glob",
            "args": {"glob_pattern": "*.ts", "target_directory": CWD},
        },
    ],
    "createdAt": CREATED_MS + 3000,
}
EDIT_RESULTS = {
    "id": "msg-t2",
    "role": "tool",
    "content": [
        {"type": "tool-result", "toolCallId": "call-3", "toolName": "StrReplace", "result": "ok"},
        {"type": "tool-result", "toolCallId": "call-4", "toolName": "ApplyPatch", "result": "done"},
        {"type": "tool-result", "toolCallId": "call-5", "toolName": "Glob", "result": ["a.ts"]},
    ],
}
DONE = {
    "id": "msg-a3",
    "role": "assistant",
    "content": [{"type": "text", "text": "Fixed the port; the tests pass now."}],
    "providerOptions": {"cursor": {"modelName": "claude-4.5-sonnet"}},
}
KITCHEN_SINK = [SYSTEM, CONTEXT, PROMPT, CALLS, RESULTS, EDITS, EDIT_RESULTS, DONE]


def kitchen_graph(blobs: Sequence[bytes]) -> Graph:
    return graph(
        blobs,
        [
            [
                user_node("Why do the tests fail?"),
                tool_step(1, "npm test", "call-1"),
                tool_step(8, f"{CWD}/config.yaml", "call-2"),
                tool_step(12, f"{CWD}/config.yaml", "call-3"),
                text_step("Fixed the port; the tests pass now."),
            ]
        ],
    )


def meta_row(root_id: str | None, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"agentId": CHAT_ID}
    if root_id is not None:
        row["latestRootBlobId"] = root_id
    row.update(
        {
            "name": "Fix the failing tests",
            "mode": "auto-run",
            "createdAt": CREATED_MS,
            "lastUsedModel": "claude-4.5-sonnet",
        }
    )
    row.update(extra)
    return row


# -- writing a chat directory -----------------------------------------------------------------


def _create(db: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("PRAGMA user_version = 1")
    return conn


def _insert(conn: sqlite3.Connection, blobs: Sequence[bytes], meta: str | None) -> None:
    conn.execute("BEGIN")
    for data in blobs:
        conn.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)", (digest(data), data))
    if meta is not None:
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('0', ?)", (meta,))
    conn.execute("COMMIT")


def meta_value(row: dict[str, Any], *, hex_meta: bool = True) -> str:
    text = json.dumps(row, separators=(",", ":"))
    return text.encode().hex() if hex_meta else text


def write_chat(
    chats: Path,
    blobs: Sequence[bytes],
    meta: str | None,
    *,
    chat_id: str = CHAT_ID,
    bucket: str | None = None,
    meta_json: dict[str, Any] | None = None,
    prompts: list[str] | None = None,
    wal_blobs: Sequence[bytes] = (),
    wal_meta: str | None = None,
) -> Path:
    """A chat directory; ``wal_blobs``/``wal_meta`` are committed only to ``store.db-wal``.

    The WAL case copies ``store.db`` and ``store.db-wal`` out while the writer still holds the
    database open (closing it would checkpoint the WAL away), so the chat directory ends up with
    a main file holding the older state, a ``-wal`` holding the newest, and no ``-shm``.
    """
    directory = chats / (bucket or md5(CWD)) / chat_id
    directory.mkdir(parents=True)
    scratch = chats.parent / f"scratch-{chat_id}"
    scratch.mkdir()
    db = scratch / "store.db"
    conn = _create(db)
    try:
        _insert(conn, blobs, meta)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if wal_blobs or wal_meta is not None:
            conn.execute("PRAGMA wal_autocheckpoint = 0")
            _insert(conn, wal_blobs, wal_meta)
            shutil.copyfile(db, directory / "store.db")
            shutil.copyfile(str(db) + "-wal", directory / "store.db-wal")
    finally:
        conn.close()
    if not (wal_blobs or wal_meta is not None):
        shutil.copyfile(db, directory / "store.db")
    shutil.rmtree(scratch)
    if meta_json is not None:
        (directory / "meta.json").write_text(json.dumps(meta_json))
    if prompts is not None:
        (directory / "prompt_history.json").write_text(json.dumps(prompts))
    return directory


def kitchen_sink_chat(chats: Path, *, hex_meta: bool = True, with_meta_json: bool = True) -> Path:
    blobs = [encode(m) for m in KITCHEN_SINK]
    g = kitchen_graph(blobs)
    meta_json = None
    if with_meta_json:
        meta_json = {
            "schemaVersion": 1,
            "title": "Fix the tests (renamed)",
            "createdAtMs": CREATED_MS,
            "updatedAtMs": CREATED_MS + 5000,
            "hasConversation": True,
        }
    return write_chat(
        chats,
        [*blobs, *g.nodes, g.root],
        meta_value(meta_row(g.root_id, workspacePath=CWD), hex_meta=hex_meta),
        meta_json=meta_json,
        prompts=["Why do the tests fail?"] if with_meta_json else None,
    )


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``directory``: its bytes and mtime (names are the keys)."""
    out = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            out[str(path.relative_to(directory))] = (path.read_bytes(), os.stat(path).st_mtime_ns)
    return out


# ------------------------------------------------- the representable subset (hypothesis)

line = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20
).filter(lambda s: "<user_info>" not in s)
texts = st.one_of(line, st.lists(line, min_size=2, max_size=3).map("\n".join))
nonempty = texts.filter(lambda s: s != "")
uints = st.integers(0, 2**53)
when = st.integers(0, 4 * 10**12).map(lambda ms: datetime.fromtimestamp(ms / 1000, tz=UTC))
cursor_tools: st.SearchStrategy[m.Tool] = st.one_of(
    st.builds(
        m.Bash,
        command=texts,
        workdir=st.none() | texts,
        timeout_ms=st.none() | uints,
        description=st.none() | texts,
        run_in_background=st.booleans(),
    ),
    st.builds(m.Read, file_path=texts, offset=st.none() | uints, limit=st.none() | uints),
    st.builds(m.Write, file_path=texts, content=texts),
    st.builds(
        m.Edit, file_path=texts, old_string=texts, new_string=texts, replace_all=st.booleans()
    ),
    st.builds(
        m.MultiEdit,
        file_path=texts,
        edits=st.lists(
            st.builds(m.EditSpec, old_string=texts, new_string=texts, replace_all=st.booleans()),
            max_size=2,
        ).map(tuple),
    ),
    st.builds(
        m.Raw,
        tool_name=st.text(min_size=1, max_size=10).filter(
            lambda n: (
                n not in CURSOR_NAMES | {"Bash", "Edit", "MultiEdit"} and not n.startswith("/")
            )
        ),
        input=st.recursive(
            st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=5), inner, max_size=3)
            ),
            max_leaves=6,
        ),
    ),
)
images = st.builds(
    m.Image,
    source=st.builds(
        m.ImageSource,
        type=st.just("base64"),
        media_type=st.sampled_from(["image/png", "image/jpeg"]),
        data=st.text(alphabet="ABCabc012+/=", max_size=12),
    ),
)
thinking = st.one_of(
    st.builds(m.Thinking, text=texts, signature=st.none() | texts),
    st.builds(m.Thinking, text=st.just(""), encrypted=texts),
)


@st.composite
def cursor_transcripts(draw: st.DrawFn) -> m.Transcript:
    messages: list[m.Message] = []
    first_prompt: str | None = None
    calls = 0
    with_models = draw(st.booleans())
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["prompt", "assistant", "calls"]))
        if kind == "prompt":
            blocks = draw(
                st.lists(st.one_of(texts.map(lambda s: m.Text(text=s)), images), max_size=3)
            )
            prompt = [b.text for b in blocks if isinstance(b, m.Text)]
            if first_prompt is None and prompt:
                first_prompt = "\n".join(prompt)
            messages.append(m.Message(role="user", content=tuple(blocks), timestamp=draw(when)))
            continue
        content: list[m.Block] = draw(
            st.lists(st.one_of(texts.map(lambda s: m.Text(text=s)), thinking), max_size=3)
        )
        used = []
        if kind == "calls":
            for tool in draw(st.lists(cursor_tools, min_size=1, max_size=3)):
                calls += 1
                used.append(f"call-{calls}")
                content.append(m.ToolUse(id=f"call-{calls}", tool=tool))
        model = draw(st.none() | nonempty) if with_models else None
        messages.append(
            m.Message(role="assistant", content=tuple(content), timestamp=draw(when), model=model)
        )
        if used and draw(st.booleans()):
            results = tuple(
                m.ToolResult(tool_use_id=i, content=draw(texts), is_error=draw(st.booleans()))
                for i in used
            )
            messages.append(m.Message(role="user", content=results, timestamp=draw(when)))
    derived = derived_title(first_prompt) if first_prompt is not None else None
    title = draw(st.sampled_from([derived, draw(nonempty)]))
    meta = m.Meta(
        id=draw(st.text(max_size=12)),
        timestamp=draw(when),
        cwd=draw(st.none() | nonempty),
        title=title,
        # A session without lastUsedModel takes the last message's model, so a session whose
        # messages name models always names one itself.
        model=draw(nonempty) if with_models else None,
    )
    return m.Transcript(meta=meta, messages=tuple(messages))


# ------------------------------------------------------------ Cursor's agent transcripts

UUID = "5c6d7e8f-1a2b-4c3d-9e8f-0a1b2c3d4e5f"
OLD = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
MTIME_NS = 1764583200_000_000_000

LINES = [
    {
        "role": "user",
        "message": {
            "content": [{"type": "text", "text": "<user_query>\nrun the tests\n</user_query>"}]
        },
    },
    {
        "role": "assistant",
        "message": {
            "content": [
                {"type": "text", "text": "Running them."},
                {
                    "type": "tool_use",
                    "name": "Shell",
                    "input": {
                        "command": "npm test",
                        "description": "tests",
                        "working_directory": "/w",
                    },
                },
                {
                    "type": "tool_use",
                    "name": "ApplyPatch",
                    "input": "*** Begin Patch\n*** End Patch",
                },
                {"type": "tool_use", "name": "ReadFile", "input": {"path": "/w/a.ts", "limit": 20}},
            ]
        },
    },
    {"role": "assistant", "message": {"content": "All green."}},
]


def write_transcripts(root: Path, workspace: str) -> tuple[Path, Path]:
    project = root / "projects" / slug_of(workspace) / "agent-transcripts"
    (project / UUID).mkdir(parents=True)
    jsonl = project / UUID / f"{UUID}.jsonl"
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    txt = project / f"{OLD}.txt"
    txt.write_text(
        "user: explain the config\n\nassistant:\n[Thinking] look at it\nIt sets the port.\n"
    )
    for path in (jsonl, txt):
        os.utime(path, ns=(MTIME_NS, MTIME_NS))
    return jsonl, txt
