"""Antigravity data directories built in temp dirs: real conversation databases and brain folders.

Laid out as ``harness-formats.md`` §10 and its part-2 update describe the CLI's: a
``conversations/<uuid>.db`` (``user_version`` 1, WAL, closed cleanly so it rests with no
sidecars) with the trajectory tables and one ``steps`` row per step, beside
``brain/<uuid>/.system_generated/logs/``. The steps are protobuf written here with a few lines of
wire encoding of its own, independent of txcript's encoder. Hand-written, modelled on the spec:
no real session's content.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

CONVERSATION = "5e0c2b1a-7d4f-4a3b-9c8d-1e2f3a4b5c6d"
CWD = "/work/app"
#: 2026-08-20T09:00:00Z and the seconds after it.
T0 = 1_787_216_400
UNKNOWN_MODEL = 9999

SCHEMA = (
    "CREATE TABLE trajectory_meta (trajectory_id TEXT PRIMARY KEY, cascade_id TEXT, "
    "trajectory_type INTEGER, source INTEGER)",
    "CREATE TABLE steps (idx INTEGER PRIMARY KEY, step_type INTEGER, status INTEGER, "
    "has_subtrajectory INTEGER, metadata BLOB, error_details BLOB, permissions BLOB, "
    "task_details BLOB, render_info BLOB, step_payload BLOB, step_format INTEGER)",
    "CREATE TABLE gen_metadata (idx INTEGER, data BLOB, size INTEGER)",
    "CREATE TABLE executor_metadata (id TEXT PRIMARY KEY, data BLOB)",
    "CREATE TABLE parent_references (id TEXT PRIMARY KEY, data BLOB)",
    "CREATE TABLE battle_mode_infos (id TEXT PRIMARY KEY, data BLOB)",
    "CREATE TABLE trajectory_metadata_blob (id TEXT PRIMARY KEY DEFAULT 'main', data BLOB)",
)


# -- protobuf wire, written independently of txcript's encoder -------------------------------


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def pb_int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def pb_bytes(number: int, value: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def pb_text(number: int, value: str) -> bytes:
    return pb_bytes(number, value.encode())


def stamp(second: int, nanos: int = 0) -> bytes:
    return pb_int(1, T0 + second) + (pb_int(2, nanos) if nanos else b"")


def call(call_id: str, name: str, arguments: object) -> bytes:
    return pb_text(1, call_id) + pb_text(2, name) + pb_text(3, json.dumps(arguments))


def metadata(
    second: int,
    *,
    tool_call: bytes | None = None,
    usage: tuple[int, int, int, int] | None = None,
    model: int | None = None,
) -> bytes:
    out = pb_bytes(1, stamp(second))
    if tool_call is not None:
        out += pb_bytes(4, tool_call)
    if usage is not None:
        out += pb_bytes(
            9, b"".join(pb_int(n, v) for n, v in zip((2, 3, 4, 5), usage, strict=True) if v)
        )
    if model is not None:
        out += pb_int(11, model)
    return out


#: Each step type's payload field in a Step (harness-formats.md §10).
PAYLOAD_FIELD = {14: 19, 15: 20, 21: 28, 8: 14, 7: 13, 132: 140, 23: 30, 90: 103, 777: 790}


@dataclass
class Step:
    kind: int
    status: int
    meta: bytes
    payload: bytes
    error: bytes | None = None

    def blob(self) -> bytes:
        return (
            pb_int(1, self.kind)
            + pb_int(4, self.status)
            + pb_bytes(5, self.meta)
            + pb_bytes(PAYLOAD_FIELD[self.kind], self.payload)
        )


@dataclass
class Conversation:
    conversation_id: str = CONVERSATION
    steps: Sequence[Step] = ()
    #: The ``main`` metadata blob.
    main: bytes = b""
    brain: dict[str, bytes] = field(default_factory=dict)
    brain_dir: bool = True


def main_blob(conversation_id: str, cwd: str, branch: str, second: int) -> bytes:
    workspace = pb_text(1, "file://" + cwd) + pb_text(4, branch)
    return (
        pb_bytes(1, workspace)
        + pb_bytes(2, stamp(second))
        + pb_text(6, conversation_id)
        + pb_text(7, cwd)
    )


def write_conversation(root: Path, conversation: Conversation) -> Path:
    """Lay the conversation out under ``root`` (the CLI's data directory); its database path."""
    db = root / "conversations" / f"{conversation.conversation_id}.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    for statement in SCHEMA:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO trajectory_meta VALUES (?, ?, 4, 17)",
        ("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", conversation.conversation_id),
    )
    for index, step in enumerate(conversation.steps):
        conn.execute(
            "INSERT INTO steps (idx, step_type, status, has_subtrajectory, metadata, "
            "error_details, step_payload, step_format) VALUES (?, ?, ?, 0, ?, ?, ?, 1)",
            (index, step.kind, step.status, step.meta, step.error, step.blob()),
        )
    conn.execute("INSERT INTO trajectory_metadata_blob VALUES ('main', ?)", (conversation.main,))
    conn.commit()
    conn.close()
    if conversation.brain_dir:
        brain = root / "brain" / conversation.conversation_id
        brain.mkdir(parents=True, exist_ok=True)
        for relative, data in conversation.brain.items():
            target = brain / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    return db


