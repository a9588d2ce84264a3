"""Claude account exports built in temp dirs: a ZIP holding ``conversations.json`` and its friends.

Shaped as ``harness-formats-2.md`` §13 describes the official export: one array of conversations
(``uuid``, ``name``, times, ``account``, ``chat_messages``), each message with ``sender``,
``text``, ``content`` blocks, ``attachments`` (extracted text) and ``files`` (names only), newer
exports with ``parent_message_uuid``. Hand-written, modelled on the spec: no real account's data.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

ACCOUNT = "a0b1c2d3-e4f5-4a6b-8c7d-8e9f0a1b2c3d"
BRANCHED = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
MARKED = "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a"
OLD = "3e4f5a6b-7c8d-4e9f-8a1b-2c3d4e5f6a7b"
ROOT = "00000000-0000-4000-8000-000000000000"
ZIP_NAME = "data-2026-12-01-10-00-00-batch-0000.zip"


def stamp(minute: int, second: int = 0) -> str:
    return f"2026-03-01T10:{minute:02d}:{second:02d}.000000Z"


def message(
    uuid: str,
    sender: str,
    second: int,
    content: list[dict[str, Any]],
    *,
    parent: str | None = None,
    text: str = "",
    attachments: list[dict[str, Any]] | None = None,
    files: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "uuid": uuid,
        "text": text,
        "content": content,
        "sender": sender,
        "created_at": stamp(0, second),
        "updated_at": stamp(0, second),
        "attachments": attachments or [],
        "files": files or [],
    }
    if parent is not None:
        out["parent_message_uuid"] = parent
    return out


def text(value: str) -> dict[str, Any]:
    return {
        "type": "text",
        "text": value,
        "start_timestamp": stamp(0),
        "stop_timestamp": stamp(0),
        "citations": [],
    }


def branched(*, attachments: bool = True) -> dict[str, Any]:
    """An edited reply: two assistant branches under one prompt; the later leaf is current.

    The later branch searches (a call and a result with no ids, in one message, then text),
    and (``attachments``) the prompt carries an attachment with extracted text and a file with
    only its name.
    """
    conversation = {
        "uuid": BRANCHED,
        "name": "Why does the parser fail?",
        "summary": "",
        "created_at": stamp(0),
        "updated_at": stamp(5),
        "account": {"uuid": ACCOUNT},
        "chat_messages": [
            message(
                "m1",
                "human",
                1,
                [text("Why does the parser fail on line 3?")],
                parent=ROOT,
                attachments=[
                    {
                        "file_name": "parser.log",
                        "file_size": 18,
                        "file_type": "text/plain",
                        "extracted_content": "line 3: unexpected",
                    }
                ],
                files=[{"file_name": "screenshot.png"}],
            ),
            message(
                "m2",
                "assistant",
                2,
                [
                    {"type": "thinking", "thinking": "Old branch.", "summaries": []},
                    text("Old answer"),
                ],
                parent="m1",
            ),
            message(
                "m3",
                "assistant",
                4,
                [
                    {
                        "type": "thinking",
                        "thinking": "Search first.",
                        "summaries": [],
                        "cut_off": False,
                    },
                    {
                        "type": "tool_use",
                        "id": None,
                        "name": "web_search",
                        "input": {"query": "parser line 3 unexpected"},
                        "message": "Searching the web",
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": None,
                        "name": "web_search",
                        "content": [{"type": "text", "text": "A stray tab.", "uuid": "r1"}],
                        "is_error": False,
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_fetch",
                        "name": "web_fetch",
                        "input": {"url": "https://example.invalid/tabs"},
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_fetch",
                        "content": [{"type": "text", "text": "404"}],
                        "is_error": True,
                    },
                    text("A tab on line 3 confuses the lexer."),
                    {"type": "token_budget"},
                    {"type": "voice_note", "data": "…"},
                ],
                parent="m1",
            ),
        ],
    }
    if not attachments:
        conversation["chat_messages"][0].update(attachments=[], files=[])  # type: ignore[index]
    return conversation


def marked() -> dict[str, Any]:
    """A conversation that marks its current leaf: the older branch."""
    return {
        "uuid": MARKED,
        "name": "",
        "created_at": stamp(10),
        "updated_at": stamp(12),
        "account": {"uuid": ACCOUNT},
        "current_leaf_message_uuid": "k2",
        "chat_messages": [
            message("k1", "human", 1, [text("Name three primes\nand be brief")], parent=ROOT),
            message("k2", "assistant", 2, [text("2, 3, 5")], parent="k1"),
            message("k3", "assistant", 3, [text("7, 11, 13")], parent="k1"),
        ],
    }


def old_style() -> dict[str, Any]:
    """An older export: no content blocks, no parent links, no account."""
    return {
        "uuid": OLD,
        "name": "Hello",
        "created_at": "2025-06-01T08:00:00.000000Z",
        "updated_at": "2025-06-01T08:01:00.000000Z",
        "chat_messages": [
            {
                "uuid": "o1",
                "sender": "human",
                "text": "hello",
                "created_at": "2025-06-01T08:00:01Z",
            },
            {
                "uuid": "o2",
                "sender": "assistant",
                "text": "hi",
                "content": [],
                "created_at": "2025-06-01T08:00:02Z",
            },
        ],
    }


def conversations(*, stray: bool = True, attachments: bool = True) -> list[Any]:
    """The three conversations, and (``stray``) an element that is no conversation, which a
    listing counts in one warning."""
    return [branched(attachments=attachments), marked(), old_style(), *([42] if stray else [])]


def document(indent: int | None = 2, *, stray: bool = True, attachments: bool = True) -> bytes:
    return json.dumps(
        conversations(stray=stray, attachments=attachments), indent=indent, ensure_ascii=False
    ).encode()


def put_zip(path: Path, data: bytes | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("users.json", json.dumps([{"uuid": ACCOUNT, "full_name": "Dev"}]))
        archive.writestr("projects.json", "[]")
        archive.writestr("conversations.json", document() if data is None else data)
    return path


def put_folder(path: Path, data: bytes | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "conversations.json").write_bytes(document(indent=None) if data is None else data)
    (path / "users.json").write_text("[]")
    return path