def kitchen_sink() -> Conversation:
    """One CLI conversation with every kind of step the reader knows, and some it does not."""
    steps = [
        Step(14, 3, metadata(1), pb_text(1, "Run the tests, then read the README")),
        Step(
            15,
            3,
            metadata(2, usage=(120, 40, 0, 30), model=UNKNOWN_MODEL),
            pb_text(3, "The suite first.")
            + pb_text(4, "c2lnbmF0dXJl")
            + pb_text(1, "Running the tests.")
            + pb_bytes(
                7,
                call(
                    "call-run",
                    "run_command",
                    {"CommandLine": "npm test", "toolAction": "Running", "toolSummary": "tests"},
                ),
            ),
        ),
        Step(
            21,
            3,
            metadata(3, tool_call=call("call-run", "run_command", {"CommandLine": "npm test"})),
            pb_bytes(21, pb_text(1, "12 passing\n")) + pb_text(4, "12 passing") + pb_int(6, 0),
        ),
        Step(
            15,
            3,
            metadata(4, model=UNKNOWN_MODEL),
            pb_bytes(7, call("call-view", "view_file", {"AbsolutePath": "/work/app/README.md"}))
            + pb_bytes(7, call("call-grep", "grep_search", {"Query": "TODO"})),
        ),
        # The file is missing: an error step whose text is only in error_details.
        Step(
            8,
            7,
            metadata(5, tool_call=call("call-view", "view_file", {})),
            b"",
            error=pb_text(1, "README.md: no such file"),
        ),
        # A search step: its payload layout is not in the facts, so its wire fields are kept.
        Step(
            7,
            3,
            metadata(5, tool_call=call("call-grep", "grep_search", {})),
            pb_text(2, "src/a.ts:3: TODO") + pb_int(3, 1),
        ),
        # A model switch, a checkpoint (the title), an ephemeral notice: bookkeeping.
        Step(14, 3, metadata(6), pb_text(1, "<USER_SETTINGS_CHANGE>model</USER_SETTINGS_CHANGE>")),
        Step(23, 3, metadata(7), pb_text(10, "Run the test suite")),
        Step(90, 3, metadata(7), pb_text(1, "ephemeral")),
        # A step type txcript does not know.
        Step(777, 3, metadata(8), pb_text(1, "?")),
        Step(
            15,
            3,
            metadata(9, model=UNKNOWN_MODEL),
            pb_text(1, "All 12 tests pass; there is no README.") + pb_text(12, "end_turn"),
        ),
        # A call the agent is still running: no result yet.
        Step(
            15,
            3,
            metadata(10, model=UNKNOWN_MODEL),
            pb_bytes(7, call("call-late", "run_command", {"CommandLine": "npm run build"})),
        ),
        Step(21, 1, metadata(11, tool_call=call("call-late", "run_command", {})), b""),
    ]
    transcript_line = json.dumps(
        {
            "step_index": 0,
            "source": "USER_EXPLICIT",
            "type": "USER_INPUT",
            "status": "DONE",
            "created_at": "2026-08-20T09:00:01Z",
            "content": "<USER_REQUEST>\nRun the tests, then read the README\n</USER_REQUEST>",
        }
    )
    return Conversation(
        steps=steps,
        main=main_blob(CONVERSATION, CWD, "main", 0),
        brain={
            ".system_generated/logs/transcript.jsonl": (transcript_line + "\n").encode(),
            "task.md": b"- [x] run the tests\n",
        },
    )


def clean_kitchen_sink() -> Conversation:
    """:func:`kitchen_sink` without its step of an unknown type: it reads with no warning."""
    conversation = kitchen_sink()
    conversation.steps = [s for s in conversation.steps if s.kind != 777]
    return conversation


def foreign_database(path: Path) -> None:
    """An SQLite file in ``conversations/`` that is not a conversation."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE kv (key TEXT, value TEXT)")
    conn.commit()
    conn.close()


def encrypted_files(root: Path) -> list[Path]:
    """The older app's encrypted conversations: opaque bytes, two in conversations/, one in
    implicit/."""
    out = []
    for relative in (
        "conversations/0f1e2d3c-4b5a-4968-8776-655443322110.pb",
        "conversations/1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.pb",
        "implicit/2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e.pb",
    ):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(bytes(range(256)) * 3)
        out.append(path)
    return out
